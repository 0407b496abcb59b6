"""An output queue for a pipeline that never stops: its flags are flip-flops."""

from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .params import check_integer


__all__ = ["CreditQueue"]


# Bits of the payload in each slice of the memory (eight 4-bit LUT RAMs on an ECP5).
_SLICE_BITS = 32


class CreditQueue(wiring.Component):
    """A queue at the end of a pipeline that cannot stop, which says when the pipeline may take
    more.

    :class:`amaranth.lib.fifo.SyncFIFOBuffered` would do the job, but its ``w_rdy`` and
    ``r_rdy`` come from comparisons of its level, which sit in the write and read enables: in
    the wide core they were the critical path on every device (``utfhw report --pairs wide``,
    nextpnr's critical path reports). Here the fill level is a thermometer code of flip-flops,
    so "not empty" and "room left" are flip-flops too, and there is no check on the write side:
    the writer keeps its own account, through ``room``, of what it may still send.

    Latency three clocks (a register, a write, then a read into the output register); one beat
    in and one out per clock. ``o.valid`` is a flip-flop; ``o.ready`` reaches only the read enables.

    Parameters
    ----------
    shape : shape-like
        The payload.
    depth : :class:`int`
        Entries of the memory, a power of two of at least 2. Writing into a full queue loses
        the beat.
    threshold : :class:`int`
        ``room`` is high while the memory holds at most this many entries.

    Attributes
    ----------
    i : :py:`In(stream.Signature(shape, always_ready=True))`
        Beats to queue; ``i.valid`` writes one.
    o : :py:`Out(stream.Signature(shape))`
    room : :py:`Out(1)`
        A flip-flop: at most ``threshold`` entries were held after the last clock (a beat
        written on the clock before is not counted yet).
    """
    #: Clocks from a beat in to the same beat out, with the output ready.
    latency = 3

    def __init__(self, *, shape, depth, threshold):
        check_integer("depth", depth, minimum=2)
        if depth & (depth - 1):
            raise ValueError(f"depth must be a power of two, not {depth}")
        check_integer("threshold", threshold, minimum=1, maximum=depth - 1)
        self._depth = depth
        self._threshold = threshold
        super().__init__({
            "i": In(stream.Signature(shape, always_ready=True)),
            "o": Out(stream.Signature(shape)),
            "room": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        bits = Value.cast(self.i.payload).shape().width
        # The write goes through a register, so that the memory's write port has a clock of
        # its own: its enable and address reach every LUT RAM of a wide memory.
        incoming = Signal(bits, reset_less=True)
        incoming_valid = Signal()
        m.d.sync += [incoming.eq(self.i.payload), incoming_valid.eq(self.i.valid)]

        # ``held[k]``: more than k entries are in the memory (the output register aside).
        held = Signal(depth + 1)
        reading = held[0] & (~self.o.valid | self.o.ready)
        outgoing = []
        for index, start in enumerate(range(0, bits, _SLICE_BITS)):
            width = min(_SLICE_BITS, bits - start)
            storage = Memory(shape=width, depth=depth, init=[])
            m.submodules[f"storage_{index}"] = storage
            write = storage.write_port()
            read = storage.read_port(domain="comb")
            written, taken, reading_slice = self._slice_state(m, index, held, reading,
                                                                 incoming_valid)
            m.d.comb += [
                write.addr.eq(written), write.data.eq(incoming[start:start + width]),
                write.en.eq(incoming_valid),
                read.addr.eq(taken),
            ]
            # The read register, written out so that it has an initial value: a read port's
            # own register has none in the Verilog, and would be X until the first read.
            read_data = Signal(width, name=f"read_data_{index}")
            with m.If(reading_slice):
                m.d.sync += read_data.eq(read.data)
            outgoing.append(read_data)
        m.d.comb += self.o.payload.eq(Cat(*outgoing))
        with m.If(incoming_valid & ~reading):
            m.d.sync += held.eq((held << 1) | 1)
        with m.Elif(~incoming_valid & reading):
            m.d.sync += held.eq(held >> 1)
        with m.If(reading):
            m.d.sync += self.o.valid.eq(1)
        with m.Elif(self.o.ready):
            m.d.sync += self.o.valid.eq(0)
        # ``room`` follows what ``held`` becomes.
        threshold = self._threshold
        with m.If(incoming_valid & ~reading):
            m.d.sync += self.room.eq(~held[threshold - 1])
        with m.Elif(~incoming_valid & reading):
            m.d.sync += self.room.eq(~held[threshold + 1])
        with m.Else():
            m.d.sync += self.room.eq(~held[threshold])
        return m

    def _slice_state(self, m, index, held, reading, incoming_valid):
        """The write and read addresses of slice ``index`` of the memory, and whether its part
        of the output register loads.

        One address or read enable for a whole wide queue would reach hundreds of LUT RAMs or
        flip-flop enables, so each slice has its own addresses, and its own copy of ``held[0]``
        in its read enable. Each copy's next value is computed from the copy itself (as the
        original's is from the original), so the copies equal the originals on every clock, yet
        no synthesis tool sees two flip-flops, or two read enables, with the same inputs to
        merge. The read enable is ``reading`` and the copy, so the output keeps the stream
        rules whatever the copy holds (which lets k-induction prove them without an invariant
        that ties the copies to the originals)."""
        depth = self._depth
        written = Signal(range(depth), name=f"written_{index}")
        taken = Signal(range(depth), name=f"taken_{index}")
        copy = Signal(name=f"held_{index}")
        slice_reading = reading & copy
        with m.If(incoming_valid):
            m.d.sync += written.eq(written + 1)
        with m.If(slice_reading):
            m.d.sync += taken.eq(taken + 1)
        with m.If(incoming_valid & ~slice_reading):
            m.d.sync += copy.eq(1)
        with m.Elif(~incoming_valid & slice_reading):
            m.d.sync += copy.eq(held[1])
        return written, taken, slice_reading
