"""A built model: the environment, its parts, and when the run ends."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import simpy

from schedlab.model.records import JobRecord

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

    def records(self) -> list[JobRecord]:
        """Every station's records: completed and rejected, then running and waiting."""
        out: list[JobRecord] = []
        for station in self.stations:
            out.extend(station.all_records())
        return out

    def __getitem__(self, name: str) -> Any:
        return self.parts[name]


