"""The stage that turns UTF-8 to UTF-8's byte tokens into bytes: each kept byte, or U+FFFD's
three bytes, in slots for the packer."""

from amaranth.hdl import Const, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...lanes.stage import payload_register
from ...lanes.window import LaneBeat, Slot
from ...unicode.layout import REPLACEMENT_CHARACTER, UTF8Unit
from ...unicode.params import check_flag, check_integer
from ...unicode.tables import utf8_bytes
from .wide import ByteToken


__all__ = ["CHUNKS", "TokenBeat", "ExpandReplacements"]


#: Clocks a beat with a U+FFFD takes: each position has this many slots (three for U+FFFD's
#: bytes, and one to make a power of two), so a clock takes ``width // CHUNKS`` positions.
CHUNKS = 4


class TokenBeat(data.StructLayout):
    """A beat of ``width`` byte tokens (:data:`~utfhw.hdl.forms.utf8.wide.ByteToken`), its ``last``,
    and ``replaces``: whether any of them is a U+FFFD, found before the beat waits, so that no
    wide OR sits between the queue it waits in and the queue's read enable."""
    def __init__(self, width):
        self.width = width
        super().__init__({"lanes": data.ArrayLayout(ByteToken, width), "last": 1,
                          "replaces": 1})


class ExpandReplacements(wiring.Component):
    """Stage *expand*: each position's byte token as slots of UTF-8 bytes, ``width`` slots a
    clock.

    A beat in which no position is replaced goes out in one clock, its kept bytes in their own
    lanes. A beat with a U+FFFD takes :data:`CHUNKS` clocks: on clock ``c`` positions
    ``c * width / 4`` to ``(c + 1) * width / 4 - 1`` each fill four slots, with the kept byte or
    with EF BF BD (Unicode ch. 3, Table 3-7: U+FFFD in UTF-8), in order. The beat's ``last``
    goes with its final clock. So well-formed input moves at a beat a clock, and input with a
    replacement in every beat at a quarter of that: a beat can give three bytes for each of
    its bytes, more than ``width`` slots hold.

    Latency one clock. The stage sends a clock's slots only while ``room`` is high (the
    stages after it never stop, and a queue at their end says whether they have room), and
    takes a beat on the clock it sends the beat's last slots; ``o.valid`` is a flip-flop.

    Parameters
    ----------
    width : :class:`int`
        Positions per beat, and slots per clock: a multiple of :data:`CHUNKS`.
    rests : :class:`bool`
        Send nothing on the clock after a message's last slots (for a repacker that writes a
        byte order mark, :class:`~utfhw.hdl.lanes.repack.Repacker`'s ``lead``).

    Attributes
    ----------
    i : :py:`In(stream.Signature(TokenBeat(width)))`
    o : :py:`Out(stream.Signature(LaneBeat(Slot(UTF8Unit), width), always_ready=True))`
    room : :py:`In(1)`
        The stages after have room for this clock's slots.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` is not a positive multiple of :data:`CHUNKS`.
    """
    latency = 1

    def __init__(self, *, width, rests=False):
        check_integer("width", width, minimum=CHUNKS)
        check_flag("rests", rests)
        self._rests = rests
        if width % CHUNKS:
            raise ValueError(f"width must be a multiple of {CHUNKS}, not {width}")
        self._width = width
        super().__init__({
            "i": In(stream.Signature(TokenBeat(width))),
            "o": Out(stream.Signature(LaneBeat(Slot(UTF8Unit), width), always_ready=True)),
            "room": In(1),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        width = self._width
        tokens = self.i.payload.lanes
        chunk = Signal(range(CHUNKS))
        replaces = self.i.payload.replaces
        final = ~replaces | (chunk == CHUNKS - 1)
        resting = Signal()
        free = self.room & ~resting
        sends = self.i.valid & free
        if self._rests:
            m.d.sync += resting.eq(sends & final & self.i.payload.last)
        m.d.comb += self.i.ready.eq(free & final)
        m.d.sync += [self.o.valid.eq(sends), out.last.eq(self.i.payload.last & final)]
        with m.If(sends & replaces):
            m.d.sync += chunk.eq(chunk + 1)

        replacement, _ = utf8_bytes(Const(REPLACEMENT_CHARACTER, 21))
        per_chunk = width // CHUNKS
        for lane in range(width):
            slot = out.lanes[lane]
            token = tokens[lane]
            with m.If(~replaces):
                m.d.sync += [slot.valid.eq(token.kept), slot.item.data.eq(token.byte),
                             slot.item.error.eq(token.error)]
            with m.Else():
                position, index = divmod(lane, CHUNKS)
                with m.Switch(chunk):
                    for which in range(CHUNKS):
                        with m.Case(which):
                            source = tokens[which * per_chunk + position]
                            m.d.sync += slot.item.error.eq(source.error)
                            if index < 3:
                                byte = replacement[index]
                                if index == 0:
                                    m.d.sync += [
                                        slot.valid.eq(source.kept | source.replaced),
                                        slot.item.data.eq(Mux(source.replaced, byte,
                                                              source.byte)),
                                    ]
                                else:
                                    m.d.sync += [slot.valid.eq(source.replaced),
                                                 slot.item.data.eq(byte)]
                            else:
                                m.d.sync += [slot.valid.eq(0), slot.item.data.eq(0)]
        return m
