"""Between a plain byte stream and the code unit beats of a pipeline."""

from amaranth.hdl import Module, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .unicode.layout import ByteLanes, FramedByte, UnitBytes, Lanes


__all__ = ["UnitAssembler", "BeatAssembler", "LaneSerializer"]


class UnitAssembler(wiring.Component):
    """Gathers bytes into the code unit beats a :class:`~utfhw.hdl.cores.transcoder.Transcoder`
    takes, putting ``last`` on the final beat of each message.

    Input entries are bytes and end-of-message markers (:data:`~utfhw.hdl.unicode.layout.FramedByte`).
    A whole unit is held until the next entry shows whether it ends its message, so ``last``
    rides on the final unit, not on a beat of its own. A message that ends part way through a
    unit (an odd trailing byte of UTF-16) ends with a short beat (``count < width``); an end
    marker with no byte before it in its message gives an empty beat (``count == 0``).

    Latency: a unit goes out on the clock its next entry (a byte or an end marker) arrives.
    Throughput: one entry per clock while ``o.ready`` is high; an entry that sends a unit waits
    for ``o.ready``, the others are taken at once. ``o.valid`` does not depend on ``o.ready``.
    Nothing is lost or duplicated under backpressure.

    Parameters
    ----------
    width : :class:`int`
        Bytes per code unit: 1, 2 or 4.

    Attributes
    ----------
    i : :py:`In(stream.Signature(FramedByte))`
        Bytes in wire order and end markers.
    o : :py:`Out(stream.Signature(UnitBytes(width)))`
        Code units in wire order.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` is not 1, 2 or 4.
    """
    def __init__(self, *, width):
        layout = self._layout(width)
        self._width = width
        super().__init__({
            "i": In(stream.Signature(FramedByte)),
            "o": Out(stream.Signature(layout)),
        })

    @staticmethod
    def _layout(width):
        return UnitBytes(width)

    @property
    def width(self):
        return self._width

    def elaborate(self, platform):
        m = Module()
        unit = Signal(8 * self._width)
        filled = Signal(range(self._width + 1))
        full = filled == self._width

        m.d.comb += [
            self.o.payload.data.eq(unit),
            self.o.payload.count.eq(filled),
            self.o.payload.last.eq(self.i.payload.end),
            # A whole unit goes out when the next entry arrives; a part unit only at the end.
            self.o.valid.eq(self.i.valid & (full | self.i.payload.end)),
            self.i.ready.eq(self.o.ready | ~self.o.valid),
        ]
        with m.If(self.i.valid & self.i.ready):
            with m.If(self.i.payload.end):
                # Bytes past ``count`` are zero, as in every other short beat.
                m.d.sync += [unit.eq(0), filled.eq(0)]
            with m.Elif(full):
                m.d.sync += [unit.eq(self.i.payload.data), filled.eq(1)]
            with m.Else():
                m.d.sync += [
                    unit.word_select(filled, 8).eq(self.i.payload.data),
                    filled.eq(filled + 1),
                ]
        return m


class BeatAssembler(UnitAssembler):
    """Gathers bytes into the beats a :class:`~utfhw.hdl.cores.wide.WideTranscoder` takes:
    ``width`` bytes a beat, every beat of a message full but its last, which holds 0 to
    ``width`` bytes and ``last``.

    It works as :class:`UnitAssembler` does, a beat of ``width`` bytes in place of a unit: a
    full beat waits for the next entry, so that an end marker puts ``last`` on it; an end
    marker after a part beat sends that with ``last``.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat, a power of two from 1 to 64.

    Attributes
    ----------
    i : :py:`In(stream.Signature(FramedByte))`
        Bytes in wire order and end markers.
    o : :py:`Out(stream.Signature(ByteLanes(width)))`
        Beats of bytes in wire order.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` is not a power of two from 1 to 64.
    """
    @staticmethod
    def _layout(width):
        return ByteLanes(width)


class LaneSerializer(wiring.Component):
    """Sends the code units of a lane stream one byte at a time, in wire order.

    Each lane's ``data[0:8]`` goes first (the byte order stage has put units in wire order).
    A beat is registered when taken and its bytes go out on the following clocks, one per clock
    while ``o.ready`` is high; the next beat is taken when the last byte of this one goes. Beats
    with no lanes (``count == 0``) are taken and produce nothing. ``last`` and the error kinds
    are dropped: a byte stream has no room for them.

    Parameters
    ----------
    layout : :class:`~utfhw.hdl.unicode.layout.Lanes`
        The lane layout of the input, e.g. a transcoder's ``o.payload.shape()``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(layout))`
        Code unit beats.
    o : :py:`Out(stream.Signature(8))`
        Their bytes.

    Raises
    ------
    :exc:`TypeError`
        If ``layout`` is not a :class:`~utfhw.hdl.unicode.layout.Lanes`.
    """
    def __init__(self, *, layout):
        if not isinstance(layout, Lanes):
            raise TypeError(f"layout must be a Lanes layout, not {layout!r}")
        self._layout = layout
        super().__init__({
            "i": In(stream.Signature(layout)),
            "o": Out(stream.Signature(8)),
        })

    def elaborate(self, platform):
        m = Module()
        lane_count = self._layout.lane_count
        unit_bytes = self._layout.item["data"].shape.width // 8

        beat = Signal(self._layout)
        lane = Signal(range(lane_count))
        byte = Signal(range(unit_bytes))
        holding = Signal()

        current = beat.lanes[lane].data
        m.d.comb += [
            self.o.payload.eq(current.word_select(byte, 8)),
            self.o.valid.eq(holding),
        ]
        finishing = ((byte == unit_bytes - 1) & (lane == beat.count - 1))
        m.d.comb += self.i.ready.eq(~holding | (self.o.ready & finishing))

        with m.If(self.o.valid & self.o.ready):
            with m.If(byte == unit_bytes - 1):
                m.d.sync += [byte.eq(0), lane.eq(lane + 1)]
                with m.If(lane == beat.count - 1):
                    m.d.sync += holding.eq(0)
            with m.Else():
                m.d.sync += byte.eq(byte + 1)
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [beat.eq(self.i.payload), lane.eq(0), byte.eq(0),
                         holding.eq(self.i.payload.count != 0)]
        return m
