"""Compaction: the valid slots of a beat moved down to lane 0, in order."""

from amaranth.hdl import Cat, Module, Signal
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
    a prefix count (two of its log2(``width``) adder levels per clock); then, one bit of it
    per clock, lowest bit first, every item moves down by 2^s where bit s is set. Moving by the
    low bits first keeps any two items apart at every step (an item ``j`` slots after another
    has at most ``j - 1`` empty slots between them), so each step is a 2:1 multiplexer per bit.

    Latency ``latency`` clocks (:math:`\\lceil \\log_2 w / 2 \\rceil + \\log_2 w`, at least
    one), one beat per clock, no backpressure.

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
        return _count_stages(width) + _log2(width)

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
        for step in range(bits):
            span = 1 << step
            moved = Signal(data.ArrayLayout(moving, width), name=f"shift{step}",
                           reset_less=True)
            for index in range(width):
                stays = items[index].valid & ~items[index].gap[step]
                if index + span < width:
                    source = items[index + span]
                    arrives = source.valid & source.gap[step]
                    with m.If(arrives):
                        m.d.sync += moved[index].eq(source)
                    with m.Else():
                        m.d.sync += [moved[index].eq(items[index]),
                                     moved[index].valid.eq(stays)]
                else:
                    m.d.sync += [moved[index].eq(items[index]), moved[index].valid.eq(stays)]
            kept = Signal(range(width + 1), name=f"shift{step}_count", reset_less=True)
            m.d.sync += kept.eq(total_stages[-1])
            total_stages.append(kept)
            items = moved
            valid, last = _delay(m, valid, last, f"shift{step}")

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


def _delay(m, valid, last, name):
    delayed_valid = Signal(name=f"{name}_valid")
    delayed_last = Signal(name=f"{name}_last", reset_less=True)
    m.d.sync += [delayed_valid.eq(valid), delayed_last.eq(last)]
    return delayed_valid, delayed_last
