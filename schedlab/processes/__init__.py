"""SimPy processes: sources, machines, servers, the completion signal, tracing."""

from schedlab.processes.machine.machine import Machine, PolicyError
from schedlab.processes.machine.running import Running
from schedlab.processes.model import Model
from schedlab.processes.server import JobQueue, Server
from schedlab.processes.signal import Signal
from schedlab.processes.source import Source
from schedlab.processes.tracing import TracedEnvironment, TraceEntry, TraceLog

__all__ = [
    "JobQueue",
    "Machine",
    "Model",
    "PolicyError",
    "Running",
    "Server",
    "Signal",
    "Source",
    "TraceEntry",
    "TraceLog",
    "TracedEnvironment",
]
