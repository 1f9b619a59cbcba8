"""One training command for every model kind: ``schedlab train ENV``.

A generalisation of the recipe that makes schedlab's RLScheduler agent beat the best
heuristic (:mod:`schedlab.training.rlscheduler`): behaviour cloning of a heuristic,
then evolution strategies on the weights of a small scorer, each member scored on whole
episodes relative to the heuristic, then optionally PPO, the best weights of all stages
kept on validation episodes, and the best of several seeds kept the same way. It
trains in any Gymnasium environment with a Discrete (optionally masked) action space
over a flat Box observation.

- :mod:`~schedlab.training.config`: :class:`TrainConfig`, checked up front;
- :mod:`~schedlab.training.policy`: :class:`MLPPolicy`, the scorer and its flat weights
  (:class:`~schedlab.training.policy.Scorer`, what every scorer shares);
- :mod:`~schedlab.training.kernel`: :class:`KernelScorer` (``policy=kernel``), one MLP
  shared by every action, reading that action's row of the observation;
- :mod:`~schedlab.training.heuristics`: env-level heuristics (teachers, yardsticks);
- :mod:`~schedlab.training.episodes`: whole episodes and the tasks workers run;
- :mod:`~schedlab.training.imitation`: behaviour cloning;
- :mod:`~schedlab.training.search`: one generation of evolution strategies on an executor;
- :mod:`~schedlab.training.ppo`: the optional PPO stage from the search's best weights;
- :mod:`~schedlab.training.checkpoint`: the state ``--resume`` goes on from;
- :mod:`~schedlab.training.outputs`: model.pt, settings.json, curve.csv/png;
- :mod:`~schedlab.training.run`: :func:`train`, the stages top to bottom;
- :mod:`~schedlab.training.select`: the best of several trainings (seeds) of one model,
  judged on their validation episodes only;
- :mod:`~schedlab.training.folders`: a scenario's trainings, one folder each
  (``schedlab train SCENARIO``);
- :mod:`~schedlab.training.rlscheduler`: RLScheduler's own pipeline (its kernel policy,
  ES, PPO, checkpoints and the choice among seeds), which the recipe above generalises.

The package sits below ``experiment`` (whose CLI opens the executor and calls
:func:`train`) and above ``envs``.
"""

from schedlab.training.config import TrainConfig
from schedlab.training.kernel import KernelScorer
from schedlab.training.outputs import load_policy
from schedlab.training.policy import MLPPolicy
from schedlab.training.run import TrainResult, train

__all__ = ["KernelScorer", "MLPPolicy", "TrainConfig", "TrainResult", "load_policy", "train"]
