"""Real logs and platforms read as data: trace and platform formats.

- :mod:`.swf`: the Standard Workload Format, read and written;
- :mod:`.traces`: real logs as replay input, windows of them, a window's metrics;
- :mod:`.platform`: a cluster as data (node types, nodes, partitions, queues);
- :mod:`.platform_file`: reading a platform file (TOML);
- :mod:`.platform_swf`: a log's platform, from its SWF header;
- :mod:`.egee`: an EGEE site's PBS log as seed 001 used one.
"""
