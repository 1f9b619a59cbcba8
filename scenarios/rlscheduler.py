"""RLScheduler's experiment (Zhang et al., SC 2020): a kernel policy learns a queue order on a real log.

Training: schedlab's kernel policy (:mod:`schedlab.envs.kernel_policy`, an sb3-contrib
MaskablePPO model) on ``schedlab/RLScheduler-v0`` episodes of 256 consecutive jobs of the
log, each on an empty machine (:mod:`schedlab.envs.rlscheduler.env`), once per training
seed, in the stages of :func:`~schedlab.training.rlscheduler.train.train`: by default
``search_generations`` of evolution strategies on the scorer's weights, then
``train_steps`` of PPO, keeping the weights best on validation sequences. One model per
log serves both backfilling settings, as in RLScheduler; it is trained and validated in
both (``both_backfills``; RLScheduler trains without). Each model goes into
``out_dir/<log>/seed<k>.zip`` with ``seed<k>.json`` (settings, learning curve, CPU
seconds); until it is saved, ``seed<k>.checkpoint.npz`` holds the training so far, and
a run started again with the same settings resumes from it. The run's folder gets the
evaluated models' learning curves (``learning_curves.csv`` and ``.png``).
``model=shipped`` (the default) uses the models shipped with schedlab for the four
logs of the paper when they exist (and trains where none is shipped); ``model=train``
always trains; any other value is a folder holding ``seed<k>.zip``. ``seeds`` left
empty (the default) means the seeds of the models in the folder evaluated (the shipped
one for the log, or the one given), whichever they are, and 0, 1, 2 where there are
none or ``model=train``.

A model per backfilling setting, as RLScheduler trains them: ``easy_model`` gives the EASY
cells their own models, a folder of ``seed<k>.zip`` whose seeds are all evaluated, each
trained with EASY alone (``--set both_backfills=false --set train_backfill=true``) or in
both settings (one trained without backfilling alone is refused); the cells without
backfilling keep ``model``'s. ``shipped`` (the default) takes those schedlab
ships for the log's EASY cells (``trained/<log>/easy/``, where there are) beside its
shipped models, never beside models trained or given; empty: ``model``'s serve both.

Evaluation: the published protocol, RLScheduler's test script's windows (seed 1, 10
windows of 1,024 jobs, SDSC-SP2 and HPC2N within their first 10,000 jobs), each on an
empty machine, RLScheduler's loop without and with EASY backfilling. Cells are policy x
backfill: ``rl`` (one cell per training seed, greedy), and nine heuristics: FCFS, WFP3,
UNICEP, SJF, F1 (RLScheduler's five, WFP3 and UNICEP in RLScheduler's reading, as its
table), F2, F3, F4 (Carastan-Santos and de Camargo, SC 2017) and SAF; their ``seed`` is
-1: no training seed. ``report`` prints the table: RL as mean ± half the range over
seeds, beside RLScheduler's published RL and the best of the nine, and writes
``rlscheduler_table.csv``.

Jobs never trained on: ``training_range`` (``75%``, or ``10000`` for the protocol's first
10,000 jobs) keeps training episodes and validation within the first part of the log and
draws the evaluation windows (``held_out_windows`` stream of ``eval_seed``) wholly from
the jobs after it; a model trained on jobs past the range is refused. ``validation_tail``
(``0.25``) draws the validation windows, which choose the weights kept, from the range's
last share only: the jobs nearest those evaluated, for a log whose load drifts;
``train_tail`` does the same for the training sequences of the search and PPO.
``train_sequence`` sets the training sequences' length (RLScheduler's 256; the
evaluation windows stay ``length`` long).
``schedlab train scenarios/rlscheduler.py`` trains the models (``train_models``), their
search on the command's executor.

One model for many logs: ``train_logs`` (two or more distinct logs, e.g. the paper's four)
trains one model per seed on a mixture of them into ``out_dir/mix/seed<k>.zip`` (or
``--out``): each training sequence, validation window and SJF baseline is drawn from one
of the logs by a named stream of the seed (:mod:`schedlab.envs.rlscheduler.mixture`),
each log within its protocol range (SDSC-SP2 and HPC2N: the first 10,000 jobs; any other
log: all of it; ``draw_within`` and ``training_range`` apply to ``log`` alone and are
refused beside it). ``log`` is then the log evaluated, on its own windows as above; a
mixture's model (``train_logs``, or ``model=`` a folder of one) runs on any log, and
where schedlab ships models for ``log`` they are evaluated beside it (cells ``own``), the
table giving ``own_mean``, ``rl_vs_own`` (the mixture's excess over them) and
``rl_minus_best``.

    schedlab run scenarios/rlscheduler.py --quick
    schedlab run scenarios/rlscheduler.py --set log=SDSC-SP2-1998-4.2-cln
    schedlab run scenarios/rlscheduler.py --set model=train --set train_steps=200000 --set seeds=0,1,2
    schedlab run scenarios/rlscheduler.py --set log=HPC2N-2002-2.2-cln --set training_range=10000
    schedlab train scenarios/rlscheduler.py --set log=HPC2N-2002-2.2-cln --set seeds=0 --workers 16 --out my_models
    schedlab train scenarios/rlscheduler.py --set seeds=0 --out my_mix \\
        --set train_logs=HPC2N-2002-2.2-cln,SDSC-SP2-1998-4.2-cln,lublin_256,lublin_256_new2
    schedlab run scenarios/rlscheduler.py --set log=NASA-iPSC-1993-3.1-cln --set model=my_mix
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import simpy

from schedlab.envs.rlscheduler.env import SCORE_TYPES, ModelChooser, RLSchedulerConfig
from schedlab.envs.rlscheduler.mixture import Mixture, mixture_problem
from schedlab.envs.rlscheduler.model_files import (
    check_model,
    load_model,
    read_settings,
    training_differences,
    weights_sha256,
)
from schedlab.envs.rlscheduler.model_folders import ModelFolders
from schedlab.envs.rlscheduler.obs import log_features
from schedlab.experiment import cli_main
from schedlab.model.core.fields import folder, items, number, validate
from schedlab.model.core.streams import Streams
from schedlab.model.formats.logs import evaluate, log_name, log_path
from schedlab.model.formats.window_draw import rlscheduler_starts
from schedlab.model.records.run_facts import run_facts
from schedlab.papers.rlscheduler_published import LOGS
from schedlab.papers.rlscheduler_tables import row_line, run_caveat, table_rows
from schedlab.policies.backfilling import Committed
from schedlab.processes import Model
from schedlab.processes.machine.replay import replay_model
from schedlab.training.rlscheduler.curves import write_learning_curves
from schedlab.training.rlscheduler.settings import HEURISTICS, TrainSettings
from schedlab.training.rlscheduler.train import checkpoint_path, train_into


@dataclass(frozen=True)
class Config:
    #: the log, by name in logs_dir (the paper's: lublin_256, SDSC-SP2-1998-4.2-cln, HPC2N-2002-2.2-cln,
    #: lublin_256_new2) or by path
    log: str = "lublin_256"
    #: where logs named without a path are found
    logs_dir: str = "../shared/traces"
    #: backfilling settings evaluated: none, easy
    backfills: tuple[str, ...] = ("none", "easy")
    #: the policies evaluated beside rl
    heuristics: tuple[str, ...] = HEURISTICS
    #: what the reward measures: bsld, wait, turnaround, utilization
    score_type: str = "bsld"
    #: training seeds, one model each (empty: those of the models in the folder evaluated, else 0, 1, 2)
    seeds: tuple[int, ...] = items((), nonempty=False, distinct=True)
    #: shipped (the package's models where they exist), train, or a folder of seed<k>.zip
    model: str = "shipped"
    #: models for the EASY cells alone, e.g. trained with EASY only (both_backfills=false, train_backfill=true), as
    #: RLScheduler trains a model per setting: a folder of seed<k>.zip (all its seeds), or shipped (with
    #: model=shipped, those shipped for the log's EASY cells where there are); empty: model's serve both settings
    easy_model: str = "shipped"
    #: heuristic to imitate before the search and PPO (sjf, f2, ...; best: the best of the nine on the
    #: validation windows; empty: start from random weights)
    imitate: str = ""
    #: generations of evolution strategies on the scorer's weights (0: PPO only)
    search_generations: int = number(200, low=0)
    #: training sequences each member of a generation is scored on
    search_episodes: int = number(32, low=1)
    #: jobs in each training sequence of the search and PPO: RLScheduler's 256, or the evaluation windows' 1,024
    #: (at 1,024, search_episodes=8 scores a member on as many jobs as the default's 32 x 256)
    train_sequence: int = number(256, low=2, integer=True)
    #: PPO's environment steps per seed, after the search (0: none)
    train_steps: int = number(16_384, low=0, work=True)
    #: validation windows of 1,024 jobs, drawn by the seed from the training range: the weights kept are the best
    #: on them (more: a steadier choice, at one episode per window and setting each validation)
    validation_windows: int = number(16, low=1)
    #: draw the validation windows from the last this share of the training range only (0.25: its last quarter,
    #: the jobs nearest those evaluated after a training_range; 1: all of it)
    validation_tail: float = number(1.0, gt=0, high=1)
    #: draw the training sequences (the search's and PPO's) from the last this share of the training range only
    #: (as validation_tail does for the validation windows; 1: all of it)
    train_tail: float = number(1.0, gt=0, high=1)
    #: train in the other backfilling setting (RLScheduler trains without; both_backfills overrides)
    train_backfill: bool = False
    #: train and validate with and without EASY backfilling (the one model serves both)
    both_backfills: bool = True
    #: PPO's learning rate
    learning_rate: float = number(3e-4, gt=0, high=1)
    #: torch device for training: cpu (the default: a small network is fastest there) or cuda
    device: str = "cpu"
    #: evaluation windows, their length, and the seed of their draw (RLScheduler's test script's)
    windows: int = number(10, low=1, work=True)
    length: int = number(1024, low=2, work=True)
    eval_seed: int = number(1, low=0)
    #: draw the windows among the first N jobs (0: the paper's setting for this log, else all)
    draw_within: int = number(0, low=0)
    #: where trained models go (empty: results/rlscheduler_models)
    out_dir: str = folder()
    #: evaluate the models trained on this other log instead (generalisation; empty: log's own)
    trained_on: str = ""
    #: train on the first part of the log only, a share ("75%") or a count of jobs ("10000"), and draw the
    #: evaluation windows only from the jobs after it (empty: RLScheduler's protocol, the same jobs for both)
    training_range: str = ""
    #: train one model on a mixture of these logs (two or more, by name in logs_dir or by path; each sequence's
    #: log drawn by the seed, each log within its protocol range); ``log`` is then the log evaluated (empty: train
    #: on ``log`` alone)
    train_logs: tuple[str, ...] = items((), nonempty=False)

    def __post_init__(self) -> None:
        validate(self)
        self._check_train_logs()
        if not self.seeds:  # frozen: the resolved seeds are the config's own, as recorded with the run
            object.__setattr__(self, "seeds", self.folders.found_seeds() or (0, 1, 2))
        if self.score_type not in SCORE_TYPES:
            raise ValueError(f"score_type must be one of {', '.join(SCORE_TYPES)}, got {self.score_type!r}")
        bad = sorted(set(self.backfills) - {"none", "easy"}) + sorted(set(self.heuristics) - set(HEURISTICS))
        if bad:
            raise ValueError(
                f"unknown backfills or heuristics {bad}: backfills none, easy; heuristics {', '.join(HEURISTICS)}"
            )
        if self.model not in ("shipped", "train") and not (self.model and Path(self.model).expanduser().is_dir()):
            raise ValueError(f"model must be shipped, train or a folder of seed<k>.zip, got {self.model!r}")
        if self.easy_model not in ("", "shipped") and not Path(self.easy_model).expanduser().is_dir():
            raise ValueError(f"easy_model must be shipped, empty or a folder of seed<k>.zip, got {self.easy_model!r}")
        if (
            self.trained_on
            and self.trained_on not in {log.name for log in LOGS}
            and not Path(self.trained_on).expanduser().is_file()
        ):
            raise ValueError(
                f"trained_on must be one of {', '.join(log.name for log in LOGS)}, a log file or empty, "
                f"got {self.trained_on!r}"
            )
        if self.device not in ("cpu", "cuda", "auto"):
            raise ValueError(f"device must be cpu, cuda or auto, got {self.device!r}")
        n = len(self.env_config(False).loaded.jobs)  # the log exists and holds the episodes
        if self.training_range:
            if self.draw_within:
                raise ValueError(
                    "training_range and draw_within both set: the training range is where episodes are drawn"
                )
            if n - self.train_jobs <= self.length:
                raise ValueError(
                    f"training_range {self.training_range!r}: the {n - self.train_jobs} jobs after the first "
                    f"{self.train_jobs} of {self.log!r} cannot hold a window of {self.length}"
                )
        n = min(n, self.within) if self.within else n
        if self.length >= n - self.length - 1:  # and the windows (drawn only when the run starts)
            raise ValueError(
                f"length {self.length}: windows are drawn among {n} jobs of {self.log!r}; "
                f"they need more than {2 * self.length + 1}"
            )
        self.train_settings(0)  # one-line errors, before training
        self.check_trained()

    def _check_train_logs(self) -> None:
        """Refuse, in one line naming the setting and value, a mixture that is not two or more distinct logs."""
        if not self.train_logs:
            return
        given = ",".join(self.train_logs)
        for name in self.train_logs:
            try:
                log_path(name, Path(self.logs_dir))
            except FileNotFoundError:
                raise ValueError(
                    f"train_logs={given}: no log {name!r} (neither a file nor a log in {self.logs_dir})"
                ) from None
        problem = mixture_problem([log_name(n) for n in self.train_logs])
        if problem:
            raise ValueError(f"train_logs={given}: {problem}")
        for other in ("training_range", "trained_on"):
            if getattr(self, other):
                raise ValueError(
                    f"train_logs={given} and {other} both set: a mixture trains each log within its protocol range"
                )

    def check_trained(self) -> None:
        """Refuse a model an earlier run trained into ``folders.trained_dir`` with other settings than this run's.

        Found there, it would be evaluated as if this run had trained it: a ``--quick``
        run's 2 generations passing for a full run's 200. Refused, not trained again,
        since training again would replace it (hours of training, maybe): the message
        gives the three ways on.
        """
        if self.model != "shipped":
            return  # model=train trains again anyway; a folder given is evaluated as it is
        for seed in self.seeds:
            path = self.folders.path(seed)
            if path.parent != self.folders.trained_dir or not path.is_file():
                continue  # shipped, or not trained yet
            differences = training_differences(path, self.train_config(self.train_backfill), self.train_settings(seed))
            if differences:
                raise ValueError(
                    f"model {path} was trained with other settings than this run's: {', '.join(differences)}; "
                    f"add --set model=train to train it again (replacing it), --set out_dir=DIR to train into "
                    f"another folder, or --set model={path.parent} to evaluate it as it is"
                )

    @property
    def train_jobs(self) -> int:
        """The training range's end: the first this many jobs of the log (0: no training range)."""
        text = self.training_range.strip()
        if not text:
            return 0
        n = len(self.env_config_of(0).loaded.jobs)
        try:
            jobs = round(n * float(text[:-1]) / 100) if text.endswith("%") else int(text)
        except ValueError:
            jobs = -1
        if not 0 < jobs < n:
            raise ValueError(
                f"training_range must be a share of the log's jobs (75%) or a count below its {n} jobs, "
                f"got {self.training_range!r}"
            )
        return jobs

    @property
    def within(self) -> int:
        """Where training episodes (and, without a training range, evaluation windows) are drawn: the first N jobs."""
        if self.training_range:
            return self.train_jobs
        paper = {log.name: log.draw_within for log in LOGS}
        return self.draw_within or paper.get(self.log, 0)

    def env_config(self, backfill: bool) -> RLSchedulerConfig:
        return self.env_config_of(self.within, backfill)

    def train_config(self, backfill: bool) -> RLSchedulerConfig | Mixture:
        """What the models are trained on: ``log``'s settings, or the mixture of ``train_logs``.

        In a mixture each log is drawn within its protocol range (RLScheduler's first 10,000
        jobs for SDSC-SP2 and HPC2N; all of any other log).
        """
        if not self.train_logs:
            return self.env_config(backfill)
        paper = {log.name: log.draw_within for log in LOGS}
        return Mixture(
            tuple(
                RLSchedulerConfig(
                    log=name,
                    backfill=backfill,
                    score_type=self.score_type,
                    draw_within=paper.get(log_name(name), 0),
                    draw_tail=self.train_tail,
                    sequence=self.train_sequence,
                    logs_dir=self.logs_dir,
                )
                for name in self.train_logs
            )
        )

    def env_config_of(self, within: int, backfill: bool = False) -> RLSchedulerConfig:
        return RLSchedulerConfig(
            log=self.log,
            backfill=backfill,
            score_type=self.score_type,
            draw_within=within,
            draw_tail=self.train_tail,
            sequence=self.train_sequence,
            logs_dir=self.logs_dir,
        )

    def train_settings(self, seed: int) -> TrainSettings:
        """PPO's and the search's settings for training seed ``seed``."""
        return TrainSettings(
            steps=self.train_steps,
            seed=seed,
            learning_rate=self.learning_rate,
            device=self.device,
            eval_every=max(4096, self.train_steps // 4),
            imitate=self.imitate,
            search_generations=self.search_generations,
            search_episodes=self.search_episodes,
            validation=self.validation_windows,
            validation_tail=self.validation_tail,
            both_backfills=self.both_backfills,
        )

    def starts(self) -> list[int]:
        """The evaluation windows' starts: RLScheduler's draw, or with a training range, windows past it.

        Past the range, the windows are drawn from the named stream ``held_out_windows`` of
        ``eval_seed``, each wholly among the jobs after the first ``train_jobs``: jobs no
        training episode or validation window held.
        """
        n = len(self.env_config(False).loaded.jobs)
        if self.training_range:
            draw = Streams(self.eval_seed)["held_out_windows"]
            return [int(s) for s in draw.integers(self.train_jobs, n - self.length + 1, size=self.windows)]
        return rlscheduler_starts(n, self.length, self.windows, self.eval_seed, self.within)

    @property
    def folders(self) -> ModelFolders:
        """Where this run's models are: shipped, given, or trained into ``out_dir``."""
        return ModelFolders(
            model=self.model,
            easy_model=self.easy_model,
            log=self.log,
            trained_on=self.trained_on,
            mixture=bool(self.train_logs),
            score_type=self.score_type,
            seeds=self.seeds,
            out_dir=Path(self.out_dir or "results/rlscheduler_models"),
            train_jobs=self.train_jobs,
        )


QUICK = dict(
    windows=2,
    length=256,
    train_steps=2048,
    search_generations=2,
    search_episodes=2,
    heuristics=("sjf", "f1"),
)


def REPS(cfg: Config) -> int:
    """One replication per evaluation window."""
    return cfg.windows


def _train_seed(cfg: Config, seed: int, path: Path, executor: Any) -> Any:
    """Train seed ``seed``'s model into ``path`` (going on from its checkpoint); the model."""
    trained = f"mix of {','.join(cfg.train_logs)}" if cfg.train_logs else cfg.log
    return train_into(
        path, cfg.train_config(cfg.train_backfill), cfg.train_settings(seed), f"{trained} seed {seed}", executor
    )


def _train_missing(cfg: Config) -> None:
    if all(cfg.folders.takes_easy_models(backfill) for backfill in cfg.backfills):
        return  # model's models serve no cell of this run
    for seed in cfg.seeds:
        path = cfg.folders.path(seed)
        if path.is_file() and cfg.model != "train":
            continue
        if cfg.model not in ("shipped", "train") or cfg.trained_on:
            raise ValueError(f"model {path}: no such file")
        _train_seed(cfg, seed, path, None)


def train_models(cfg: Config, out: Path | None, executor: Any, resume: bool) -> list[tuple[Path, str]]:
    """``schedlab train scenarios/rlscheduler.py``: train a model per seed of ``cfg.seeds`` into ``out``.

    ``out`` (default: ``out_dir``'s folder for the log) gets ``seed<k>.zip`` and ``.json``,
    as ``model=train`` would; the search's members and the validation windows run on
    ``executor``, and the model is the same for any number of workers. A folder that
    already holds a seed's model or checkpoint is refused unless ``resume``: then a
    checkpoint is gone on from and a finished model is kept. Evaluate the models with
    ``schedlab run scenarios/rlscheduler.py --set model=OUT``.
    """
    folder = Path(out) if out is not None else cfg.folders.trained_dir
    for seed in cfg.seeds:  # every seed checked before the first trains
        path = folder / f"seed{seed}.zip"
        started = path.is_file() or checkpoint_path(path).is_file()
        if started and not resume:
            raise ValueError(f"--out {folder} holds seed {seed}'s training already: add --resume, or choose another")
    trained = []
    for seed in cfg.seeds:
        path = folder / f"seed{seed}.zip"
        if path.is_file():
            check_model(path, cfg.train_config(False))
            model = _model(str(path), cfg)
        else:
            model = _train_seed(cfg, seed, path, executor)
        trained.append((path, weights_sha256(model)))
    return trained


def _check_trained_with_easy(path: Path) -> None:
    """Refuse, in one line, a model for the EASY cells that never met EASY backfilling in its training."""
    settings = read_settings(path)
    if not settings["env"].get("backfill") and not settings["train"].get("both_backfills", False):
        raise ValueError(
            f"easy_model {path}: trained without backfilling alone (backfill=False, both_backfills=False); "
            "the EASY cells' models are trained with EASY (--set both_backfills=false --set train_backfill=true) "
            "or in both settings"
        )


def cells(cfg: Config) -> list[dict]:
    _train_missing(cfg)
    if cfg.folders.takes_easy_models("easy") and "easy" in cfg.backfills and not cfg.folders.easy_seeds():
        raise ValueError(f"easy_model {cfg.folders.easy()}: no seed<k>.zip there")
    # a model missing or trained with other settings stops the run here, before any work
    for backfill in cfg.backfills:
        for seed in cfg.folders.cell_seeds(backfill):
            path = cfg.folders.path(seed, backfill)
            check_model(path, cfg.env_config(False), other_log=bool(cfg.trained_on))
            if cfg.folders.takes_easy_models(backfill):
                _check_trained_with_easy(path)
            if not cfg.training_range or cfg.trained_on:
                continue
            trained_within = read_settings(path)["env"].get("draw_within", 0)
            if not 0 < trained_within <= cfg.train_jobs:
                raise ValueError(
                    f"model {path} was trained on episodes drawn from "
                    f"{f'the first {trained_within} jobs' if trained_within else 'the whole log'}, not within the "
                    f"training range's first {cfg.train_jobs}: add --set model=train to train it on the range"
                )
    out = []
    for backfill in cfg.backfills:
        own = cfg.folders.own_seeds(backfill)
        for seed in own:
            check_model(cfg.folders.own(backfill) / f"seed{seed}.zip", cfg.env_config(False))
        out += [{"policy": "rl", "seed": s, "backfill": backfill} for s in cfg.folders.cell_seeds(backfill)]
        out += [{"policy": "own", "seed": s, "backfill": backfill} for s in own]
        out += [{"policy": h, "seed": -1, "backfill": backfill} for h in cfg.heuristics]
    return out


@cache
def _model(path: str, cfg: Config):
    import torch

    torch.set_num_threads(1)
    return load_model(Path(path), cfg.env_config(False), other_log=bool(cfg.trained_on))


def build(env: simpy.Environment, cfg: Config, cell: dict, streams: Streams) -> Model:
    env_cfg = cfg.env_config(cell["backfill"] == "easy")
    loaded = env_cfg.loaded
    start = cfg.starts()[streams.replication]
    jobs = loaded.jobs[start : start + cfg.length]
    policy: Committed
    if cell["policy"] in ("rl", "own"):  # own: the model shipped for the log, beside a mixture's
        features = log_features(str(env_cfg.path), loaded.cpus * loaded.procs_per_node)
        if cell["policy"] == "own":
            path = cfg.folders.own(cell["backfill"]) / f"seed{cell['seed']}.zip"
        else:
            path = cfg.folders.path(cell["seed"], cell["backfill"])
        policy = ModelChooser(_model(str(path), cfg), features, env_cfg.queue, env_cfg.backfill)
    else:
        policy = Committed(cell["policy"], env_cfg.backfill)
    model = replay_model(env, jobs, loaded.cpus, policy, compat="rlscheduler")
    model.parts.update(cpus=loaded.cpus, window_start=start)
    return model


def measure(model: Model) -> dict[str, Any]:
    out: dict[str, Any] = evaluate(model.records(), model["cpus"])
    out["files"] = run_facts(model["cpus"])  # `schedlab plot`: the log's CPUs, its seconds
    return out


def report(results, out: Path) -> list[Path]:
    """The table: RL over seeds (mean ± half range), published RL, the heuristics, the best of them."""
    reps = results.replications
    c = results.config
    name = c["log"]
    fields: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in c.items()}
    cfg = Config(**{k: v for k, v in fields.items() if k in Config.__dataclass_fields__})
    mixture = cfg.folders.evaluates_mixture()
    trained_on = c.get("trained_on") or name
    if mixture:
        logs = cfg.train_logs or read_settings(cfg.folders.path(cfg.seeds[0]))["env"]["logs"]
        trained_on = f"mix of {','.join(log_name(log) for log in logs)}"
    rows = table_rows(reps, name, trained_on)
    path = Path(out) / "rlscheduler_table.csv"
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(dict.fromkeys(k for r in rows for k in r)))
        writer.writeheader()
        writer.writerows(rows)
    caveat = run_caveat(c["windows"], c["length"], c["eval_seed"], c["draw_within"], c.get("training_range", ""))
    if caveat:
        print(caveat)
    for row in rows:
        print(row_line(row))
    return [path, *_learning_curves(cfg, Path(out))]


def _learning_curves(cfg: Config, out: Path) -> list[Path]:
    """The evaluated models' learning curves (from their saved settings), as a table and a picture."""
    models = {}  # the evaluated models by name in the picture
    if not all(cfg.folders.takes_easy_models(backfill) for backfill in cfg.backfills):
        models = {f"seed {seed}": cfg.folders.path(seed) for seed in cfg.seeds}
    if "easy" in cfg.backfills and cfg.folders.takes_easy_models("easy"):
        models |= {f"seed {seed} (EASY cells)": cfg.folders.path(seed, "easy") for seed in cfg.folders.easy_seeds()}
    return write_learning_curves(models, cfg.score_type, cfg.folders.model_log, out)


if __name__ == "__main__":
    cli_main()
