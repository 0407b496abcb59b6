"""Input cut into messages, as ``utfhw transcode --split`` sends it: after each code unit that
encodes a separator. Whole in memory (:func:`split_messages`), or as it comes
(:func:`split_stream`), as the *pieces* a streamed run takes: ``(data, last)`` pairs, the bytes
of the messages in order, ``last`` true on the piece that ends a message."""

from ..hdl.forms import CODECS


__all__ = ["SEPARATORS", "split_messages", "split_stream", "message_pieces", "whole_pieces"]


#: The message separators of ``utfhw transcode --split``, as code points.
SEPARATORS = {"lines": 0x0A, "nul": 0x00}


def split_messages(data, source, separator):
    """``data`` cut into messages after each code unit of ``source``'s form that encodes
    :data:`SEPARATORS`'s ``separator`` (``"lines"`` or ``"nul"``), the separator kept at the
    end of its message; units are counted from the start of ``data`` in the byte order
    ``source`` reads (for ``utf-16`` and ``utf-32``, that of a leading mark, else
    little-endian). An input without one is one message; an empty input, one empty message."""
    messages = []
    message = []
    for piece, last in split_stream([data], source, separator):
        message.append(piece)
        if last:
            messages.append(b"".join(message))
            message = []
    return messages


def _separator_unit(start, source, separator):
    """The bytes of the separator's code unit, in the byte order ``start`` (the input's first
    bytes) gives ``source``."""
    codec = CODECS[source]
    order = codec.byteorder
    if order == "detect":
        mark = b"".join(unit.to_bytes(codec.unit_bytes, "big") for unit in codec.form.mark)
        order = "big" if start.startswith(mark) else "little"
    return SEPARATORS[separator].to_bytes(codec.unit_bytes, "big" if order == "big" else "little")


def split_stream(chunks, source, separator):
    """:func:`split_messages` of the bytes ``chunks`` (an iterable of bytes-like objects) hold
    one after another, as they come: yields pieces, ``(bytes, last)`` pairs. The pieces of a
    message joined are what :func:`split_messages` gives for it; a chunk's bytes are held back
    only until the byte order is known or a code unit is whole."""
    size = CODECS[source].unit_bytes
    unit = None
    held = b""
    # Whether a message has begun and not yet ended, and whether any has begun.
    open_message = begun = False
    chunks = iter(chunks)
    while True:
        chunk = next(chunks, None)
        if chunk is not None:
            held += bytes(chunk)
            # Four bytes tell any mark; a unit cut by the chunk's end waits for the rest.
            if len(held) < 4 and unit is None:
                continue
        if unit is None:
            unit = _separator_unit(held, source, separator)
        whole = len(held) - len(held) % size if chunk is not None else len(held)
        block, held = held[:whole], held[whole:]
        start = position = 0
        while True:
            position = block.find(unit, position)
            if position < 0:
                break
            if position % size:
                position += 1
                continue
            position += size
            yield block[start:position], True
            start = position
            open_message, begun = False, True
        if chunk is None:
            if start < len(block) or open_message or not begun:
                yield block[start:], True
            return
        if start < len(block):
            yield block[start:], False
            open_message = begun = True


def whole_pieces(chunks):
    """The pieces of one message that ``chunks`` (an iterable of bytes-like objects) hold."""
    for chunk in chunks:
        if len(chunk):
            yield bytes(chunk), False
    yield b"", True


def message_pieces(messages):
    """The pieces of ``messages``: an iterable whose items are each a message, as a bytes-like
    object or an iterable of bytes-like chunks. Raises :exc:`TypeError` for a :class:`str`."""
    for message in messages:
        if isinstance(message, str):
            raise TypeError("a message must be bytes-like or an iterable of bytes-like "
                            "chunks, not str")
        try:
            data = memoryview(message)
        except TypeError:
            yield from whole_pieces(_chunks_of(message))
        else:
            yield data.cast("B").tobytes() if data.ndim != 1 or data.itemsize != 1 \
                else bytes(data), True


def _chunks_of(message):
    for chunk in message:
        if isinstance(chunk, str):
            raise TypeError("a message's chunks must be bytes-like, not str")
        yield memoryview(chunk).cast("B")
