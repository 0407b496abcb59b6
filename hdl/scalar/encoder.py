"""What the UTF-8, UTF-16 and UTF-32 encoders share: packing two code points' units into lanes."""

from amaranth.hdl import Module, Signal, Const, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.layout import CodePointLanes
from .handshake import registered_handshake


__all__ = ["LaneEncoder"]


class LaneEncoder(wiring.Component):
    """Base of the encoders: code points in, the code units of an encoding form out.

    A subclass gives the output lane layout and :meth:`encode`, the units of one code point.
    The units of the beat's code points are packed from lane 0, in order; each unit keeps the
    error kind of its code point, so a replacement stays recognisable downstream.

    Latency is one clock. A beat whose code points' units fit in the output lanes becomes one
    output beat, and such beats are accepted one per clock while the output is ready. A beat
    whose units do not fit (only possible when a lane holds fewer than two code points' worth)
    takes two clocks and two output beats: the first code point's units, then the second's with
    the beat's ``last``. Under backpressure the output beat is held and ``i.ready`` deasserts in
    the same clock; nothing is lost or duplicated.
    """
    def __init__(self, output_layout):
        super().__init__({
            "i": In(stream.Signature(CodePointLanes)),
            "o": Out(stream.Signature(output_layout)),
        })

    #: Most units one code point takes.
    max_units = None

    def encode(self, m, code_point):
        """``(units, length)``: :attr:`max_units` unit data values for ``code_point`` (a
        :data:`~utfhw.hdl.unicode.layout.CodePoint` view) and how many of them it takes."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()

        lanes = self.i.payload.lanes
        count = self.i.payload.count
        output = self.o.payload
        output_lanes = len(output.lanes)
        unit_layout = output.lanes[0].shape()

        # Set while the current input beat's first code point has gone out and its second
        # remains.
        second_half = Signal()

        encoded = [self.encode(m, lane) for lane in lanes]
        (units_0, length_0), (units_1, length_1) = encoded

        if 2 * self.max_units <= output_lanes:
            split = Const(0)
        else:
            both_fit = length_0 + length_1 <= output_lanes
            split = ~second_half & (count == 2) & ~both_fit

        # This clock sends `first` (lane 0, or lane 1 on the second half) followed by `second`
        # (lane 1 when the whole beat goes at once).
        first_length  = Signal(range(self.max_units + 1))
        second_length = Signal(range(self.max_units + 1))
        first_units   = [Signal(unit_layout, name=f"first_{n}") for n in range(self.max_units)]
        second_units  = [Signal(unit_layout, name=f"second_{n}") for n in range(self.max_units)]
        for n in range(self.max_units):
            m.d.comb += [
                first_units[n].data.eq(Mux(second_half, units_1[n], units_0[n])),
                first_units[n].error.eq(Mux(second_half, lanes[1].error, lanes[0].error)),
                second_units[n].data.eq(units_1[n]),
                second_units[n].error.eq(lanes[1].error),
            ]
        with m.If(second_half):
            m.d.comb += first_length.eq(length_1)
        with m.Else():
            with m.If(count != 0):
                m.d.comb += first_length.eq(length_0)
            with m.If((count == 2) & ~split):
                m.d.comb += second_length.eq(length_1)

        with m.If(registered_handshake(m, self.i, self.o, keep_input=split)):
            m.d.sync += [
                output.last.eq(self.i.payload.last & ~split),
                output.count.eq(first_length + second_length),
                second_half.eq(split),
            ]
            with m.Switch(first_length):
                for length in range(self.max_units + 1):
                    # The widest case is the default, so that the case statement is complete.
                    with (m.Case(length) if length < self.max_units else m.Default()):
                        for lane in range(output_lanes):
                            if lane < length:
                                m.d.sync += output.lanes[lane].eq(first_units[lane])
                            elif lane - length < self.max_units:
                                m.d.sync += output.lanes[lane].eq(second_units[lane - length])

        return m
