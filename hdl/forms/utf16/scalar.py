"""UTF-16 decoding and encoding (RFC 2781, section 2; Unicode 15, ch. 3, D91)."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ...scalar.encoder import LaneEncoder
from ...unicode.layout import UnitBytes, CodePointLanes, UTF16UnitLanes, ErrorKind, REPLACEMENT_CHARACTER
from ...scalar.handshake import registered_handshake
from ...scalar.lanes import load_decoded
from ...unicode.tables import surrogate_pair_value, utf16_units


__all__ = ["UTF16Decoder", "UTF16Encoder"]


class UTF16Decoder(wiring.Component):
    """UTF-16 decoder: numeric 16-bit code units to code points, pairing surrogates.

    A high surrogate (D800..DBFF) followed by a low one (DC00..DFFF) becomes one supplementary
    code point (RFC 2781, section 2.2). Everything else that is not well-formed UTF-16 becomes
    one U+FFFD, as CPython's ``utf-16`` codecs decide it: a high surrogate not followed by a low
    one (``UNPAIRED_HIGH_SURROGATE``, emitted on the beat of the unit after it), a low surrogate
    without a high one (``SURROGATE``), an odd trailing byte (``TRUNCATED_DATA``), and a high
    surrogate still waiting at the end of the message, with or without an odd byte after it
    (``UNEXPECTED_END_OF_DATA``, one U+FFFD for both).

    Latency is one clock. Throughput is one unit per clock on any input while the output is
    ready: each input beat produces exactly one output beat of 0 to 2 code points (two when the
    unit follows an unpaired high surrogate; both are then below U+10000). Under backpressure the
    output beat is held and ``i.ready`` (``~o.valid | o.ready``) deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(2)))`
        Numeric code units (byte order already applied, see
        :class:`~utfhw.hdl.scalar.byteorder.ByteOrderReader`). ``count == 1`` is an odd trailing byte and
        belongs on the message's ``last`` beat; ``count == 0`` carries nothing.
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Code points, one beat per input beat.
    """
    i: In(stream.Signature(UnitBytes(2)))
    o: Out(stream.Signature(CodePointLanes))

    def elaborate(self, platform):
        m = Module()

        unit = self.i.payload.data
        count = self.i.payload.count
        last = self.i.payload.last

        high_pending = Signal()
        high_bits    = Signal(10)

        full    = count == 2
        partial = count == 1
        is_high = full & unit.matches("110110----------")
        is_low  = full & unit.matches("110111----------")

        cut_short = Signal()
        own_valid = Signal()
        own_data  = Signal(21)
        own_error = Signal(ErrorKind)
        next_high_pending = Signal()

        def replacement(kind):
            return [own_valid.eq(1), own_data.eq(REPLACEMENT_CHARACTER), own_error.eq(kind)]

        with m.If(high_pending & is_low):
            m.d.comb += [
                own_valid.eq(1),
                own_data.eq(surrogate_pair_value(high_bits, unit[0:10])),
            ]
        with m.Elif(high_pending & ~full):
            with m.If(partial | last):
                m.d.comb += replacement(ErrorKind.UNEXPECTED_END_OF_DATA)
            with m.Else():
                m.d.comb += next_high_pending.eq(1)
        with m.Else():
            m.d.comb += cut_short.eq(high_pending)
            with m.If(is_high):
                with m.If(last):
                    m.d.comb += replacement(ErrorKind.UNEXPECTED_END_OF_DATA)
                with m.Else():
                    m.d.comb += next_high_pending.eq(1)
            with m.Elif(is_low):
                m.d.comb += replacement(ErrorKind.SURROGATE)
            with m.Elif(full):
                m.d.comb += [own_valid.eq(1), own_data.eq(unit)]
            with m.Elif(partial):
                m.d.comb += replacement(ErrorKind.TRUNCATED_DATA)

        with m.If(registered_handshake(m, self.i, self.o)):
            m.d.sync += [
                high_pending.eq(next_high_pending),
                self.o.payload.last.eq(last),
            ]
            with m.If(is_high):
                m.d.sync += high_bits.eq(unit[0:10])
            load_decoded(m, self.o.payload, cut_short=cut_short,
                         cut_short_kind=ErrorKind.UNPAIRED_HIGH_SURROGATE, own_valid=own_valid,
                         own_data=own_data, own_error=own_error)

        return m


class UTF16Encoder(LaneEncoder):
    """UTF-16 encoder: code points to numeric 16-bit code units, with surrogate pairs.

    A code point below U+10000 becomes one unit; one from U+10000 to U+10FFFF becomes a high
    surrogate (D800..DBFF) followed by a low surrogate (DC00..DFFF), as in RFC 2781, section 2.1.

    Latency is one clock. The output is two units wide, enough for two code points below
    U+10000 or one above, which is every beat any utfhw decoder emits, so behind a decoder the
    encoder takes one beat per clock while the output is ready. A beat that needs three or four
    units takes two clocks (see :class:`~utfhw.hdl.scalar.encoder.LaneEncoder`). Under backpressure the
    output beat is held and ``i.ready`` deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points, up to two per beat. They must be Unicode scalar values (or U+FFFD), as every
        utfhw decoder guarantees.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        Numeric UTF-16 code units, up to two per beat; ``count`` may be 0 when the input beat
        carried no code point.
    """
    max_units = 2

    def __init__(self):
        super().__init__(UTF16UnitLanes)

    def encode(self, m, code_point):
        return utf16_units(code_point.data)
