"""Jobs and what makes them: the building blocks every model kind shares.

- :mod:`.job`: the job, plain immutable data;
- :mod:`.distributions`: size distributions for synthetic workloads;
- :mod:`.workloads`: job classes and Poisson workloads;
- :mod:`.utility`: time-utility functions (what finishing a job at a time is worth);
- :mod:`.streams`: named random streams, the source of every random draw;
- :mod:`.fields`: checked config fields for scenarios and learners.
"""
