"""Byte order and byte order marks (RFC 2781, section 3; Unicode 15, sec. 23.8)."""

from amaranth.hdl import Module, Signal, Const, Mux
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.form import check_form
from ..unicode.layout import UnitBytes, Lanes, ErrorKind, BYTE_ORDER_MARK
from .handshake import combinational_handshake, message_start
from .lanes import CodePointFilter, pack_lanes
from ..unicode.params import BYTE_ORDERS, check_byteorder
from ..unicode.tables import swap_bytes


__all__ = ["ByteOrderReader", "ByteOrderWriter", "ByteOrderMarkStripper", "ByteOrderMarkWriter"]


class ByteOrderReader(wiring.Component):
    """Turns wire bytes into numeric UTF-16 or UTF-32 code units.

    With ``byteorder="detect"`` (CPython's ``utf-16`` and ``utf-32`` sources) the first full
    unit of each message decides: if its bytes are the big-endian byte order mark (``FE FF``,
    ``00 00 FE FF``), the message is big-endian, otherwise little-endian. The mark itself passes
    through as the unit FEFF, for :class:`ByteOrderMarkStripper` to drop after decoding.

    The stage is combinational: latency zero, ``i.ready`` is ``o.ready``, and each input beat is
    one output beat, so it runs at whatever rate the ports see.

    Parameters
    ----------
    width : :class:`int`
        Bytes per code unit: 2 (UTF-16) or 4 (UTF-32).
    byteorder : :class:`str`
        ``"little"``, ``"big"`` or ``"detect"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(width)))`
        Bytes in wire order (``data[0:8]`` first on the wire).
    o : :py:`Out(stream.Signature(UnitBytes(width)))`
        The same beats with ``data`` the numeric value of the unit.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` is not 2 or 4, or ``byteorder`` not one of the values above.
    """
    def __init__(self, *, width, byteorder):
        if width not in (2, 4):
            raise ValueError(f"width must be 2 or 4 bytes, not {width!r}")
        check_byteorder(byteorder, byteorders=BYTE_ORDERS + ("detect",))
        self._width = width
        self._byteorder = byteorder
        super().__init__({
            "i": In(stream.Signature(UnitBytes(width))),
            "o": Out(stream.Signature(UnitBytes(width))),
        })

    @property
    def width(self):
        return self._width

    @property
    def byteorder(self):
        return self._byteorder

    def elaborate(self, platform):
        m = Module()
        moves = combinational_handshake(m, self.i, self.o)

        wire = self.i.payload.data
        count = self.i.payload.count
        m.d.comb += self.o.payload.count.eq(count)

        if self._byteorder == "detect":
            at_start = message_start(m, moves, self.i.payload)
            big_endian_message = Signal()
            big_endian_mark = int.from_bytes(BYTE_ORDER_MARK.to_bytes(self._width, "big"),
                                             "little")
            mark_found = (count == self._width) & (wire == big_endian_mark)
            big_endian = Mux(at_start, mark_found, big_endian_message)
            with m.If(moves & at_start):
                m.d.sync += big_endian_message.eq(mark_found)
        else:
            big_endian = Const(self._byteorder == "big")
        m.d.comb += self.o.payload.data.eq(Mux(big_endian, swap_bytes(wire), wire))
        return m


class ByteOrderWriter(wiring.Component):
    """Puts numeric UTF-16 or UTF-32 code units into wire byte order.

    The output has the same layout as the input, but each unit's ``data[0:8]`` is the byte that
    goes first on the wire, ``data[8:16]`` the next, and so on. No byte order mark is added (see
    :class:`ByteOrderMarkWriter`, which goes before this stage).

    The stage is combinational: latency zero, ``i.ready`` is ``o.ready``, one output beat per
    input beat.

    Parameters
    ----------
    layout : :class:`~utfhw.hdl.unicode.layout.Lanes`
        Lane layout of units whose ``data`` is 16 or 32 bits wide.
    byteorder : :class:`str`
        ``"little"`` or ``"big"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(layout))`
        Numeric code units.
    o : :py:`Out(stream.Signature(layout))`
        The same units in wire byte order.

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder`` is not ``"little"`` or ``"big"``.
    :exc:`TypeError`
        If ``layout`` is not a lane layout of 16- or 32-bit units.
    """
    def __init__(self, *, layout, byteorder):
        if not (isinstance(layout, Lanes) and "data" in layout.item.members
                and data.Layout.cast(layout.item)["data"].width in (16, 32)):
            raise TypeError(f"layout must be a Lanes layout of 16- or 32-bit units, "
                            f"not {layout!r}")
        check_byteorder(byteorder)
        self._byteorder = byteorder
        super().__init__({
            "i": In(stream.Signature(layout)),
            "o": Out(stream.Signature(layout)),
        })

    @property
    def byteorder(self):
        return self._byteorder

    def elaborate(self, platform):
        m = Module()
        combinational_handshake(m, self.i, self.o)
        m.d.comb += self.o.payload.eq(self.i.payload)
        if self._byteorder == "big":
            for lane_in, lane_out in zip(self.i.payload.lanes, self.o.payload.lanes):
                m.d.comb += lane_out.data.eq(swap_bytes(lane_in.data))
        return m


class ByteOrderMarkStripper(CodePointFilter):
    """Drops a byte order mark: the first code point of each message, if it is a well-formed
    U+FEFF.

    That is CPython's rule for ``utf-8-sig`` (one leading ``EF BB BF``) and for ``utf-16`` and
    ``utf-32`` sources (a leading mark, read in the byte order it selects). A U+FEFF anywhere
    else, or after a replaced error, is a ZERO WIDTH NO-BREAK SPACE and stays.

    The stage is combinational: latency zero, ``i.ready`` is ``o.ready``, one output beat per
    input beat (a beat that held only the mark comes out with ``count == 0``).

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points with error kinds (errors not yet dropped).
    o : :py:`Out(stream.Signature(CodePointLanes))`
        The same, without a leading mark.
    """
    def keep(self, m, moves):
        lanes = self.i.payload.lanes
        count = self.i.payload.count
        at_start = message_start(m, moves, self.i.payload)
        is_mark = (at_start & (lanes[0].data == BYTE_ORDER_MARK)
                   & (lanes[0].error == ErrorKind.NONE))
        return [(count > 0) & ~is_mark] + [count > index for index in range(1, len(lanes))]


class ByteOrderMarkWriter(wiring.Component):
    """Writes a byte order mark (U+FEFF) in front of each message's code units.

    That is what CPython's ``utf-8-sig``, ``utf-16`` and ``utf-32`` encoders do, also for an
    empty message (a beat with ``count == 0`` and ``last``).

    The stage is combinational: latency zero, ``i.ready`` is ``o.ready``, one output beat per
    input beat. The output has room for the mark's units on top of the input's lanes, so the
    first beat of a message never needs a clock of its own.

    Parameters
    ----------
    form : :class:`~utfhw.hdl.unicode.form.Form`
        The target form, whose ``mark`` is written: ``EF BB BF`` in UTF-8, the unit FEFF in
        UTF-16 and UTF-32 (numeric: the byte order stage after this one puts it in wire
        order).

    Attributes
    ----------
    i : :py:`In(stream.Signature(layout))`
        Code units as the form's encoder emits them (its ``encoder_lanes``).
    o : :py:`Out(stream.Signature(Lanes(unit, lanes + mark units)))`
        The same units, after the mark on the first beat of each message.

    Raises
    ------
    :exc:`ValueError`
        If ``form`` is not one of the values above.
    """
    def __init__(self, *, form):
        check_form(form)
        self._form = form
        layout = form.encoder_lanes
        self._mark = form.mark
        super().__init__({
            "i": In(stream.Signature(layout)),
            "o": Out(stream.Signature(Lanes(layout.item, layout.lane_count + len(self._mark)))),
        })

    @property
    def form(self):
        return self._form

    def elaborate(self, platform):
        m = Module()
        moves = combinational_handshake(m, self.i, self.o)

        at_start = Signal(init=1)
        with m.If(moves):
            m.d.sync += at_start.eq(self.i.payload.last)

        unit_layout = self.i.payload.lanes[0].shape()
        mark_units = [unit_layout.const({"data": unit, "error": ErrorKind.NONE})
                      for unit in self._mark]
        count = self.i.payload.count
        pack_lanes(m, self.o.payload, [
            *((at_start, unit) for unit in mark_units),
            *((index < count, lane) for index, lane in enumerate(self.i.payload.lanes)),
        ])
        return m
