"""Copies of one piece of state that synthesis cannot merge: how a wide stage fans a control
signal out to its lanes.

A select or enable that drives every lane of a wide beat is one net with hundreds of loads, and
on an FPGA the route to them is the critical path. Registering the signal once per group of
lanes does not help by itself: the copies would be flip-flops with the same inputs, and Yosys's
``opt_merge`` merges those into one (``keep`` on their wires notwithstanding). What cannot be
merged is state whose next value is computed from itself: each copy is updated from the copy,
as the original is from the original, so the copies are equal on every clock and yet each
flip-flop has inputs of its own.

:func:`state_copies` makes such copies of a piece of state, and :func:`update_copies` drives
them, given the next value as a function of the present one. :func:`registered_copies` makes copies of a signal that is not state of its
own (a stream's ``valid`` bit, registered): each copy is a toggle, which flips when the signal
is high, and the toggle's value a clock before; their exclusive OR is the registered signal
(:func:`copied_value`).
"""

from amaranth.hdl import Signal
from amaranth.lib import data

from ..unicode.params import check_integer


__all__ = ["LANES_PER_COPY", "copy_groups", "state_copies", "update_copies", "RegisteredCopy",
           "registered_copies", "copied_value"]


#: Lanes that share one copy of a control signal.
LANES_PER_COPY = 4


def copy_groups(lanes):
    """The number of copies for ``lanes`` lanes: one per :data:`LANES_PER_COPY` of them."""
    check_integer("lanes", lanes, minimum=1)
    return -(-lanes // LANES_PER_COPY)


def state_copies(count, shape, *, name, init=None):
    """``count`` copies of a piece of state of ``shape`` (a :class:`~amaranth.lib.data.Layout`
    holds several variables that update together), as signals named ``{name}_{index}`` with the
    initial value ``init`` (the shape's default if ``None``), for :func:`update_copies` to
    drive."""
    check_integer("count", count, minimum=1)
    return [Signal(shape, name=f"{name}_{index}", init=init) for index in range(count)]


def update_copies(m, copies, next_state):
    """Update each of ``copies`` on every clock of ``m.d.sync`` to ``next_state(copy)``: a
    function of the copy alone (and of signals every copy shares), so that copies equal at
    reset stay equal. For a copy of a :class:`~amaranth.lib.data.StructLayout`, ``next_state``
    may return a :class:`dict` of the fields' next values."""
    for copy in copies:
        value = next_state(copy)
        if isinstance(value, dict):
            m.d.sync += [getattr(copy, field).eq(field_value)
                         for field, field_value in value.items()]
        else:
            m.d.sync += copy.eq(value)


#: One copy of a registered bit (:func:`registered_copies`): a toggle and its value a clock
#: before.
RegisteredCopy = data.StructLayout({"toggle": 1, "before": 1})


def registered_copies(m, copies, value):
    """Drive each of ``copies`` (values of :data:`RegisteredCopy`) so that, on the next clock,
    it carries the value ``value`` has now (:func:`copied_value`): the same clock as
    ``m.d.sync += register.eq(value)``."""
    for copy in copies:
        m.d.sync += [copy.toggle.eq(copy.toggle ^ value), copy.before.eq(copy.toggle)]


def copied_value(copy):
    """The bit a :data:`RegisteredCopy` carries."""
    return copy.toggle ^ copy.before
