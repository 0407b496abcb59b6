"""An output without the beats that carry no unit: for AXI4-Stream infrastructure that does not
accept a transfer whose TKEEP is all low."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from .scalar.handshake import registered_handshake


__all__ = ["DropEmptyBeats", "WithoutEmptyBeats"]


class DropEmptyBeats(wiring.Component):
    """Passes a stream of lane beats on without the beats that hold no item, but for the one
    beat that ends an empty message.

    A beat with no item and no ``last`` is dropped. A beat with no item and ``last`` ends its
    message: it gives its ``last`` to the message's beat before it, or goes on alone if the
    message had no item. So every beat with items but a message's last waits in a holding
    register until the next beat of its message with items, or its message's ``last``, comes.

    Latency: one clock for a message's last beat when nothing is held, else the clocks until
    the next beat with items or ``last`` comes, plus one. Throughput: a beat a clock, but a
    clock with no beat taken after a message's last beat when a beat of it was held (two
    beats to send). Capacity two beats. Backpressure: ``i.ready`` is ``~o.valid | o.ready``,
    low while a held last beat waits; the output is a register.

    Parameters
    ----------
    layout : :class:`~utfhw.hdl.unicode.layout.Lanes`
        The beats' layout: ``lanes``, ``count`` and ``last``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(layout))`
    o : :py:`Out(stream.Signature(layout))`
        The beats with items, each message's last with ``last``; a beat with ``count == 0``
        only for an empty message.
    """
    def __init__(self, layout):
        super().__init__({
            "i": In(stream.Signature(layout)),
            "o": Out(stream.Signature(layout)),
        })

    def elaborate(self, platform):
        m = Module()
        layout = self.i.payload.shape()
        held = Signal(layout, reset_less=True)
        held_valid = Signal()
        beat = self.i.payload
        empty = beat.count == 0
        # A held last beat goes out before anything else is taken.
        releasing = held_valid & held.last
        load = registered_handshake(m, self.i, self.o, keep_input=releasing)
        can_load = ~self.o.valid | self.o.ready
        with m.If(releasing):
            with m.If(can_load):
                m.d.sync += [self.o.valid.eq(1), self.o.payload.eq(held), held_valid.eq(0)]
        with m.Elif(load):
            with m.If(empty & ~beat.last):
                m.d.sync += self.o.valid.eq(0)          # dropped: nothing goes out
            with m.Elif(empty):
                # The message ends: on the beat held, or alone if it had no item.
                with m.If(held_valid):
                    m.d.sync += [self.o.payload.eq(held), self.o.payload.last.eq(1),
                                 held_valid.eq(0)]
                with m.Else():
                    m.d.sync += self.o.payload.eq(beat)
            with m.Elif(held_valid):
                m.d.sync += [self.o.payload.eq(held), held.eq(beat)]
            with m.Elif(beat.last):
                m.d.sync += self.o.payload.eq(beat)
            with m.Else():
                m.d.sync += [self.o.valid.eq(0), held.eq(beat), held_valid.eq(1)]
        return m


class WithoutEmptyBeats(wiring.Component):
    """A core followed by :class:`DropEmptyBeats`: its output never carries a beat that holds no
    unit, except the one beat of an empty message.

    Latency: the core's, and :class:`DropEmptyBeats`' on top. Throughput: the core's, but a
    message whose last output beat comes after another one that had to be held costs a clock
    more. Capacity: the core's and two beats.

    Parameters
    ----------
    core : :class:`~utfhw.hdl.cores.Core`
        The core; it becomes the submodule ``core``.

    Attributes
    ----------
    i : the core's ``i``
    o : the core's ``o``
    latency : :class:`int`
        The core's latency and one clock: the least it is.
    capacity : :class:`int`
        The core's capacity and two beats.
    """
    def __init__(self, core):
        self.core = core
        self.latency, self.capacity = core.latency + 1, core.capacity + 2
        super().__init__(core.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        m.submodules.drop = drop = DropEmptyBeats(core.o.payload.shape())
        connect(m, wiring.flipped(self.i), core.i)
        connect(m, core.o, drop.i)
        connect(m, drop.o, wiring.flipped(self.o))
        return m
