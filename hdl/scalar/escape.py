"""CPython's ``backslashreplace`` and ``xmlcharrefreplace`` on encoding: each character the
target cannot write becomes the ASCII text of an escape, made in hardware."""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.layout import CodePointLanes, ErrorKind


__all__ = ["ESCAPES", "ESCAPE_CLOCKS", "Escaper", "escape_length"]


#: The escaping handlers, and the most characters each writes for one code point:
#: ``\U0010ffff`` and ``&#1114111;``.
ESCAPES = {"backslashreplace": 10, "xmlcharrefreplace": 10}

#: Clocks an escape takes besides one a character: loading its text, and for
#: ``xmlcharrefreplace`` first making its decimal digits.
ESCAPE_CLOCKS = {"backslashreplace": 1, "xmlcharrefreplace": 24}


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

    Latency is one clock: each beat is held in a register, with the lanes it escapes. A beat
    with nothing to escape then goes out unchanged, one a clock while ``o.ready`` is high. A
    beat with something to escape goes out one item a beat, one per clock while ``o.ready``
    is high, and leaves the register with its last item: one clock to start, one for each
    other item, and for each escape one to load its text into a register and one for each of
    its characters, and with ``xmlcharrefreplace`` 23 more before that, whose decimal digits
    come from shifting its 21 bits through a binary-coded decimal register and then counting
    them. So an escape takes at
    most 11 clocks (``backslashreplace``) or 34, and a beat of two lanes at most 1 + 2 * 11 or
    1 + 2 * 34 (:data:`ESCAPE_CLOCKS`). ``last`` goes out with the last item of a beat that has it.
    Capacity is two beats: the held one, and one that came while it could not go, which waits
    in a second register. Backpressure: ``i.ready`` is high while that second register is
    empty, a flip-flop, so ``o.ready`` goes no further upstream than the held beat's register;
    nothing is lost or duplicated.

    Measured at seed 1 (the ``Transcoder`` from UTF-8 to ASCII with ``replace`` on decoding,
    iCE40 UP5K / ECP5-85F): with the lanes' comparisons on the path from the decoder's register
    to its enable, 33.6 / 139.3 MHz (``backslashreplace``) and 35.8 / 148.6
    (``xmlcharrefreplace``); with the beat held in a register and ``i.ready`` from it, 43.7 /
    147.4 and 41.5 / 147.3; with the second register, 42.8 / 143.0 and 44.1 / 148.1. From
    Latin-1, whose decoder is little more than a wire, the Escaper's own logic limits it:
    70.8 / 247.0 and 62.0 / 202.2 before, 66.2 / 246.7 and 55.8 / 215.5 with both registers.

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

    @property
    def most_clocks_per_beat(self):
        """The most clocks one beat takes with the output ready: one to start, and for each
        lane the longest escape's (:data:`ESCAPE_CLOCKS` and its characters)."""
        return 1 + len(self.i.payload.lanes) * (ESCAPE_CLOCKS[self._errors]
                                                + ESCAPES[self._errors])

    def _escaped(self, lane):
        return (lane.data > self._last) | ((lane.data >= 0xD800) & (lane.data <= 0xDFFF))

    def _backslash_text(self, value):
        """The text of ``value``'s ``\\x``, ``\\u`` or ``\\U`` escape, its first character in
        bits 0 to 6, and its length: each hexadecimal digit from its own nibble."""
        nibbles = [value.as_unsigned()[4 * index:4 * index + 4] for index in range(6)]
        nibbles += [Const(0, 4)] * 2
        digits = [Mux(nibble < 10, ord("0") + nibble, ord("a") - 10 + nibble)[:7]
                  for nibble in nibbles]

        def text(letter, count):
            return Cat(Const(ord("\\"), 7), Const(ord(letter), 7),
                       *(digits[index] for index in reversed(range(count))))
        small, middle = value < 0x100, value < 0x10000
        return (Mux(small, text("x", 2), Mux(middle, text("u", 4), text("U", 8))),
                Mux(small, 4, Mux(middle, 6, 10)))

    def _places(self, m, bcd):
        """How many decimal digits the number ``bcd`` holds is written with: the highest
        nonzero one and those below it, at least one."""
        places = Signal(range(1, _DIGITS + 1))
        m.d.comb += places.eq(1)
        for index in range(1, _DIGITS):
            with m.If(bcd[4 * index:4 * index + 4] != 0):
                m.d.comb += places.eq(index + 1)
        return places

    def _decimal_text(self, m, bcd, places):
        """The text of the ``&#N;`` escape of the number whose decimal digits ``bcd`` holds,
        written with ``places`` of them, its first character in bits 0 to 6, and its length."""
        decimal = [bcd[4 * index:4 * index + 4] for index in range(_DIGITS)]
        text = Signal(7 * max(ESCAPES.values()))
        length = Signal(range(max(ESCAPES.values()) + 1))
        with m.Switch(places):
            for count in range(1, _DIGITS + 1):
                # The last as the default, so that every value of ``places`` has a case.
                with (m.Case(count) if count < _DIGITS else m.Default()):
                    m.d.comb += [
                        text.eq(Cat(Const(ord("&"), 7), Const(ord("#"), 7),
                                    *((ord("0") + decimal[index])[:7]
                                      for index in reversed(range(count))),
                                    Const(ord(";"), 7))),
                        length.eq(count + 3),
                    ]
        return text, length

    def elaborate(self, platform):
        m = Module()
        # Each beat is held in a register with the lanes it escapes, found as it is taken, so
        # that neither what goes out nor ``i.ready`` waits for a lane's comparisons: on the
        # iCE40 UP5K they were on the path from the decoder's register to its enable.
        lane_count = len(self.i.payload.lanes)
        incoming = Cat((self.i.payload.count > index) & self._escaped(lane)
                       for index, lane in enumerate(self.i.payload.lanes))
        payload = Signal.like(self.i.payload, reset_less=True)
        valid = Signal()
        escaping = Signal(lane_count)
        done = Signal()                          # the held beat's last item goes out
        # A beat that comes while the held one cannot go waits in a second register, so that
        # ``i.ready`` is a flip-flop and ``o.ready`` stops here.
        waiting = Signal.like(self.i.payload, reset_less=True)
        waiting_valid = Signal()
        waiting_escaping = Signal(lane_count)
        m.d.comb += self.i.ready.eq(~waiting_valid)
        with m.If(~valid | done):
            with m.If(waiting_valid):
                m.d.sync += [payload.eq(waiting), escaping.eq(waiting_escaping),
                             valid.eq(1), waiting_valid.eq(0)]
            with m.Else():
                m.d.sync += [payload.eq(self.i.payload), escaping.eq(incoming),
                             valid.eq(self.i.valid)]
        with m.Elif(self.i.valid & self.i.ready):
            m.d.sync += [waiting.eq(self.i.payload), waiting_escaping.eq(incoming),
                         waiting_valid.eq(1)]
        escapes = escaping.any()

        at = Signal(range(lane_count))            # the lane going out, item by item
        lane = payload.lanes[at]
        value = lane.data
        escaped = escaping.bit_select(at, 1)
        kind = Mux(lane.error == ErrorKind.NONE, ErrorKind.UNENCODABLE_CHARACTER, lane.error)
        final = at == payload.count - 1

        # An escape's text is loaded whole into a register and goes out from it a character
        # a clock, so that the path to the output is a register and a multiplexer, not the
        # choice of a digit by its place (20 logic levels on the ECP5-85F when it was).
        most = max(ESCAPES.values())
        text = Signal(7 * most)                  # the next character in bits 0 to 6
        left = Signal(range(most + 1))           # characters still to go; 0 outside one
        # ``left != 0`` and ``left == 1``, kept as flip-flops of their own: they choose what
        # goes out and drive ``i.ready``.
        sending = Signal()
        sending_last = Signal()
        text_kind = Signal(ErrorKind)
        if self._errors == "backslashreplace":
            written, length = self._backslash_text(value)
            ready = Const(1)
        else:
            # Double dabble: shift the code point's bits into binary-coded decimal, most
            # significant first, adding 3 to each digit of 5 or more before each shift.
            bcd = Signal(4 * _DIGITS)
            binary = Signal(21)
            # 0: load; 1 to 21: shift; 22: count the digits; 23: converted.
            shifts = Signal(range(24))
            adjusted = Cat(Mux(bcd[4 * index:4 * index + 4] >= 5,
                               bcd[4 * index:4 * index + 4] + 3, bcd[4 * index:4 * index + 4])[:4]
                           for index in range(_DIGITS))
            ready = shifts == 23
            # The count of digits has a clock of its own, so that the text's multiplexers
            # start from a register.
            places = Signal(range(1, _DIGITS + 1), init=1)
            counted = self._places(m, bcd)
            written, length = self._decimal_text(m, bcd, places)

        with m.FSM():
            with m.State("Pass"):
                with m.If(escapes):
                    with m.If(valid):
                        m.d.sync += at.eq(0)
                        if self._errors == "xmlcharrefreplace":
                            m.d.sync += shifts.eq(0)
                        m.next = "Escape"
                with m.Else():
                    m.d.comb += [
                        self.o.valid.eq(valid),
                        done.eq(self.o.ready),
                        self.o.payload.eq(payload),
                    ]
            with m.State("Escape"):
                def item_taken():
                    with m.If(final):
                        m.d.comb += done.eq(1)
                        m.next = "Pass"
                    with m.Else():
                        m.d.sync += at.eq(at + 1)

                m.d.comb += self.o.payload.count.eq(1)
                with m.If(sending):
                    m.d.comb += [
                        self.o.valid.eq(1),
                        self.o.payload.last.eq(payload.last & final & sending_last),
                        self.o.payload.lanes[0].data.eq(text[:7]),
                        self.o.payload.lanes[0].error.eq(text_kind),
                    ]
                    with m.If(self.o.ready):
                        m.d.sync += [text.eq(text >> 7), left.eq(left - 1),
                                     sending.eq(~sending_last), sending_last.eq(left == 2)]
                        with m.If(sending_last):
                            if self._errors == "xmlcharrefreplace":
                                m.d.sync += shifts.eq(0)
                            item_taken()
                with m.Elif(escaped):
                    # The clocks that make the escape's text, and the one that loads it.
                    if self._errors == "xmlcharrefreplace":
                        with m.If(~ready):
                            with m.If(shifts == 0):
                                m.d.sync += [bcd.eq(0), binary.eq(value)]
                            with m.Elif(shifts == 22):
                                m.d.sync += places.eq(counted)
                            with m.Else():
                                m.d.sync += Cat(binary, bcd).eq(Cat(binary, adjusted) << 1)
                            m.d.sync += shifts.eq(shifts + 1)
                    with m.If(ready):
                        m.d.sync += [text.eq(written), left.eq(length), text_kind.eq(kind),
                                     sending.eq(1), sending_last.eq(0)]
                with m.Else():
                    m.d.comb += [
                        self.o.valid.eq(1),
                        self.o.payload.last.eq(payload.last & final),
                        self.o.payload.lanes[0].eq(lane),
                    ]
                    with m.If(self.o.ready):
                        item_taken()
        return m
