"""Formal properties of the cores, as :class:`~utfhw.sim.formal.PropertyBench` subclasses."""

from amaranth.hdl import Assert, Cat, Const, Cover, Mux, Signal

from ..hdl.layout import ErrorKind
from .formal import PropertyBench


__all__ = ["UTF8DecoderProperties"]


def _utf8_length(code_point):
    return Mux(code_point < 0x80, 1, Mux(code_point < 0x800, 2, Mux(code_point < 0x10000, 3, 4)))


def _utf8_bytes(code_point):
    """The shortest UTF-8 form of ``code_point`` for each length, newest byte lowest: the way
    the bytes sit in a history register that shifts them in from the bottom."""
    continuation = [Cat(code_point[shift:shift + 6], Const(0b10, 2)) for shift in (0, 6, 12)]
    return {
        1: code_point[0:8],
        2: Cat(continuation[0], code_point[6:11], Const(0b110, 3)),
        3: Cat(continuation[0], continuation[1], code_point[12:16], Const(0b1110, 4)),
        4: Cat(*continuation, code_point[18:21], Const(0b11110, 5)),
    }


class UTF8DecoderProperties(PropertyBench):
    """Properties of :class:`~utfhw.hdl.utf8.UTF8Decoder` (RFC 3629 section 10; Unicode
    ch. 3, D92 and Table 3-7).

    The decoder holds one output beat for the most recently taken input beat, so the bench keeps
    a history of the bytes taken in the current message and checks each output beat against it:

    - one output beat per input beat, and ``last`` on exactly the beat of an input ``last``;
    - a valid (error-free) code point is never a surrogate or above U+10FFFF, comes last in its
      beat, and is exactly the shortest UTF-8 form of the bytes just taken in this message (so
      no overlong form, surrogate or out-of-range sequence is ever accepted);
    - a beat holds at most two items, and when two, the first is a replacement.

    Covers: every error kind the decoder emits, and two 4-byte characters.
    """
    def properties(self, m, taken, given):
        beat = self.i.payload
        out = self.o.payload

        history = Signal(32)            # bytes taken in this message, newest lowest
        history_bytes = Signal(range(5))
        beat_last = Signal()            # the most recently taken beat had `last`
        outstanding = Signal(range(3))  # beats taken and not yet given
        with m.If(taken):
            with m.If(beat.count != 0):
                m.d.sync += history.eq(Cat(beat.data, history[0:24]))
            start = Mux(beat_last, 0, history_bytes)
            m.d.sync += [
                history_bytes.eq(Mux(start + beat.count > 4, 4, start + beat.count)),
                beat_last.eq(beat.last),
            ]
        m.d.sync += outstanding.eq(outstanding + taken - given)
        m.d.comb += Assert(outstanding == self.o.valid, "one output beat per input beat")

        four_byte_characters = Signal(range(3))
        with m.If(self.o.valid):
            m.d.comb += [
                Assert(out.last == beat_last, "last on exactly the beat of an input last"),
                Assert(out.count <= 2, "at most two items in a beat"),
            ]
            with m.If(out.count == 2):
                m.d.comb += Assert(out.lanes[0].error != ErrorKind.NONE,
                                   "of two items, the first is a replacement")
            for index, lane in enumerate(out.lanes):
                code_point = lane.data
                valid = (index < out.count) & (lane.error == ErrorKind.NONE)
                length = _utf8_length(code_point)
                with m.If(valid):
                    m.d.comb += [
                        Assert(~((code_point >= 0xD800) & (code_point <= 0xDFFF)),
                               "no surrogate"),
                        Assert(code_point <= 0x10FFFF, "nothing above U+10FFFF"),
                        Assert(index == out.count - 1, "a valid code point comes last"),
                        Assert(length <= history_bytes,
                               "a valid code point's bytes were all taken in this message"),
                    ]
                    for size, encoded in _utf8_bytes(code_point).items():
                        with m.If(length == size):
                            m.d.comb += Assert(history[0:8 * size] == encoded,
                                               "a valid code point is the shortest form of the "
                                               "bytes just taken")
                with m.If(given & valid & (code_point >= 0x10000)):
                    m.d.sync += four_byte_characters.eq(Mux(four_byte_characters == 2, 2,
                                                            four_byte_characters + 1))
            for kind in (ErrorKind.INVALID_BYTE, ErrorKind.TRUNCATED, ErrorKind.UNFINISHED):
                m.d.comb += Cover(given & (out.lanes[0].error == kind) & (out.count != 0))
        m.d.comb += Cover(four_byte_characters == 2)
