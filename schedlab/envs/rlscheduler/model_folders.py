"""Which saved models a run of RLScheduler's scenario evaluates: shipped, given, or trained by the run.

A run names its models in two settings. ``model`` is ``shipped`` (the models schedlab
ships for the log, where there are; a seed with none is trained into the run's folder),
``train`` (always trained there), or a folder of ``seed<k>.zip``. ``easy_model`` gives
the EASY cells models of their own, as RLScheduler trains one per setting: ``shipped``
(those shipped for the log's EASY cells, ``trained/<log>/easy/``, only beside its
shipped models on the published protocol), a folder, or empty (``model``'s serve both
settings). Beside a mixture's models, the models shipped for the log evaluated are run
too (the ``own`` cells), so the table can say how far the mixture is from them.

:class:`ModelFolders` answers each question of that choice in one method, from the
run's settings alone; it reads no model, only which files exist (and, for a folder
given, whether its first model was a mixture's).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from schedlab.envs.rlscheduler.model_files import MIX, read_settings, seeds_in
from schedlab.model.formats.logs import log_name

__all__ = ["EASY_ALONE", "SHIPPED", "ModelFolders"]

#: where the models shipped with schedlab are (package data: ``trained/<log>/seed<k>.zip``)
SHIPPED = Path(__file__).resolve().parent / "trained"
#: the subfolder of a log's models that holds those trained for its EASY cells alone
EASY_ALONE = "easy"


@dataclass(frozen=True)
class ModelFolders:
    """Where a run's models are, from its settings (see the module)."""

    #: shipped, train, or a folder of seed<k>.zip
    model: str
    #: shipped, empty, or a folder of seed<k>.zip for the EASY cells alone
    easy_model: str
    #: the log evaluated, and the log the models were trained on if another (empty: the same)
    log: str
    trained_on: str
    #: are the models trained by this run a mixture's (``train_logs``)?
    mixture: bool
    #: what the models' reward measured (the shipped models: bsld only)
    score_type: str
    #: the training seeds evaluated (empty while they are being resolved from :meth:`found_seeds`)
    seeds: tuple[int, ...]
    #: the folder under which this run trains its models, one subfolder per log
    out_dir: Path
    #: the training range's end (the first this many jobs; 0: RLScheduler's protocol, no range)
    train_jobs: int

    @property
    def model_log(self) -> str:
        """The log the evaluated models were trained on (``mix`` for a mixture)."""
        return MIX if self.mixture else log_name(self.trained_on or self.log)

    @property
    def trained_dir(self) -> Path:
        """Where this run trains its models: ``out_dir/<log>``, ``_first<N>`` added with a training range."""
        folder = self.out_dir / self.model_log
        return folder.with_name(f"{folder.name}_first{self.train_jobs}") if self.train_jobs else folder

    def given(self) -> Path | None:
        """The folder of models evaluated as they are: the one given, or the one shipped for the log (bsld only)."""
        if self.model == "shipped":
            return SHIPPED / self.model_log if self.score_type == "bsld" else None
        return None if self.model == "train" else Path(self.model).expanduser()

    def found_seeds(self) -> tuple[int, ...]:
        """The seeds of the models in :meth:`given` (none when there is no such folder)."""
        return seeds_in(self.given())

    def path(self, seed: int, backfill: str = "none") -> Path:
        """Seed ``seed``'s model for one backfilling setting: the EASY cells' own, shipped, given, or trained here."""
        name = f"seed{seed}.zip"
        easy = self.easy() if backfill == "easy" else None
        if easy is not None:
            return easy / name
        folder = self.given()
        if folder is not None and (self.model != "shipped" or (folder / name).is_file()):
            return folder / name
        return self.trained_dir / name  # model=train, or nothing shipped for this seed

    def evaluates_mixture(self) -> bool:
        """Are the models evaluated a mixture's (trained by this run, or a folder of models saved with ``logs``)?"""
        if self.mixture:
            return True
        folder = self.given()
        if folder is None or self.model == "shipped" or not self.seeds:
            return False
        settings = folder / f"seed{self.seeds[0]}.json"
        return settings.is_file() and isinstance(read_settings(settings.with_suffix(".zip"))["env"].get("logs"), list)

    def easy(self) -> Path | None:
        """The EASY cells' own models (``easy_model``), or None where ``model``'s serve both settings.

        ``shipped`` means the models schedlab ships for the log's EASY cells, and only
        beside the models shipped for it, on its published protocol: never mixed with
        models a run trained or was given.
        """
        if self.easy_model != "shipped":
            return Path(self.easy_model).expanduser() if self.easy_model else None
        folder = SHIPPED / self.model_log / EASY_ALONE
        shipped = self.model == "shipped" and self.score_type == "bsld" and not self.train_jobs
        return folder if shipped and folder.is_dir() else None

    def easy_seeds(self) -> tuple[int, ...]:
        """The seeds of the models in :meth:`easy` (none without one)."""
        return seeds_in(self.easy())

    def takes_easy_models(self, backfill: str) -> bool:
        """Do the ``rl`` cells of this backfilling setting take the EASY cells' own models?"""
        return backfill == "easy" and self.easy() is not None

    def cell_seeds(self, backfill: str) -> tuple[int, ...]:
        """The training seeds of the ``rl`` cells in one backfilling setting."""
        return self.easy_seeds() if self.takes_easy_models(backfill) else self.seeds

    def own(self, backfill: str = "none") -> Path:
        """The models shipped for ``log`` itself in one backfilling setting (its EASY models there, where shipped)."""
        folder = SHIPPED / log_name(self.log)
        return folder / EASY_ALONE if backfill == "easy" and (folder / EASY_ALONE).is_dir() else folder

    def own_seeds(self, backfill: str = "none") -> tuple[int, ...]:
        """Beside a mixture's models, the seeds of the models shipped for ``log`` itself (none if it has none)."""
        if not self.evaluates_mixture() or self.score_type != "bsld":
            return ()
        return seeds_in(self.own(backfill))
