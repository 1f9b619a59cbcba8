"""``RLScheduler-v0``: RLScheduler's environment (Zhang et al., SC 2020) over a log's windows.

``env.py`` (the environment), ``obs.py`` (the job features), ``model_files.py`` (a trained
model's files) and ``trained/`` (the shipped models). The kernel policy the models use is
``schedlab.envs.kernel_policy`` (its module path is inside every saved model); the training
pipeline is ``schedlab.training.rlscheduler``. This package re-exports nothing.
"""
