"""Stream payload layouts and error kinds shared by every utfhw core.

Every stream carries its framing (``last``) and its errors (``error``) in the payload, never on
side signals. Streams that can carry more than one item per beat are *lane* streams: ``lanes`` is
an array of items, packed from lane 0, ``count`` says how many are valid (0 to the number of
lanes), and ``last`` marks the final beat of a message. A beat with ``count == 0`` is legal: it
carries no item, only (possibly) the end of a message, like an AXI-Stream beat with TKEEP all zero.
"""

from amaranth.hdl import unsigned
from amaranth.lib import data, enum

from .params import check_width


__all__ = [
    "ErrorKind", "REPLACEMENT_CHARACTER", "ENCODE_REPLACEMENT", "BYTE_ORDER_MARK",
    "UnitBytes", "ByteLanes", "CodePoint", "UTF8Unit", "UTF16Unit", "UTF32Unit", "Lanes",
    "CodePointLanes", "UTF8UnitLanes", "UTF16UnitLanes", "UTF32UnitLanes", "ByteUnitLanes",
    "FramedByte", "LaneVerdict", "LaneVerdicts", "ValidationResult", "ValidatedBytes",
]


#: U+FFFD, emitted in place of every maximal ill-formed subsequence.
REPLACEMENT_CHARACTER = 0xFFFD

#: ``?``, which CPython's ``replace`` writes for a character the target codec cannot encode.
ENCODE_REPLACEMENT = 0x3F

#: U+FEFF, the byte order mark (Unicode sec. 23.8) when it begins a message.
BYTE_ORDER_MARK = 0xFEFF


class ErrorKind(enum.Enum, shape=unsigned(4)):
    """Why an item is a replacement (U+FFFD, or ``?`` in a form that cannot hold it) rather
    than decoded data.

    The shape is fixed at 4 bits, so that every stage shares one port width; ten of its
    sixteen values are assigned. Each name is CPython's ``reason`` for the error where CPython
    has one reason for it; with the source codec, each kind but the last gives the ``reason``
    of CPython's ``UnicodeDecodeError`` (each form's description lists its kinds with their
    reasons: :attr:`~utfhw.hdl.unicode.form.Form.error_kinds`), and the last, with the target
    codec, that of its ``UnicodeEncodeError``
    (:attr:`~utfhw.hdl.unicode.form.Form.unencodable_reason`).

    Members
    -------
    NONE
        The item is well-formed data.
    INVALID_START_BYTE
        UTF-8: a byte that cannot begin a sequence (80..BF, C0, C1, F5..FF).
        CPython: "invalid start byte".
    INVALID_CONTINUATION_BYTE
        UTF-8: a sequence cut short by a byte that cannot continue it, including a second byte
        outside the narrowed ranges of Unicode Table 3-7 (overlong, surrogate or above U+10FFFF).
        CPython: "invalid continuation byte".
    UNEXPECTED_END_OF_DATA
        A UTF-8 sequence, or a UTF-16 high surrogate (with or without a trailing odd byte), still
        unfinished at the end of the message (``last``). CPython: "unexpected end of data".
    TRUNCATED_DATA
        UTF-16 or UTF-32: a code unit cut short by the end of the message (an odd trailing byte,
        1 to 3 trailing bytes). CPython: "truncated data".
    UNPAIRED_HIGH_SURROGATE
        UTF-16: a high surrogate not followed by a low one. CPython: "illegal UTF-16 surrogate".
    SURROGATE
        UTF-16: a low surrogate without a high one before it (CPython: "illegal encoding");
        UTF-32: a unit in D800..DFFF (CPython: "code point in surrogate code point range(0xd800,
        0xe000)").
    OUT_OF_RANGE
        UTF-32: a unit above 10FFFF. CPython: "code point not in range(0x110000)".
    ORDINAL_NOT_IN_RANGE
        ASCII: a byte from 80 up. CPython: "ordinal not in range(128)".
    UNENCODABLE_CHARACTER
        A character the target form cannot hold (above U+00FF in Latin-1, U+007F in ASCII),
        written as ``?``; an error the decoder found keeps its own kind. CPython's
        ``UnicodeEncodeError``: "ordinal not in range(256)" or "(128)".
    """
    NONE                      = 0
    INVALID_START_BYTE        = 1
    INVALID_CONTINUATION_BYTE = 2
    UNEXPECTED_END_OF_DATA    = 3
    TRUNCATED_DATA            = 4
    UNPAIRED_HIGH_SURROGATE   = 5
    SURROGATE                 = 6
    OUT_OF_RANGE              = 7
    ORDINAL_NOT_IN_RANGE      = 8
    UNENCODABLE_CHARACTER     = 9


class UnitBytes(data.StructLayout):
    """Payload of a byte stream that moves one code unit of ``width`` bytes per beat.

    This is the input of every pipeline: one byte per beat for UTF-8, two for UTF-16 and four
    for UTF-32. ``count`` says how many bytes are present. A full unit has ``count == width``;
    a shorter one can only end a message (an odd trailing byte of UTF-16, 1 to 3 trailing bytes
    of UTF-32), and ``count == 0`` with ``last`` ends a message without adding bytes, which is
    how an empty message is sent.

    Parameters
    ----------
    width : :class:`int`
        Bytes per code unit: 1, 2 or 4.

    Members
    -------
    data : :py:`unsigned(8 * width)`
        The bytes. On the wire side of a byte order stage, ``data[0:8]`` is the first byte on
        the wire; on the unit side it is the numeric value of the code unit.
    count : :py:`range(width + 1)`
        Number of bytes present, from ``data[0:8]`` up.
    last : 1 bit
        Final beat of the message.
    """
    def __init__(self, width):
        if width not in (1, 2, 4):
            raise ValueError(f"width must be 1, 2 or 4 bytes, not {width!r}")
        self.width = width
        super().__init__({
            "data":  unsigned(8 * width),
            "count": range(width + 1),
            "last":  unsigned(1),
        })

    def __repr__(self):
        return f"UnitBytes({self.width})"


class ByteLanes(data.StructLayout):
    """Payload of a byte stream that moves up to ``width`` bytes per beat: the input of the wide
    cores.

    The fields are those of :class:`UnitBytes`, so the same drivers feed both. A message starts
    on a new beat and every beat but its last is full (``count == width``); the last may hold
    0 to ``width`` bytes, and a message of no bytes is one beat with ``count == 0`` and
    ``last``.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat, a power of two from 1 to 64.

    Members
    -------
    data : :py:`unsigned(8 * width)`
        The bytes in wire order, ``data[0:8]`` first.
    count : :py:`range(width + 1)`
        Number of bytes present, from ``data[0:8]`` up.
    last : 1 bit
        Final beat of the message.
    """
    def __init__(self, width):
        check_width(width)
        self.width = width
        super().__init__({
            "data":  unsigned(8 * width),
            "count": range(width + 1),
            "last":  unsigned(1),
        })

    def __repr__(self):
        return f"ByteLanes({self.width})"


#: One Unicode code point (a scalar value, or U+FFFD with an error kind).
CodePoint = data.StructLayout({
    "data":  unsigned(21),
    "error": ErrorKind,
})

#: One UTF-8 code unit (a byte) and the error kind of the code point it belongs to.
UTF8Unit = data.StructLayout({
    "data":  unsigned(8),
    "error": ErrorKind,
})

#: One UTF-16 code unit. Before a byte order stage, ``data`` is the numeric value of the unit;
#: after it, ``data[0:8]`` is the first byte on the wire and ``data[8:16]`` the second.
UTF16Unit = data.StructLayout({
    "data":  unsigned(16),
    "error": ErrorKind,
})

#: One UTF-32 code unit, numeric or in wire order like :data:`UTF16Unit`.
UTF32Unit = data.StructLayout({
    "data":  unsigned(32),
    "error": ErrorKind,
})


class Lanes(data.StructLayout):
    """Payload of a lane stream: up to ``count`` items of layout ``item`` in one beat.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        Layout of one lane.
    count : :class:`int`
        Number of lanes, at least 1.

    Members
    -------
    lanes : :py:`ArrayLayout(item, count)`
        The items, packed from lane 0.
    count : :py:`range(count + 1)`
        Number of valid lanes.
    last : 1 bit
        Final beat of the message.
    """
    def __init__(self, item, count):
        if not isinstance(count, int) or count < 1:
            raise ValueError(f"lane count must be a positive integer, not {count!r}")
        self.item = item
        self.lane_count = count
        super().__init__({
            "lanes": data.ArrayLayout(item, count),
            "count": range(count + 1),
            "last":  unsigned(1),
        })

    def __repr__(self):
        return f"Lanes({self.item!r}, {self.lane_count})"


#: Code points between a decoder and an encoder: up to two per beat. No decoder emits more than
#: two items for one input unit: a replacement for what the unit cuts short, and its own item.
CodePointLanes = Lanes(CodePoint, 2)

#: UTF-8 bytes as emitted by :class:`~utfhw.hdl.forms.utf8.scalar.UTF8Encoder`: two code points of up to
#: three bytes, or one of four.
UTF8UnitLanes = Lanes(UTF8Unit, 6)

#: UTF-16 units as emitted by :class:`~utfhw.hdl.forms.utf16.scalar.UTF16Encoder`: two BMP code points, or
#: one surrogate pair.
UTF16UnitLanes = Lanes(UTF16Unit, 2)

#: UTF-32 units as emitted by :class:`~utfhw.hdl.forms.utf32.scalar.UTF32Encoder`: two code points.
UTF32UnitLanes = Lanes(UTF32Unit, 2)

#: Bytes of a one-byte form (Latin-1, ASCII) as its scalar encoder emits them: two code points
#: of a byte each, each byte with its code point's error kind, as :data:`UTF8Unit` holds it.
ByteUnitLanes = Lanes(UTF8Unit, 2)

#: One entry of a byte stream without ``last``, such as a serial line's: a byte, or (with
#: ``end``) the end of the message the bytes before it belong to, carrying no byte.
FramedByte = data.StructLayout({
    "data": unsigned(8),
    "end":  unsigned(1),
})


#: What a validator decides at one byte lane of a beat (or, at lane ``count`` of a message's
#: last beat, at its end), as :mod:`utfhw.hdl.wide.validate` gathers it.
#:
#: ``bad``: the message's first error is found here, if the bytes before it are well formed;
#: ``error`` says which, an index into the form's checks' ``ERRORS`` (its kind, and where
#: CPython's ``start`` and ``end`` are from the lane). The four counts say what
#: ``data.decode(source, "replace")`` makes of the lane, each weighed by
#: :data:`~utfhw.hdl.wide.validate.WEIGHTS`: ``begins`` a character or a U+FFFD (three bytes
#: of UTF-8), ``ascii`` one of one byte, ``two`` the end of one of two bytes, ``four`` the end
#: of one of four (two UTF-16 units).
LaneVerdict = data.StructLayout({
    "bad":    unsigned(1),
    "error":  unsigned(3),
    "begins": unsigned(1),
    "ascii":  unsigned(1),
    "two":    unsigned(1),
    "four":   unsigned(1),
})


class LaneVerdicts(data.StructLayout):
    """A beat of ``width`` bytes with the :data:`LaneVerdict` of each lane and of the lane after
    them, where a message that ends with a whole beat ends.

    Members
    -------
    data, count, last
        The beat, as :class:`ByteLanes` has it.
    lanes : :py:`ArrayLayout(LaneVerdict, width + 1)`
        Lane ``j``'s verdict; lanes from ``count`` up say nothing but at a message's end.
    mark : 1 bit
        The beat completes a byte order mark that the codec drops: one character less.
    """
    def __init__(self, width):
        check_width(width)
        self.width = width
        super().__init__({
            "data":  unsigned(8 * width),
            "count": range(width + 1),
            "last":  unsigned(1),
            "lanes": data.ArrayLayout(LaneVerdict, width + 1),
            "mark":  unsigned(1),
        })

    def __repr__(self):
        return f"LaneVerdicts({self.width})"


class ValidationResult(data.StructLayout):
    """What a validator says of a message, on its last beat.

    Counts are of a message of fewer than ``2 ** bits`` bytes (``bits`` = 33: 8 GiB, so any
    message of 4 GiB); past that they stop and ``overflow`` says so.

    Members
    -------
    valid : 1 bit
        ``data.decode(source)`` raises nothing.
    kind : :class:`ErrorKind`
        The first error's kind (``NONE`` if valid); the source form's reason for it is
        CPython's ``reason``.
    overflow : 1 bit
        The message is ``2 ** bits`` bytes or longer: the positions and counts are not its.
    start, end : :py:`unsigned(bits)`
        CPython's ``start`` and ``end`` of the first error (0 if valid).
    code_points, utf16_units : :py:`unsigned(bits)`
        ``len(data.decode(source, "replace"))``, and that text's UTF-16 code units.
    utf8_bytes : :py:`unsigned(bits + 2)`
        Bytes of that text in UTF-8 (up to three for each byte in).
    """
    def __init__(self, bits=33):
        self.bits = bits
        super().__init__({
            "valid":       unsigned(1),
            "kind":        ErrorKind,
            "overflow":    unsigned(1),
            "start":       unsigned(bits),
            "end":         unsigned(bits),
            "code_points": unsigned(bits),
            "utf16_units": unsigned(bits),
            "utf8_bytes":  unsigned(bits + 2),
        })

    def __repr__(self):
        return f"ValidationResult({self.bits})"


class ValidatedBytes(data.StructLayout):
    """Payload of a validator's output: its input beat, unchanged, and on a message's last beat
    the message's :class:`ValidationResult` (zero on the other beats).

    Members
    -------
    data, count
        The beat, as :class:`ByteLanes` has it.
    result : :class:`ValidationResult`
    last : 1 bit
        Final beat of the message.
    """
    def __init__(self, width, bits=33):
        check_width(width)
        self.width = width
        self.bits = bits
        # ``last`` on top, as in every lane stream.
        super().__init__({
            "data":   unsigned(8 * width),
            "count":  range(width + 1),
            "result": ValidationResult(bits),
            "last":   unsigned(1),
        })

    def __repr__(self):
        return f"ValidatedBytes({self.width}, {self.bits})"
