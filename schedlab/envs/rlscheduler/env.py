"""RLScheduler's protocol (Zhang et al., SC 2020) as a Gymnasium environment over schedlab's Machine.

Each episode replays ``sequence`` consecutive jobs of a real log (256 by default) on an
empty machine, its start drawn as RLScheduler draws it: uniform on
``[sequence, N - sequence - 1)``, N the log's jobs (or ``draw_within``; with
``draw_tail`` below 1, from the last share of them only), from the
episode's named stream (the Generator Gymnasium seeds from ``reset(seed=...)``).

The machine is RLScheduler's: MaxNodes whole nodes, its loader, its order of
same-instant events (:func:`~schedlab.processes.machine.replay.replay_model` under
``compat="rlscheduler"``). At each decision the agent sees up to ``queue`` (128)
waiting jobs (:mod:`schedlab.envs.rlscheduler.obs`) and picks one: the machine
*commits* to it. A job that does not fit is waited for; with ``backfill``, EASY
backfills around it meanwhile (RLScheduler's variant: FCFS order, ending strictly
before the committed job's reservation). This is
:class:`~schedlab.policies.backfilling.Committed` with the agent in place of the score.

The reward is 0 until the last job of the sequence has started, then minus the
sequence's score (``score_type``): mean bounded slowdown (``bsld``, 10 s), mean
``wait``, mean ``turnaround``, or, for ``utilization``, plus the CPUs' busy
fraction from the first submit to the last start (RLScheduler's reading). Where one
job waits alone the choice is forced and the agent is not asked (``ask_single=True``
asks it anyway, as RLScheduler does); the schedule is the same. An invalid action (a
padding slot) commits to the oldest waiting job and is counted in ``info``.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import simpy

from schedlab.envs.rlscheduler.obs import FEATURES, LogFeatures, log_features, observe, shown_rows, visible_jobs
from schedlab.envs.rlscheduler.scorer import KernelScorer, greedy_policy
from schedlab.model.contracts.machine import MachineView
from schedlab.model.core.fields import number, renamed_fields, validate
from schedlab.model.core.job import Job
from schedlab.model.formats.logs import BSLD_THRESHOLD, LoadedLog, load_log, log_path
from schedlab.policies.backfilling import Committed
from schedlab.processes.machine.replay import replay_model

__all__ = ["SCORE_TYPES", "ModelChooser", "RLSchedulerConfig", "RLSchedulerEnv", "sequence_score", "sequence_scores"]

#: what an episode's reward measures
SCORE_TYPES = ("bsld", "wait", "turnaround", "utilization")


@dataclass(frozen=True)
class RLSchedulerConfig:
    """The protocol's settings (RLScheduler's names in brackets).

    Parameters
    ----------
    log
        An SWF log: a path, or a name in ``logs_dir`` (``lublin_256``).
    backfill
        EASY backfilling around the committed job (``backfil``).
    score_type
        ``bsld``, ``wait``, ``turnaround`` or ``utilization`` (``job_score_type`` 0-3).
    sequence
        Jobs per episode (``JOB_SEQUENCE_SIZE``, 256).
    queue
        Waiting jobs shown and choosable (``MAX_QUEUE_SIZE``, 128).
    draw_within
        Draw episode starts among the first N jobs (``batch_job_slice``; 0: all).
    draw_tail
        Draw episode starts from the last this share of those jobs only (1: all of them):
        training on the jobs nearest those evaluated, for a log whose load drifts.
    ask_single
        Ask the agent also when one job waits alone (RLScheduler does; the schedule is the same).
    logs_dir
        Where logs named without a path are found.
    """

    log: str = "lublin_256"
    backfill: bool = False
    score_type: str = "bsld"
    sequence: int = number(256, low=1, integer=True)
    queue: int = number(128, low=1, integer=True)
    draw_within: int = number(0, low=0, integer=True)
    draw_tail: float = number(1.0, gt=0, high=1)
    ask_single: bool = False
    logs_dir: str = "../shared/traces"

    def __post_init__(self) -> None:
        validate(self)
        if self.score_type not in SCORE_TYPES:
            raise ValueError(f"score_type must be one of {', '.join(SCORE_TYPES)}, got {self.score_type!r}")
        n = self.n_jobs
        if self.sequence >= n - self.sequence - 1:
            raise ValueError(
                f"sequence {self.sequence}: log {self.log!r} gives {n} jobs to draw from; "
                f"episodes of {self.sequence} need more than {2 * self.sequence + 1}"
            )

    @property
    def path(self) -> Path:
        """The file of the log ``log`` (a path, or a name under ``logs_dir``); not found: a ``ValueError``."""
        try:
            return log_path(self.log, Path(self.logs_dir))
        except FileNotFoundError as exc:
            raise ValueError(f"log: {exc}") from None

    @property
    def loaded(self) -> LoadedLog:
        """The log's jobs, loaded as RLScheduler reads them (``compat="rlscheduler"``)."""
        return load_log(str(self.path), "rlscheduler")

    @property
    def n_jobs(self) -> int:
        """How many jobs episodes are drawn from: the whole log, or its first ``draw_within`` if set."""
        n = len(self.loaded.jobs)
        return min(n, self.draw_within) if self.draw_within else n

    @property
    def first_start(self) -> int:
        """The earliest start of an episode drawn at random: within ``draw_tail``'s last share of :attr:`n_jobs`."""
        return tail_start(self.n_jobs, self.sequence, self.draw_tail)


def tail_start(n_jobs: int, length: int, share: float) -> int:
    """The earliest start of a sequence of ``length`` drawn from the last ``share`` of ``n_jobs`` jobs.

    RLScheduler draws starts on ``[length, n_jobs - length - 1)``; a share below 1 raises
    the low end, never past the last start the draw can give, so a share too small for
    one sequence still draws the range's last one.
    """
    tail = n_jobs - round(n_jobs * share)  # 0 at 1: the whole range
    return min(max(length, tail), n_jobs - length - 2)


def sequence_score(jobs: list[Job], starts: dict[int, float], score_type: str, procs: int) -> float:
    """The sequence's score as RLScheduler computes it (lower is better, but ``utilization``: higher)."""
    waits = np.array([starts[j.id] - j.submit for j in jobs])
    runs = np.array([j.runtime for j in jobs])
    if score_type == "bsld":
        return float(np.mean(np.maximum(1.0, (waits + runs) / np.maximum(runs, BSLD_THRESHOLD))))
    if score_type == "wait":
        return float(waits.mean())
    if score_type == "turnaround":
        return float((waits + runs).mean())
    span = max(starts.values()) - jobs[0].submit
    work = float(sum(j.runtime * j.cpus for j in jobs))
    return work / (span * procs) if span > 0 else 0.0


def sequence_scores(
    cfg: RLSchedulerConfig, chooser: Callable[[bool], Committed], starts: Sequence[int], length: int | None = None
) -> list[float]:
    """Each sequence's score (``length`` jobs from each start; default ``cfg.sequence``) under a policy.

    ``chooser(backfill)`` makes the policy (a heuristic's :class:`Committed`, a
    :class:`ModelChooser`); each sequence is replayed on an empty machine in RLScheduler's
    loop, as an episode is, and scored by :func:`sequence_score`.
    """
    loaded = cfg.loaded
    out = []
    for start in starts:
        jobs = list(loaded.jobs[start : start + (length or cfg.sequence)])
        model = replay_model(simpy.Environment(), jobs, loaded.cpus, chooser(cfg.backfill), compat="rlscheduler").run()
        out.append(sequence_score(jobs, {r.id: r.start for r in model.records()}, cfg.score_type, loaded.cpus))
    return out


class _AgentCommitted(Committed):
    """RLScheduler's loop whose next job is the agent's answer: asks (returns ``None``) until it has one."""

    def __init__(self, backfill: bool, ask_single: bool) -> None:
        super().__init__("fcfs", backfill)
        self.ask_single = ask_single
        self.answer: Job | None = None
        self.asked = False

    def choose(self, view: MachineView) -> Job | None:
        if self.answer is not None:
            job, self.answer = self.answer, None
            return job
        if len(view.waiting) == 1 and not self.ask_single:
            return view.waiting[0]
        self.asked = True
        return None


class RLSchedulerEnv(gym.Env[np.ndarray, np.int64]):
    """RLScheduler's scheduling environment over a schedlab Machine (see the module's notes).

    Observations are flat: ``queue`` rows of :data:`~schedlab.envs.rlscheduler.obs.FEATURES`
    floats. ``action_masks()`` gives the valid slots (MaskablePPO reads it).
    ``reset(options={"start": i})`` replays the sequence starting at job position ``i``
    (evaluation); ``options={"sequence": L}`` changes its length for that episode.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4}  # type: ignore[misc]  # gymnasium.Env annotates it as an instance variable; it is class data (ruff: ClassVar)

    def __init__(
        self, config: RLSchedulerConfig | None = None, *, render_mode: str | None = None, **overrides: Any
    ) -> None:
        cfg = config or RLSchedulerConfig()
        if overrides:
            cfg = RLSchedulerConfig(
                **{**cfg.__dict__, **renamed_fields(RLSchedulerConfig, overrides, "RLSchedulerEnv")}
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        self.render_mode = render_mode
        self.config = cfg
        loaded = cfg.loaded
        self.loaded = loaded
        self.features: LogFeatures = log_features(str(cfg.path), loaded.cpus * loaded.procs_per_node)
        self.observation_space = gym.spaces.Box(0.0, 1.0, shape=(cfg.queue * FEATURES,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(cfg.queue)
        self._shown: list[Job] = []
        self._jobs: list[Job] = []
        self._sim: simpy.Environment | None = None
        self._policy: _AgentCommitted | None = None
        self._invalid = 0
        self.start = 0
        self.score = math.nan

    # ------------------------------------------------------------------ Gymnasium
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode: a sequence drawn at random (or at ``options["start"]``), run to its first choice.

        A drawn sequence in which no decision offers a choice is drawn again (up to 1000
        times), since it has nothing to learn; a given ``start`` is kept even then.
        """
        super().reset(seed=seed)
        options = options or {}
        cfg = self.config
        length = int(options.get("sequence", cfg.sequence))
        for _ in range(1000):  # a sequence in which no decision offers a choice has nothing to learn: draw again
            if "start" in options:
                start = int(options["start"])
                last = len(self.loaded.jobs) - length
                if not 0 <= start <= last:
                    raise ValueError(f"start {start}: a sequence of {length} jobs starts in 0..{last}")
            else:
                low = tail_start(cfg.n_jobs, length, cfg.draw_tail)
                start = int(self.np_random.integers(low, cfg.n_jobs - length - 1))
            self.start = start
            self._jobs = list(self.loaded.jobs[start : start + length])
            self._sim = simpy.Environment()
            self._policy = _AgentCommitted(cfg.backfill, cfg.ask_single)
            self._model = replay_model(self._sim, self._jobs, self.loaded.cpus, self._policy, compat="rlscheduler")
            self._machine = self._model["machine"]
            self._invalid, self.score = 0, math.nan
            if not self._run():
                break
            self._finish()  # already over: every job started without a choice (its score is known)
            if "start" in options:
                break
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Start the job in slot ``action`` and run to the next choice; the reward comes at the end only.

        An action past the shown jobs is counted in ``info["invalid_actions"]`` and starts
        the first waiting job instead. The end reward is the negated score (the score itself
        for ``utilization``, where higher is better).
        """
        policy = self._policy
        if policy is None or not policy.asked:
            raise RuntimeError("call reset() before step(), and again after the episode ends")
        slot = int(action)
        if 0 <= slot < len(self._shown):
            job = self._shown[slot]
        else:
            self._invalid += 1
            job = self._machine.waiting[0]
        policy.asked, policy.answer = False, job
        self._machine.decide()
        done = self._run()
        reward = self._finish() if done else 0.0
        return self._observe(), reward, done, False, self._info()

    @property
    def done(self) -> bool:
        """Is the episode over (every job started)? After ``reset`` too, where no decision offered a choice."""
        return self._policy is None or not self._policy.asked

    def _finish(self) -> float:
        """Score the sequence; the end reward."""
        starts = {r.id: r.start for r in self._machine.all_records()}
        self.score = sequence_score(self._jobs, starts, self.config.score_type, self.loaded.cpus)
        return self.score if self.config.score_type == "utilization" else -self.score

    def action_masks(self) -> np.ndarray:
        """The slots holding a waiting job (bool, length ``queue``)."""
        mask = np.zeros(self.config.queue, dtype=bool)
        mask[: len(self._shown)] = True
        return mask

    # ------------------------------------------------------------------ helpers
    def _run(self) -> bool:
        """Run the model until the agent is asked (False) or every job of the sequence has started (True)."""
        sim, policy, machine = self._sim, self._policy, self._machine
        assert sim is not None and policy is not None
        n = len(self._jobs)
        while not policy.asked:
            if machine.waiting == [] and len(machine.records) + len(machine.running) == n:
                self._shown = []
                return True
            sim.step()
        self._shown = visible_jobs(machine.waiting, self.config.queue)
        return False

    def _observe(self) -> np.ndarray:
        if not self._shown:
            return observe([], 0.0, 0, self.features, self.config.queue)
        return observe(self._shown, self._machine.env.now, self._machine.free, self.features, self.config.queue)

    def render(self) -> str | None:  # type: ignore[override, unused-ignore]  # gymnasium 1.0-1.2 type it as a TypeVar
        """The clock, the free nodes and the shown jobs, as text (``render_mode="ansi"``)."""
        if self.render_mode is None:
            return None
        if self._policy is None:
            return "RLSchedulerEnv (not reset)"
        m = self._machine
        lines = [f"t={m.env.now:g}  free {m.free}/{m.capacity}  waiting={len(m.waiting)}  running={len(m.running)}"]
        lines += [
            f"  slot {i}: job {j.id}: {j.cpus} nodes, requested {j.requested_time:g} s, waited "
            f"{m.env.now - j.submit:g} s"
            for i, j in enumerate(self._shown)
        ]
        return "\n".join(lines)

    def _info(self) -> dict[str, Any]:
        info = {
            "start": self.start,
            "time": self._machine.env.now,
            "waiting": len(self._machine.waiting),
            "invalid_actions": self._invalid,
        }
        if not math.isnan(self.score):  # the sequence's score, once it is known (at the end)
            info["score"] = self.score
        return info


class ModelChooser(Committed):
    """A trained model as a machine policy: RLScheduler's loop, committing to the job the model picks.

    It sees what the environment's agent sees (:func:`~schedlab.envs.rlscheduler.obs.observe`)
    and picks greedily (``deterministic``); run it with
    :func:`~schedlab.processes.machine.replay.replay_model` under ``compat="rlscheduler"``, on
    windows of any length, beside the heuristics on the same machinery.
    """

    def __init__(
        self, model: Any, features: LogFeatures, queue: int = 128, backfill: bool = False, deterministic: bool = True
    ) -> None:
        super().__init__("fcfs", backfill)
        # greedy, a kernel model chooses through its scorer as its training validated it (scorer.py)
        self.model = greedy_policy(model) if deterministic else model
        self.features, self.queue, self.deterministic = features, queue, deterministic
        # MaskablePPO takes the mask; PPO's kernel policy reads it from the observation
        self._masks = "action_masks" in inspect.signature(model.predict).parameters
        # a KernelScorer scores the shown rows alone: the same rows and scores as its predict() on the
        # padded observation, without the padding and the mask (a search task in 0.84x the CPU time, measured:
        # benchmarks/README.md, "train_profile.py")
        self._scorer = self.model if type(self.model) is KernelScorer else None

    def choose(self, view: MachineView) -> Job | None:
        """The shown job the model picks (the first shown for an empty slot); a lone waiting job without asking."""
        waiting = view.waiting
        if len(waiting) == 1:
            return waiting[0]
        shown = visible_jobs(waiting, self.queue)
        if self._scorer is not None:  # KernelScorer.predict's choice: the first of the highest scores
            return shown[int(np.argmax(self._scorer.scores(shown_rows(shown, view.now, view.free, self.features))))]
        obs = observe(shown, view.now, view.free, self.features, self.queue)
        mask = np.zeros(self.queue, dtype=bool)
        mask[: len(shown)] = True
        kw = {"action_masks": mask} if self._masks else {}
        action, _ = self.model.predict(obs, deterministic=self.deterministic, **kw)
        slot = int(action)
        return shown[slot] if slot < len(shown) else shown[0]
