"""UTF-8 decoding (RFC 3629; Unicode 15, ch. 3, D92 and Tables 3-7 to 3-11)."""

from amaranth.hdl import Module, Signal, Cat, Const, unsigned
from amaranth.lib import enum, stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import Byte, CodePointLanes, ErrorKind, REPLACEMENT_CHARACTER
from .params import check_errors


__all__ = ["UTF8Decoder"]


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
    as the output is ready: each input byte produces exactly one output beat, carrying 0, 1 or 2
    code points (two when the byte cuts a pending sequence short and is itself emitted, e.g.
    ``E2 41``). Under backpressure the decoder holds its output beat and deasserts ``i.ready``
    until the beat is taken; ``i.ready`` is ``~o.valid | o.ready``, so a stalled output stalls
    the input in the same clock and no byte is lost or duplicated.

    Parameters
    ----------
    errors : :class:`str`
        ``"replace"`` emits U+FFFD with a non-``NONE`` error kind for each maximal ill-formed
        subsequence; ``"ignore"`` drops it (the beat still comes out, with fewer code points).

    Attributes
    ----------
    i : :py:`In(stream.Signature(Byte))`
        Bytes; ``last`` ends a message.
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Code points, one beat per input byte, ``count`` from 0 to 2, ``last`` on the beat of the
        input byte that had ``last``.

    Raises
    ------
    :exc:`ValueError`
        If ``errors`` is not ``"replace"`` or ``"ignore"``.
    """
    def __init__(self, *, errors="replace"):
        check_errors(errors)
        self._errors = errors
        super().__init__({
            "i": In(stream.Signature(Byte)),
            "o": Out(stream.Signature(CodePointLanes)),
        })

    @property
    def errors(self):
        return self._errors

    def elaborate(self, platform):
        m = Module()

        byte = self.i.payload.data
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
        continues = (pending != 0) & byte.matches("10------") & in_narrowed_range

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

        if self._errors == "ignore":
            emit_cut_short = Const(0)
            emit_own = own_valid & (own_error == ErrorKind.NONE)
        else:
            emit_cut_short = cut_short
            emit_own = own_valid

        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [
                pending.eq(next_pending),
                next_rule.eq(next_next_rule),
                gathered.eq(next_gathered),
                self.o.valid.eq(1),
                self.o.payload.count.eq(emit_cut_short + emit_own),
                self.o.payload.last.eq(last),
                self.o.payload.lanes[1].data.eq(own_data),
                self.o.payload.lanes[1].error.eq(own_error),
            ]
            with m.If(emit_cut_short):
                m.d.sync += [
                    self.o.payload.lanes[0].data.eq(REPLACEMENT_CHARACTER),
                    self.o.payload.lanes[0].error.eq(ErrorKind.TRUNCATED),
                ]
            with m.Else():
                m.d.sync += [
                    self.o.payload.lanes[0].data.eq(own_data),
                    self.o.payload.lanes[0].error.eq(own_error),
                ]
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)

        m.d.comb += self.i.ready.eq(~self.o.valid | self.o.ready)

        return m
