"""Pure-Python reference model, written from the specifications.

It never calls CPython's codecs; the tests compare it with them. Besides the decoded text it
records, for each item, the source bytes it accounts for and the index of the input byte whose
beat carries it in the gateware, so the gateware can be checked beat by beat.

Specifications: RFC 3629 (UTF-8); Unicode 15, ch. 3, D92 and Table 3-7 (well-formed byte
sequences), D93b and Tables 3-8 to 3-11 (U+FFFD substitution of maximal subparts); RFC 2781,
section 2.1 (UTF-16 encoding).
"""

from dataclasses import dataclass

from ..hdl.layout import ErrorKind, REPLACEMENT_CHARACTER


__all__ = [
    "Item", "ERROR_HANDLERS", "ERROR_REASONS",
    "decode_utf8", "utf8_items", "utf16_units", "encode_utf16", "utf8_to_utf16_beats",
    "transcode", "check_errors_argument", "check_codecs", "SOURCES", "TARGETS",
]


#: Error handlers of the model and the harness (the gateware implements the first two).
ERROR_HANDLERS = ("replace", "ignore", "strict")

#: CPython's ``UnicodeDecodeError.reason`` for each UTF-8 error kind.
ERROR_REASONS = {
    ErrorKind.INVALID_BYTE: "invalid start byte",
    ErrorKind.TRUNCATED:    "invalid continuation byte",
    ErrorKind.UNFINISHED:   "unexpected end of data",
}


def check_errors_argument(errors):
    if not isinstance(errors, str) or errors not in ERROR_HANDLERS:
        allowed = ", ".join(repr(handler) for handler in ERROR_HANDLERS)
        raise ValueError(f"errors must be one of {allowed}, not {errors!r}")


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
            items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.INVALID_BYTE,
                              position, position + 1, position))
            position += 1
            continue
        value = lead & _LEAD_MASK[len(ranges) + 1]
        end = position + 1
        for low, high in ranges:
            if end == len(data):
                # The message ended inside the sequence; the last byte's beat reports it.
                items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.UNFINISHED,
                                  position, end, end - 1))
                break
            if not low <= data[end] <= high:
                # A maximal subpart: the byte at `end` is not part of it and starts afresh.
                items.append(Item(REPLACEMENT_CHARACTER, ErrorKind.TRUNCATED,
                                  position, end, end))
                break
            value = (value << 6) | (data[end] & 0x3F)
            end += 1
        else:
            items.append(Item(value, ErrorKind.NONE, position, end, end - 1))
        position = end
    return items


def _handle_errors(items, data, errors, encoding):
    if errors == "strict":
        for item in items:
            if item.error != ErrorKind.NONE:
                raise UnicodeDecodeError(encoding, bytes(data), item.start, item.end,
                                         ERROR_REASONS[item.error])
        return items
    if errors == "ignore":
        return [item for item in items if item.error == ErrorKind.NONE]
    return items


def decode_utf8(data, errors="replace"):
    """Decode UTF-8 to a list of code points, with CPython's error handlers."""
    check_errors_argument(errors)
    return [item.code_point for item in _handle_errors(utf8_items(data), data, errors, "utf-8")]


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


def utf8_to_utf16_beats(message, errors="replace", byteorder="little"):
    """The output beats of :class:`~utfhw.hdl.pipeline.UTF8ToUTF16` for one message.

    One beat per input byte, as ``(units, last)``: ``units`` a list of ``(data, ErrorKind)`` with
    ``data`` in wire order (bits 0..7 the first byte on the wire), as
    :meth:`~utfhw.sim.payload.LaneFormat.unpack` gives them.
    """
    if errors not in ("replace", "ignore"):
        raise ValueError(f"errors must be 'replace' or 'ignore', not {errors!r}")
    beats = [[] for _ in message]
    for item in utf8_items(message):
        if errors == "ignore" and item.error != ErrorKind.NONE:
            continue
        for unit in utf16_units(item.code_point):
            wire = int.from_bytes(unit.to_bytes(2, byteorder), "little")
            beats[item.beat].append((wire, item.error))
    return [(units, index == len(message) - 1) for index, units in enumerate(beats)]


#: Source and target codecs the model (and, for now, the gateware) supports.
SOURCES = ("utf-8",)
TARGETS = {"utf-16-le": "little", "utf-16-be": "big"}


def check_codecs(source, target):
    if source not in SOURCES:
        raise ValueError(f"source codec must be one of {', '.join(SOURCES)}, not {source!r}")
    if target not in TARGETS:
        raise ValueError(f"target codec must be one of {', '.join(TARGETS)}, not {target!r}")


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace"):
    """What ``data.decode(source, errors).encode(target)`` gives, computed from the specs."""
    check_codecs(source, target)
    return encode_utf16(decode_utf8(data, errors), TARGETS[target])
