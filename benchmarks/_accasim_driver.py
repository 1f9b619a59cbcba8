"""Replay one SWF file through AccaSim (FIFO + EASY backfilling, first-fit), for benchmarks/replay.py.

Run by the *AccaSim* venv's interpreter, never imported by schedlab; it imports only
AccaSim and the standard library. It prints one JSON object on stdout: the jobs
completed, wall times, memory and, in ``--schedule`` (a file), each job's
``[id, submit, start, end]`` so that the caller computes the metrics the same way
for every tool.

AccaSim 1.1.3 (2021, the last release) imports ``Mapping`` from ``collections``,
which Python 3.10 removed. Rather than edit the installed package, the alias is put
back before AccaSim is imported (:func:`_python310_shim`); nothing else is changed.

The system is ``--nodes`` nodes of cores split as evenly as possible (so 151 nodes
for 2004 cores are 41 nodes of 14 and 110 of 13). AccaSim's default SWF reader turns
a job of *n* CPUs into *n* requests of one core each, so any split of the same
core count is the same flat pool of cores for the schedule; only the allocator's
per-node work changes with the node count.

Timing: AccaSim reads and parses the SWF file line by line as the simulated clock
advances, inside ``start_simulation()``. To time loading and simulating apart, as for
schedlab, the driver by default parses every line first with AccaSim's own
parser and tweaker, and hands the parsed jobs to the simulator through a
:class:`Reader` that serves them from memory; ``load_s`` is building the simulator
plus that parse, ``sim_s`` is ``start_simulation()``: making the job objects,
dispatching and completing every job. ``--stream`` keeps AccaSim's default reader
(``load_s`` is then only building the simulator). Output files (dispatching plan,
statistics) are turned off; the schedule is collected through an ``AdditionalData``
hook at each completion.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import tracemalloc

from _memory import peak_rss_kib  # beside this script, shared with replay.py


def _python310_shim() -> None:
    """``collections.Mapping`` was removed in Python 3.10; AccaSim 1.1.3 still imports it."""
    import collections
    import collections.abc

    if not hasattr(collections, "Mapping"):
        collections.Mapping = collections.abc.Mapping  # type: ignore[attr-defined]  # AccaSim still reads the alias Python 3.10 removed


def system_config(cores: int, nodes: int) -> dict:
    """AccaSim's system config: ``nodes`` nodes sharing ``cores`` cores as evenly as possible."""
    base, extra = divmod(cores, nodes)
    groups, resources = {}, {}
    if extra:
        groups["big"] = {"core": base + 1}
        resources["big"] = extra
    if nodes - extra:
        groups["small"] = {"core": base}
        resources["small"] = nodes - extra
    return {
        "system_name": f"gaia-{nodes}x",
        "start_time": 0,
        "equivalence": {"processor": {"core": 1}},
        "groups": groups,
        "resources": resources,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("swf", help="plain-text SWF file (AccaSim's reader does not read gzip)")
    parser.add_argument("--cores", type=int, required=True)
    parser.add_argument("--nodes", type=int, required=True)
    parser.add_argument("--schedule", help="write [[id, submit, start, end], ...] as JSON here")
    parser.add_argument("--stream", action="store_true", help="AccaSim's own line-by-line reader (no preload)")
    parser.add_argument("--tracemalloc", action="store_true", help="trace Python allocations (slow; for memory)")
    args = parser.parse_args()

    rss_start = peak_rss_kib()
    _python310_shim()
    from accasim.base.additional_data import AdditionalData
    from accasim.base.allocator_class import FirstFit
    from accasim.base.scheduler_class import EASYBackfilling
    from accasim.base.simulator_class import Simulator
    from accasim.utils.reader_class import Reader

    class Preloaded(Reader):
        """Serves job dicts parsed beforehand, in file order, as DefaultReader would."""

        def __init__(self, job_factory, dicts):
            super().__init__(job_factory)
            self._dicts = dicts
            self._next = 0

        def _read(self, current_time=0):
            if self._next >= len(self._dicts):
                self.stop_submission()
                return None
            self._next += 1
            return self._dicts[self._next - 1]

    class Collect(AdditionalData):
        """Keeps (id, submit, start, end) of every completed job."""

        def __init__(self, event_manager=None):
            super().__init__(event_manager)
            self.rows = []

        def exec_before_dispatching(self, job_dict, queued_jobs):
            return None

        def exec_after_dispatching(self, job_dict, to_dispatch_jobs, rejected_jobs):
            return None

        # AccaSim calls these two with a positional argument, unlike the base signature
        def exec_before_submission(self, *args, **kwargs):
            return None

        def exec_after_submission(self, *args, **kwargs):
            return None

        def exec_before_completion(self, *args, **kwargs):
            return None

        def exec_after_completion(self, removed_jobs):
            rows = self.rows
            for job in removed_jobs:
                rows.append((int(job.id), job.queued_time, job.start_time, job.end_time))

        def stop(self):
            return None

    workdir = tempfile.mkdtemp(prefix="accasim-")
    config_path = os.path.join(workdir, "system.json")
    with open(config_path, "w") as f:
        json.dump(system_config(args.cores, args.nodes), f)
    rss_imported = peak_rss_kib()
    if args.tracemalloc:
        tracemalloc.start()

    t0 = time.perf_counter()
    # Passed as a class: AccaSim 1.1.3 cannot take an instance (it sets the event manager before making it)
    simulator = Simulator(
        args.swf,
        config_path,
        EASYBackfilling(FirstFit()),
        additional_data=[Collect],
        RESULTS_FOLDER_PATH=workdir,
        scheduling_output=False,
        statistics_output=False,
        show_statistics=False,
        pprint_output=False,
        benchmark_output=False,
        LOG_LEVEL="WARNING",
    )
    collect = simulator.mapper.additional_data[0]
    if not args.stream:
        default = simulator.reader
        parse, tweak = default.parser.parse_line, default.tweak_function.tweak_function
        dicts = []
        with open(args.swf) as f:
            for line in f:
                parsed = parse(line[:-1])
                if parsed:
                    dicts.append(tweak(parsed))
        simulator.reader = Preloaded(simulator.job_factory, dicts)
    t1 = time.perf_counter()
    simulator.start_simulation()
    t2 = time.perf_counter()

    peak_traced = tracemalloc.get_traced_memory()[1] if args.tracemalloc else None
    out = {
        "tool": "accasim",
        "python": sys.version.split()[0],
        "nodes": args.nodes,
        "cores": args.cores,
        "loaded": simulator.loaded_jobs,
        "dispatched": simulator.dispatched_jobs,
        "rejected": simulator.rejected_jobs,
        "jobs": len(collect.rows),
        "preload": not args.stream,
        "load_s": t1 - t0,
        "sim_s": t2 - t1,
        "maxrss_kib": peak_rss_kib(),
        "rss_start_kib": rss_start,
        "rss_imported_kib": rss_imported,
        "tracemalloc_peak": peak_traced,
    }
    if args.schedule:
        with open(args.schedule, "w") as f:
            json.dump(sorted(collect.rows), f)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
