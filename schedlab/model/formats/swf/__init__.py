"""Standard Workload Format (SWF): read real traces as jobs, and write workloads as SWF.

SWF is the Parallel Workloads Archive's format: ``;`` comment lines with ``Key: value``
pairs describe the machine (the header), then one line per job with 18
whitespace-separated numbers, ``-1`` where a value is missing (see
:data:`~schedlab.model.formats.swf.fields.SWF_FIELDS`).

:func:`~schedlab.model.formats.swf.reader.read_swf` parses the header at once and
streams the rest: :meth:`~schedlab.model.formats.swf.reader.SWFLog.records` and
:meth:`~schedlab.model.formats.swf.reader.SWFLog.jobs` read the (plain or gzip) file again on each call,
one line at a time, so a million-line log never needs a million objects at once. Every
data line ends up either kept or counted under a reason in
:class:`~schedlab.model.formats.swf.errors.DropReport`; nothing is dropped silently, and with ``strict=True``
the first bad line raises :class:`~schedlab.model.formats.swf.errors.SWFError` naming the file, line, field
and value.

:func:`~schedlab.model.formats.swf.writer.write_swf` writes jobs (or records read from a trace) back as SWF,
losslessly for everything a :class:`~schedlab.model.core.job.Job` can carry in SWF.

The modules, each importing only from those listed before it, and each name imported from
the module that defines it (``from schedlab.model.formats.swf.reader import read_swf``):

- :mod:`.fields`: ``SWF_FIELDS``, the 18 columns;
- :mod:`.errors`: ``SWFError``, ``DropReason``, ``DropReport``, ``FILE_REASONS``;
- :mod:`.records`: ``SWFRecord``, ``to_job``, ``COMPAT_MODES``;
- :mod:`.header`: ``SWFHeader``;
- :mod:`.reader`: ``SWFLog``, ``read_swf``;
- :mod:`.writer`: ``write_swf``.
- :mod:`.schedule`: ``schedule_records``, a run's schedule (node failures' partial executions
  included) as records for ``write_swf``.
"""
