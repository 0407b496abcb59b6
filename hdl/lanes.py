"""Handshakes and lane packing that the stages share.

Two kinds of stage make up every pipeline. A *registered* stage holds its output beat in a
register: latency one clock, and ``i.ready`` is ``~o.valid | o.ready``, so it takes a beat on
every clock while its output is ready and stalls in the same clock when it is not. A
*combinational* stage passes ``valid`` and ``ready`` straight through and rewrites the payload
on the way. Both move exactly one output beat per input beat.
"""

from amaranth.hdl import Module, Signal, Const
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import CodePointLanes, REPLACEMENT_CHARACTER


__all__ = ["registered_handshake", "message_start", "combinational_handshake", "pack_lanes",
           "load_decoded", "CodePointFilter"]


def registered_handshake(m, i, o, *, keep_input=None):
    """Handshake of a registered stage. Returns the condition under which an output beat is
    loaded; the caller loads the output payload (``m.d.sync``) under it.

    The input beat is taken with it, unless ``keep_input`` (a 1-bit value) is high: then the
    input beat stays for another clock, for a stage that needs two output beats for it.
    """
    can_load = ~o.valid | o.ready
    if keep_input is None:
        m.d.comb += i.ready.eq(can_load)
    else:
        m.d.comb += i.ready.eq(can_load & ~keep_input)
    load = i.valid & can_load
    with m.If(load):
        m.d.sync += o.valid.eq(1)
    with m.Elif(o.ready):
        m.d.sync += o.valid.eq(0)
    return load


def message_start(m, moves, payload):
    """A register that is high until the first beat of a message with ``count != 0`` has
    moved, and high again after the beat with ``last``: whether nothing of the current message
    has passed yet."""
    at_start = Signal(init=1)
    with m.If(moves):
        with m.If(payload.last):
            m.d.sync += at_start.eq(1)
        with m.Elif(payload.count != 0):
            m.d.sync += at_start.eq(0)
    return at_start


def combinational_handshake(m, i, o):
    """Handshake of a combinational stage, which also forwards ``last``. Returns the condition
    under which a beat moves through (the caller updates its state under it)."""
    m.d.comb += [
        o.valid.eq(i.valid),
        i.ready.eq(o.ready),
        o.payload.last.eq(i.payload.last),
    ]
    return i.valid & o.ready


def pack_lanes(m, payload, items):
    """Drive ``payload.lanes`` and ``payload.count`` (combinationally) with the kept items,
    packed from lane 0.

    ``items`` is a list of ``(keep, item)`` pairs in order; ``keep`` is a 1-bit value, ``item``
    a value of the lane layout. Lanes past ``count`` are don't-care.
    """
    lane_count = len(payload.lanes)
    position = Const(0, range(len(items) + 1))
    for index, (keep, item) in enumerate(items):
        for lane in range(min(index + 1, lane_count)):
            with m.If(keep & (position == lane)):
                m.d.comb += payload.lanes[lane].eq(item)
        position = position + keep
    m.d.comb += payload.count.eq(position)


def load_decoded(m, payload, *, cut_short, cut_short_kind, own_valid, own_data, own_error):
    """Load a decoder's output beat (``m.d.sync``; call it under the accept condition).

    A decoder emits, for one input unit, at most a replacement for the sequence the unit cuts
    short (lane 0, U+FFFD of kind ``cut_short_kind``) followed by at most one item of its own.
    """
    lanes = payload.lanes
    m.d.sync += [
        payload.count.eq(cut_short + own_valid),
        lanes[1].data.eq(own_data),
        lanes[1].error.eq(own_error),
    ]
    with m.If(cut_short):
        m.d.sync += [
            lanes[0].data.eq(REPLACEMENT_CHARACTER),
            lanes[0].error.eq(cut_short_kind),
        ]
    with m.Else():
        m.d.sync += [
            lanes[0].data.eq(own_data),
            lanes[0].error.eq(own_error),
        ]


class CodePointFilter(wiring.Component):
    """Base of the combinational stages that drop some code points of each beat and pack the
    rest from lane 0. A subclass gives :meth:`keep`.

    Latency zero, ``i.ready`` is ``o.ready``, one output beat per input beat (``count`` may drop
    to 0; ``last`` always passes).
    """
    def __init__(self):
        super().__init__({
            "i": In(stream.Signature(CodePointLanes)),
            "o": Out(stream.Signature(CodePointLanes)),
        })

    def keep(self, m, moves):
        """One 1-bit value per input lane: whether to keep it (only lanes below ``count``).
        ``moves`` is high on clocks when a beat passes, for subclasses with state."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        moves = combinational_handshake(m, self.i, self.o)
        pack_lanes(m, self.o.payload, list(zip(self.keep(m, moves), self.i.payload.lanes)))
        return m
