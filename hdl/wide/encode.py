"""The encoding stage of the wide cores: each lane's code point as the units of the target
form, in slots the compactor packs."""

from amaranth.hdl import Cat, Const, Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..lanes.compact import Slot
from ..lanes.window import LaneBeat
from ..unicode.layout import BYTE_ORDER_MARK, CodePoint, ErrorKind, UTF8Unit, UTF16Unit, UTF32Unit
from ..unicode.params import check_byteorder, check_choice, check_integer
from ..unicode.tables import swap_bytes, utf8_bytes, utf16_units


__all__ = ["CodePointSlot", "ENCODED_UNITS", "MARK_UNITS", "mark_items", "EncodeLanes"]


#: One lane's code point, or nothing.
CodePointSlot = Slot(CodePoint)

#: The target forms :class:`EncodeLanes` writes: each with its unit and the most units one code
#: point becomes.
ENCODED_UNITS = {"utf-8": (UTF8Unit, 4), "utf-16": (UTF16Unit, 2), "utf-32": (UTF32Unit, 1)}

_ENCODINGS = {"utf-8": utf8_bytes, "utf-16": utf16_units, "utf-32": lambda value: ([value], 1)}

#: The units of the byte order mark, U+FEFF, in each form: three bytes, one UTF-16 unit, one
#: UTF-32 unit.
MARK_UNITS = {"utf-8": 3, "utf-16": 1, "utf-32": 1}


def mark_items(form):
    """The byte order mark as items of ``form``'s unit (:data:`ENCODED_UNITS`), little-endian
    as CPython's ``utf-8-sig``, ``utf-16`` and ``utf-32`` write it: ``data`` then an error kind
    of ``NONE``."""
    unit = ENCODED_UNITS[form][0]
    bits = unit.members["data"].width
    units, _ = _ENCODINGS[form](Const(BYTE_ORDER_MARK, 21))
    return [Cat(units[index], Const(0, bits - len(units[index])),
                Const(ErrorKind.NONE.value, ErrorKind.as_shape()))
            for index in range(MARK_UNITS[form])]


class EncodeLanes(wiring.Component):
    """Stage *encode*: each lane's code point as one to four slots of target units, in wire
    byte order (Unicode ch. 3, D90 to D92; RFC 2781, section 2.1; RFC 3629, section 3).

    Lane ``j``'s units are in slots ``k * j`` to ``k * j + k - 1`` (``k`` the most units of one
    code point, :data:`ENCODED_UNITS`), in order, so that compaction keeps the message's order.
    Each unit carries its code point's error kind. One clock of latency, one beat per clock, no
    backpressure.

    Parameters
    ----------
    form : :class:`str`
        ``"utf-8"``, ``"utf-16"`` or ``"utf-32"``.
    byteorder : :class:`str`
        ``"little"`` or ``"big"`` (UTF-8 has one order; it takes either).
    lanes : :class:`int`
        Code points per beat.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(CodePointSlot, lanes), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(Slot(unit), k * lanes), always_ready=True))`

    Raises
    ------
    :exc:`ValueError`
        If ``form``, ``byteorder`` or ``lanes`` is not one of the values above.
    """
    latency = 1

    def __init__(self, *, form, byteorder, lanes):
        check_choice("form", form, ENCODED_UNITS)
        check_byteorder(byteorder)
        check_integer("lanes", lanes, minimum=1)
        self._form = form
        self._byteorder = byteorder
        unit, self._most = ENCODED_UNITS[form]
        super().__init__({
            "i": In(stream.Signature(LaneBeat(CodePointSlot, lanes), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(Slot(unit), self._most * lanes),
                                      always_ready=True)),
        })

    @staticmethod
    def slots_of(form, lanes):
        """Slots of the output beat for ``lanes`` code points of ``form``."""
        return ENCODED_UNITS[form][1] * lanes

    def elaborate(self, platform):
        m = Module()
        m.d.sync += [self.o.valid.eq(self.i.valid), self.o.payload.last.eq(self.i.payload.last)]
        for lane, source in enumerate(self.i.payload.lanes):
            value = source.item.data
            units, count = _ENCODINGS[self._form](value)
            for index, unit in enumerate(units):
                slot = self.o.payload.lanes[self._most * lane + index]
                bits = len(slot.item.data)
                numeric = Cat(unit, Const(0, bits - len(unit)))
                m.d.sync += [
                    slot.valid.eq(source.valid & (count > index)),
                    slot.item.data.eq(swap_bytes(numeric) if self._byteorder == "big"
                                      else numeric),
                    slot.item.error.eq(source.item.error),
                ]
        return m
