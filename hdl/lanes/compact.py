"""Compaction: the valid slots of a beat moved down to lane 0, in order."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..unicode.layout import Lanes
from .stage import WidthStage
from ..unicode.params import check_power_of_two
from .window import LaneBeat


__all__ = ["Slot", "Compactor"]


class Slot(data.StructLayout):
    """An item that may be there or not: ``valid`` and ``item``."""
    def __init__(self, item):
        self.item = item
        super().__init__({"valid": 1, "item": item})


def _log2(width):
    return width.bit_length() - 1


class Compactor(WidthStage):
    """Stage *compact*: packs the valid slots of each beat from lane 0, keeping their order.

    Each slot's item moves down by the number of empty slots before it. That number comes from
    a prefix count (two of its log2(``width``) adder levels per clock); then, one bit of it a
    step, lowest bit first, every item moves down by 2^s where bit s is set. Moving by the
    low bits first keeps any two items apart at every step (an item ``j`` slots after another
    has at most ``j - 1`` empty slots between them), so each step is a 2:1 multiplexer per bit.
    The steps that move by up to eight lanes take two a clock: a register after every step
    held each item and its count once a step, at W = 64 from UTF-8 to UTF-16 13,551 flip-flops,
    a third of the core's. A step by 16 lanes or more, a route across much of a wide core,
    keeps a clock of its own.

    Latency ``latency`` clocks (:meth:`latency_of`), one beat per clock, no backpressure.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        One item.
    width : :class:`int`
        Slots per beat, a power of two.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(Slot(item), width), always_ready=True))`
    o : :py:`Out(stream.Signature(Lanes(item, width), always_ready=True))`
        ``count`` items, from lane 0; lanes past it are don't-care.
    """
    def __init__(self, *, item, width):
        check_power_of_two("width", width)  # before the ports' layouts are made of it
        super().__init__({
            "i": In(stream.Signature(LaneBeat(Slot(item), width), always_ready=True)),
            "o": Out(stream.Signature(Lanes(item, width), always_ready=True)),
        }, width=width)

    @staticmethod
    def latency_of(width):
        """The latency of a compactor of ``width`` slots."""
        return _count_stages(width) + _shift_stages(width)

    def elaborate(self, platform):
        m = Module()
        width = self._width
        item = self.i.payload.shape().item.item
        bits = _log2(width)
        moving = data.StructLayout({"valid": 1, "item": item, "gap": range(width + 1)})

        # The prefix count: gaps[j] is the number of empty slots among 0..j-1 (Hillis and
        # Steele's scan, two levels per clock); ``empty`` the total.
        slots = [slot for slot in self.i.payload.lanes]
        counts = [~slot.valid for slot in slots]
        valid, last = self.i.valid, self.i.payload.last
        levels = list(range(bits))
        for stage in range(_count_stages(width)):
            next_counts = []
            for level in levels[2 * stage:2 * stage + 2]:
                span = 1 << level
                counts = [count + counts[index - span] if index >= span else count
                          for index, count in enumerate(counts)]
            registered_slots = Signal(data.ArrayLayout(Slot(item), width), reset_less=True,
                                      name=f"count{stage}_slots")
            for index, count in enumerate(counts):
                counted = Signal(range(width + 1), name=f"count{stage}_{index}",
                                 reset_less=True)
                m.d.sync += counted.eq(count)
                next_counts.append(counted)
            m.d.sync += registered_slots.eq(Cat(*(slot.as_value() for slot in slots)))
            slots = list(registered_slots)
            counts = next_counts
            valid, last = _delay(m, valid, last, f"count{stage}")

        # ``counts`` is now inclusive of each slot, so the gap before a slot is the count of
        # the slot before it (no subtraction between the last adder and the first shift).
        items = Signal(data.ArrayLayout(moving, width), name="gaps")
        for index, slot in enumerate(slots):
            m.d.comb += [items[index].valid.eq(slot.valid), items[index].item.eq(slot.item)]
            if index > 0:
                m.d.comb += items[index].gap.eq(counts[index - 1])
        total = width - counts[-1]
        total_stages = [total]
        for stage, steps in enumerate(_shift_groups(width)):
            for step in steps:
                span = 1 << step
                moved = []
                for index in range(width):
                    here = items[index]
                    stays = here.valid & ~here.gap[step]
                    kept = Cat(stays, here.as_value()[1:])
                    if index + span < width:
                        source = items[index + span]
                        arrives = source.valid & source.gap[step]
                        kept = Mux(arrives, source.as_value(), kept)
                    moved.append(moving(kept))
                items = moved
            registered = Signal(data.ArrayLayout(moving, width), name=f"shift{stage}",
                                reset_less=True)
            for index in range(width):
                m.d.sync += registered[index].eq(items[index])
            kept = Signal(range(width + 1), name=f"shift{stage}_count", reset_less=True)
            m.d.sync += kept.eq(total_stages[-1])
            total_stages.append(kept)
            items = [registered[index] for index in range(width)]
            valid, last = _delay(m, valid, last, f"shift{stage}")

        if bits == 0:
            # No shifting: the prefix count's stage is the whole latency.
            m.d.comb += [self.o.valid.eq(valid), self.o.payload.last.eq(last),
                         self.o.payload.count.eq(total),
                         self.o.payload.lanes[0].eq(items[0].item)]
        else:
            m.d.comb += [self.o.valid.eq(valid), self.o.payload.last.eq(last),
                         self.o.payload.count.eq(total_stages[-1])]
            for index in range(width):
                m.d.comb += self.o.payload.lanes[index].eq(items[index].item)
        return m


def _count_stages(width):
    return max(1, (_log2(width) + 1) // 2)


#: The widest shift that shares a clock with another: a shift by 16 lanes or more is a route
#: across much of a wide core, which at W = 32 on the ECP5-85F was a critical path alone.
_SHARED_SPAN = 8


def _shift_groups(width):
    """The shift steps of each clock: two a clock while they move by at most
    :data:`_SHARED_SPAN` lanes, then one."""
    groups = []
    for step in range(_log2(width)):
        if groups and len(groups[-1]) < 2 and 1 << step <= _SHARED_SPAN:
            groups[-1].append(step)
        else:
            groups.append([step])
    return groups


def _shift_stages(width):
    return len(_shift_groups(width))


def _delay(m, valid, last, name):
    delayed_valid = Signal(name=f"{name}_valid")
    delayed_last = Signal(name=f"{name}_last", reset_less=True)
    m.d.sync += [delayed_valid.eq(valid), delayed_last.eq(last)]
    return delayed_valid, delayed_last
