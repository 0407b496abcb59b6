"""Repacking: beats of 0 to ``in_width`` items into beats of exactly ``width`` items."""

from types import SimpleNamespace

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..unicode.layout import Lanes
from .stage import WidthStage
from ..unicode.params import check_integer, check_power_of_two
from .copies import LANES_PER_COPY, copy_groups, state_copies, update_copies
from .window import LaneBeat, Slot


__all__ = ["Repacker", "Packer"]


class Repacker(WidthStage):
    """Stage *repack*: turns beats of 0 to ``in_width`` packed items into beats of ``width``
    items, all full but the last of each message.

    Items are written into a buffer of two halves of ``width`` slots at a pointer that moves on
    by each beat's count; a half goes out when it fills, and ``last`` sends the half the
    message ends in, however full (an empty message gives one beat of no items). The pointer
    update is the stage's only loop, a clock of its own.

    Item ``r`` of a beat goes to slot ``(fill + r) mod width`` of the buffer, through a network
    of log2(``width``) levels (an inverse butterfly): on level ``k`` each pair of lanes
    ``2 ** k`` apart within a group of ``2 ** (k + 1)`` goes straight or crosses. The network
    packs and rotates at once, so it takes the items of a beat whose slots may be empty
    (the :class:`Packer`) as well as packed ones. Each pair's setting follows from the low bits
    of two slots' aims, the pointer plus the items before the slot (:func:`_cross`), which
    are added on the pointer's clock. The network then takes two levels a clock while its
    pairs are at most eight lanes apart, then one. Its first clock's levels are set straight
    from the aims (on level 0 a pair's setting is one bit of an aim, on level 1 a LUT4 of
    four bits); the second clock's levels' settings are registered on that clock, and those
    of the later levels (from width 32) on the second, from comparisons registered on the
    first; each waits with its beat.

    A compactor (log2(``width``) shift levels) followed by a rotation (log2(``width``) more)
    did the same with twice the multiplexers, and twice the wires across the middle of a
    beat: at W = 64 from UTF-8 to UTF-16, 18,476 LUT4s and 18,887 flip-flops for the two,
    against 10,722 and 14,196 for the :class:`Packer` (each synthesised alone). With the two,
    that core did not route on the ECP5-85F in an hour.

    Latency ``latency`` clocks from an input beat to the output beat it completes, one input
    beat per clock, no backpressure. Over a message, the output never has more beats than the
    input, but the last input beat can complete two (a full half and the rest): the second
    waits one clock in a holding register, and goes out on the next clock instead of the output
    of the beat that arrives then, which in turn waits. So the output lags the input by at most
    one beat at any time, and one output beat per clock always keeps up.

    The output beat is read from the buffer through one multiplexer a bit, not from registers
    of its own: at W = 64 from UTF-8 to UTF-16, an output register and a holding register for
    the items were 2,560 flip-flops and as many LUT4s more. So ``o`` is a function of
    flip-flops, for a stage that registers it (the wide core's queue does). A half stays as it
    is until it has gone out: the items of a beat go into the half after the one they fill at
    the earliest on the clock that one goes out, after it is read; a beat waits only from a
    message's end on, and then every beat after it starts a fresh half and spills into no
    other (:meth:`invariants`), and with ``lead`` none comes on the clock after a message's
    last.

    With ``lead`` every message's output begins with those items (a byte order mark): the
    pointer starts each message ``len(lead)`` slots into its first half, and the first beat a
    message sends has them in its first lanes. A message then can give one output beat more
    than it has input beats, so the input must leave a clock without a beat after each
    message's last beat, in which the holding register empties.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        One item.
    width : :class:`int`
        Items per output beat, a power of two.
    in_width : :class:`int`
        Items per input beat, from 1 to ``width`` (default: ``width``). A narrower input is
        what gathers narrow beats into wide ones, or gives an output beat room for ``lead``
        beside all that one input beat can bring.
    lead : sequence of items
        Items every message's output begins with, fewer than ``width`` (default: none): each
        what ``item.const`` takes, or a value of the item's width.

    Attributes
    ----------
    i : :py:`In(stream.Signature(Lanes(item, in_width), always_ready=True))`
        Items packed from lane 0.
    o : :py:`Out(stream.Signature(Lanes(item, width), always_ready=True))`
        Full beats, the last of a message with 1 to ``width`` items (none for an empty one).

    Raises
    ------
    :exc:`ValueError`
        If ``width`` is not a power of two, ``in_width`` not an integer from 1 to
        ``width``, or ``lead`` not fewer items than ``width``.
    """
    def __init__(self, *, item, width, in_width=None, lead=()):
        check_power_of_two("width", width)  # before the ports' layouts are made of it
        in_width = width if in_width is None else in_width
        check_integer("in_width", in_width, minimum=1, maximum=width)
        lead = list(lead)
        if len(lead) >= width:
            raise ValueError(f"lead must be fewer items than width ({width}), not {len(lead)}")
        # Each item a constant of the item's layout, or a value as wide as it.
        self._lead = [item.const(value) if isinstance(value, (int, dict)) else value
                      for value in lead]
        super().__init__({
            "i": In(stream.Signature(self._input(item, in_width), always_ready=True)),
            "o": Out(stream.Signature(Lanes(item, width), always_ready=True)),
        }, width=width)
        # The state that :meth:`invariants` names, made here so that a bench can name it. (At
        # width 1 the fill is always 0, and no beat can spill into the next half; the shapes
        # keep a bit so that no Verilog vector is empty.)
        self._fill_shape = fill_shape = range(max(width, 2))
        self._fill = Signal(fill_shape, name="fill", init=len(self._lead))
        self._placed = Signal(data.StructLayout({
            "lanes": data.ArrayLayout(item, width), "count": range(in_width + 1), "last": 1,
            "half": 1, "fill": fill_shape, "total": range(2 * width),
        }), name="placed", reset_less=True)
        self._placed_valid = Signal(name="placed_valid")
        self._rotated_info = [Signal(data.StructLayout({
            "last": 1, "half": 1, "fill": fill_shape, "total": range(2 * width),
            "this_half": width, "next_half": width,
        }), name=f"rotate{stage}_info", reset_less=True) for stage in range(_rotate_stages(width))]
        self._rotated_valid = [Signal(name=f"rotate{stage}_valid")
                               for stage in range(_rotate_stages(width))]
        emission = data.StructLayout({"valid": 1, "count": range(width + 1), "last": 1,
                                      "starts": 1})
        self._first = Signal(emission, name="first")
        self._second = Signal(emission, name="second")
        self._held = Signal(data.StructLayout({"count": range(width + 1), "last": 1}),
                            name="held", reset_less=True)
        self._held_valid = Signal(name="held_valid")

    def last_waits(self):
        """A message's last beat is due and waits a clock, for the holding register: it is
        the second of two beats, or it comes while the holding register's beat goes out. For
        a formal bench."""
        return ((self._first.valid & self._first.last & self._held_valid)
                | self._second.valid)

    def invariants(self):
        """What holds in every reachable state, as ``(value, message)`` pairs for a formal
        bench to assert: a held beat is never overwritten.

        The holding register takes ``first`` while it holds a beat, so ``second`` must not
        come then. It cannot: a beat is held only from a message's end on, and stays held only
        while every beat after it fills a half, which from the fresh half of a new message
        means beats of exactly ``width`` items, never spilling. Stated here: while a beat is
        held, no ``second`` is due, and if ``first`` is, the next beat in the pipeline (or the
        pointer, if none) starts a fresh half."""
        next_fill = self._fill
        stages = [(self._placed_valid, self._placed.fill),
                  *((valid, info.fill) for valid, info in zip(self._rotated_valid,
                                                              self._rotated_info))]
        for valid, fill in stages:          # the oldest beat in the pipeline decides
            next_fill = Mux(valid, fill, next_fill)
        yield (~self._held_valid | (~self._second.valid & (~self._first.valid
                                                          | (next_fill == len(self._lead)))),
               "the repacker's held beat is never overwritten")

    @staticmethod
    def latency_of(width):
        """The latency of a repacker of ``width`` items."""
        return _rotate_stages(width) + 2

    @staticmethod
    def _input(item, in_width):
        return Lanes(item, in_width)

    def _counted(self, m):
        """The input beat as the pointer takes it, and what the network needs of its slots:
        ``valid``, ``last``, ``count``, ``items`` (``None`` for a slot no beat fills) and
        ``before(slot)``, the items in the slots before ``slot``. Here the items are packed
        from lane 0, so ``count`` says which slots are full, at once."""
        width = self._width
        lanes = self.i.payload.lanes
        count = self.i.payload.count
        items = [lanes[index] if index < len(lanes) else None for index in range(width)]
        return SimpleNamespace(
            valid=self.i.valid, last=self.i.payload.last, count=count, items=items,
            # (No comparison that cannot fail, for the linters' sake.)
            before=lambda slot: Mux(count > slot, slot, count) if slot < len(lanes) else count)

    def elaborate(self, platform):
        m = Module()
        width = self._width
        layout = self.o.payload.shape()
        item = layout.item
        bits = width.bit_length() - 1
        lead = len(self._lead)
        half_layout = data.ArrayLayout(item, width)
        counted = self._counted(m)

        # The pointer: the half being filled and the slots of it already used.
        fill_shape = self._fill_shape

        def spills(total):
            return total > width if width > 1 else Const(0)

        half = Signal()
        fill = self._fill
        total = counted.count + fill
        with m.If(counted.valid):
            with m.If(counted.last):
                # The next message starts on a fresh half, after the one this one ends in.
                m.d.sync += [fill.eq(lead), half.eq(half ^ ~spills(total))]
            with m.Else():
                m.d.sync += [fill.eq(total[:bits]), half.eq(half ^ (total >= width))]
        # Each slot's place is the pointer plus the items before it: every group of lanes has
        # its own copy of the pointer (:mod:`.copies`), rather than one flip-flop driving the
        # adders of a wide beat.
        fill_copies = state_copies(copy_groups(width), fill_shape, name="fills", init=lead)
        update_copies(m, fill_copies, lambda copy: Mux(
            counted.valid, Mux(counted.last, lead, (counted.count + copy)[:bits]), copy))

        placed, placed_valid = self._placed, self._placed_valid
        m.d.sync += [
            placed_valid.eq(counted.valid),
            placed.count.eq(counted.count),
            placed.last.eq(counted.last), placed.half.eq(half), placed.fill.eq(fill),
            placed.total.eq(total),
        ]
        for index, value in enumerate(counted.items):
            if value is not None:       # a slot no beat fills is never written
                m.d.sync += placed.lanes[index].eq(value)
        # ``aims[slot]``: the low bits of the slot where the first item at or after ``slot``
        # goes, as many as the network's levels read (:func:`_aim_bits`).
        aims = []
        for index in range(width if bits else 0):
            aim = Signal(_aim_bits(index, width), name=f"aim_{index}", reset_less=True)
            copy = fill_copies[index // LANES_PER_COPY]
            m.d.sync += aim.eq(copy if index == 0 else copy + counted.before(index))
            aims.append(aim)

        # Each level's switch settings. The first clock's levels read the aims as they are
        # (on level 0 a pair's setting is one bit of an aim, on level 1 one LUT4 of four); the
        # second clock's are registered on the first (*steer*) and wait with their beat. The
        # later levels' take two clocks: their groups' comparisons are registered on the
        # first (*terms*), and the settings made of them on the second. Computed in one
        # clock, the aim of slot 0 drove the comparisons of every level's first group, and
        # at W = 64 from UTF-8 to UTF-16 that was the critical path (101.1 MHz on the
        # ECP5-85F with router2: 7.5 of its 9.9 ns routing).
        groups = _level_groups(width) or [[]]
        first, second = groups[0], groups[1] if len(groups) > 1 else []
        settings = {}
        for level in range(bits):
            span = 1 << level
            terms = [_terms(level, aims[start], aims[start + span])
                     for start in range(0, width, 2 * span)]
            if level not in first and level not in second:
                terms = [_registered_terms(m, group, f"terms{level}_{index}")
                         for index, group in enumerate(terms)]
            crosses = Cat(*(_cross(group, offset) for group in terms for offset in range(span)))
            if level in first:
                settings[level] = Signal(width // 2, name=f"steer_{level}", reset_less=True)
                m.d.comb += settings[level].eq(crosses)
            elif level in second:
                settings[level] = Signal(width // 2, name=f"steer_{level}", reset_less=True)
                m.d.sync += settings[level].eq(crosses)
            else:
                # Registered on the second clock, with the settings that wait.
                settings[level] = crosses

        # The network (an inverse butterfly): on level ``k`` each group of ``2 ** (k + 1)``
        # lanes has the items of each half already packed and rotated to their places modulo
        # ``2 ** k``, and each pair of lanes ``2 ** k`` apart goes straight or crosses, so
        # that the group's items are packed and rotated modulo ``2 ** (k + 1)``. After the
        # last level item ``r`` of the beat is in slot ``(fill + r) mod width``.
        rotated = [placed.lanes[index] for index in range(width)]
        valid = placed_valid
        info = placed
        for stage, levels in enumerate(groups):
            for level in levels:
                span = 1 << level
                moved = list(rotated)
                for group, start in enumerate(range(0, width, 2 * span)):
                    for offset in range(span):
                        low, high = start + offset, start + offset + span
                        cross = settings[level][group * span + offset]
                        moved[low] = Mux(cross, rotated[high], rotated[low])
                        moved[high] = Mux(cross, rotated[low], rotated[high])
                rotated = moved
            registered = Signal(half_layout, name=f"rotate{stage}", reset_less=True)
            for index, value in enumerate(rotated):
                m.d.sync += registered[index].eq(value)
            rotated = [registered[index] for index in range(width)]
            # The settings of the levels still to come wait with their beat.
            for level in settings:
                if stage > 0 and level > max(levels):
                    later = Signal(width // 2, name=f"steer{stage}_{level}", reset_less=True)
                    m.d.sync += later.eq(settings[level])
                    settings[level] = later
            later_info = self._rotated_info[stage]
            m.d.sync += [later_info.last.eq(info.last), later_info.half.eq(info.half),
                         later_info.fill.eq(info.fill), later_info.total.eq(info.total)]
            # The slots written: ``fill <= slot < total`` in this half, ``slot < total -
            # width`` in the next. From width 8, where the pieces have three bits, the
            # comparisons are split into such pieces, one LUT4 each, on the first clock.
            # (Comparisons that cannot fail are left out, for the linters' sake.)
            if stage == 0 and width >= 8:
                above_total = _split_comparison(m, info.total, 2 * width - 1, "total")
                above_fill = _split_comparison(m, info.fill, width - 1, "fill")
            elif stage <= 1:
                if stage == 0:
                    def above_total(limit):
                        return info.total > limit

                    def above_fill(limit):
                        return info.fill > limit
                for index in range(width):
                    this_half = above_total(index)
                    if index < width - 1:
                        this_half = this_half & ~above_fill(index)
                    m.d.sync += later_info.this_half[index].eq(this_half)
                    if width + index < 2 * width - 1:
                        m.d.sync += later_info.next_half[index].eq(above_total(width + index))
            else:
                m.d.sync += [later_info.this_half.eq(info.this_half),
                             later_info.next_half.eq(info.next_half)]
            later_valid = self._rotated_valid[stage]
            m.d.sync += later_valid.eq(valid)
            info, valid = later_info, later_valid

        # Write the slots, and say which halves go out: the one being filled when it fills or
        # the message ends, and with ``last`` the next one when the items spill into it.
        buffer = Signal(data.ArrayLayout(half_layout, 2), reset_less=True)
        for which in range(2):
            for index in range(width):
                written = Mux(info.half == which, info.this_half[index], info.next_half[index])
                with m.If(valid & written):
                    m.d.sync += buffer[which][index].eq(rotated[index])
        first, second = self._first, self._second
        fills = info.total >= width
        spilled = spills(info.total)
        # Whether the next ``first`` is a message's first beat, which carries the lead items.
        beginning = Signal(init=1)
        with m.If(valid & (fills | info.last)):
            m.d.sync += beginning.eq(info.last)
        m.d.sync += [
            first.starts.eq(beginning),
            second.starts.eq(0),
            first.valid.eq(valid & (fills | info.last)),
            first.count.eq(Mux(fills, width, info.total)),
            first.last.eq(info.last & ~spilled),
            second.valid.eq(valid & info.last & spilled),
            second.count.eq(info.total - width),
            second.last.eq(1),
        ]

        # The holding register for the second of two beats. The halves go out strictly in
        # turn (a message's first half is the one after the last half of the message before),
        # so the output reads the half after the last one it sent, whichever beat that is:
        # straight from the buffer, which keeps it until it has gone (see the class's
        # docstring). Only the beat's count, last and lead are held, not its items.
        held, held_valid = self._held, self._held_valid
        held_starts = Signal(name="held_starts")
        m.d.comb += [
            self.o.valid.eq(held_valid | first.valid),
            self.o.payload.count.eq(Mux(held_valid, held.count, first.count)),
            self.o.payload.last.eq(Mux(held_valid, held.last, first.last)),
        ]
        with m.If(held_valid):
            m.d.sync += [held.count.eq(first.count), held.last.eq(first.last),
                         held_starts.eq(first.starts), held_valid.eq(first.valid)]
        with m.Else():
            m.d.sync += [held.count.eq(second.count), held.last.eq(second.last),
                         held_starts.eq(second.starts), held_valid.eq(second.valid)]
        # The beat that goes out begins a message: its first lanes are the lead's.
        starts = Mux(held_valid, held_starts, first.starts)
        # Each lane's own copy of the half that goes out (:mod:`.copies`): one for the whole
        # output would select for every bit of every lane, hundreds of multiplexers.
        sent_halves = state_copies(width, 1, name="sent_half")
        update_copies(m, sent_halves, lambda copy: copy ^ (held_valid | first.valid))
        for index, lane_half in enumerate(sent_halves):
            out = Mux(lane_half, buffer[1][index], buffer[0][index])
            if index < lead:
                out = Mux(starts, self._lead[index], out)
            m.d.comb += self.o.payload.lanes[index].eq(out)
        return m


class Packer(Repacker):
    """Stage *pack*: turns beats of ``in_width`` slots, each holding an item or empty, into
    beats of ``width`` items, all full but the last of each message: the :class:`Repacker`,
    whose network packs the items as it puts them in their places.

    A slot's place is the pointer plus the items in the slots before it. Those counts take the
    stage's first clocks (:func:`_count_clocks`): each block of :data:`BLOCK` slots counts its
    own on the first, in logic rather than adders, and the blocks' totals are then added up,
    each with those before it, two adder levels a clock. An adder is a carry chain on the
    ECP5, and the route between two of them as long as the chain: eight blocks' totals added
    one after another were 14.6 ns at W = 64 (68 MHz). (One level a clock would be shorter
    still, but with it Yosys 0.70's ABC9 gave the W = 32 core from UTF-8 to UTF-16-LE a net
    with two flip-flops driving it, which nextpnr refuses.) The rest is the :class:`Repacker`'s,
    with the same network: lane ``k`` of the network's first level holds slot ``k``, full or
    not.

    Latency ``latency`` clocks, the :class:`Repacker`'s and the counts'; the rest as for it.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        One item.
    width : :class:`int`
        Items per output beat, a power of two.
    in_width : :class:`int`
        Slots per input beat, from 1 to ``width`` (default: ``width``).
    lead : sequence of items
        As for the :class:`Repacker`.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(Slot(item), in_width), always_ready=True))`
        Slots, each with its ``valid`` bit, in order.
    o : :py:`Out(stream.Signature(Lanes(item, width), always_ready=True))`
        As for the :class:`Repacker`.

    Raises
    ------
    :exc:`ValueError`
        As for the :class:`Repacker`.
    """
    @staticmethod
    def _input(item, in_width):
        return LaneBeat(Slot(item), in_width)

    @staticmethod
    def latency_of(width):
        """The latency of a packer of ``width`` items."""
        return _count_clocks(width) + Repacker.latency_of(width)

    def _counted(self, m):
        width = self._width
        slots = list(self.i.payload.lanes)
        block = min(width, BLOCK)
        present = [slot.valid for slot in slots] + [Const(0)] * (width - len(slots))
        # First clock: within each block, the full slots before each one, and the block's
        # total, as logic (:func:`_popcount`).
        # (A block's first slot has none before it within the block, so no register.)
        befores = {index: Signal(range(block), name=f"within_{index}", reset_less=True)
                   for index in range(width) if index % block}
        sums = [Signal(range(block + 1), name=f"block_{index}", reset_less=True)
                for index in range(width // block)]
        for start in range(0, width, block):
            for index in range(start + 1, start + block):
                m.d.sync += befores[index].eq(_popcount(present[start:index]))
            m.d.sync += sums[start // block].eq(_popcount(present[start:start + block]))
        items = Signal(data.ArrayLayout(self.i.payload.shape().item.item, len(slots)),
                       name="counted_items", reset_less=True)
        m.d.sync += items.eq(Cat(*(slot.item for slot in slots)))
        valid, last = _delay(m, self.i.valid, self.i.payload.last, "counted")
        # Then the blocks' totals added up, each block's with those before it (Hillis and
        # Steele's scan), two adder levels a clock.
        levels = list(range((len(sums) - 1).bit_length()))
        for clock in range(_count_clocks(width) - 1):
            for level in levels[2 * clock:2 * clock + 2]:
                span = 1 << level
                sums = [value + sums[index - span] if index >= span else value
                        for index, value in enumerate(sums)]
            registered = [Signal(range(width + 1), name=f"blocks{clock}_{index}", reset_less=True)
                          for index in range(len(sums))]
            m.d.sync += [target.eq(value) for target, value in zip(registered, sums)]
            sums = registered
            later = {index: Signal.like(value, name=f"within{clock}_{index}", reset_less=True)
                     for index, value in befores.items()}
            m.d.sync += [later[index].eq(value) for index, value in befores.items()]
            befores = later
            later_items = Signal.like(items, name=f"counted{clock}_items", reset_less=True)
            m.d.sync += later_items.eq(items)
            items = later_items
            valid, last = _delay(m, valid, last, f"counted{clock}")

        def before(slot):
            # The count within the slot's own block, and those of the blocks before it (each
            # of the sums is now a block's with those before it).
            within = befores.get(slot, Const(0))
            if slot < block:
                return within
            blocks_before = sums[slot // block - 1]
            return blocks_before + within if slot % block else blocks_before
        return SimpleNamespace(
            valid=valid, last=last, count=sums[-1],
            items=[items[index] if index < len(slots) else None for index in range(width)],
            before=before)


#: Slots that count their items together on a :class:`Packer`'s first clock.
BLOCK = 8

#: The widest span of the network that shares a clock with another level: a span of 16 lanes
#: or more is a route across much of a wide beat.
_SHARED_SPAN = 8


def _count_clocks(width):
    """A packer's clocks before its pointer: the blocks' counts, then their scan."""
    blocks = max(1, width // BLOCK)
    return 1 + ((blocks - 1).bit_length() + 1) // 2


def _popcount(bits):
    """How many of ``bits`` are high, from full and half adders written as logic, so that
    synthesis maps a few bits' count to a LUT4 or two a bit rather than a chain of adders
    (which on the ECP5 costs a carry chain, and a route into it, for every two bits)."""
    columns = [list(bits)]
    weight = 0
    while weight < len(columns):
        column = columns[weight]
        while len(column) > 1:
            if len(column) == 2:
                first, second = column.pop(), column.pop()
                total, carry = first ^ second, first & second
            else:
                first, second, third = column.pop(), column.pop(), column.pop()
                total = first ^ second ^ third
                carry = (first & second) | (first & third) | (second & third)
            column.insert(0, total)
            if weight + 1 == len(columns):
                columns.append([])
            columns[weight + 1].append(carry)
        weight += 1
    return Cat(*(column[0] if column else Const(0) for column in columns))


def _level_groups(width):
    """The network's levels of each clock: two a clock while their spans are at most
    :data:`_SHARED_SPAN` lanes, then one."""
    groups = []
    for level in range(width.bit_length() - 1):
        if groups and len(groups[-1]) < 2 and 1 << level <= _SHARED_SPAN:
            groups[-1].append(level)
        else:
            groups.append([level])
    return groups


def _rotate_stages(width):
    """The clocks from the pointer to the buffer: the network's (one at width 1)."""
    return max(1, len(_level_groups(width)))


def _aim_bits(slot, width):
    """The bits of a slot's aim the network reads: the groups that start at ``slot`` read its
    bits below their level and the one at it, and so does the group whose upper half does."""
    bits = width.bit_length() - 1
    if slot == 0:
        return bits
    return min(bits, (slot & -slot).bit_length())


def _terms(level, start_aim, middle_aim):
    """What the settings of a group of level ``level`` are made of (:func:`_cross`): from the
    aims of its start and middle, the bit ``level`` of each, whether the rotation wraps
    around, and for each offset whether it is below each aim's low bits."""
    span = 1 << level
    below_start, below_middle, wraps = [Const(0)] * span, [Const(0)] * span, Const(0)
    if level:
        alpha, sigma = start_aim[:level], middle_aim[:level]
        wraps = alpha > sigma
        # (No comparison that cannot fail, for the linters' sake.)
        below_start = [alpha > offset for offset in range(span - 1)] + [Const(0)]
        below_middle = [sigma > offset for offset in range(span - 1)] + [Const(0)]
    return SimpleNamespace(start=start_aim[level], middle=middle_aim[level], wraps=wraps,
                           below_start=below_start, below_middle=below_middle)


def _registered_terms(m, terms, name):
    """``terms`` (:func:`_terms`) in flip-flops, a clock later (none for those that are
    constant)."""
    def register(value, suffix):
        if isinstance(value, Const):
            return value
        flop = Signal(name=f"{name}_{suffix}", reset_less=True)
        m.d.sync += flop.eq(value)
        return flop
    return SimpleNamespace(
        start=register(terms.start, "start"), middle=register(terms.middle, "middle"),
        wraps=register(terms.wraps, "wraps"),
        below_start=[register(value, f"below_start{offset}")
                     for offset, value in enumerate(terms.below_start)],
        below_middle=[register(value, f"below_middle{offset}")
                      for offset, value in enumerate(terms.below_middle)])


def _cross(terms, offset):
    """Whether the pair of lanes ``offset`` and ``offset + 2 ** level`` of a group crosses,
    from the group's :func:`_terms`.

    The group's lower half holds its items at ``alpha + t`` (modulo ``2 ** level``), the
    upper half its own at ``sigma + t``, where ``alpha`` and ``sigma`` are the low bits of the
    aims of the group's start and middle; their bit ``level`` says whether the item whose
    place they are goes in the upper half. The lower half's item at ``offset``, if there is
    one, goes up when that bit, flipped where the rotation wrapped around (``offset <
    alpha``), says so; otherwise the upper half's item goes down or stays the same way. The
    lower half holds an item at ``offset`` when ``offset`` is in the cyclic run from
    ``alpha`` to ``sigma``. When the lower half is full, ``alpha`` and ``sigma`` are equal and
    that run looks empty; but then the two rules agree (``sigma`` is ``alpha`` and the upper
    half's bit the lower half's flipped), so the lower half's count is not needed."""
    below_start, below_middle = terms.below_start[offset], terms.below_middle[offset]
    lower_here = below_start ^ below_middle ^ terms.wraps
    return Mux(lower_here, terms.start ^ below_start, ~(terms.middle ^ below_middle))


def _delay(m, valid, last, name):
    delayed_valid = Signal(name=f"{name}_valid")
    delayed_last = Signal(name=f"{name}_last", reset_less=True)
    m.d.sync += [delayed_valid.eq(valid), delayed_last.eq(last)]
    return delayed_valid, delayed_last


def _split_comparison(m, value, most, name):
    """Registers pieces of ``value`` (at most ``most``) from which ``value > limit`` for any
    constant ``limit`` is one LUT4 a clock later; returns that function of ``limit``."""
    high, low = value >> 3, value[0:3]
    highs = most >> 3
    high_above = [Signal(name=f"{name}_high_above_{index}") for index in range(highs)]
    high_equal = [Signal(name=f"{name}_high_is_{index}") for index in range(highs + 1)]
    low_above = [Signal(name=f"{name}_low_above_{index}") for index in range(7)]
    m.d.sync += [
        *(signal.eq(high > index) for index, signal in enumerate(high_above)),
        *(signal.eq(low > index) for index, signal in enumerate(low_above)),
    ]
    if highs:
        m.d.sync += [signal.eq(high == index) for index, signal in enumerate(high_equal)]
    else:
        high_equal = [Const(1)]      # the value has no bits above the low three

    def above(limit):
        upper, lower = limit >> 3, limit & 7
        result = high_above[upper] if upper < highs else Const(0)
        if lower < 7:
            result = result | (high_equal[upper] & low_above[lower])
        return result
    return above
