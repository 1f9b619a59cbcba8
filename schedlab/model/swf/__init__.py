"""Standard Workload Format (SWF): read real traces as jobs, and write workloads as SWF.

SWF is the Parallel Workloads Archive's format: ``;`` comment lines with ``Key: value``
pairs describe the machine (the header), then one line per job with 18
whitespace-separated numbers, ``-1`` where a value is missing (see :data:`SWF_FIELDS`).

:func:`read_swf` parses the header at once and streams the rest: :meth:`SWFTrace.records`
and :meth:`SWFTrace.jobs` read the (plain or gzip) file again on each call, one line at a
time, so a million-line log never needs a million objects at once. Every data line ends
up either kept or counted under a reason in :class:`DropReport`; nothing is dropped
silently, and with ``strict=True`` the first bad line raises :class:`SWFError` naming the
file, line, field and value.

:func:`write_swf` writes jobs (or records read from a trace) back as SWF, losslessly for
everything a :class:`~schedlab.model.job.Job` can carry in SWF.

The modules, each importing only from those listed before it: :mod:`.fields` (the 18 columns),
:mod:`.errors` (:class:`SWFError`, :class:`DropReason`, :class:`DropReport`), :mod:`.records`
(:class:`SWFRecord`, :func:`to_job`), :mod:`.header` (:class:`SWFHeader`), :mod:`.reader`
(:class:`SWFTrace`, :func:`read_swf`) and :mod:`.writer` (:func:`write_swf`).
"""

from schedlab.model.swf.errors import FILE_REASONS, DropReason, DropReport, SWFError
from schedlab.model.swf.fields import SWF_FIELDS
from schedlab.model.swf.header import SWFHeader
from schedlab.model.swf.reader import SWFTrace, read_swf
from schedlab.model.swf.records import COMPAT_MODES, SWFRecord, to_job
from schedlab.model.swf.writer import write_swf

__all__ = [
    "COMPAT_MODES",
    "FILE_REASONS",
    "SWF_FIELDS",
    "DropReason",
    "DropReport",
    "SWFError",
    "SWFHeader",
    "SWFRecord",
    "SWFTrace",
    "read_swf",
    "to_job",
    "write_swf",
]
