"""When and how a machine asks its policy: at each event or once per instant, until the policy has no action left.

At every *decision event* (a job arrives or ends, CPUs are added, a node comes back...)
the machine's :class:`Decisions` asks the policy for actions until it answers ``None``.
An answer is one :data:`~schedlab.model.contracts.machine.Action`, or an iterable of
actions: the whole answer for this event, applied one by one as it is produced, so a
generator sees the effect of each action before making the next. With
``batch_decisions`` the policy is asked once per instant instead, after every arrival and
completion of that instant (as RLScheduler's simulator does). An action's side effects
never ask the policy again while it is deciding, and a policy that keeps answering is
stopped with a :class:`PolicyError`.

It is a part the machine holds (``machine.decisions``); ``machine.decide()`` asks it.
"""

from __future__ import annotations

import simpy

from schedlab.model.contracts.machine import Preempt, Resize, Start
from schedlab.processes.machine.parts_view import PartsView
from schedlab.processes.tracing import step_label

__all__ = ["Decisions", "PolicyError"]

#: answers decide() applies as one action (an iterable of any other kind is a batch);
#: a tuple, built once: ``A | B | ...`` in the loop would build a union at every answer
_ONE_ANSWER = (Start, Preempt, Resize, str, bytes)


class PolicyError(RuntimeError):
    """A policy asked for something the machine cannot do."""


class Decisions:
    """Asks ``machine``'s policy at each decision event, or once per instant with ``batch`` (its ``decisions``)."""

    def __init__(self, machine: PartsView, batch: bool) -> None:
        self.machine = machine
        #: decide once per instant (the machine's ``batch_decisions``)
        self.batch = batch
        #: the policy is being asked now: an action's side effects do not ask it again
        self.deciding = False
        self._pending = False  # a batched decision is due at this instant

    @property
    def name(self) -> str:
        """The machine's name (the step-through names a callback by its object's ``name``)."""
        return self.machine.name

    def event(self) -> None:
        """A decision event: decide now, or (batched) once the instant's other events are done."""
        if not self.batch:
            self.decide()
        elif not self._pending:
            # A zero-delay timeout runs after the events already due now: same-time
            # arrivals (a Source submits them in one go) and completions come first.
            self._pending = True
            self.machine.env.timeout(0).callbacks.append(self._batched)

    @step_label("decides")
    def _batched(self, _event: simpy.Event) -> None:
        self._pending = False
        self.decide()

    def decide(self) -> None:
        """Ask the policy for actions until it has none (``machine.decide()``)."""
        if self.deciding:  # an action's side effects never re-enter the policy
            return
        self.deciding = True
        m = self.machine
        try:
            # every job here is waiting or running, and in _arrival_seq: one C-level len()
            budget = 4 * len(m._arrival_seq) + 16
            policy, view, apply = m.policy, m.view, m.apply
            while (answer := policy(view)) is not None:
                if type(answer) is Start:  # the common answer, dispatched without apply()
                    budget -= 1
                    m.start(answer.job, answer.cpus)
                elif isinstance(answer, _ONE_ANSWER) or not hasattr(answer, "__iter__"):
                    budget -= 1
                    apply(answer)  # type: ignore[arg-type]  # an action, or something that is not: apply() names it
                else:
                    for action in answer:  # lazily: a generator sees each action's effect
                        apply(action)
                        budget -= 1
                        if budget < 0:
                            break
                    else:
                        break  # an iterable is the policy's whole answer for this event
                if budget < 0:
                    raise PolicyError(
                        f"policy {policy!r} on machine {m.name!r} kept returning actions "
                        f"at t={m.env.now}: it must return None (or nothing) when done"
                    )
        finally:
            self.deciding = False
