"""``Machine-v0``: the Gymnasium environment over any schedlab machine.

``env.py`` (:class:`MachineEnv`), ``config.py`` (its settings and rewards' names),
``jobs.py`` (its workloads), ``obs.py`` (the observation), ``reward.py`` (the reward
integrals) and ``agent_policy.py`` (a trained agent as an ordinary machine policy).
Each name is imported from its defining module; this package re-exports nothing.
"""
