"""UTF-8 decoding and encoding (RFC 3629; Unicode 15, ch. 3, D92 and Tables 3-7 to 3-11)."""

from amaranth.hdl import Module, Signal, Cat, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...scalar.encoder import LaneEncoder
from ...unicode.layout import UnitBytes, CodePointLanes, UTF8UnitLanes, ErrorKind
from ...unicode.layout import REPLACEMENT_CHARACTER
from ...unicode.tables import CONTINUATION, NEXT_BYTE_RANGES, TABLE_3_7, byte_in_range, utf8_bytes
from ...scalar.handshake import registered_handshake
from ...scalar.lanes import load_decoded


__all__ = ["UTF8Decoder", "UTF8Encoder"]


class UTF8Decoder(wiring.Component):
    """UTF-8 decoder with U+FFFD substitution of maximal subparts.

    Decodes a byte stream into code points. Every maximal ill-formed subsequence (Unicode ch. 3,
    D93b and "U+FFFD Substitution of Maximal Subparts", Tables 3-8 to 3-11; the WHATWG UTF-8
    decoder) becomes one U+FFFD tagged with an :class:`~utfhw.hdl.unicode.layout.ErrorKind`, which is what
    CPython's ``bytes.decode("utf-8", "replace")`` produces. A sequence still unfinished when a
    byte with ``last`` set arrives becomes one U+FFFD (``UNEXPECTED_END_OF_DATA``), and decoding starts afresh
    with the next message.

    Latency is one clock: the code points a byte completes are valid on the clock after the byte
    is accepted. Throughput is one byte per clock on any input, malformed input included, as long
    as the output is ready: each input beat produces exactly one output beat, carrying 0, 1 or 2
    code points (two when the byte cuts a pending sequence short and is itself emitted, e.g.
    ``E2 41``; the second is then always below U+0080 or a U+FFFD). Under backpressure the
    decoder holds its output beat and deasserts ``i.ready`` until the beat is taken; ``i.ready``
    is ``~o.valid | o.ready``, so a stalled output stalls the input in the same clock and no byte
    is lost or duplicated.

    Errors are always replaced; :class:`~utfhw.hdl.scalar.error_dropper.ErrorDropper` after the decoder gives
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
    i: In(stream.Signature(UnitBytes(1)))
    o: Out(stream.Signature(CodePointLanes))

    def elaborate(self, platform):
        m = Module()
        state = _DecoderState(m)
        step = _decode_byte(m, _classify_byte(m, self.i.payload.data), state,
                           present=self.i.payload.count != 0, last=self.i.payload.last)
        with m.If(registered_handshake(m, self.i, self.o)):
            state.advance(m, step)
            m.d.sync += self.o.payload.last.eq(self.i.payload.last)
            step.load(m, self.o.payload)
        return m


# The decoder's steps, each on its own so that it reads as one rule of the specification: what
# the byte is (Table 3-7), the state between bytes, and what a byte does to the state.

# What the decoder needs to know about one byte, from the byte alone.
_ByteClass = data.StructLayout({
    "data":          unsigned(8),
    "ascii":         unsigned(1),    # 00..7F
    "continuation":  unsigned(1),    # 80..BF
    # For a well-formed lead byte: the continuation bytes it needs (0 for any other byte), the
    # range of the first one (an index into NEXT_BYTE_RANGES), and its payload bits.
    "lead_needs":    unsigned(2),
    "lead_rule":     range(len(NEXT_BYTE_RANGES)),
    "lead_bits":     unsigned(5),
})


def _classify_byte(m, byte):
    """The :data:`_ByteClass` of ``byte`` (Table 3-7), as a combinational signal."""
    byte_class = Signal(_ByteClass)
    m.d.comb += [
        byte_class.data.eq(byte),
        byte_class.ascii.eq(byte.matches("0-------")),
        byte_class.continuation.eq(byte_in_range(byte, *CONTINUATION)),
    ]
    # The rows of the table are disjoint, so their conditions need no priority.
    for lead in TABLE_3_7:
        with m.If(byte_in_range(byte, lead.first, lead.last)):
            m.d.comb += [
                byte_class.lead_needs.eq(lead.needs),
                byte_class.lead_bits.eq(byte[0:lead.payload_bits]),
                byte_class.lead_rule.eq(NEXT_BYTE_RANGES.index(lead.next_range)),
            ]
    return byte_class


class _DecoderState:
    """A UTF-8 decoder's state between bytes: how many continuation bytes the pending sequence
    still needs, which range the next one must fall in, and the code point bits so far."""
    def __init__(self, m):
        self.pending   = Signal(range(4))
        self.next_rule = Signal(range(len(NEXT_BYTE_RANGES)))
        self.gathered  = Signal(15)

    def advance(self, m, step):
        """Take the state ``step`` computed (``m.d.sync``; call it when the byte is taken)."""
        m.d.sync += [
            self.pending.eq(step.next_pending),
            self.next_rule.eq(step.next_next_rule),
            self.gathered.eq(step.next_gathered),
        ]


class _DecodeStep:
    """What one byte does (see :func:`_decode_byte`): the items it emits and the next state."""
    def __init__(self, state):
        self.cut_short = Signal()
        self.own_valid = Signal()
        self.own_data  = Signal(21)
        self.own_error = Signal(ErrorKind)
        self.next_pending   = Signal.like(state.pending)
        self.next_next_rule = Signal.like(state.next_rule)
        self.next_gathered  = Signal.like(state.gathered)

    def load(self, m, payload):
        """Load the items into a :data:`~utfhw.hdl.unicode.layout.CodePointLanes` beat (``m.d.sync``)."""
        load_decoded(m, payload, cut_short=self.cut_short, cut_short_kind=ErrorKind.INVALID_CONTINUATION_BYTE,
                     own_valid=self.own_valid, own_data=self.own_data, own_error=self.own_error)


def _decode_byte(m, byte_class, state, *, present, last):
    """The combinational logic of one UTF-8 decoding step: a byte of class ``byte_class``
    (absent unless ``present``; ``last`` ends the message) meets ``state``. Returns a
    :class:`_DecodeStep`."""
    byte = byte_class.data
    pending, next_rule, gathered = state.pending, state.next_rule, state.gathered
    step = _DecodeStep(state)

    in_narrowed_range = Signal()
    with m.Switch(next_rule):
        for index, (low, high) in enumerate(NEXT_BYTE_RANGES):
            # The last range takes the values no range has, so that the case is complete.
            with m.Case(index) if index < len(NEXT_BYTE_RANGES) - 1 else m.Default():
                m.d.comb += in_narrowed_range.eq(byte_in_range(byte, low, high))
    continues = present & (pending != 0) & byte_class.continuation & in_narrowed_range

    # What this byte contributes: at most a replacement for the sequence it cuts short
    # (`cut_short`) followed by at most one item of its own.
    def replacement(kind):
        return [step.own_valid.eq(1), step.own_data.eq(REPLACEMENT_CHARACTER),
                step.own_error.eq(kind)]

    with m.If(continues):
        completed = Cat(byte[0:6], gathered)
        with m.If(pending == 1):
            m.d.comb += [step.own_valid.eq(1), step.own_data.eq(completed)]
        with m.Elif(last):
            m.d.comb += replacement(ErrorKind.UNEXPECTED_END_OF_DATA)
        with m.Else():
            m.d.comb += [
                step.next_pending.eq(pending - 1),
                step.next_gathered.eq(completed),
                step.next_next_rule.eq(NEXT_BYTE_RANGES.index(CONTINUATION)),
            ]
    with m.Elif(~present):
        with m.If(~last):
            m.d.comb += [
                step.next_pending.eq(pending),
                step.next_next_rule.eq(next_rule),
                step.next_gathered.eq(gathered),
            ]
        with m.Elif(pending != 0):
            m.d.comb += replacement(ErrorKind.UNEXPECTED_END_OF_DATA)
    with m.Else():
        m.d.comb += step.cut_short.eq(pending != 0)
        with m.If(byte_class.ascii):
            m.d.comb += [step.own_valid.eq(1), step.own_data.eq(byte)]
        with m.Elif(byte_class.lead_needs != 0):
            with m.If(last):
                m.d.comb += replacement(ErrorKind.UNEXPECTED_END_OF_DATA)
            with m.Else():
                m.d.comb += [
                    step.next_pending.eq(byte_class.lead_needs),
                    step.next_gathered.eq(byte_class.lead_bits),
                    step.next_next_rule.eq(byte_class.lead_rule),
                ]
        with m.Else():
            m.d.comb += replacement(ErrorKind.INVALID_START_BYTE)
    return step


class UTF8Encoder(LaneEncoder):
    """UTF-8 encoder: code points to bytes (RFC 3629, section 3; Unicode ch. 3, D92).

    A code point becomes 1 to 4 bytes, shortest form only. Latency is one clock. The output is
    six bytes wide, enough for two code points below U+10000 or one above, which is every beat
    any utfhw decoder emits, so behind a decoder the encoder takes one beat per clock while the
    output is ready. A beat of two code points that needs seven or eight bytes takes two clocks
    (see :class:`~utfhw.hdl.scalar.encoder.LaneEncoder`). Under backpressure the output beat is held
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
        return utf8_bytes(code_point.data)
