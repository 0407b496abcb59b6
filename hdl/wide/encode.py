"""The encoding stage of the wide cores: each lane's code point as the units of the target
form, in slots the packer packs."""

from amaranth.hdl import Cat, Const, Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..lanes.stage import payload_register
from ..lanes.window import LaneBeat, Slot
from ..unicode.form import check_form
from ..unicode.layout import BYTE_ORDER_MARK, CodePoint, ErrorKind
from ..unicode.params import check_byteorder, check_errors, check_integer
from ..unicode.tables import replace_unencodable, swap_bytes


__all__ = ["CodePointSlot", "mark_items", "EncodeLanes"]


#: One lane's code point, or nothing.
CodePointSlot = Slot(CodePoint)


def mark_items(form):
    """The byte order mark as items of ``form``'s unit (a
    :class:`~utfhw.hdl.unicode.form.Form`), little-endian as CPython's ``utf-8-sig``,
    ``utf-16`` and ``utf-32`` write it: ``data`` then an error kind of ``NONE``."""
    bits = form.unit.members["data"].width
    units, _ = form.encode(Const(BYTE_ORDER_MARK, 21))
    return [Cat(units[index], Const(0, bits - len(units[index])),
                Const(ErrorKind.NONE.value, ErrorKind.as_shape()))
            for index in range(form.mark_units)]


class EncodeLanes(wiring.Component):
    """Stage *encode*: each lane's code point as one to four slots of target units, in wire
    byte order (Unicode ch. 3, D90 to D92; RFC 2781, section 2.1; RFC 3629, section 3).

    Lane ``j``'s units are in slots ``k * j`` to ``k * j + k - 1`` (``k`` the most units of one
    code point: the form's ``most_units``, or fewer where the source gives only code points
    that take fewer), in order, so that compaction keeps the message's order. Each unit
    carries its code point's error kind. To a form that holds fewer code points than Unicode
    (Latin-1, ASCII), a code point above its last is ``?`` of kind ``UNENCODABLE_CHARACTER``
    (a replacement keeps its own kind), or with ``ignore`` nothing, as CPython's encoders
    write them. One clock of latency, one beat per clock, no backpressure.

    Parameters
    ----------
    form : :class:`~utfhw.hdl.unicode.form.Form`
        The target form.
    byteorder : :class:`str`
        ``"little"`` or ``"big"`` (UTF-8 has one order; it takes either).
    lanes : :class:`int`
        Code points per beat.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    most_units : :class:`int` or None
        Slots a code point has, from 1 to the form's ``most_units`` (the default): the most
        units a code point the source gives can take.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(CodePointSlot, lanes), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(Slot(unit), k * lanes), always_ready=True))`

    Raises
    ------
    :exc:`ValueError`
        If ``form``, ``byteorder``, ``lanes``, ``errors`` or ``most_units`` is not one of the
        values above.
    """
    latency = 1

    def __init__(self, *, form, byteorder, lanes, errors="replace", most_units=None):
        check_form(form)
        check_byteorder(byteorder)
        check_integer("lanes", lanes, minimum=1)
        check_errors(errors)
        if most_units is None:
            most_units = form.most_units
        check_integer("most_units", most_units, minimum=1, maximum=form.most_units)
        self._form = form
        self._byteorder = byteorder
        self._errors = errors
        unit, self._most = form.unit, most_units
        super().__init__({
            "i": In(stream.Signature(LaneBeat(CodePointSlot, lanes), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(Slot(unit), self._most * lanes),
                                      always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        m.d.sync += [self.o.valid.eq(self.i.valid), out.last.eq(self.i.payload.last)]
        for lane, source in enumerate(self.i.payload.lanes):
            value, error, present = source.item.data, source.item.error, source.valid
            if not self._form.holds_every_code_point:
                value, error, beyond = replace_unencodable(source.item, self._form.last_code_point)
                if self._errors == "ignore":
                    present = present & ~beyond
            units, count = self._form.encode(value)
            for index, unit in enumerate(units[:self._most]):
                slot = out.lanes[self._most * lane + index]
                bits = len(slot.item.data)
                numeric = Cat(unit, Const(0, bits - len(unit)))
                m.d.sync += [
                    slot.valid.eq(present & (count > index)),
                    slot.item.data.eq(swap_bytes(numeric) if self._byteorder == "big"
                                      else numeric),
                    slot.item.error.eq(error),
                ]
        return m
