"""Step-through: the clock, the event list and each step's trace, as a student sees them."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import simpy

from schedlab.experiment.cli import main
from schedlab.model.core.distributions import Exponential
from schedlab.model.core.job import Job
from schedlab.model.core.workloads import poisson_workload
from schedlab.policies import FCFS
from schedlab.processes import Machine, Source, TracedEnvironment
from schedlab.processes.stepping import Stepper

ROOT = Path(__file__).resolve().parent.parent


def _model(env: simpy.Environment, count: int = 20) -> Machine:
    machine = Machine(env, 2, FCFS(), name="cpus")
    Source(env, poisson_workload(1.5, Exponential(1.0), count=count, seed=np.random.default_rng(5)), machine)
    return machine


def test_stepping_gives_the_same_records_as_run():
    a, b = TracedEnvironment(), TracedEnvironment()
    ma, mb = _model(a), _model(b)
    a.run()
    stepper = Stepper(b)
    while not stepper.done:
        stepper.step()
    assert ma.records == mb.records
    assert stepper.steps > 40


def test_clock_never_goes_back_and_the_event_list_is_in_order():
    env = TracedEnvironment()
    _model(env)
    stepper = Stepper(env)
    while not stepper.done:
        pending = stepper.pending(50)
        assert [p.time for p in pending] == sorted(p.time for p in pending)
        assert pending[0].time == stepper.next_time
        step = stepper.step()
        assert step.now >= step.before
        assert all(e.time == step.now for e in step.trace)


def test_a_step_shows_the_event_and_the_trace():
    env = TracedEnvironment()
    machine = Machine(env, 1, FCFS(), name="cpu")
    Source(env, [Job(id=7, submit=2.0, runtime=3.0, cpus=1)], machine)
    stepper = Stepper(env)
    assert "start process source" in stepper.pending()[0].what
    stepper.step()
    assert stepper.pending()[0].what.startswith("timeout(2)")
    step = stepper.step()
    assert (step.before, step.now) == (0.0, 2.0)
    assert [e.action for e in step.trace] == ["arrive", "submit", "start"]
    steps = list(stepper.steps_until())
    assert stepper.done and steps[-1].now == 5.0
    assert any("complete job 7" in str(s) for s in steps)
    # the machine ends a job from a callback on its Timeout, not from a process of its own
    assert any(s.event == "timeout(3) -> cpu completes job 7" for s in steps)
    assert any(s.event == "CPUs allocated to job 7 -> cpu plans the end of job 7" for s in steps)
    assert "clock t=5" in stepper.event_list()


def test_steps_until_stops_before_a_later_event_and_on_limit():
    env = simpy.Environment()  # no tracer: steps carry no trace, still step
    _model(env)
    stepper = Stepper(env)
    assert all(s.trace == () for s in stepper.steps_until(3.0))
    assert stepper.now <= 3.0 < stepper.next_time
    assert len(list(stepper.steps_until(limit=4))) == 4


def test_stepping_an_ended_simulation_says_so():
    stepper = Stepper(simpy.Environment())
    assert stepper.done
    with pytest.raises(RuntimeError, match="no event left"):
        stepper.step()
    with pytest.raises(ValueError, match="limit"):
        stepper.pending(0)


def test_trace_step_command(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["trace", "scenarios/mmc.py", "--quick", "--step", "--limit", "5"]) == 0
    out = capsys.readouterr().out
    assert "clock t=0; event list" in out and "arrive job 0" in out and "more events follow" in out


def test_trace_step_stops_at_until(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert main(["trace", "scenarios/mmc.py", "--quick", "--step", "--until", "1", "--limit", "100"]) == 0
    out = capsys.readouterr().out
    times = [float(line.split("->")[1].split(":")[0]) for line in out.splitlines() if line.startswith("t=")]
    assert times and max(times) <= 1.0 and "more events follow" not in out
    assert main(["trace", "scenarios/mmc.py", "--quick", "--step", "--until", "-1"]) == 2


#: an internal name: a private attribute (``source._run``) or a private class (``_Allocated``)
INTERNAL = re.compile(r"\._\w|\b_[A-Za-z]\w*")


@pytest.mark.parametrize(("scenario", "steps"), [("mmc", 40), ("osl_grid", 400), ("collectives", 400)])
def test_the_step_through_speaks_in_public_names(scenario, steps, capsys, monkeypatch):
    """What a class reads: components, their public actions and labelled callbacks, never a private name."""
    monkeypatch.chdir(ROOT)
    assert main(["trace", f"scenarios/{scenario}.py", "--quick", "--step", "--limit", str(steps)]) == 0
    out = capsys.readouterr().out
    assert "t=0 -> " in out and not INTERNAL.findall(out), INTERNAL.findall(out)[:5]


def test_a_machine_with_batched_decisions_and_time_limits_speaks_in_public_names():
    env = TracedEnvironment()
    machine = Machine(env, 1, FCFS(), name="cpu", batch_decisions=True, walltime="kill")
    Source(env, [Job(id=1, submit=0.0, runtime=5.0, cpus=1, estimate=2.0)], machine)
    events = [s.event for s in Stepper(env).steps_until()]
    assert "timeout(0) -> cpu decides" in events
    assert "timeout(2) -> cpu kills job 1 at its time limit" in events
    assert not [e for e in events if INTERNAL.search(e)]
