"""UTF-8 decoding and encoding (RFC 3629; Unicode 15, ch. 3, D92 and Tables 3-7 to 3-11)."""

from amaranth.hdl import Module, Signal, Cat, Const, unsigned
from amaranth.lib import enum, stream, wiring
from amaranth.lib.wiring import In, Out

from .encoder import LaneEncoder
from .layout import UnitBytes, CodePointLanes, UTF8UnitLanes, ErrorKind
from .layout import REPLACEMENT_CHARACTER
from .lanes import registered_handshake, load_decoded


__all__ = ["UTF8Decoder", "UTF8Encoder"]


class _NextByteRange(enum.Enum, shape=unsigned(3)):
    # Table 3-7 narrows the range of the byte after E0, ED, F0 and F4 so that overlong forms,
    # surrogates and values above U+10FFFF have no well-formed encoding at all.
    ANY     = 0   # 80..BF
    A0_BF   = 1   # after E0
    _80_9F  = 2   # after ED
    _90_BF  = 3   # after F0
    _80_8F  = 4   # after F4


class UTF8Decoder(wiring.Component):
    """UTF-8 decoder with U+FFFD substitution of maximal subparts.

    Decodes a byte stream into code points. Every maximal ill-formed subsequence (Unicode ch. 3,
    D93b and "U+FFFD Substitution of Maximal Subparts", Tables 3-8 to 3-11; the WHATWG UTF-8
    decoder) becomes one U+FFFD tagged with an :class:`~utfhw.hdl.layout.ErrorKind`, which is what
    CPython's ``bytes.decode("utf-8", "replace")`` produces. A sequence still unfinished when a
    byte with ``last`` set arrives becomes one U+FFFD (``UNFINISHED``), and decoding starts afresh
    with the next message.

    Latency is one clock: the code points a byte completes are valid on the clock after the byte
    is accepted. Throughput is one byte per clock on any input, malformed input included, as long
    as the output is ready: each input beat produces exactly one output beat, carrying 0, 1 or 2
    code points (two when the byte cuts a pending sequence short and is itself emitted, e.g.
    ``E2 41``; the second is then always below U+0080 or a U+FFFD). Under backpressure the
    decoder holds its output beat and deasserts ``i.ready`` until the beat is taken; ``i.ready``
    is ``~o.valid | o.ready``, so a stalled output stalls the input in the same clock and no byte
    is lost or duplicated.

    Errors are always replaced; :class:`~utfhw.hdl.errors.ErrorDropper` after the decoder gives
    CPython's ``"ignore"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(1)))`
        Bytes; ``last`` ends a message. A beat with ``count == 0`` carries no byte (with
        ``last``, it ends the message, flushing an unfinished sequence).
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Code points, one beat per input beat, ``count`` from 0 to 2, ``last`` on the beat of the
        input beat that had ``last``.
    """
    def __init__(self):
        super().__init__({
            "i": In(stream.Signature(UnitBytes(1))),
            "o": Out(stream.Signature(CodePointLanes)),
        })

    def elaborate(self, platform):
        m = Module()

        byte = self.i.payload.data
        present = self.i.payload.count != 0
        last = self.i.payload.last

        # Decoder state between bytes: how many continuation bytes the pending sequence still
        # needs, which range the next one must fall in, and the code point bits gathered so far.
        pending   = Signal(range(4))
        next_rule = Signal(_NextByteRange)
        gathered  = Signal(15)

        in_narrowed_range = Signal()
        with m.Switch(next_rule):
            with m.Case(_NextByteRange.ANY):
                m.d.comb += in_narrowed_range.eq(1)
            with m.Case(_NextByteRange.A0_BF):
                m.d.comb += in_narrowed_range.eq(byte[5])
            with m.Case(_NextByteRange._80_9F):
                m.d.comb += in_narrowed_range.eq(~byte[5])
            with m.Case(_NextByteRange._90_BF):
                m.d.comb += in_narrowed_range.eq(byte[4:6] != 0)
            with m.Default():    # _NextByteRange._80_8F
                m.d.comb += in_narrowed_range.eq(byte[4:6] == 0)
        continues = present & (pending != 0) & byte.matches("10------") & in_narrowed_range

        # What this byte contributes: at most a replacement for the sequence it cuts short
        # (`cut_short`) followed by at most one item of its own (`own`).
        cut_short = Signal()
        own_valid = Signal()
        own_data  = Signal(21)
        own_error = Signal(ErrorKind)

        next_pending   = Signal.like(pending)
        next_next_rule = Signal.like(next_rule)
        next_gathered  = Signal.like(gathered)

        def replacement(kind):
            return [own_valid.eq(1), own_data.eq(REPLACEMENT_CHARACTER), own_error.eq(kind)]

        def start_sequence(continuation_bytes, lead_bits, rule=_NextByteRange.ANY):
            with m.If(last):
                m.d.comb += replacement(ErrorKind.UNFINISHED)
            with m.Else():
                m.d.comb += [
                    next_pending.eq(continuation_bytes),
                    next_gathered.eq(lead_bits),
                    next_next_rule.eq(rule),
                ]

        with m.If(continues):
            completed = Cat(byte[0:6], gathered)
            with m.If(pending == 1):
                m.d.comb += [own_valid.eq(1), own_data.eq(completed)]
            with m.Elif(last):
                m.d.comb += replacement(ErrorKind.UNFINISHED)
            with m.Else():
                m.d.comb += [
                    next_pending.eq(pending - 1),
                    next_gathered.eq(completed),
                    next_next_rule.eq(_NextByteRange.ANY),
                ]
        with m.Elif(~present):
            with m.If(~last):
                m.d.comb += [
                    next_pending.eq(pending),
                    next_next_rule.eq(next_rule),
                    next_gathered.eq(gathered),
                ]
            with m.Elif(pending != 0):
                m.d.comb += replacement(ErrorKind.UNFINISHED)
        with m.Else():
            m.d.comb += cut_short.eq(pending != 0)
            with m.If(byte.matches("0-------")):
                m.d.comb += [own_valid.eq(1), own_data.eq(byte)]
            with m.Elif(byte.matches("110-----") & (byte[1:5] != 0)):    # C2..DF
                start_sequence(1, byte[0:5])
            with m.Elif(byte.matches("11100000")):
                start_sequence(2, byte[0:4], _NextByteRange.A0_BF)
            with m.Elif(byte.matches("11101101")):
                start_sequence(2, byte[0:4], _NextByteRange._80_9F)
            with m.Elif(byte.matches("1110----")):
                start_sequence(2, byte[0:4])
            with m.Elif(byte.matches("11110000")):
                start_sequence(3, byte[0:3], _NextByteRange._90_BF)
            with m.Elif(byte.matches("11110100")):
                start_sequence(3, byte[0:3], _NextByteRange._80_8F)
            with m.Elif(byte.matches("111100--")):                       # F1..F3
                start_sequence(3, byte[0:3])
            with m.Else():
                m.d.comb += replacement(ErrorKind.INVALID_BYTE)

        with m.If(registered_handshake(m, self.i, self.o)):
            m.d.sync += [
                pending.eq(next_pending),
                next_rule.eq(next_next_rule),
                gathered.eq(next_gathered),
                self.o.payload.last.eq(last),
            ]
            load_decoded(m, self.o.payload, cut_short=cut_short,
                         cut_short_kind=ErrorKind.TRUNCATED, own_valid=own_valid,
                         own_data=own_data, own_error=own_error)

        return m


class UTF8Encoder(LaneEncoder):
    """UTF-8 encoder: code points to bytes (RFC 3629, section 3; Unicode ch. 3, D92).

    A code point becomes 1 to 4 bytes, shortest form only. Latency is one clock. The output is
    six bytes wide, enough for two code points below U+10000 or one above, which is every beat
    any utfhw decoder emits, so behind a decoder the encoder takes one beat per clock while the
    output is ready. A beat of two code points that needs seven or eight bytes takes two clocks
    (see :class:`~utfhw.hdl.encoder.LaneEncoder`). Under backpressure the output beat is held
    and ``i.ready`` deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points, up to two per beat. They must be Unicode scalar values (or U+FFFD), as every
        utfhw decoder guarantees.
    o : :py:`Out(stream.Signature(UTF8UnitLanes))`
        UTF-8 bytes, up to six per beat, each with the error kind of its code point.
    """
    max_units = 4

    def __init__(self):
        super().__init__(UTF8UnitLanes)

    def encode(self, m, code_point):
        value  = code_point.data
        length = Signal(range(5))
        units  = [Signal(8, name=f"byte_{n}") for n in range(4)]

        def continuation(high):
            return Cat(value[high - 6:high], Const(0b10, 2))

        with m.If(value[7:21] == 0):
            m.d.comb += [length.eq(1), units[0].eq(value[0:7])]
        with m.Elif(value[11:21] == 0):
            m.d.comb += [
                length.eq(2),
                units[0].eq(Cat(value[6:11], Const(0b110, 3))),
                units[1].eq(continuation(6)),
            ]
        with m.Elif(value[16:21] == 0):
            m.d.comb += [
                length.eq(3),
                units[0].eq(Cat(value[12:16], Const(0b1110, 4))),
                units[1].eq(continuation(12)),
                units[2].eq(continuation(6)),
            ]
        with m.Else():
            m.d.comb += [
                length.eq(4),
                units[0].eq(Cat(value[18:21], Const(0b11110, 5))),
                units[1].eq(continuation(18)),
                units[2].eq(continuation(12)),
                units[3].eq(continuation(6)),
            ]
        return units, length
