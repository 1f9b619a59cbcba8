"""Decision contracts: what a rule or learner sees, decides and hears, one module per model kind.

- :mod:`.machine`: the machine kind (``MachineView`` -> ``Start`` / ``Preempt`` / ``Resize``);
- :mod:`.grid`: the grid of brokers and resources (seed 003), and its ``GridTopology``;
- :mod:`.network`: the server network (seed 004);
- :mod:`.slotted`: the slotted DeepRM machine (seed 002);
- :mod:`.placement`: what a placement rule sees of a cluster's nodes, and answers;
- :mod:`.signals`: ``Subscribable``, what a learner subscribes to;
- :mod:`.routing`: shortest-path routing tables over a graph of servers.

Contracts are plain data: no SimPy and nothing of ours outside :mod:`schedlab.model`.
They may use NetworkX: a topology is graph data, and routing tables are computed from a
graph.
"""
