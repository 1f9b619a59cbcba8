"""Helpers that serve one seed paper each; each module's docstring names its paper.

- :mod:`.site_state`: a grid site's state as vectors for a learner (seed 001);
- :mod:`.site_workloads`: the workloads of seed 001's grid site;
- :mod:`.fair_share`: fair share and responsiveness utilities (seed 001);
- :mod:`.estimates`: runtime estimates, oracle or estimated (seed 001);
- :mod:`.responsive_tables`: the tables of seed 001's reproduction;
- :mod:`.site_measures`: what a replication of seed 001's site is measured by;
- :mod:`.deeprm_jobs`: DeepRM job sequences (seed 002);
- :mod:`.ring_bounds`: bounds on the server network's efficiency G (seed 004);
- :mod:`.collectives_tables`: the tables of seed 004's reproduction (gains, Tables I-IV);
- :mod:`.rlscheduler_draw`: RLScheduler's draw of window starts (Zhang et al., SC 2020);
- :mod:`.rlscheduler_published`: RLScheduler's published table (Zhang et al., SC 2020).
"""
