"""An output queue for a pipeline that never stops: its flags are flip-flops."""

from amaranth.hdl import Cat, Module, Mux, Shape, Signal, Value
from amaranth.lib import data, stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..unicode.params import check_integer, check_power_of_two
from .copies import state_copies, update_copies


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
    in and one out per clock. ``o.valid`` and ``room`` are flip-flops; ``o.ready`` reaches only
    the next values of flip-flops (the read enables, the fill level, ``o.valid`` and ``room``,
    each written as a function of a few bits rather than through an enable) and no output.

    A wide payload is stored in slices of 32 bits, and each slice keeps its own copy of the
    queue's state (addresses, "not empty" and ``o.valid``; :mod:`.copies`): one read enable for
    the whole payload would reach hundreds of LUT RAMs and flip-flops. :meth:`invariants`
    states that the copies agree, for a formal bench.

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
        check_power_of_two("depth", depth, minimum=2)
        check_integer("threshold", threshold, minimum=1, maximum=depth - 1)
        self._depth = depth
        self._threshold = threshold
        self._bits = Shape.cast(shape).width
        # ``held[k]``: more than k entries are in the memory (the output register aside).
        self._held = Signal(depth + 1, name="held")
        self._slices = state_copies(-(-self._bits // _SLICE_BITS), _slice_state(depth),
                                    name="slice")
        # The write register, made here so that :meth:`held_beats` can name it.
        self._incoming = Signal(self._bits, name="incoming", reset_less=True)
        self._incoming_valid = Signal(name="incoming_valid")
        # Addresses a formal bench reads the memory at (:meth:`held_beats`).
        self._probes = []
        super().__init__({
            "i": In(stream.Signature(shape, always_ready=True)),
            "o": Out(stream.Signature(shape)),
            "room": Out(1),
        })

    @staticmethod
    def depth_after(stages, threshold):
        """Entries enough for a queue fed through ``stages`` clocks by a writer that heeds its
        ``room`` with ``threshold``: every beat in the stages, the clock ``room`` lags, and a
        few beats of slack so that a drained output never stops the writer (a power of two)."""
        return 1 << (stages + threshold + 4).bit_length()

    def at_most_threshold(self):
        """For a formal bench: the memory held at most ``threshold`` entries after the last
        clock, which is what ``room`` says but on the clock after reset."""
        return ~self._held[self._threshold]

    def invariants(self):
        """What holds in every reachable state, as ``(value, message)`` pairs for a formal
        bench to assert: each slice's copies equal the originals. (A proof by induction needs
        them stated: the read enables are made of the copies.)"""
        first = self._slices[0]
        for index, state in enumerate(self._slices):
            yield ((state.held == self._held[0]) & (state.valid == self.o.valid)
                   & (state.written == first.written) & (state.taken == first.taken),
                   f"the queue's slice {index} agrees with its state")

    def held_beats(self):
        """For a formal bench: the beats the queue holds, oldest first, as ``(count, beat)``,
        where ``beat(position)`` is the payload at ``position < count`` of the output
        register (while ``o.valid``), the memory's entries and the write register. The
        memory is read through a read port added for the bench alone.

        Given :meth:`invariants` and that the memory never fills (the writer's part), ``count``
        is the number of beats written and not yet taken from the output."""
        first = self._slices[0]
        entries = (first.written - first.taken)[:self._depth.bit_length() - 1]
        count = self.o.valid + entries + self._incoming_valid

        def beat(position):
            index = position - self.o.valid
            probe = Signal(self._bits, name=f"probe_{len(self._probes)}")
            self._probes.append(((first.taken + index)[:len(first.taken)], probe))
            return Mux(self.o.valid & (position == 0), Value.cast(self.o.payload),
                       Mux(index < entries, probe, self._incoming))
        return count, beat

    def fill_level_agrees(self):
        """For a formal bench: the fill level (a thermometer code) counts the entries between
        the memory's addresses, as it does while the memory never fills."""
        first = self._slices[0]
        entries = (first.written - first.taken)[:self._depth.bit_length() - 1]
        return self._held == Cat(*(entries > k for k in range(self._depth + 1)))

    def elaborate(self, platform):
        m = Module()
        depth = self._depth
        bits = self._bits
        # The write goes through a register, so that the memory's write port has a clock of
        # its own: its enable and address reach every LUT RAM of a wide memory.
        incoming, incoming_valid = self._incoming, self._incoming_valid
        m.d.sync += [incoming.eq(self.i.payload), incoming_valid.eq(self.i.valid)]

        held = self._held

        def reading(state):
            # An entry is read when one is held and the output does not keep its beat.
            return state.held & ~_kept(state.valid, self.o.ready)

        def next_slice(state):
            kept = _kept(state.valid, self.o.ready)
            return {
                "written": Mux(incoming_valid, state.written + 1, state.written),
                "taken": Mux(reading(state), state.taken + 1, state.taken),
                "held": _next_held(Cat(state.held, held[1:]), 0, incoming_valid, kept),
                "valid": state.held | kept,
            }
        update_copies(m, self._slices, next_slice)

        outgoing = []
        for index, state in enumerate(self._slices):
            start = index * _SLICE_BITS
            width = min(_SLICE_BITS, bits - start)
            storage = Memory(shape=width, depth=depth, init=[])
            m.submodules[f"storage_{index}"] = storage
            write = storage.write_port()
            read = storage.read_port(domain="comb")
            slice_reading = reading(state)
            m.d.comb += [
                write.addr.eq(state.written), write.data.eq(incoming[start:start + width]),
                write.en.eq(incoming_valid),
                read.addr.eq(state.taken),
            ]
            for address, probe in self._probes:
                probe_port = storage.read_port(domain="comb")
                m.d.comb += [probe_port.addr.eq(address),
                             probe[start:start + width].eq(probe_port.data)]
            # The read register, written out so that it has an initial value: a read port's
            # own register has none in the Verilog, and would be X until the first read. It
            # has no reset (see :func:`~utfhw.hdl.lanes.stage.payload_register`).
            read_data = Signal(width, name=f"read_data_{index}", reset_less=True)
            with m.If(slice_reading):
                m.d.sync += read_data.eq(read.data)
            outgoing.append(read_data)
        m.d.comb += self.o.payload.eq(Cat(*outgoing))
        # ``held``, ``o.valid`` and ``room`` as plain functions of a few bits: written with
        # enables, Yosys chains the enable's logic after the data's.
        kept = _kept(self.o.valid, self.o.ready)
        next_held = [_next_held(held, k, incoming_valid, kept) for k in range(depth + 1)]
        m.d.sync += [bit.eq(value) for bit, value in zip(held, next_held)]
        m.d.sync += self.o.valid.eq(held[0] | kept)
        m.d.sync += self.room.eq(~next_held[self._threshold])
        return m


def _next_held(held, k, incoming_valid, kept):
    """The next value of ``held[k]`` (more than ``k`` entries), a thermometer code: a write
    moves it up a place and a read down. An entry is read when one is held and the output does
    not keep its beat (``kept``), so a set bit stays set unless the entry above it is read away
    with nothing written, and a clear bit is set only by a write with nothing read."""
    above = held[k + 1] if k + 1 < len(held) else 0
    if k == 0:
        return Mux(held[0], incoming_valid | above | kept, incoming_valid)
    return Mux(held[k], incoming_valid | above | kept, incoming_valid & held[k - 1] & kept)


def _kept(valid, ready):
    """The output beat stays: nothing is read."""
    return valid & ~ready


def _slice_state(depth):
    """The state of one 32-bit slice of a :class:`CreditQueue`, a copy of the queue's
    (:mod:`.copies`): its own write and read addresses, and its own copies of ``held[0]`` and
    ``o.valid`` for its read enable."""
    return data.StructLayout({"written": range(depth), "taken": range(depth), "held": 1,
                              "valid": 1})
