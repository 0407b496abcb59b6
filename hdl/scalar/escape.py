"""CPython's ``backslashreplace`` and ``xmlcharrefreplace`` on encoding: each character the
target cannot write becomes the ASCII text of an escape, made in hardware."""

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.layout import CodePointLanes, ErrorKind


__all__ = ["ESCAPES", "Escaper", "escape_length"]


#: The escaping handlers, and the most characters each writes for one code point:
#: ``\U0010ffff`` and ``&#1114111;``.
ESCAPES = {"backslashreplace": 10, "xmlcharrefreplace": 10}

def escape_length(errors, code_point):
    """The characters of the escape ``errors`` (one of :data:`ESCAPES`) writes for
    ``code_point``, as :class:`Escaper` writes it: four for ``\\xNN``, six for ``\\uNNNN``,
    ten for ``\\UNNNNNNNN``; three and the decimal digits for ``&#N;``."""
    if errors == "backslashreplace":
        return 4 if code_point < 0x100 else 6 if code_point < 0x10000 else 10
    return 3 + len(str(code_point))


# The greatest code points of the target forms: ASCII, Latin-1, and the three forms of Unicode,
# which cannot write only the surrogates.
_LASTS = (0x7F, 0xFF, 0x10FFFF)

# Decimal digits of the greatest code point, 1114111.
_DIGITS = 7


class Escaper(wiring.Component):
    """Each code point a target form ending at ``last`` cannot write (one above ``last``, or a
    surrogate) becomes the text CPython's ``escape`` handler writes for it, one character an
    item: ``backslashreplace`` ``\\xNN`` below U+0100, ``\\uNNNN`` below U+10000 and
    ``\\UNNNNNNNN`` above, in lower-case hexadecimal; ``xmlcharrefreplace`` ``&#N;`` with the
    code point in decimal. Each character of an escape carries the code point's error kind, or
    ``UNENCODABLE_CHARACTER`` for one that was data, so a consumer still sees where the
    escapes are (a U+FFFD from the decoder keeps its own kind).

    Latency is zero, and throughput one beat per clock, for a beat with nothing to escape: it
    passes through unchanged, ``i.ready`` is ``o.ready``. A beat with something to escape
    goes out one item a beat, one per clock while ``o.ready`` is high, and is taken with its
    last item: one clock to start, one for each character of an escape and each other item,
    and with ``xmlcharrefreplace`` 21 more for each escape, whose decimal digits come from
    shifting its 21 bits through a binary-coded decimal register. So a beat of two lanes takes
    at most 2 + 2 * 31 clocks. ``last`` goes out with the last item of a beat that has it.
    Capacity is none: the input beat stays on ``i`` until its last item has gone.

    Parameters
    ----------
    errors : :class:`str`
        ``"backslashreplace"`` or ``"xmlcharrefreplace"``.
    last : :class:`int`
        The target form's greatest code point: 0x7F (ASCII), 0xFF (Latin-1) or 0x10FFFF (UTF-8,
        UTF-16 and UTF-32, which cannot write a surrogate).

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Beats with nothing to escape as they came; the rest one item a beat, ``count`` 1.

    Raises
    ------
    :exc:`ValueError`
        If ``errors`` or ``last`` is not one of the values above.

    CPython's ``codecs`` documentation, "Error Handlers".
    """
    i: In(stream.Signature(CodePointLanes))
    o: Out(stream.Signature(CodePointLanes))

    def __init__(self, *, errors, last):
        if errors not in ESCAPES:
            raise ValueError(f"errors must be 'backslashreplace' or 'xmlcharrefreplace', not "
                             f"{errors!r}")
        if isinstance(last, bool) or last not in _LASTS:
            raise ValueError(f"last must be 0x7F, 0xFF or 0x10FFFF, not {last!r}")
        self._errors = errors
        self._last = last
        super().__init__()

    def _escaped(self, lane):
        return (lane.data > self._last) | ((lane.data >= 0xD800) & (lane.data <= 0xDFFF))

    def elaborate(self, platform):
        m = Module()
        payload = self.i.payload
        lane_count = len(payload.lanes)
        escapes = Cat((payload.count > index) & self._escaped(lane)
                      for index, lane in enumerate(payload.lanes)).any()

        at = Signal(range(lane_count))            # the lane going out, item by item
        step = Signal(range(max(ESCAPES.values())))  # the character of its escape
        lane = payload.lanes[at]
        value = lane.data
        escaped = self._escaped(lane)
        kind = Mux(lane.error == ErrorKind.NONE, ErrorKind.UNENCODABLE_CHARACTER, lane.error)

        # The escape's length and its character at ``step``.
        length = Signal(range(max(ESCAPES.values()) + 1))
        character = Signal(7)
        converted = Signal()                     # xmlcharrefreplace: the digits are ready
        if self._errors == "backslashreplace":
            m.d.comb += converted.eq(1)
            digits = Mux(value < 0x100, 2, Mux(value < 0x10000, 4, 8))
            m.d.comb += length.eq(digits + 2)
            nibbles = Array(value.as_unsigned()[4 * index:4 * index + 4] if 4 * index < 21
                            else Const(0, 4) for index in range(8))
            nibble = nibbles[(length - 1 - step)[:3]]
            hex_digit = Mux(nibble < 10, ord("0") + nibble, ord("a") - 10 + nibble)
            with m.Switch(step):
                with m.Case(0):
                    m.d.comb += character.eq(ord("\\"))
                with m.Case(1):
                    m.d.comb += character.eq(Mux(value < 0x100, ord("x"),
                                                 Mux(value < 0x10000, ord("u"), ord("U"))))
                with m.Default():
                    m.d.comb += character.eq(hex_digit)
        else:
            # Double dabble: shift the code point's bits into binary-coded decimal, most
            # significant first, adding 3 to each digit of 5 or more before each shift.
            bcd = Signal(4 * _DIGITS)
            binary = Signal(21)
            shifts = Signal(range(23))         # 0: load; 1 to 21: shift
            adjusted = Cat(Mux(bcd[4 * index:4 * index + 4] >= 5,
                               bcd[4 * index:4 * index + 4] + 3, bcd[4 * index:4 * index + 4])[:4]
                           for index in range(_DIGITS))
            m.d.comb += converted.eq(shifts == 22)
            # Eight entries and a three-bit index, so that every index selects one.
            decimal = Array([*(bcd[4 * index:4 * index + 4] for index in range(_DIGITS)),
                             Const(0, 4)])
            # Digits written: the highest nonzero one and those below it, at least one.
            places = Signal(range(1, _DIGITS + 1))
            m.d.comb += places.eq(1)
            for index in range(1, _DIGITS):
                with m.If(decimal[index] != 0):
                    m.d.comb += places.eq(index + 1)
            m.d.comb += length.eq(places + 3)
            digit = decimal[(places + 1 - step)[:3]]
            with m.If(step == 0):
                m.d.comb += character.eq(ord("&"))
            with m.Elif(step == 1):
                m.d.comb += character.eq(ord("#"))
            with m.Elif(step == length - 1):
                m.d.comb += character.eq(ord(";"))
            with m.Else():
                m.d.comb += character.eq(ord("0") + digit)

        final = at == payload.count - 1
        item_done = ~escaped | (step == length - 1)
        with m.FSM():
            with m.State("Pass"):
                with m.If(escapes):
                    with m.If(self.i.valid):
                        m.d.sync += [at.eq(0), step.eq(0)]
                        if self._errors == "xmlcharrefreplace":
                            m.d.sync += shifts.eq(0)
                        m.next = "Escape"
                with m.Else():
                    m.d.comb += [
                        self.o.valid.eq(self.i.valid),
                        self.i.ready.eq(self.o.ready),
                        self.o.payload.eq(payload),
                    ]
            with m.State("Escape"):
                if self._errors == "xmlcharrefreplace":
                    with m.If(escaped & ~converted):
                        with m.If(shifts == 0):
                            m.d.sync += [bcd.eq(0), binary.eq(value)]
                        with m.Else():
                            m.d.sync += Cat(binary, bcd).eq(Cat(binary, adjusted) << 1)
                        m.d.sync += shifts.eq(shifts + 1)
                ready_to_go = converted | ~escaped
                m.d.comb += [
                    self.o.valid.eq(ready_to_go),
                    self.o.payload.count.eq(1),
                    self.o.payload.last.eq(payload.last & final & item_done),
                    self.o.payload.lanes[0].data.eq(Mux(escaped, character, value)),
                    self.o.payload.lanes[0].error.eq(Mux(escaped, kind, lane.error)),
                ]
                with m.If(ready_to_go & self.o.ready):
                    with m.If(item_done):
                        m.d.sync += step.eq(0)
                        if self._errors == "xmlcharrefreplace":
                            m.d.sync += shifts.eq(0)
                        with m.If(final):
                            m.d.comb += self.i.ready.eq(1)
                            m.next = "Pass"
                        with m.Else():
                            m.d.sync += at.eq(at + 1)
                    with m.Else():
                        m.d.sync += step.eq(step + 1)
        return m
