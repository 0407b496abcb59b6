"""UTF-32 decoding and encoding (Unicode 15, ch. 3, D90)."""

from amaranth.hdl import Module, Signal, Const
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...scalar.encoder import LaneEncoder
from ...unicode.layout import UnitBytes, CodePointLanes, UTF32UnitLanes, ErrorKind, REPLACEMENT_CHARACTER
from ...scalar.handshake import registered_handshake
from ...scalar.lanes import load_decoded
from ...unicode.tables import beyond_scalar_range, in_surrogate_range


__all__ = ["UTF32Decoder", "UTF32Encoder"]


class UTF32Decoder(wiring.Component):
    """UTF-32 decoder: numeric 32-bit code units to code points.

    A unit that is a Unicode scalar value (D90: below D800, or E000..10FFFF) is the code point.
    Anything else becomes one U+FFFD, as CPython's ``utf-32`` codecs decide it: a unit in
    D800..DFFF (``SURROGATE``), a unit above 10FFFF (``OUT_OF_RANGE``), and 1 to 3 trailing
    bytes (``TRUNCATED_DATA``).

    Latency is one clock. Throughput is one unit per clock on any input while the output is
    ready: each input beat produces one output beat of 0 or 1 code points. Under backpressure
    the output beat is held and ``i.ready`` (``~o.valid | o.ready``) deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(4)))`
        Numeric code units (byte order already applied, see
        :class:`~utfhw.hdl.scalar.byteorder.ByteOrderReader`). ``count`` from 1 to 3 is a partial unit
        and belongs on the message's ``last`` beat; ``count == 0`` carries nothing.
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Code points in lane 0, one beat per input beat.
    """
    i: In(stream.Signature(UnitBytes(4)))
    o: Out(stream.Signature(CodePointLanes))

    def elaborate(self, platform):
        m = Module()

        unit = self.i.payload.data
        count = self.i.payload.count

        own_data  = Signal(21)
        own_error = Signal(ErrorKind)

        with m.If(count != 4):
            m.d.comb += own_error.eq(ErrorKind.TRUNCATED_DATA)
        with m.Elif(beyond_scalar_range(unit)):
            m.d.comb += own_error.eq(ErrorKind.OUT_OF_RANGE)
        with m.Elif(in_surrogate_range(unit)):
            m.d.comb += own_error.eq(ErrorKind.SURROGATE)
        with m.If(own_error == ErrorKind.NONE):
            m.d.comb += own_data.eq(unit[0:21])
        with m.Else():
            m.d.comb += own_data.eq(REPLACEMENT_CHARACTER)

        with m.If(registered_handshake(m, self.i, self.o)):
            m.d.sync += self.o.payload.last.eq(self.i.payload.last)
            load_decoded(m, self.o.payload, cut_short=Const(0), cut_short_kind=ErrorKind.NONE,
                         own_valid=count != 0, own_data=own_data, own_error=own_error)

        return m


class UTF32Encoder(LaneEncoder):
    """UTF-32 encoder: code points to numeric 32-bit code units (Unicode ch. 3, D90).

    Each code point is one unit. Latency is one clock; the output is two units wide, as wide as
    the input, so the encoder takes one beat per clock on any input while the output is ready.
    Under backpressure the output beat is held and ``i.ready`` deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points, up to two per beat. They must be Unicode scalar values (or U+FFFD).
    o : :py:`Out(stream.Signature(UTF32UnitLanes))`
        Numeric UTF-32 code units, up to two per beat.
    """
    max_units = 1

    def __init__(self):
        super().__init__(UTF32UnitLanes)

    def encode(self, m, code_point):
        return [code_point.data], Const(1, 1)
