"""A built model: the environment, its parts, and when the run ends."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import simpy

from schedlab.model.records.job_record import JobRecord
from schedlab.model.records.log import RecordLog
from schedlab.processes.machine.machine import Machine
from schedlab.processes.server import Server

__all__ = ["Model"]


class _HasRecords(Protocol):
    def all_records(self) -> list[JobRecord]: ...


@dataclass
class Model:
    """What a scenario's ``build`` returns: an environment wired with processes.

    Parameters
    ----------
    env
        The environment every part was built on.
    stations
        Machines or servers whose job records make the run's records.
    until
        When :meth:`run` stops: a time, an event (e.g. "the last job completed"), or
        ``None`` to run until no event is left (a finite workload drained).
    parts
        Anything else ``measure`` will want (sources, learners, the config...).
    """

    env: simpy.Environment
    stations: list[_HasRecords]
    until: float | simpy.Event | None = None
    parts: dict[str, Any] = field(default_factory=dict)

    def run(self) -> Model:
        """Run the simulation to ``until``; returns the model, for chaining."""
        self.env.run(until=self.until)
        return self

    def records(self) -> Sequence[JobRecord]:
        """Every station's records: completed and rejected, then running and waiting.

        Where every station is a :class:`Machine` or :class:`Server` keeping its records
        in a :class:`~schedlab.model.records.log.RecordLog`, the result is a new ``RecordLog``
        (the stations' arrays copied, their running and waiting jobs appended): no record
        is made until one is read, and ``records_frame`` builds the DataFrame from the
        arrays, with no tuple per job (measured: benchmarks/README.md). Otherwise
        it is a list, as each station's ``all_records()`` gives it.
        """
        if self.stations and all(_keeps_log(station) for station in self.stations):
            log = RecordLog()
            for station in self.stations:
                log.extend(station.records)  # type: ignore[attr-defined]  # a Machine or Server: _keeps_log said so
                log.extend(station.snapshot())  # type: ignore[attr-defined]  # (the same)
            return log
        out: list[JobRecord] = []
        for station in self.stations:
            out.extend(station.all_records())
        return out

    def __getitem__(self, name: str) -> Any:
        return self.parts[name]


def _keeps_log(station: object) -> bool:
    """A station whose ``all_records()`` is its RecordLog then its snapshot, as Machine's and Server's are."""
    return isinstance(getattr(station, "records", None), RecordLog) and (
        (isinstance(station, Machine) and type(station).all_records is Machine.all_records)
        or (isinstance(station, Server) and type(station).all_records is Server.all_records)
    )
