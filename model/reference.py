"""Pure-Python reference model, written from the specifications.

It never calls CPython's codecs to decode or encode; the tests compare it with them. It takes a
codec by any of CPython's names for it, which :func:`codecs.lookup` only resolves to a name.
Besides the decoded text it records, for each item, the source bytes it accounts for and the
index of the input byte whose beat carries it in the gateware, so the gateware can be checked
beat by beat.

Specifications: RFC 3629 (UTF-8); Unicode 15, ch. 3, D90 to D92 (UTF-32, UTF-16, UTF-8
encoding forms); ISO/IEC 8859-1 (Latin-1: a byte is the code point of its value) and ANSI
X3.4 (ASCII: the same below 80, as CPython's ``ascii`` codec, every byte from 80 up an error
of its own); Table 3-7 (well-formed byte sequences), D93b and Tables 3-8 to 3-11 (U+FFFD
substitution of maximal subparts); RFC 2781 (UTF-16, byte order marks); Unicode 15, sec. 23.8
(the byte order mark). Where the specifications leave the extent of a replacement open (UTF-16
and UTF-32), the model follows CPython's documented codec behaviour, recorded in the comments.
"""

from dataclasses import dataclass

from ..hdl.unicode.layout import ErrorKind, REPLACEMENT_CHARACTER, BYTE_ORDER_MARK
from ..hdl.forms import CODECS as _CODEC_TABLE
from ..hdl.unicode.params import ERROR_HANDLERS, HARDWARE_ERROR_HANDLERS
from ..hdl.forms import canonical_codec, canonical_pair
from ..hdl.unicode.params import check_errors


__all__ = [
    "Item", "CODECS", "ERROR_HANDLERS", "error_reason", "following_ranges",
    "utf8_items", "utf16_items", "utf32_items", "single_byte_items", "decode_items",
    "decode_error", "encode_error", "decode", "decode_utf8",
    "utf16_units", "encode", "encode_utf16", "target_units", "target_item", "input_beats",
    "transcoder_beats", "transcode",
]


#: CPython's names of the codecs the model covers.
CODECS = tuple(_CODEC_TABLE)



_REASONS = {
    ErrorKind.INVALID_START_BYTE:            "invalid start byte",
    ErrorKind.INVALID_CONTINUATION_BYTE:               "invalid continuation byte",
    ErrorKind.UNEXPECTED_END_OF_DATA:              "unexpected end of data",
    ErrorKind.TRUNCATED_DATA:            "truncated data",
    ErrorKind.UNPAIRED_HIGH_SURROGATE: "illegal UTF-16 surrogate",
    ErrorKind.OUT_OF_RANGE:            "code point not in range(0x110000)",
    ErrorKind.ORDINAL_NOT_IN_RANGE:    "ordinal not in range(128)",
}

# The forms of one-byte units, each with the greatest code point it holds: Latin-1 every byte's
# value, ASCII the values below 80.
_SINGLE_BYTE_LAST = {"latin-1": 0xFF, "ascii": 0x7F}

#: The character CPython's ``replace`` writes for one its encoder cannot hold.
_ENCODE_REPLACEMENT = ord("?")


def error_reason(kind, source):
    """CPython's ``UnicodeDecodeError.reason`` for an error kind met decoding ``source``."""
    kind = ErrorKind(kind)
    if kind == ErrorKind.SURROGATE:
        if source.startswith("utf-32"):
            return "code point in surrogate code point range(0xd800, 0xe000)"
        return "illegal encoding"
    return _REASONS[kind]


@dataclass(frozen=True)
class Item:
    """One decoded item: a scalar value, or U+FFFD standing for a maximal ill-formed subpart.

    ``start`` and ``end`` delimit the source bytes it accounts for; ``beat`` is the index of the
    input byte on whose output beat the gateware emits it (the byte that decides it).
    """
    code_point: int
    error: ErrorKind
    start: int
    end: int
    beat: int


_ANY = (0x80, 0xBF)

# Unicode Table 3-7, "Well-Formed UTF-8 Byte Sequences": for each range of first bytes, the
# ranges the following bytes must fall in.
_WELL_FORMED = (
    ((0x00, 0x7F), ()),
    ((0xC2, 0xDF), (_ANY,)),
    ((0xE0, 0xE0), ((0xA0, 0xBF), _ANY)),
    ((0xE1, 0xEC), (_ANY, _ANY)),
    ((0xED, 0xED), ((0x80, 0x9F), _ANY)),
    ((0xEE, 0xEF), (_ANY, _ANY)),
    ((0xF0, 0xF0), ((0x90, 0xBF), _ANY, _ANY)),
    ((0xF1, 0xF3), (_ANY, _ANY, _ANY)),
    ((0xF4, 0xF4), ((0x80, 0x8F), _ANY, _ANY)),
)

# Bits of the first byte that belong to the scalar value (RFC 3629, section 3), by sequence length.
_LEAD_MASK = {1: 0x7F, 2: 0x1F, 3: 0x0F, 4: 0x07}

_FOLLOWING_RANGES = [None] * 256
for (_low, _high), _ranges in _WELL_FORMED:
    for _byte in range(_low, _high + 1):
        _FOLLOWING_RANGES[_byte] = _ranges


def following_ranges(lead):
    """For a byte that starts a well-formed sequence (Table 3-7), the ``(low, high)`` range of
    each byte after it (empty for 00..7F); ``None`` for a byte that starts none."""
    return _FOLLOWING_RANGES[lead]


def utf8_items(data):
    """Decode one message of UTF-8 into :class:`Item` s, replacing maximal subparts.

    The message ends with ``data``: a sequence left unfinished there becomes one U+FFFD.
    """
    items = []
    position = 0
    while position < len(data):
        lead = data[position]
        ranges = _FOLLOWING_RANGES[lead]
        if ranges is None:
            items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.INVALID_START_BYTE,
                              position, position + 1, position))
            position += 1
            continue
        value = lead & _LEAD_MASK[len(ranges) + 1]
        end = position + 1
        for low, high in ranges:
            if end == len(data):
                # The message ended inside the sequence; the last byte's beat reports it.
                items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.UNEXPECTED_END_OF_DATA,
                                  position, end, end - 1))
                break
            if not low <= data[end] <= high:
                # A maximal subpart: the byte at `end` is not part of it and starts afresh.
                items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.INVALID_CONTINUATION_BYTE,
                                  position, end, end))
                break
            value = (value << 6) | (data[end] & 0x3F)
            end += 1
        else:
            items.append(Item(value, ErrorKind.NONE, position, end, end - 1))
        position = end
    return items


def utf16_items(data, byteorder="little"):
    """Decode one message of UTF-16 in the given byte order into :class:`Item` s.

    ``beat`` counts 16-bit code units (a trailing odd byte has a beat of its own). Replacements,
    as CPython makes them: a high surrogate not followed by a low one is one U+FFFD, decided by
    the unit after it; a lone low surrogate is one U+FFFD; a high surrogate at the end of the
    message, even with an odd byte after it, is one U+FFFD; an odd trailing byte alone is one.
    """
    items = []
    units = len(data) // 2
    pending_high = None    # index of a high surrogate waiting for its low half

    def unit_at(index):
        return int.from_bytes(data[2 * index:2 * index + 2], byteorder)

    for index in range(units):
        unit = unit_at(index)
        if pending_high is not None:
            high = pending_high
            pending_high = None
            if 0xDC00 <= unit <= 0xDFFF:
                code_point = 0x10000 + ((unit_at(high) - 0xD800) << 10) + (unit - 0xDC00)
                items.append(Item(code_point, ErrorKind.NONE, 2 * high, 2 * index + 2, index))
                continue
            items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.UNPAIRED_HIGH_SURROGATE,
                              2 * high, 2 * high + 2, index))
        if 0xD800 <= unit <= 0xDBFF:
            pending_high = index
        elif 0xDC00 <= unit <= 0xDFFF:
            items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.SURROGATE,
                              2 * index, 2 * index + 2, index))
        else:
            items.append(Item(unit, ErrorKind.NONE, 2 * index, 2 * index + 2, index))
    last_beat = (len(data) + 1) // 2 - 1
    if pending_high is not None:
        items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.UNEXPECTED_END_OF_DATA,
                          2 * pending_high, len(data), last_beat))
    elif len(data) % 2:
        items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.TRUNCATED_DATA,
                          len(data) - 1, len(data), last_beat))
    return items


def utf32_items(data, byteorder="little"):
    """Decode one message of UTF-32 in the given byte order into :class:`Item` s.

    ``beat`` counts 32-bit code units. Each unit that is not a scalar value (D90) is one
    U+FFFD; 1 to 3 trailing bytes are one U+FFFD.
    """
    items = []
    units = len(data) // 4
    for index in range(units):
        unit = int.from_bytes(data[4 * index:4 * index + 4], byteorder)
        if unit > 0x10FFFF:
            kind = ErrorKind.OUT_OF_RANGE
        elif 0xD800 <= unit <= 0xDFFF:
            kind = ErrorKind.SURROGATE
        else:
            kind = ErrorKind.NONE
        code_point = unit if kind == ErrorKind.NONE else REPLACEMENT_CHARACTER
        items.append(Item(code_point, kind, 4 * index, 4 * index + 4, index))
    if len(data) % 4:
        items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.TRUNCATED_DATA,
                          4 * units, len(data), units))
    return items


def single_byte_items(data, last):
    """Decode one message of a one-byte form whose greatest code point is ``last`` into
    :class:`Item` s: each byte up to ``last`` is its value, each above it one U+FFFD."""
    return [Item(byte, ErrorKind.NONE, index, index + 1, index) if byte <= last else
            Item(REPLACEMENT_CHARACTER, ErrorKind.ORDINAL_NOT_IN_RANGE, index, index + 1, index)
            for index, byte in enumerate(data)]


def _strip_byte_order_mark(items):
    if items and items[0].code_point == BYTE_ORDER_MARK and items[0].error == ErrorKind.NONE:
        return items[1:]
    return items


def _source_byteorder(data, source):
    """The byte order a UTF-16 or UTF-32 source decodes ``data`` in: a ``utf-16``/``utf-32``
    message is big-endian if it starts with the big-endian mark, little-endian otherwise."""
    codec = _CODEC_TABLE[source]
    if codec.byteorder != "detect":
        return codec.byteorder
    width = codec.unit_bytes
    return "big" if data[:width] == BYTE_ORDER_MARK.to_bytes(width, "big") else "little"


def decode_items(data, source):
    """Decode one message from codec ``source`` into :class:`Item` s (errors replaced).

    ``utf-16`` and ``utf-32`` take their byte order from a leading byte order mark and drop it,
    and are little-endian without one; ``utf-8-sig`` drops one leading EF BB BF.
    """
    source = canonical_codec("source", source)
    data = bytes(data)
    form, strips_mark = _CODEC_TABLE[source].form.name, _CODEC_TABLE[source].mark
    if form == "utf-8":
        items = utf8_items(data)
    elif form in _SINGLE_BYTE_LAST:
        items = single_byte_items(data, _SINGLE_BYTE_LAST[form])
    else:
        decoder = utf16_items if form == "utf-16" else utf32_items
        items = decoder(data, _source_byteorder(data, source))
    # EF BB BF, or a leading U+FEFF read in the detected byte order, is exactly the byte order
    # mark: the only way for the first item to be a well-formed U+FEFF.
    return _strip_byte_order_mark(items) if strips_mark else items


def decode_error(data, source, item):
    """The :exc:`UnicodeDecodeError` CPython raises for the error ``item`` (the first one).

    CPython names the codec that did the work: ``utf-8`` for ``utf-8-sig``, and the byte order
    it detected for ``utf-16``/``utf-32`` (``utf-16-le`` without a mark). ``utf-8-sig`` decodes
    what follows a stripped EF BB BF as a separate object, so its positions start after it.
    """
    data = bytes(data)
    form = _CODEC_TABLE[source].form.name
    if form in _SINGLE_BYTE_LAST:
        encoding = source
    elif form == "utf-8":
        encoding = "utf-8"
        if source == "utf-8-sig" and data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
            return UnicodeDecodeError(encoding, data, item.start - 3, item.end - 3,
                                      error_reason(item.error, source))
    else:
        byteorder = _source_byteorder(data, source)
        encoding = f"{form}-{'be' if byteorder == 'big' else 'le'}"
    return UnicodeDecodeError(encoding, data, item.start, item.end,
                              error_reason(item.error, source))


def _handle_errors(items, data, errors, source):
    if errors == "strict":
        for item in items:
            if item.error != ErrorKind.NONE:
                raise decode_error(data, source, item)
        return items
    if errors == "ignore":
        return [item for item in items if item.error == ErrorKind.NONE]
    return items


def encode_error(code_points, target, start, end):
    """The :exc:`UnicodeEncodeError` CPython raises encoding ``code_points`` with ``target``
    (a one-byte form) for the run of characters it cannot hold from ``start`` to ``end``."""
    last = _SINGLE_BYTE_LAST[_CODEC_TABLE[target].form.name]
    return UnicodeEncodeError(target, "".join(map(chr, code_points)), start, end,
                              f"ordinal not in range({last + 1})")


def decode(data, source, errors="replace"):
    """Decode one message to a list of code points, with CPython's error handlers."""
    source = canonical_codec("source", source)
    check_errors(errors, handlers=ERROR_HANDLERS)
    items = _handle_errors(decode_items(data, source), data, errors, source)
    return [item.code_point for item in items]


def decode_utf8(data, errors="replace"):
    """Decode UTF-8 to a list of code points, with CPython's error handlers."""
    return decode(data, "utf-8", errors)


def utf16_units(code_point):
    """The UTF-16 code units of a scalar value (RFC 2781, section 2.1)."""
    if code_point < 0x10000:
        return (code_point,)
    offset = code_point - 0x10000
    return (0xD800 | (offset >> 10), 0xDC00 | (offset & 0x3FF))


def encode_utf16(code_points, byteorder="little"):
    """Encode scalar values as UTF-16 in the given byte order."""
    output = bytearray()
    for code_point in code_points:
        for unit in utf16_units(code_point):
            output += unit.to_bytes(2, byteorder)
    return bytes(output)


def utf8_sequence(code_point):
    """The UTF-8 bytes of a scalar value (RFC 3629, section 3)."""
    if code_point < 0x80:
        return bytes((code_point,))
    if code_point < 0x800:
        return bytes((0xC0 | code_point >> 6, 0x80 | code_point & 0x3F))
    if code_point < 0x10000:
        return bytes((0xE0 | code_point >> 12, 0x80 | code_point >> 6 & 0x3F,
                      0x80 | code_point & 0x3F))
    return bytes((0xF0 | code_point >> 18, 0x80 | code_point >> 12 & 0x3F,
                  0x80 | code_point >> 6 & 0x3F, 0x80 | code_point & 0x3F))


def encode(code_points, target, errors="strict"):
    """Encode scalar values with codec ``target`` and CPython's error handlers.

    ``utf-16``, ``utf-32`` and ``utf-8-sig`` begin with a byte order mark (little-endian for the
    first two), even when there is nothing else to encode; the other codecs never write one.
    Latin-1 and ASCII write a code point above their last as ``?`` (``replace``) or nothing
    (``ignore``), or raise at the first run of them (``strict``), as CPython's encoders do.
    """
    target = canonical_codec("target", target)
    check_errors(errors, handlers=ERROR_HANDLERS)
    form, byteorder = _CODEC_TABLE[target].form.name, _CODEC_TABLE[target].byteorder
    if form in _SINGLE_BYTE_LAST:
        last = _SINGLE_BYTE_LAST[form]
        for start, code_point in enumerate(code_points):
            if code_point > last and errors == "strict":
                end = start
                while end < len(code_points) and code_points[end] > last:
                    end += 1
                raise encode_error(code_points, target, start, end)
        return bytes(code_point if code_point <= last else _ENCODE_REPLACEMENT
                     for code_point in code_points
                     if code_point <= last or errors == "replace")
    if _CODEC_TABLE[target].mark:
        code_points = [BYTE_ORDER_MARK, *code_points]
    if form == "utf-8":
        return b"".join(utf8_sequence(code_point) for code_point in code_points)
    # A utf-16 or utf-32 target writes little-endian.
    byteorder = "big" if byteorder == "big" else "little"
    if form == "utf-16":
        return encode_utf16(code_points, byteorder)
    return b"".join(code_point.to_bytes(4, byteorder) for code_point in code_points)


def target_units(code_point, target):
    """The code units of ``code_point`` in codec ``target``, each as the integer whose
    little-endian bytes are the unit's bytes on the wire (how the gateware's lanes hold them)."""
    codec = _CODEC_TABLE[target]
    if codec.form.name == "utf-8":
        return list(utf8_sequence(code_point))
    if codec.form.name in _SINGLE_BYTE_LAST:
        return [code_point if code_point <= _SINGLE_BYTE_LAST[codec.form.name]
                else _ENCODE_REPLACEMENT]
    byteorder = "little" if codec.byteorder == "detect" else codec.byteorder
    width, form = codec.unit_bytes, codec.form.name
    units = utf16_units(code_point) if form == "utf-16" else (code_point,)
    return [int.from_bytes(unit.to_bytes(width, byteorder), "little") for unit in units]


def target_item(code_point, error, target, errors="replace"):
    """The units (see :func:`target_units`) of one decoded item in codec ``target``, each with
    its error kind: a code point the target cannot hold is ``?`` of kind
    ``UNENCODABLE_CHARACTER`` (a replacement keeps its own kind), or nothing with
    ``"ignore"``."""
    form = _CODEC_TABLE[target].form.name
    if form in _SINGLE_BYTE_LAST and code_point > _SINGLE_BYTE_LAST[form]:
        if errors == "ignore":
            return []
        if error == ErrorKind.NONE:
            error = ErrorKind.UNENCODABLE_CHARACTER
    return [(unit, error) for unit in target_units(code_point, target)]


def input_beats(data, source):
    """How many input beats one message takes: one per code unit, one more for trailing bytes,
    and one (empty) for an empty message."""
    width = _CODEC_TABLE[source].unit_bytes
    return max(1, -(-len(data) // width))


def transcoder_beats(message, source, target, errors="replace"):
    """The output beats of :class:`~utfhw.hdl.cores.transcoder.Transcoder` for one message.

    One beat per input beat (see :func:`input_beats`), as ``(units, last)``: ``units`` a list of
    ``(data, ErrorKind)`` with ``data`` in wire order (see :func:`target_units`), as
    :meth:`~utfhw.sim.payload.LaneFormat.unpack` gives them. A target that writes a byte order
    mark has it at the front of the first beat.
    """
    source, target = canonical_pair(source, target)
    check_errors(errors, handlers=HARDWARE_ERROR_HANDLERS)
    beats = [[] for _ in range(input_beats(message, source))]
    if _CODEC_TABLE[target].mark:
        beats[0] += [(unit, ErrorKind.NONE) for unit in target_units(BYTE_ORDER_MARK, target)]
    for item in decode_items(message, source):
        if errors == "ignore" and item.error != ErrorKind.NONE:
            continue
        beats[item.beat] += target_item(item.code_point, item.error, target, errors)
    return [(units, index == len(beats) - 1) for index, units in enumerate(beats)]


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace"):
    """What ``data.decode(source, errors).encode(target, errors)`` gives, computed from the
    specs."""
    source, target = canonical_pair(source, target)
    return encode(decode(data, source, errors), target, errors)
