"""Fast conversion between payload layouts and the raw integers the stream drivers move."""

from amaranth.hdl import Shape

from ..hdl.unicode.layout import ErrorKind, ValidatedBytes
from ..hdl.forms import CODECS


__all__ = ["pack_units", "LaneFormat", "VerdictFormat", "output_format", "units_to_bytes"]


def pack_units(layout, message):
    """Raw payloads of a :class:`~utfhw.hdl.unicode.layout.UnitBytes` stream for one message: one beat
    per code unit, a shorter last beat for trailing bytes, and one empty beat for an empty
    message."""
    width = layout.width
    data_offset = layout["data"].offset
    count_offset = layout["count"].offset
    payloads = []
    for start in range(0, len(message), width):
        chunk = message[start:start + width]
        payloads.append((int.from_bytes(chunk, "little") << data_offset)
                        | (len(chunk) << count_offset))
    if not payloads:
        payloads.append(0)
    payloads[-1] |= 1 << layout["last"].offset
    return payloads


class LaneFormat:
    """Unpacks raw payloads of a :class:`~utfhw.hdl.unicode.layout.Lanes` layout whose items have
    ``data`` and ``error`` fields."""
    def __init__(self, layout):
        def field(field):
            return field.offset, (1 << Shape.cast(field.shape).width) - 1

        lanes = layout["lanes"]
        item = layout.item
        self._lanes = [lanes.offset + index * item.size for index in range(layout.lane_count)]
        self._data_offset, self._data_mask = field(item["data"])
        self._error_offset, self._error_mask = field(item["error"])
        self._count_offset, self._count_mask = field(layout["count"])
        self._last_offset = layout["last"].offset

    def pack(self, items, last):
        """The raw payload of a beat holding ``items`` (``(data, error)`` pairs) in its first
        lanes; the inverse of :meth:`unpack`."""
        bits = (len(items) << self._count_offset) | (int(last) << self._last_offset)
        for offset, (value, error) in zip(self._lanes, items):
            bits |= (value << (offset + self._data_offset)) \
                | (ErrorKind(error).value << (offset + self._error_offset))
        return bits

    def unpack(self, bits):
        """``(items, last)``: ``items`` a list of ``(data, ErrorKind)`` for the valid lanes."""
        count = (bits >> self._count_offset) & self._count_mask
        items = []
        for offset in self._lanes[:count]:
            items.append(((bits >> (offset + self._data_offset)) & self._data_mask,
                          ErrorKind((bits >> (offset + self._error_offset)) & self._error_mask)))
        return items, bool((bits >> self._last_offset) & 1)


class VerdictFormat:
    """Packs and unpacks raw payloads of a :class:`~utfhw.hdl.unicode.layout.ValidatedBytes`
    layout, a validator's output beats."""
    def __init__(self, layout):
        self._width = layout.width
        self._count_offset = layout["count"].offset
        self._count_mask = (1 << layout["count"].width) - 1
        self._result_offset = layout["result"].offset
        self._result_mask = (1 << layout["result"].width) - 1
        self._last_offset = layout["last"].offset

    def pack(self, item, last):
        """The raw payload of a beat of ``item``, ``(data, result)``: its bytes and its
        result's bits; the inverse of :meth:`unpack`."""
        data, result = item
        return (int.from_bytes(data, "little") | (len(data) << self._count_offset)
                | (result << self._result_offset) | (int(last) << self._last_offset))

    def unpack(self, bits):
        """``((data, result), last)``: the beat's bytes and its result's bits (0 but on a
        message's last beat)."""
        count = (bits >> self._count_offset) & self._count_mask
        data = (bits & ((1 << 8 * self._width) - 1)).to_bytes(self._width, "little")[:count]
        return ((data, (bits >> self._result_offset) & self._result_mask),
                bool((bits >> self._last_offset) & 1))


def output_format(layout):
    """The format that unpacks a core's output payloads of ``layout``."""
    return VerdictFormat(layout) if isinstance(layout, ValidatedBytes) else LaneFormat(layout)


def units_to_bytes(beats, target):
    """The wire bytes of output beats of codec ``target`` (``data[0:8]`` of each unit goes
    first)."""
    unit_bytes = CODECS[target].unit_bytes
    output = bytearray()
    for units, _ in beats:
        for unit, _ in units:
            output += unit.to_bytes(unit_bytes, "little")
    return bytes(output)
