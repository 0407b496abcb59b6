"""Lane packing that the scalar stages share: items packed from lane 0, a decoder's output
beat, and the base of the stages that drop some code points of a beat."""

from amaranth.hdl import Module, Const
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .handshake import combinational_handshake
from ..unicode.layout import CodePointLanes, REPLACEMENT_CHARACTER


__all__ = ["pack_lanes", "load_decoded", "CodePointFilter"]


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
    i: In(stream.Signature(CodePointLanes))
    o: Out(stream.Signature(CodePointLanes))

    def keep(self, m, moves):
        """One 1-bit value per input lane: whether to keep it (only lanes below ``count``).
        ``moves`` is high on clocks when a beat passes, for subclasses with state."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        moves = combinational_handshake(m, self.i, self.o)
        pack_lanes(m, self.o.payload, list(zip(self.keep(m, moves), self.i.payload.lanes)))
        return m
