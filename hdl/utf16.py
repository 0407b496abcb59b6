"""UTF-16 encoding (RFC 2781, section 2.1; Unicode 15, ch. 3, D91) and its byte order."""

from amaranth.hdl import Module, Signal, Cat, Const, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import CodePointLanes, UTF16Unit, UTF16UnitLanes
from .params import check_byteorder


__all__ = ["UTF16Encoder", "UTF16ByteOrder"]


class UTF16Encoder(wiring.Component):
    """UTF-16 encoder: code points to 16-bit code units, with surrogate pairs.

    A code point below U+10000 becomes one unit; one from U+10000 to U+10FFFF becomes a high
    surrogate (D800..DBFF) followed by a low surrogate (DC00..DFFF), as in RFC 2781, section 2.1.
    Each unit keeps the error kind of its code point, so a replacement stays recognisable.

    Latency is one clock. Throughput: an input beat becomes one output beat when its code points
    need at most two units, which is always the case behind
    :class:`~utfhw.hdl.utf8.UTF8Decoder` (it emits two code points in one beat only when the
    second comes from a single byte, so both are below U+10000); such beats are accepted one per
    clock while the output is ready. A beat that needs three or four units (two code points, one
    of them supplementary) takes two clocks and two output beats: the first code point's units,
    then the second's with the beat's ``last``. Under backpressure the output beat is held and
    ``i.ready`` deasserts in the same clock; nothing is lost or duplicated.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points, up to two per beat. They must be Unicode scalar values (or U+FFFD), as every
        utfhw decoder guarantees.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        Numeric UTF-16 code units, up to two per beat; ``count`` may be 0 when the input beat
        carried no code point.
    """
    def __init__(self):
        super().__init__({
            "i": In(stream.Signature(CodePointLanes)),
            "o": Out(stream.Signature(UTF16UnitLanes)),
        })

    def elaborate(self, platform):
        m = Module()

        lanes = self.i.payload.lanes
        count = self.i.payload.count

        # Set while the current input beat's lane 0 has gone out already and lane 1 remains.
        second_half = Signal()

        def supplementary(code_point):
            return code_point.data[16:21] != 0

        def units(code_point):
            """The (first, second) units of a code point; the second is meaningful if it is
            supplementary."""
            plane_minus_one = (code_point.data[16:21] - 1)[0:4]
            first  = Signal(UTF16Unit)
            second = Signal(UTF16Unit)
            m.d.comb += [
                first.error.eq(code_point.error),
                second.error.eq(code_point.error),
                second.data.eq(Cat(code_point.data[0:10], Const(0b110111, 6))),
            ]
            with m.If(supplementary(code_point)):
                m.d.comb += first.data.eq(
                    Cat(code_point.data[10:16], plane_minus_one, Const(0b110110, 6)))
            with m.Else():
                m.d.comb += first.data.eq(code_point.data[0:16])
            return first, second

        first_0, second_0 = units(lanes[0])
        first_1, second_1 = units(lanes[1])

        two_bmp = (count == 2) & ~supplementary(lanes[0]) & ~supplementary(lanes[1])
        split   = ~second_half & (count == 2) & ~two_bmp
        can_send = ~self.o.valid | self.o.ready
        m.d.comb += self.i.ready.eq(can_send & ~split)

        with m.If(self.i.valid & can_send):
            m.d.sync += [
                self.o.valid.eq(1),
                self.o.payload.last.eq(self.i.payload.last & ~split),
                second_half.eq(split),
            ]
            with m.If(two_bmp & ~second_half):
                m.d.sync += [
                    self.o.payload.lanes[0].eq(first_0),
                    self.o.payload.lanes[1].eq(first_1),
                    self.o.payload.count.eq(2),
                ]
            with m.Elif(second_half):
                m.d.sync += [
                    self.o.payload.lanes[0].eq(first_1),
                    self.o.payload.lanes[1].eq(second_1),
                    self.o.payload.count.eq(1 + supplementary(lanes[1])),
                ]
            with m.Else():
                m.d.sync += [
                    self.o.payload.lanes[0].eq(first_0),
                    self.o.payload.lanes[1].eq(second_0),
                    self.o.payload.count.eq(Mux(count == 0, 0, 1 + supplementary(lanes[0]))),
                ]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)

        return m


class UTF16ByteOrder(wiring.Component):
    """Puts UTF-16 code units into wire byte order (UTF-16LE or UTF-16BE, RFC 2781, section 3).

    The output has the same layout as the input, but each unit's ``data[0:8]`` is the byte that
    goes first on the wire and ``data[8:16]`` the byte that follows. No byte order mark is added.

    The stage is combinational: latency is zero, throughput is whatever the ports see, and
    ``i.ready`` is ``o.ready``; it passes backpressure straight through.

    Parameters
    ----------
    byteorder : :class:`str`
        ``"little"`` (UTF-16LE, low byte first) or ``"big"`` (UTF-16BE, high byte first).

    Attributes
    ----------
    i : :py:`In(stream.Signature(UTF16UnitLanes))`
        Numeric UTF-16 code units.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        The same units in wire byte order.

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder`` is not ``"little"`` or ``"big"``.
    """
    def __init__(self, *, byteorder="little"):
        check_byteorder(byteorder)
        self._byteorder = byteorder
        super().__init__({
            "i": In(stream.Signature(UTF16UnitLanes)),
            "o": Out(stream.Signature(UTF16UnitLanes)),
        })

    @property
    def byteorder(self):
        return self._byteorder

    def elaborate(self, platform):
        m = Module()
        m.d.comb += [
            self.o.valid.eq(self.i.valid),
            self.i.ready.eq(self.o.ready),
            self.o.payload.eq(self.i.payload),
        ]
        if self._byteorder == "big":
            for index in range(UTF16UnitLanes.lane_count):
                unit = self.i.payload.lanes[index].data
                m.d.comb += self.o.payload.lanes[index].data.eq(Cat(unit[8:16], unit[0:8]))
        return m
