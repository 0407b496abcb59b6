"""The UTF-16 stages of the wide cores: what each unit of a beat is, and what each unit emits.

A UTF-16 unit's fate depends on the units beside it alone (RFC 2781, section 2.2; CPython's
``utf-16`` codecs): a high surrogate is half of a character only if a low one follows, and a
low surrogate only if a high one precedes it. With the unit before and the unit after known
(:class:`~utfhw.hdl.lanes.window.LaneWindow`), every unit emits at most one target unit: a
surrogate pair emits its high surrogate at the high unit and its low one at the low unit to
UTF-16, and its code point at the low unit to UTF-32.
"""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...lanes.copies import registered_copies
from ...lanes.stage import payload_register
from ...lanes.window import LaneBeat, Slot, ValidCopies, WindowBeat
from ...unicode.layout import (ByteLanes, CodePoint, ErrorKind, REPLACEMENT_CHARACTER,
                              UTF16Unit, UTF32Unit)
from ...unicode.params import check_byteorder, check_choice, check_errors, check_width
from ...wide.marks import SOURCE_BYTEORDERS, message_byteorder
from ...wide.validate import below
from ...unicode.tables import surrogate_pair_value, swap_bytes


__all__ = ["UnitClass", "UTF16_FORMS", "ClassifyUTF16Lanes", "DecodeUTF16Positions"]


#: What a unit is: all clear for an absent unit (past ``count``, or outside the message).
UnitClass = data.StructLayout({
    "value": 16,         # numeric
    "whole": 1,          # two bytes
    "partial": 1,        # the odd byte that ends a message
    "high": 1,           # a whole unit in D800..DBFF
    "low": 1,            # a whole unit in DC00..DFFF
})

_SOURCE_CODECS = {"little": "utf-16-le", "big": "utf-16-be", "detect": "utf-16"}

#: The target forms :class:`DecodeUTF16Positions` emits, each with its unit: a UTF-16 or UTF-32
#: unit in wire order, or a code point as a number for an encoder after it.
UTF16_FORMS = {"utf-16": UTF16Unit, "utf-32": UTF32Unit, "code-point": CodePoint}


class ClassifyUTF16Lanes(wiring.Component):
    """Stage *classify* for UTF-16: each unit of a beat of ``width`` bytes, numeric, and what
    it is.

    One clock of latency, one beat per clock, no backpressure. ``valid_copies`` are copies of
    ``o.valid`` for the window after it to fan out to its lanes.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat: 2 to 64.
    byteorder : :class:`str`
        ``"little"`` (``utf-16-le``), ``"big"`` (``utf-16-be``) or ``"detect"`` (``utf-16``:
        the order of a byte order mark that begins the message, which is then no unit of it;
        little-endian without one).

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(UnitClass, width // 2), always_ready=True))`
    valid_copies : :py:`Out(ValidCopies(width // 2))`

    Raises
    ------
    :exc:`ValueError`
        If ``width`` or ``byteorder`` is not one of the values above.
    """
    latency = 1

    def __init__(self, *, width, byteorder="little"):
        check_byteorder(byteorder, byteorders=SOURCE_BYTEORDERS)
        check_width(width, minimum=2, of=_SOURCE_CODECS[byteorder])
        self._width = width
        self._byteorder = byteorder
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(UnitClass, width // 2), always_ready=True)),
            "valid_copies": Out(ValidCopies(width // 2)),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        count = self.i.payload.count
        m.d.sync += [self.o.valid.eq(self.i.valid), out.last.eq(self.i.payload.last)]
        registered_copies(m, self.valid_copies, self.i.valid)
        big, marked = message_byteorder(m, self.i, self._byteorder, {
            "little": self.i.payload.data[0:16] == 0xFEFF,      # FF FE
            "big": self.i.payload.data[0:16] == 0xFFFE,         # FE FF
        }, whole=~below(count, 2))
        for lane in range(self._width // 2):
            wire = self.i.payload.data[16 * lane:16 * lane + 16]
            value = Mux(big, swap_bytes(wire), wire)
            # A comparison with a constant would be a carry chain a lane.
            whole = ~below(count, 2 * lane + 2)
            if lane == 0:
                whole = whole & ~marked
            unit = out.lanes[lane]
            m.d.sync += [
                unit.value.eq(value),
                unit.whole.eq(whole),
                unit.partial.eq(count == 2 * lane + 1),
                unit.high.eq(whole & (value[10:16] == 0b110110)),
                unit.low.eq(whole & (value[10:16] == 0b110111)),
            ]
        return m


class DecodeUTF16Positions(wiring.Component):
    """Stages *decode* and *emit* for UTF-16: the one target unit or none that each unit of a
    beat emits, from the unit before it, itself and the unit after it.

    Two clocks of latency, one beat per clock, no backpressure. Unit ``i`` emits (RFC 2781,
    section 2.2, and CPython's replacements):

    - a unit that is no surrogate: its code point;
    - a high surrogate with a low one after it: itself to UTF-16, nothing to UTF-32;
    - a low surrogate with a high one before it: itself to UTF-16, the pair's code point to
      UTF-32 (and as a code point);
    - any other high surrogate: U+FFFD, ``UNEXPECTED_END_OF_DATA`` where the message ends after it (or
      after the odd byte that follows it), else ``UNPAIRED_HIGH_SURROGATE``;
    - any other low surrogate: U+FFFD, ``SURROGATE``;
    - an odd final byte: U+FFFD, ``TRUNCATED_DATA``, unless a high surrogate before it already
      gave one. With ``errors="ignore"`` the replacements are not emitted.

    Parameters
    ----------
    width : :class:`int`
        Units per beat.
    byteorder : :class:`str`
        The target's byte order: ``"little"`` or ``"big"`` (a code point is a number either
        way).
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    form : :class:`str`
        The target form: ``"utf-16"``, ``"utf-32"`` or ``"code-point"`` (:data:`UTF16_FORMS`).

    Attributes
    ----------
    i : :py:`In(stream.Signature(WindowBeat(UnitClass, width, 1), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(Slot(UTF16_FORMS[form]), width), always_ready=True))`

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder``, ``errors`` or ``form`` is not one of the values above.
    """
    latency = 2

    def __init__(self, *, width, byteorder="little", errors="replace", form="utf-16"):
        check_byteorder(byteorder)
        check_errors(errors)
        check_choice("form", form, UTF16_FORMS)
        self._width = width
        self._byteorder = byteorder
        self._errors = errors
        self._form = form
        super().__init__({
            "i": In(stream.Signature(WindowBeat(UnitClass, width, 1), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(Slot(UTF16_FORMS[form]), width),
                                      always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        decided_valid = Signal()
        decided_last = Signal(reset_less=True)
        m.d.sync += [decided_valid.eq(self.i.valid), decided_last.eq(self.i.payload.last),
                     self.o.valid.eq(decided_valid), out.last.eq(decided_last)]
        window = self.i.payload.window
        bits = UTF16_FORMS[self._form].members["data"].width
        decided = Signal(data.ArrayLayout(data.StructLayout({
            "emits": 1, "value": 21, "error": ErrorKind}), self._width), reset_less=True)
        for lane in range(self._width):
            before, this, after = window[lane], window[lane + 1], window[lane + 2]
            paired_high = this.high & after.low
            paired_low = this.low & before.high
            error = Signal(ErrorKind, name=f"error_{lane}")
            with m.If(this.high & ~paired_high):
                with m.If(after.whole):
                    m.d.comb += error.eq(ErrorKind.UNPAIRED_HIGH_SURROGATE)
                with m.Else():
                    m.d.comb += error.eq(ErrorKind.UNEXPECTED_END_OF_DATA)
            with m.Elif(this.low & ~paired_low):
                m.d.comb += error.eq(ErrorKind.SURROGATE)
            with m.Elif(this.partial & ~before.high):
                m.d.comb += error.eq(ErrorKind.TRUNCATED_DATA)
            replaced = error != ErrorKind.NONE
            emits = (this.whole & ~this.high & ~this.low) | paired_low | replaced
            if self._form == "utf-16":
                emits = emits | paired_high
            if self._errors == "ignore":
                emits = emits & ~replaced
            value = this.value
            if self._form != "utf-16":
                value = Signal(21, name=f"value_{lane}")
                with m.If(paired_low):
                    m.d.comb += value.eq(surrogate_pair_value(before.value, this.value))
                with m.Else():
                    m.d.comb += value.eq(this.value)
            m.d.sync += [
                decided[lane].emits.eq(emits),
                decided[lane].error.eq(error),
                decided[lane].value.eq(value),
            ]
            with m.If(replaced):
                m.d.sync += decided[lane].value.eq(REPLACEMENT_CHARACTER)
        for lane in range(self._width):
            slot = out.lanes[lane]
            # The unit: the value's low 16 bits, or all 21 (and zeros up to 32 for UTF-32).
            numeric = Cat(decided[lane].value, Const(0, 11))[:bits]
            wire_order = self._byteorder == "big" and self._form != "code-point"
            m.d.sync += [
                slot.valid.eq(decided[lane].emits),
                slot.item.error.eq(decided[lane].error),
                slot.item.data.eq(swap_bytes(numeric) if wire_order else numeric),
            ]
        return m
