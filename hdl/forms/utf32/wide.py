"""The UTF-32 stage of the wide cores: the code point of every unit of a beat.

A UTF-32 unit decides alone what it is (Unicode ch. 3, D90): no lane looks at another, and a
message starts on a new beat whose width is a whole number of units, so unit ``j`` of a beat is
always its bytes ``4j`` to ``4j + 3``.
"""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...lanes.stage import payload_register
from ...lanes.window import LaneBeat
from ...unicode.layout import ByteLanes, ErrorKind, REPLACEMENT_CHARACTER
from ...unicode.params import check_byteorder, check_errors, check_width
from ...unicode.tables import beyond_scalar_range, in_surrogate_range, swap_bytes
from ...wide.encode import CodePointSlot
from ...wide.marks import SOURCE_BYTEORDERS, message_byteorder
from ...wide.validate import below


__all__ = ["DecodeUTF32Lanes"]


_SOURCE_CODECS = {"little": "utf-32-le", "big": "utf-32-be", "detect": "utf-32"}

# The first clock: each unit, numeric, and whether it is whole or cut short by the end.
_Unit = data.StructLayout({"value": 32, "whole": 1, "partial": 1})


class DecodeUTF32Lanes(wiring.Component):
    """Stage *decode* for UTF-32: the code point of each of the ``width // 4`` units of a beat.

    Two clocks of latency, one beat per clock, no backpressure. The first clock registers each
    unit in numeric order (``byteorder``) and whether it is whole or, on a message's last beat,
    1 to 3 trailing bytes; the second gives its code point: the unit if it is a Unicode scalar
    value, else U+FFFD with ``OUT_OF_RANGE`` (above U+10FFFF), ``SURROGATE`` (D800..DFFF) or
    ``TRUNCATED_DATA`` (trailing bytes), as CPython's ``utf-32`` codecs decide. With
    ``errors="ignore"`` a replacement's slot is empty.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat: 4, 8, 16, 32 or 64.
    byteorder : :class:`str`
        ``"little"`` (``utf-32-le``), ``"big"`` (``utf-32-be``) or ``"detect"`` (``utf-32``:
        the order of a byte order mark that begins the message, which is then no unit of it;
        little-endian without one).
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(CodePointSlot, width // 4), always_ready=True))`

    Raises
    ------
    :exc:`ValueError`
        If ``width``, ``byteorder`` or ``errors`` is not one of the values above.
    """
    latency = 2

    def __init__(self, *, width, byteorder="little", errors="replace"):
        check_byteorder(byteorder, byteorders=SOURCE_BYTEORDERS)
        check_width(width, minimum=4, of=_SOURCE_CODECS[byteorder])
        check_errors(errors)
        self._width = width
        self._byteorder = byteorder
        self._errors = errors
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(CodePointSlot, width // 4), always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        units = self._width // 4
        taken = Signal(data.ArrayLayout(_Unit, units), reset_less=True)
        taken_valid = Signal()
        taken_last = Signal(reset_less=True)
        count = self.i.payload.count
        m.d.sync += [taken_valid.eq(self.i.valid), taken_last.eq(self.i.payload.last),
                     self.o.valid.eq(taken_valid), out.last.eq(taken_last)]
        big, marked = message_byteorder(m, self.i, self._byteorder, {
            "little": self.i.payload.data[0:32] == 0x0000FEFF,      # FF FE 00 00
            "big": self.i.payload.data[0:32] == 0xFFFE0000,         # 00 00 FE FF
        }, whole=~below(count, 4))
        for lane in range(units):
            wire = self.i.payload.data[32 * lane:32 * lane + 32]
            # A comparison with a constant would be a carry chain a lane.
            whole = ~below(count, 4 * lane + 4)
            m.d.sync += [
                taken[lane].value.eq(Mux(big, swap_bytes(wire), wire)),
                taken[lane].whole.eq(whole & ~marked if lane == 0 else whole),
                taken[lane].partial.eq(~below(count, 4 * lane + 1) & below(count, 4 * lane + 4)),
            ]
        for lane in range(units):
            unit, slot = taken[lane], out.lanes[lane]
            error = Signal(ErrorKind, name=f"error_{lane}")
            with m.If(unit.partial):
                m.d.comb += error.eq(ErrorKind.TRUNCATED_DATA)
            with m.Elif(beyond_scalar_range(unit.value)):
                m.d.comb += error.eq(ErrorKind.OUT_OF_RANGE)
            with m.Elif(in_surrogate_range(unit.value)):
                m.d.comb += error.eq(ErrorKind.SURROGATE)
            present = unit.whole | unit.partial
            if self._errors == "ignore":
                present = unit.whole & (error == ErrorKind.NONE)
            m.d.sync += [
                slot.valid.eq(present),
                slot.item.error.eq(error),
                slot.item.data.eq(unit.value[0:21]),
            ]
            with m.If(error != ErrorKind.NONE):
                m.d.sync += slot.item.data.eq(REPLACEMENT_CHARACTER)
        return m
