"""The slotted (DeepRM) contract: agents see a SlottedView, learners hear completed and step_ended."""

from __future__ import annotations

import numpy as np
import simpy

from schedlab.model.contracts.slotted import SlottedStep, SlottedView, episode_metrics, is_wait, place, wait
from schedlab.model.core.deeprm_jobs import DeepRMJobs
from schedlab.policies.slotted import sjf
from schedlab.processes.slotted.slotted import SlottedMachine, drive

CAPACITIES = {"cpus": 20, "memory": 20}


def machine(seed=0, load=1.3, steps=20):
    sim = simpy.Environment()
    jobs = DeepRMJobs(CAPACITIES).sample(load, steps, np.random.default_rng(seed))
    return sim, SlottedMachine(sim, CAPACITIES, jobs)


def test_a_learner_hears_every_step_and_completion_and_the_costs_add_up_to_the_return():
    sim, model = machine()
    steps: list[SlottedStep] = []
    done = []
    model.step_ended.connect(steps.append)  # what a learner subscribes to
    model.completed.connect(done.append)
    total = sim.run(until=sim.process(drive(model, sjf, max_time=1000)))
    assert [s.time for s in steps] == list(range(len(steps)))  # one signal per step, in order
    running = 0.0
    for s in steps:  # drive adds the step costs in order; so does this loop (Python 3.12's sum() is compensated)
        running += s.cost
    assert running == total  # drive's return is the sum of the step costs
    assert len(done) == model.n_jobs and model.done
    slowdowns = [(r.end - r.submit) / r.runtime for r in done]
    assert np.isclose(total, sum(slowdowns))  # each step's cost sums 1/T_j over the jobs present
    assert episode_metrics(model)["completed_fraction"] == 1.0


def test_an_agent_written_against_the_view_names_its_actions():
    def shortest_that_fits_anywhere(view: SlottedView) -> int:
        jobs = [(view.length(job), i) for i in range(view.slots) if (job := view.slot(i)) is not None]
        for _, i in sorted(jobs):
            if view.earliest(view.slot(i)) is not None:
                return place(i)
        return wait(view)

    sim, model = machine(seed=1)
    assert wait(model) == model.slots and is_wait(model, wait(model))
    first = shortest_that_fits_anywhere(model)
    assert not is_wait(model, first) or model.slot(0) is None
    sim.run(until=sim.process(drive(model, shortest_that_fits_anywhere, max_time=1000)))
    assert model.done
