"""A skid buffer: an output register whose ``i.ready`` is a flip-flop, with copies of it for a
pipeline that stops as one."""

from types import SimpleNamespace

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.params import check_integer
from .copies import state_copies, update_copies


__all__ = ["SkidBuffer"]


class SkidBuffer(wiring.Component):
    """An output register and a register beside it that takes the beat that arrives on the
    clock the output is held, so that ``i.ready`` need not follow ``o.ready`` within the clock.

    A pipeline whose stages all stop together while the output is held (the validator's) has
    one enable for every register of every stage. Made from ``o.ready`` with a LUT, that enable
    was the validator's critical path at W = 64 on the ECP5-85F (143.3 MHz from UTF-8: the
    output register's ``valid`` to the checks' registers, three logic levels and 5.7 ns of
    routing). Here ``i.ready`` is a flip-flop, "the side register is empty", and
    :attr:`ready_copies` are as many flip-flops more that are always equal to it
    (:mod:`.copies`), one for each group of registers the pipeline gives its own enable.

    Latency one clock, one beat per clock; capacity two beats. ``o.valid`` and ``i.ready`` are
    flip-flops, and neither depends on ``o.ready`` within the clock. Nothing is lost or
    duplicated: a beat taken while the output is held waits in the side register, and
    ``i.ready`` is low until it has gone to the output.

    Parameters
    ----------
    shape : shape-like
        The payload.
    copies : :class:`int`
        Copies of ``i.ready`` in :attr:`ready_copies`, at least 1.

    Attributes
    ----------
    i : :py:`In(stream.Signature(shape))`
    o : :py:`Out(stream.Signature(shape))`
    ready_copies : :class:`list` of :class:`~amaranth.hdl.Signal`
        Flip-flops equal to ``i.ready`` on every clock (:meth:`invariants`).

    Raises
    ------
    :exc:`ValueError`
        If ``copies`` is not an integer of at least 1.
    """
    #: Clocks from a beat in to the same beat out, with the output ready.
    latency = 1
    #: The most beats it holds.
    capacity = 2

    def __init__(self, *, shape, copies=1):
        check_integer("copies", copies, minimum=1)
        super().__init__({
            "i": In(stream.Signature(shape)),
            "o": Out(stream.Signature(shape)),
        })
        # "The side register is empty", kept once for ``i.ready`` and once for each copy.
        self._room = state_copies(1 + copies, 1, name="room", init=1)
        self.ready_copies = self._room[1:]
        self._side = Signal(shape, name="side", reset_less=True)

    @property
    def side(self):
        """The side register, as a stream's ``valid`` and ``payload`` would give it (the beat
        after the output's, when there is one). For a formal bench."""
        return SimpleNamespace(valid=~self._room[0], payload=self._side)

    def invariants(self):
        """What holds in every reachable state, as ``(value, message)`` pairs for a formal
        bench to assert: the copies of ``i.ready`` agree, and the side register holds a beat
        only behind one in the output register."""
        for copy in self.ready_copies:
            yield copy == self._room[0], "the copies of the skid buffer's ready agree"
        yield self._room[0] | self.o.valid, "the side register is never ahead of the output"

    def elaborate(self, platform):
        m = Module()
        room = self._room[0]
        held = self.o.valid & ~self.o.ready
        m.d.comb += self.i.ready.eq(room)
        # The side register fills when a beat comes while the output is held, and empties
        # into the output when it is not; ``i.ready`` is low while it is full, so no beat
        # comes then.
        update_copies(m, self._room, lambda copy: ~((~copy | self.i.valid) & held))
        with m.If(~held & room):
            m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.eq(self.i.payload)]
        with m.Elif(~held):
            m.d.sync += [self.o.valid.eq(1), self.o.payload.eq(self._side)]
        with m.If(held & room):
            m.d.sync += self._side.eq(self.i.payload)
        return m
