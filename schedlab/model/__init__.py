"""Plain data, no SimPy: jobs, time-utility functions, workloads, records, metrics."""

from schedlab.model import metrics
from schedlab.model.decisions import Action, MachineView, Policy, Preempt, Resize, Start
from schedlab.model.distributions import Exponential, Fixed, Uniform, UniformInt
from schedlab.model.job import Job, JobError
from schedlab.model.queueing import erlang_b, erlang_c, erlang_c_wait, mm1_wait
from schedlab.model.records import JobRecord, Status, records_frame
from schedlab.model.swf import DropReason, DropReport, SWFError, SWFHeader, SWFRecord, SWFTrace, read_swf, write_swf
from schedlab.model.utility import Constant, LinearDecay, TimeUtility
from schedlab.model.workloads import JobClass, WorkloadError, poisson_workload

__all__ = [
    "Action", "Constant", "Exponential", "Fixed", "Job", "JobClass", "JobError", "JobRecord",
    "LinearDecay", "MachineView", "Policy", "Preempt", "Resize", "Start", "Status", "TimeUtility",
    "Uniform", "UniformInt", "WorkloadError", "erlang_b", "erlang_c", "erlang_c_wait", "metrics",
    "mm1_wait", "poisson_workload", "records_frame",
]
__all__ += ["DropReason", "DropReport", "SWFError", "SWFHeader", "SWFRecord", "SWFTrace", "read_swf", "write_swf"]
