"""Peak memory of the current process, shared by the benchmarks and the AccaSim driver."""

from __future__ import annotations

import resource


def peak_rss_kib() -> int:
    """Peak RSS of this process in KiB.

    ``VmHWM`` of /proc/self/status where there is one: ``getrusage``'s ``ru_maxrss``
    survives fork + exec on Linux, so a worker would report the orchestrator's peak
    (the whole trace loaded) whenever that is larger than its own.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, bytes on macOS
