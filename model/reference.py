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

:func:`decode`, :func:`encode` and :func:`transcode` take each error handler CPython's codecs
take but ``namereplace`` (the Unicode character names are not here): what a handler writes
and where decoding goes on after it follow the ``codecs`` module's documentation, "Error
Handlers", and the tests hold them to CPython.
"""

from dataclasses import dataclass, replace
from itertools import takewhile

from ..hdl.unicode.layout import ErrorKind, REPLACEMENT_CHARACTER, BYTE_ORDER_MARK
from ..hdl.forms import CODECS as _CODEC_TABLE
from ..hdl.forms import canonical_codec, canonical_pair
from ..hdl.unicode.params import (DECODING_HANDLERS, ENCODING_HANDLERS, ERROR_HANDLERS,
                                  HARDWARE_ERROR_HANDLERS, check_choice, check_errors,
                                  handler_pair)


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
    items = _items_from(bytes(data), source, 0)
    # EF BB BF, or a leading U+FEFF read in the detected byte order, is exactly the byte order
    # mark: the only way for the first item to be a well-formed U+FEFF.
    return _strip_byte_order_mark(items) if _CODEC_TABLE[source].mark else items


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


def _items_from(data, source, position):
    """The items of one message from ``position`` on, where an error handler has CPython's
    decoder go on: decoded afresh from there, in the byte order the message's start chose."""
    form = _CODEC_TABLE[source].form.name
    rest = data[position:]
    if form == "utf-8":
        items = utf8_items(rest)
    elif form in _SINGLE_BYTE_LAST:
        items = single_byte_items(rest, _SINGLE_BYTE_LAST[form])
    else:
        decoder = utf16_items if form == "utf-16" else utf32_items
        items = decoder(rest, _source_byteorder(data, source))
    if not position:
        return items
    return [replace(item, start=item.start + position, end=item.end + position,
                    beat=item.beat + position) for item in items]


def _surrogate_at(data, source, start):
    """``(code point, bytes)`` of the surrogate encoded at ``start`` as if it were a scalar
    value, as ``surrogatepass`` reads it, or ``None``: three bytes E0..EF 80..BF 80..BF in
    UTF-8 (RFC 3629's bit layout), a unit in UTF-16 or UTF-32; a one-byte form has none."""
    form = _CODEC_TABLE[source].form.name
    if form == "utf-8":
        head = data[start:start + 3]
        if (len(head) < 3 or head[0] & 0xF0 != 0xE0 or head[1] & 0xC0 != 0x80
                or head[2] & 0xC0 != 0x80):
            return None
        code_point = (head[0] & 0x0F) << 12 | (head[1] & 0x3F) << 6 | head[2] & 0x3F
    elif form in _SINGLE_BYTE_LAST:
        return None
    else:
        width = _CODEC_TABLE[source].unit_bytes
        if start + width > len(data):
            return None
        code_point = int.from_bytes(data[start:start + width], _source_byteorder(data, source))
    if not 0xD800 <= code_point <= 0xDFFF:
        return None
    return code_point, len(head) if form == "utf-8" else width


def _decoding_replacement(errors, data, source, item):
    """What CPython's handler ``errors`` puts in place of the decoding error ``item``:
    ``(code points, the position decoding goes on from)``, or ``None`` where it raises the
    error (CPython's ``codecs`` documentation, "Error Handlers").

    ``backslashreplace`` writes each byte of the error as ``\\xNN``; ``surrogateescape``
    writes each byte as U+DC00 plus its value, at most four and only while they are 80..FF,
    and goes on after the last it wrote (so a UTF-16 or UTF-32 message may go on out of step
    with its units); ``surrogatepass`` takes a surrogate encoded as if it were a scalar value
    at the error's start."""
    if errors == "replace":
        return [REPLACEMENT_CHARACTER], item.end
    if errors == "ignore":
        return [], item.end
    if errors == "backslashreplace":
        return [ord(c) for byte in data[item.start:item.end] for c in f"\\x{byte:02x}"], item.end
    if errors == "surrogateescape":
        escaped = list(takewhile(lambda byte: byte >= 0x80, data[item.start:item.end][:4]))
        if not escaped:
            return None
        return [0xDC00 + byte for byte in escaped], item.start + len(escaped)
    if errors == "surrogatepass":
        surrogate = _surrogate_at(data, source, item.start)
        if surrogate is None:
            return None
        return [surrogate[0]], item.start + surrogate[1]
    return None


def encode_error(code_points, target, start, end):
    """The :exc:`UnicodeEncodeError` CPython raises encoding ``code_points`` with ``target``
    for the characters from ``start`` to ``end`` it cannot write: code points above its last
    for Latin-1 and ASCII, surrogates for the others."""
    form = _CODEC_TABLE[target].form.name
    if form in _SINGLE_BYTE_LAST:
        reason = f"ordinal not in range({_SINGLE_BYTE_LAST[form] + 1})"
    else:
        reason = "surrogates not allowed"
    # utf-8-sig writes its mark and hands the rest to the utf-8 codec, which raises.
    encoding = "utf-8" if target == "utf-8-sig" else target
    return UnicodeEncodeError(encoding, "".join(map(chr, code_points)), start, end, reason)


def decode(data, source, errors="replace"):
    """Decode one message to a list of code points with CPython's error handler ``errors``
    (one of :data:`~utfhw.hdl.unicode.params.DECODING_HANDLERS`); surrogates are among them
    where ``surrogateescape`` or ``surrogatepass`` put them."""
    source = canonical_codec("source", source)
    check_choice("errors", errors, DECODING_HANDLERS)
    data = bytes(data)
    items, index, code_points = decode_items(data, source), 0, []
    while index < len(items):
        item = items[index]
        index += 1
        if item.error == ErrorKind.NONE:
            code_points.append(item.code_point)
            continue
        replacement = _decoding_replacement(errors, data, source, item)
        if replacement is None:
            raise decode_error(data, source, item)
        written, position = replacement
        code_points += written
        if position != item.end:
            items, index = _items_from(data, source, position), 0
    return code_points


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


def _written(code_point, target):
    """The bytes of ``code_point`` in ``target``, a surrogate as if it were a scalar value; a
    one-byte form's code point must be one it holds."""
    codec = _CODEC_TABLE[target]
    form = codec.form.name
    if form == "utf-8":
        return utf8_sequence(code_point)
    if form in _SINGLE_BYTE_LAST:
        return bytes((code_point,))
    # A utf-16 or utf-32 target writes little-endian.
    byteorder = "big" if codec.byteorder == "big" else "little"
    if form == "utf-16":
        return encode_utf16([code_point], byteorder)
    return code_point.to_bytes(4, byteorder)


def _escape(code_point, errors):
    """The text ``backslashreplace`` or ``xmlcharrefreplace`` writes for one character."""
    if errors == "xmlcharrefreplace":
        return f"&#{code_point};"
    if code_point < 0x100:
        return f"\\x{code_point:02x}"
    if code_point < 0x10000:
        return f"\\u{code_point:04x}"
    return f"\\U{code_point:08x}"


def _encoding_replacement(errors, code_points, target, start, end):
    """The bytes CPython's handler ``errors`` writes for the characters from ``start`` to
    ``end`` that ``target`` cannot write, or raise its :exc:`UnicodeEncodeError` (CPython's
    ``codecs`` documentation, "Error Handlers").

    ``surrogatepass`` writes each surrogate as if it were a scalar value, in the three forms of
    Unicode; ``surrogateescape`` writes U+DC80..U+DCFF as the byte of their low eight bits, in
    UTF-8 and the one-byte forms, and raises from the first character it cannot write: a
    UTF-16 or UTF-32 target cannot take one byte for a character."""
    characters = code_points[start:end]
    form = _CODEC_TABLE[target].form.name
    if errors == "ignore":
        return b""
    if errors == "replace":
        return _written(_ENCODE_REPLACEMENT, target) * len(characters)
    if errors in ("backslashreplace", "xmlcharrefreplace"):
        return b"".join(_written(ord(c), target)
                        for code_point in characters for c in _escape(code_point, errors))
    if errors == "surrogatepass" and form not in _SINGLE_BYTE_LAST:
        return b"".join(_written(code_point, target) for code_point in characters)
    if errors == "surrogateescape" and form in ("utf-8", *_SINGLE_BYTE_LAST):
        escaped = list(takewhile(lambda code_point: 0xDC80 <= code_point <= 0xDCFF, characters))
        if len(escaped) == len(characters):
            return bytes(code_point - 0xDC00 for code_point in escaped)
        start += len(escaped)
    raise encode_error(code_points, target, start, end)


def encode(code_points, target, errors="strict"):
    """Encode code points with codec ``target`` and CPython's error handler ``errors`` (one of
    :data:`~utfhw.hdl.unicode.params.ENCODING_HANDLERS`).

    ``utf-16``, ``utf-32`` and ``utf-8-sig`` begin with a byte order mark (little-endian for the
    first two), even when there is nothing else to encode; the other codecs never write one.
    What a target cannot write, a code point above its last in Latin-1 and ASCII and a
    surrogate in the others, goes to the handler: each run of them in Latin-1, ASCII and UTF-8,
    each one alone in UTF-16 and UTF-32, as CPython's encoders hand them over.
    """
    target = canonical_codec("target", target)
    check_choice("errors", errors, ENCODING_HANDLERS)
    form = _CODEC_TABLE[target].form.name
    if form in _SINGLE_BYTE_LAST:
        last = _SINGLE_BYTE_LAST[form]
        def unwritable(code_point):
            return code_point > last
    else:
        def unwritable(code_point):
            return 0xD800 <= code_point <= 0xDFFF
    runs = form == "utf-8" or form in _SINGLE_BYTE_LAST
    output = bytearray(_written(BYTE_ORDER_MARK, target) if _CODEC_TABLE[target].mark else b"")
    position = 0
    while position < len(code_points):
        if not unwritable(code_points[position]):
            output += _written(code_points[position], target)
            position += 1
            continue
        end = position + 1
        while runs and end < len(code_points) and unwritable(code_points[end]):
            end += 1
        output += _encoding_replacement(errors, code_points, target, position, end)
        position = end
    return bytes(output)


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


# The escapes the Transcoder writes on encoding.
_ESCAPING = ("backslashreplace", "xmlcharrefreplace")


def transcoder_beats(message, source, target, errors="replace"):
    """The output beats of :class:`~utfhw.hdl.cores.transcoder.Transcoder` for one message.

    One beat per input beat (see :func:`input_beats`), as ``(units, last)``: ``units`` a list of
    ``(data, ErrorKind)`` with ``data`` in wire order (see :func:`target_units`), as
    :meth:`~utfhw.sim.payload.LaneFormat.unpack` gives them. A target that writes a byte order
    mark has it at the front of the first beat.

    ``errors`` is ``"replace"``, ``"ignore"`` or a ``(decoding, encoding)`` pair of the
    Transcoder's: those two on decoding, and on encoding an escape besides. With an escape, an
    input beat that holds a character a one-byte target cannot hold goes out one unit a beat:
    each of its other items, and each character of its escapes, which carry the character's
    error kind (``UNENCODABLE_CHARACTER`` for one that was data).
    """
    source, target = canonical_pair(source, target)
    if isinstance(errors, str):
        check_errors(errors, handlers=HARDWARE_ERROR_HANDLERS)
    decoding, encoding = handler_pair(errors, decoding=HARDWARE_ERROR_HANDLERS,
                                      encoding=(*HARDWARE_ERROR_HANDLERS, *_ESCAPING))
    last_code_point = _SINGLE_BYTE_LAST.get(_CODEC_TABLE[target].form.name)
    held = [[] for _ in range(input_beats(message, source))]
    for item in decode_items(message, source):
        if decoding == "ignore" and item.error != ErrorKind.NONE:
            continue
        held[item.beat].append(item)
    beats = []
    for index, items in enumerate(held):
        last = index == len(held) - 1
        if (encoding not in _ESCAPING or last_code_point is None
                or all(item.code_point <= last_code_point for item in items)):
            beats.append(([unit for item in items for unit in target_item(
                item.code_point, item.error, target,
                "ignore" if encoding == "ignore" else "replace")], last))
            continue
        pieces = []
        for item in items:
            if item.code_point <= last_code_point:
                pieces.append(target_item(item.code_point, item.error, target))
                continue
            kind = (ErrorKind.UNENCODABLE_CHARACTER if item.error == ErrorKind.NONE
                    else item.error)
            pieces += [[(ord(character), kind)]
                       for character in _escape(item.code_point, encoding)]
        beats += [(piece, last and number == len(pieces) - 1)
                  for number, piece in enumerate(pieces)]
    if _CODEC_TABLE[target].mark:
        mark = [(unit, ErrorKind.NONE) for unit in target_units(BYTE_ORDER_MARK, target)]
        beats[0] = (mark + beats[0][0], beats[0][1])
    return beats


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace"):
    """What ``data.decode(source, d).encode(target, e)`` gives, computed from the specs, where
    ``(d, e)`` is ``errors`` if it is a pair of handlers' names and ``(errors, errors)`` if it
    is one (see :func:`~utfhw.hdl.unicode.params.handler_pair`)."""
    source, target = canonical_pair(source, target)
    decoding, encoding = handler_pair(errors)
    return encode(decode(data, source, decoding), target, encoding)
