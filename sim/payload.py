"""Fast conversion between payload layouts and the raw integers the stream drivers move."""

from amaranth.hdl import Shape

from ..hdl.layout import ErrorKind


__all__ = ["pack_bytes", "LaneFormat"]


def pack_bytes(layout, message):
    """Raw payloads of a ``{"data", "last"}`` byte stream for one message."""
    last_bit = 1 << layout["last"].offset
    data_offset = layout["data"].offset
    payloads = [byte << data_offset for byte in message]
    if payloads:
        payloads[-1] |= last_bit
    return payloads


class LaneFormat:
    """Unpacks raw payloads of a :class:`~utfhw.hdl.layout.Lanes` layout whose items have
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

    def unpack(self, bits):
        """``(items, last)``: ``items`` a list of ``(data, ErrorKind)`` for the valid lanes."""
        count = (bits >> self._count_offset) & self._count_mask
        items = []
        for offset in self._lanes[:count]:
            items.append(((bits >> (offset + self._data_offset)) & self._data_mask,
                          ErrorKind((bits >> (offset + self._error_offset)) & self._error_mask)))
        return items, bool((bits >> self._last_offset) & 1)
