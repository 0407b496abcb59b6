"""The byte order of a message of ``utf-16`` or ``utf-32``, read from the mark that begins it.

CPython's ``utf-16`` and ``utf-32`` codecs take the byte order of a leading byte order mark for
the whole message and drop the mark; without one they read little-endian. A message starts on
a new beat, so its mark, if any, is the first unit of its first beat.
"""

from amaranth.hdl import Const, Mux, Signal


__all__ = ["SOURCE_BYTEORDERS", "message_byteorder"]


#: The byte orders a wide decoder of UTF-16 or UTF-32 reads: fixed, or ``"detect"``.
SOURCE_BYTEORDERS = ("little", "big", "detect")


def message_byteorder(m, stream, byteorder, marks, *, whole):
    """The byte order of the beat on ``stream`` (a stream of
    :class:`~utfhw.hdl.unicode.layout.ByteLanes`), as ``(big, marked)``: ``big`` is high for
    big-endian units, ``marked`` says that the beat's first unit is a mark, which is no unit of
    the message.

    With ``byteorder="detect"``, on a message's first beat ``marks["little"]`` and
    ``marks["big"]`` (what the first unit is, from its bytes) decide, if ``whole`` (the unit
    is all there); the later beats take the order the first one had, which a flip-flop keeps.
    Otherwise the order is ``byteorder`` and nothing is a mark."""
    if byteorder != "detect":
        return Const(byteorder == "big"), Const(0)
    # The next beat begins a message: after reset, and after a beat with ``last``.
    first = Signal(init=1, name="message_first")
    kept_big = Signal(name="message_big")
    found_big = whole & marks["big"]
    with m.If(stream.valid):
        m.d.sync += first.eq(stream.payload.last)
        with m.If(first):
            m.d.sync += kept_big.eq(found_big)
    big = Mux(first, found_big, kept_big)
    marked = first & whole & (marks["little"] | marks["big"])
    return big, marked
