"""Training learned schedulers: the search, its checkpoints, and the choice among seeds.

``rlscheduler/`` is the recipe that won on RLScheduler's protocol (imitation, evolution
strategies on the scorer's weights, PPO, the best weights kept on validation, the choice
among seeds). This package re-exports nothing.
"""
