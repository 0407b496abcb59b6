"""Input cut into messages, as ``utfhw transcode --split`` sends it: after each code unit that
encodes a separator."""

from ..hdl.forms import CODECS


__all__ = ["SEPARATORS", "split_messages"]


#: The message separators of ``utfhw transcode --split``, as code points.
SEPARATORS = {"lines": 0x0A, "nul": 0x00}


def split_messages(data, source, separator):
    """``data`` cut into messages after each code unit of ``source``'s form that encodes
    :data:`SEPARATORS`'s ``separator`` (``"lines"`` or ``"nul"``), the separator kept at the
    end of its message; units are counted from the start of ``data`` in the byte order
    ``source`` reads (for ``utf-16`` and ``utf-32``, that of a leading mark, else
    little-endian). An input without one is one message; an empty input, one empty message."""
    codec = CODECS[source]
    size = codec.unit_bytes
    order = codec.byteorder
    if order == "detect":
        mark = b"".join(unit.to_bytes(size, "big") for unit in codec.form.mark)
        order = "big" if data.startswith(mark) else "little"
    unit = SEPARATORS[separator].to_bytes(size, "big" if order == "big" else "little")
    messages = []
    start = position = 0
    while True:
        position = data.find(unit, position)
        if position < 0:
            break
        if position % size:
            position += 1
            continue
        position += size
        messages.append(data[start:position])
        start = position
    if start < len(data) or not messages:
        messages.append(data[start:])
    return messages
