"""Repacking: beats of 0 to ``in_width`` items into beats of exactly ``width`` items."""

from amaranth.hdl import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, stream
from amaranth.lib.wiring import In, Out

from ..unicode.layout import Lanes
from .stage import WidthStage
from ..unicode.params import check_integer, check_power_of_two
from .copies import LANES_PER_COPY, copy_groups, state_copies, update_copies


__all__ = ["Repacker"]


class Repacker(WidthStage):
    """Stage *repack*: turns beats of 0 to ``in_width`` packed items into beats of ``width``
    items, all full but the last of each message.

    Items are written into a buffer of two halves of ``width`` slots at a pointer that moves on
    by each beat's count; a half goes out when it fills, and ``last`` sends the half the
    message ends in, however full (an empty message gives one beat of no items). The pointer
    update is the stage's only loop, a clock of its own; the rotation that lines the items up
    with the pointer takes two of its log2(``width``) multiplexer levels per clock.

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
            "i": In(stream.Signature(Lanes(item, in_width), always_ready=True)),
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

    def elaborate(self, platform):
        m = Module()
        width = self._width
        layout = self.i.payload.shape()
        item = layout.item
        bits = width.bit_length() - 1
        lead = len(self._lead)
        half_layout = data.ArrayLayout(item, width)

        # The pointer: the half being filled and the slots of it already used.
        fill_shape = self._fill_shape

        def spills(total):
            return total > width if width > 1 else Const(0)

        half = Signal()
        fill = self._fill
        total = self.i.payload.count + fill
        with m.If(self.i.valid):
            with m.If(self.i.payload.last):
                # The next message starts on a fresh half, after the one this one ends in.
                m.d.sync += [fill.eq(lead), half.eq(half ^ ~spills(total))]
            with m.Else():
                m.d.sync += [fill.eq(total[:bits]), half.eq(half ^ (total >= width))]
        # The rotation's multiplexers select on ``fill``: every group of lanes has its own
        # copy (:mod:`.copies`), rather than one flip-flop driving every multiplexer of a wide
        # beat.
        fill_copies = state_copies(copy_groups(width), fill_shape, name="fills", init=lead)
        update_copies(m, fill_copies, lambda copy: Mux(
            self.i.valid, Mux(self.i.payload.last, lead, (self.i.payload.count + copy)[:bits]),
            copy))

        placed, placed_valid = self._placed, self._placed_valid
        placed_fills = Signal(data.ArrayLayout(fill_shape, len(fill_copies)),
                              name="placed_fills", reset_less=True)
        m.d.sync += [
            placed_fills.eq(Cat(*fill_copies)),
            placed_valid.eq(self.i.valid),
            # Lanes past ``in_width`` are never written (no beat brings that many items).
            placed.lanes.as_value()[:len(self.i.payload.lanes.as_value())].eq(
                self.i.payload.lanes),
            placed.count.eq(self.i.payload.count),
            placed.last.eq(self.i.payload.last), placed.half.eq(half), placed.fill.eq(fill),
            placed.total.eq(total),
        ]

        # Rotate the items up by ``fill`` slots (item k to slot fill + k, wrapping into the
        # next half), and find the slots of this half and the next one they are written to.
        rotated = [placed.lanes[index] for index in range(width)]
        valid = placed_valid
        info = placed
        fills = placed_fills
        for stage in range(_rotate_stages(width)):
            for step in range(2 * stage, min(2 * stage + 2, bits)):
                span = 1 << step
                rotated = [Mux(fills[index // LANES_PER_COPY][step],
                               rotated[(index - span) % width], rotated[index])
                           for index in range(width)]
            later_fills = Signal.like(fills, name=f"rotate{stage}_fills", reset_less=True)
            m.d.sync += later_fills.eq(fills)
            fills = later_fills
            registered = Signal(half_layout, name=f"rotate{stage}", reset_less=True)
            for index, value in enumerate(rotated):
                m.d.sync += registered[index].eq(value)
            rotated = [registered[index] for index in range(width)]
            later_info = self._rotated_info[stage]
            m.d.sync += [later_info.last.eq(info.last), later_info.half.eq(info.half),
                         later_info.fill.eq(info.fill), later_info.total.eq(info.total)]
            # The slots written: ``fill <= slot < total`` in this half, ``slot < total -
            # width`` in the next. With two clocks or more to do it in, the comparisons are
            # split into pieces of three bits, one LUT4 each, on the first clock. (Comparisons
            # that cannot fail are left out, for the linters' sake.)
            if stage == 0 and _rotate_stages(width) > 1:
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


def _rotate_stages(width):
    return max(1, width.bit_length() // 2)


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
