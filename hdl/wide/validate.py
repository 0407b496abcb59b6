"""The stages of the validators that serve every form: each lane's verdict held beside the
bytes before it (:class:`LaneChecks`, which each form's checks extend), the beat's first error
and counts, by groups of lanes (:class:`ReduceVerdicts`) and then of groups
(:class:`GatherGroups`), what they add to the message (:class:`WeighBeats`), and the
message's (:class:`TallyMessages`).

A validator does not rewrite its input, so the stages pass each beat on whole, one clock each:
each is a register stage (:func:`register_stage`) that moves when the next one takes. The core
has them take on every clock, and a :class:`~utfhw.hdl.lanes.queue.CreditQueue` after them
says when its input may come.
"""

import math

from amaranth.hdl import Array, Cat, Const, Module, Mux, Signal, Value, signed, unsigned
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..lanes.stage import payload_register
from ..unicode.layout import (ByteLanes, ErrorKind, LaneVerdicts, ValidatedBytes,
                              ValidationResult)
from ..unicode.params import check_integer, check_width


__all__ = ["WEIGHTS", "MARK_WEIGHT", "GROUP_LANES", "register_stage", "below",
           "ClassifiedBytes", "ClassifyBytes", "LaneChecks", "GroupVerdicts", "BeatVerdict",
           "BeatWeight", "ReduceVerdicts", "MergeGroups", "GatherGroups", "WeighBeats",
           "TallyMessages"]


#: What each count of a :data:`~utfhw.hdl.unicode.layout.LaneVerdict` adds to the message's
#: code points, UTF-16 units and UTF-8 bytes: a character or U+FFFD begins as one code point,
#: one unit and three bytes; one of one byte has two bytes less, one of two bytes one less, and
#: one of four bytes (two UTF-16 units) one more.
WEIGHTS = {
    "begins": (1, 1, 3),
    "ascii":  (0, 0, -2),
    "two":    (0, 0, -1),
    "four":   (0, 1, 1),
}

#: What a dropped byte order mark (U+FEFF, counted as it begins) takes away again.
MARK_WEIGHT = (-1, -1, -3)

_TOTALS = ("code_points", "utf16_units", "utf8_bytes")


def register_stage(m, stage):
    """Drive ``stage.i.ready`` and ``stage.o.valid`` as a register stage, and return
    ``(takes, out)``: the signal that is high when an input beat is taken (the payload and any
    state load then), and the register that drives ``stage.o.payload``, for the stage to load
    its output beat into with ``m.d.sync``.

    The output register loads whenever the next stage takes (``o.ready``), and ``i.ready`` is
    ``o.ready``: so a pipeline of such stages moves on one enable, which need not wait for an
    empty register to fill. (The validator ties every ``o.ready`` high, and synthesis then
    leaves no enable at all.)

    Only ``o.valid`` has a reset, not the payload
    (:func:`~utfhw.hdl.lanes.stage.payload_register`)."""
    m.d.comb += stage.i.ready.eq(stage.o.ready)
    with m.If(stage.i.ready):
        m.d.sync += stage.o.valid.eq(stage.i.valid)
    takes = Signal()
    m.d.comb += takes.eq(stage.i.valid & stage.i.ready)
    return takes, payload_register(m, stage.o)


def _pass_on(beat, out, *, mark=True):
    """The statements that carry a beat's bytes, count, last (and mark) to the next stage."""
    moves = [out.data.eq(beat.data), out.count.eq(beat.count), out.last.eq(beat.last)]
    return moves + ([out.mark.eq(beat.mark)] if mark else [])


def below(value, constant):
    """``value < constant`` for a constant, as logic of ``value``'s bits (a comparison with a
    constant would become a carry chain of its own): some bit where the constant has a one
    and ``value`` a zero, with the bits above it equal."""
    if constant <= 0:
        return Const(0)
    if constant >= 1 << len(value):
        return Const(1)
    terms = []
    for bit in range(len(value)):
        if constant >> bit & 1:
            above = value[bit + 1:]
            terms.append(~value[bit] & (above == constant >> (bit + 1)) if len(above)
                         else ~value[bit])
    result = terms[0]
    for term in terms[1:]:
        result = result | term
    return result


def _flag_names(classes):
    """The names of the flags ``classes`` gives a byte, in its order."""
    return tuple(classes(Const(0, 8)))


class ClassifiedBytes(data.StructLayout):
    """A beat of ``width`` bytes, as :class:`~utfhw.hdl.unicode.layout.ByteLanes` has it, with
    which of its lanes hold a byte of the message (``present``), which lane the message ends at
    (``ends``: lane ``count`` of its last beat, of ``width + 1``), and each byte's ``flags``
    (one bit each, by name)."""
    def __init__(self, width, flags=()):
        check_width(width)
        self.width = width
        self.flag_names = tuple(flags)
        fields = {
            "data":    unsigned(8 * width),
            "count":   range(width + 1),
            "last":    unsigned(1),
            "present": unsigned(width),
            "ends":    unsigned(width + 1),
        }
        if self.flag_names:
            fields["flags"] = data.ArrayLayout(
                data.StructLayout({name: 1 for name in self.flag_names}), width)
        super().__init__(fields)


class ClassifyBytes(wiring.Component):
    """Stage *classify*: each byte's flags, and whether each lane holds a byte of the message
    and is where it ends, a clock later, so that the checks after it read a few registered
    bits a byte rather than the byte and the count.

    At W = 64 the UTF-8 checks read from the bytes themselves were the validator's critical
    path on the ECP5-85F (input to ``check`` at 126.4 MHz, seven logic levels and 5.6 ns of
    routing): the bytes of the input fanned out to the lanes that read them, and ``count`` to
    every lane.

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.
    classes : callable
        A byte's flags: a function of an 8-bit value giving a dict from each flag's name to a
        bit, the same names for every byte (:meth:`LaneChecks.classes`).

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width)))`
    o : :py:`Out(stream.Signature(ClassifiedBytes(width, flags)))`
    """
    def __init__(self, *, width, classes):
        check_width(width)
        self.width = width
        self._classes = classes
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width))),
            "o": Out(stream.Signature(ClassifiedBytes(width, _flag_names(classes)))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        with m.If(takes):
            m.d.sync += _pass_on(beat, out, mark=False)
            for lane in range(self.width + 1):
                ends = beat.last & (beat.count == lane)
                m.d.sync += out.ends[lane].eq(ends)
                if lane == self.width:
                    break
                m.d.sync += out.present[lane].eq(~below(beat.count, lane + 1))
                if out.shape().flag_names:
                    byte = beat.data[8 * lane:8 * lane + 8]
                    for name, value in self._classes(byte).items():
                        m.d.sync += out.flags[lane][name].eq(value)
        return m


class LaneChecks(wiring.Component):
    """A source's classified bytes in (:class:`ClassifiedBytes`), each lane's
    :data:`~utfhw.hdl.unicode.layout.LaneVerdict` out a clock later: the base of each form's
    checks.

    It keeps the last :attr:`behind` bytes of the message's beats so far, and their flags, so
    that each lane is decided from the bytes up to it; a form's checks give :meth:`classes`
    (what :class:`ClassifyBytes` finds of each byte before them), :meth:`verdicts` and the
    table of their errors, :attr:`ERRORS`. Every beat goes on whole, one a clock; ``i.ready``
    is ``o.ready`` (see :func:`register_stage`).

    Parameters
    ----------
    codec : :class:`~utfhw.hdl.forms.Codec`
        The source codec.
    width : :class:`int`
        Bytes a beat, a power of two from 1 to 64 (at least the form's unit).

    Attributes
    ----------
    i : :py:`In(stream.Signature(ClassifiedBytes(width, flags)))`
    o : :py:`Out(stream.Signature(LaneVerdicts(width)))`
    """
    #: Bytes before a lane that its verdict reads.
    behind = 0
    #: Whether CPython counts an error's position from after a dropped mark (``utf-8-sig``),
    #: rather than from the message's first byte.
    positions_after_mark = False
    #: Each error a verdict's ``error`` names: ``(kind, back, ahead)``, CPython's ``start`` that
    #: many bytes before the lane and its ``end`` that many after it.
    ERRORS = ()

    def __init__(self, *, codec, width):
        check_width(width, minimum=codec.unit_bytes, of=codec.name)
        self.codec = codec
        self.width = width
        super().__init__({
            "i": In(stream.Signature(ClassifiedBytes(width, _flag_names(self.classes)))),
            "o": Out(stream.Signature(LaneVerdicts(width))),
        })

    def classes(self, byte):
        """The flags of ``byte`` (an 8-bit value) that :meth:`verdicts` reads, as a dict from
        each one's name to a bit: none, unless a form's checks say otherwise."""
        return {}

    def verdicts(self, m, window, present, beat, takes, *, ends, flags):
        """Each lane's verdict, as ``(lanes, mark)``: ``lanes`` a list of ``width + 1`` dicts of
        :data:`~utfhw.hdl.unicode.layout.LaneVerdict` fields (missing ones 0), ``mark`` a bit.

        ``window`` holds :attr:`behind` bytes before the beat's, then its ``width`` bytes;
        ``present[k]`` says whether ``window[k]`` is a byte of the message (lanes from ``count``
        up are not) and ``flags[k]`` is its :meth:`classes` (a view with a field each).
        ``ends[j]`` says that the message ends at lane ``j`` of this beat. ``beat`` is the
        input payload and ``takes`` high when it is taken, for a form that keeps state of its
        own."""
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat, width, behind = self.i.payload, self.width, self.behind
        flag_layout = beat.shape()["flags"].shape if beat.shape().flag_names else None
        lanes = [beat.data[8 * lane:8 * lane + 8] for lane in range(width)]
        history = [Signal(8, name=f"behind_{index}") for index in range(behind)]
        known = [Signal(name=f"behind_{index}_known") for index in range(behind)]
        window = history + lanes
        present = known + [beat.present[lane] for lane in range(width)]
        flags = [None] * (behind + width)
        kept_flags = []
        if flag_layout is not None:
            kept_flags = [Signal(flag_layout.elem_shape, name=f"behind_{index}_flags")
                          for index in range(behind)]
            flags = kept_flags + [beat.flags[lane] for lane in range(width)]
        ends = [beat.ends[lane] for lane in range(width + 1)]
        verdicts, mark = self.verdicts(m, window, present, beat, takes, ends=ends, flags=flags)
        with m.If(takes):
            m.d.sync += [
                out.data.eq(beat.data),
                out.count.eq(beat.count),
                out.last.eq(beat.last),
                out.mark.eq(mark),
            ]
            for lane, verdict in enumerate(verdicts):
                m.d.sync += out.lanes[lane].eq(0)
                for name, value in verdict.items():
                    m.d.sync += out.lanes[lane][name].eq(value)
            # Every beat but a message's last is whole, so its last bytes are the ones before
            # the next beat.
            with m.If(beat.last):
                m.d.sync += [flag.eq(0) for flag in known]
            with m.Else():
                m.d.sync += [byte.eq(value) for byte, value in zip(history, window[-behind:])]
                m.d.sync += [flag.eq(value) for flag, value
                             in zip(known, (known + [Const(1)] * width)[-behind:])]
                m.d.sync += [kept.eq(value) for kept, value in zip(kept_flags, flags[-behind:])]
        return m


def _first(items):
    """The first of ``items`` (pairs of a bit and a value) whose bit is high, as ``(any,
    value)``: a tree of two-way choices, so its depth grows with the log of their number."""
    if len(items) == 1:
        return items[0]
    half = 1 << ((len(items) - 1).bit_length() - 1)
    (low_any, low), (high_any, high) = _first(items[:half]), _first(items[half:])
    return low_any | high_any, Mux(low_any, low, high)


def _sum(values):
    """The sum of ``values``, by a tree of adders: its depth grows with the log of their
    number."""
    values = [Value.cast(value) for value in values]
    while len(values) > 1:
        values = [values[index] + values[index + 1] if index + 1 < len(values)
                  else values[index] for index in range(0, len(values), 2)]
    return values[0]


class BeatVerdict(data.StructLayout):
    """A beat of ``width`` bytes with its first error (``found`` at ``lane``, of that lane's
    ``error``), how many of its lanes have each count of :data:`WEIGHTS`, and its ``mark``."""
    def __init__(self, width):
        check_width(width)
        self.width = width
        super().__init__({
            "data":  unsigned(8 * width),
            "count": range(width + 1),
            "found": unsigned(1),
            "lane":  range(width + 1),
            "error": unsigned(3),
            "mark":  unsigned(1),
            **{name: range(width + 2) for name in WEIGHTS},
            "last":  unsigned(1),
        })


#: Lanes a group of :class:`ReduceVerdicts` reduces alone: a tree of at most three levels.
GROUP_LANES = 8


def _groups(width):
    """The groups of the ``width + 1`` lane verdicts of a beat, as ranges of lanes."""
    return [range(start, min(start + GROUP_LANES, width + 1))
            for start in range(0, width + 1, GROUP_LANES)]


def _sets(groups):
    """The groups :class:`MergeGroups` merges into each of its own, as ranges of their indices:
    sets of about the square root of their number, so that it and :class:`GatherGroups` after
    it each choose among as few as they can."""
    size = math.isqrt(groups - 1) + 1
    return [range(start, min(start + size, groups)) for start in range(0, groups, size)]


class GroupVerdicts(data.StructLayout):
    """A beat of ``width`` bytes with, for each of ``groups`` groups of at most ``lanes`` lane
    verdicts (by default the :data:`GROUP_LANES` lanes of :class:`ReduceVerdicts`' groups), its
    first error (``found`` at ``lane`` of the beat, of that lane's ``error``) and how many of
    its lanes have each count of :data:`WEIGHTS`."""
    def __init__(self, width, groups=None, lanes=GROUP_LANES):
        check_width(width)
        self.width = width
        groups = len(_groups(width)) if groups is None else groups
        group = data.StructLayout({
            "found": unsigned(1),
            "lane":  range(width + 1),
            "error": unsigned(3),
            **{name: range(lanes + 1) for name in WEIGHTS},
        })
        super().__init__({
            "data":   unsigned(8 * width),
            "count":  range(width + 1),
            "mark":   unsigned(1),
            "groups": data.ArrayLayout(group, groups),
            "last":   unsigned(1),
        })


def _merged(width):
    """The :class:`GroupVerdicts` of :class:`MergeGroups`' output at ``width``."""
    sets = _sets(len(_groups(width)))
    return GroupVerdicts(width, groups=len(sets),
                         lanes=GROUP_LANES * max(len(chosen) for chosen in sets))


class BeatWeight(data.StructLayout):
    """A beat of ``width`` bytes with what it adds to its message: its first error (``found``,
    its ``kind``, and CPython's ``start`` and ``end`` from the beat's first byte, after any mark
    it drops) and its code points, UTF-16 units and UTF-8 bytes (less a mark it drops)."""
    def __init__(self, width):
        check_width(width)
        self.width = width
        offset = signed((width + 8).bit_length() + 1)
        super().__init__({
            "data":  unsigned(8 * width),
            "count": range(width + 1),
            "found": unsigned(1),
            "kind":  ErrorKind,
            "start": offset,
            "end":   offset,
            "mark":  unsigned(1),
            **{name: signed((3 * width + 8).bit_length() + 1) for name in _TOTALS},
            "last":  unsigned(1),
        })


class ReduceVerdicts(wiring.Component):
    """Each beat's lane verdicts reduced, a group of :data:`GROUP_LANES` lanes at a time, to
    each group's first error and counts, a clock later: trees of at most three levels of
    choices and of adders, so that the stage's depth does not grow with the width.

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneVerdicts(width)))`
    o : :py:`Out(stream.Signature(GroupVerdicts(width)))`
    """
    def __init__(self, *, width):
        check_width(width)
        self.width = width
        super().__init__({
            "i": In(stream.Signature(LaneVerdicts(width))),
            "o": Out(stream.Signature(GroupVerdicts(width))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        with m.If(takes):
            m.d.sync += _pass_on(beat, out)
            for group, lanes in zip(out.groups, _groups(self.width)):
                verdicts = [beat.lanes[lane] for lane in lanes]
                found, chosen = _first([(verdict.bad, Cat(Const(lane, range(self.width + 1)),
                                                          verdict.error))
                                        for lane, verdict in zip(lanes, verdicts)])
                m.d.sync += [group.found.eq(found), Cat(group.lane, group.error).eq(chosen)]
                for name in WEIGHTS:
                    m.d.sync += group[name].eq(_sum([verdict[name] for verdict in verdicts]))
        return m


def _gather(groups, out):
    """The statements that give ``out`` the first error and the counts of ``groups``."""
    found, chosen = _first([(group.found, Cat(group.lane, group.error)) for group in groups])
    return [out.found.eq(found), Cat(out.lane, out.error).eq(chosen),
            *(out[name].eq(_sum([group[name] for group in groups])) for name in WEIGHTS)]


class MergeGroups(wiring.Component):
    """Each beat's groups merged into fewer, a clock later: at W = 64, the nine groups of
    :class:`ReduceVerdicts` into three of three, each a choice among three and sums of three.

    Gathered in one clock, as a tree of choices and of adders four deep, the nine groups were
    the validator's critical path at W = 64 on the ECP5-85F from every source but UTF-8 (131.0
    to 138.1 MHz, nine or ten logic levels), so they are gathered in two.

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.

    Attributes
    ----------
    i : :py:`In(stream.Signature(GroupVerdicts(width)))`
    o : :py:`Out(stream.Signature(GroupVerdicts(width, groups, lanes)))`
        As many groups as sets were merged, each of up to as many lanes as they had.
    """
    def __init__(self, *, width):
        check_width(width)
        self.width = width
        super().__init__({
            "i": In(stream.Signature(GroupVerdicts(width))),
            "o": Out(stream.Signature(_merged(width))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        with m.If(takes):
            m.d.sync += _pass_on(beat, out)
            for merged, chosen in zip(out.groups, _sets(len(_groups(self.width)))):
                m.d.sync += _gather([beat.groups[index] for index in chosen], merged)
        return m


class GatherGroups(wiring.Component):
    """Each beat's merged groups (:class:`MergeGroups`) gathered into its first error and its
    counts, a clock later: at W = 64, a choice among three groups and sums of three counts.

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.

    Attributes
    ----------
    i : :py:`In(stream.Signature(GroupVerdicts(width, groups, lanes)))`
        As :class:`MergeGroups` gives them.
    o : :py:`Out(stream.Signature(BeatVerdict(width)))`
    """
    def __init__(self, *, width):
        check_width(width)
        self.width = width
        super().__init__({
            "i": In(stream.Signature(_merged(width))),
            "o": Out(stream.Signature(BeatVerdict(width))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        groups = [beat.groups[index] for index in range(len(beat.groups))]
        with m.If(takes):
            m.d.sync += _pass_on(beat, out) + _gather(groups, out)
        return m


class WeighBeats(wiring.Component):
    """Each beat's counts weighed into what it adds to its message, and its first error read
    from the form's table of errors, a clock later: small sums, so that the tally after it
    adds each to a long counter alone.

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.
    errors : :class:`tuple`
        The form's checks' :attr:`LaneChecks.ERRORS`.
    positions_after_mark : :class:`bool`
        CPython counts positions from after a dropped mark (``utf-8-sig``'s three bytes).

    Attributes
    ----------
    i : :py:`In(stream.Signature(BeatVerdict(width)))`
    o : :py:`Out(stream.Signature(BeatWeight(width)))`
    """
    def __init__(self, *, width, errors, positions_after_mark=False):
        check_width(width)
        self.width = width
        self._errors = errors
        self._after_mark = positions_after_mark
        super().__init__({
            "i": In(stream.Signature(BeatVerdict(width))),
            "o": Out(stream.Signature(BeatWeight(width))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        errors = list(self._errors) + [(ErrorKind.NONE, 0, 0)] * (8 - len(self._errors))
        kinds = Array(Const(kind.value, 4) for kind, _, _ in errors)
        backs = Array(Const(back, 3) for _, back, _ in errors)
        aheads = Array(Const(ahead, 3) for _, _, ahead in errors)
        shift = Mux(beat.mark, 3 if self._after_mark else 0, 0)
        with m.If(takes):
            m.d.sync += _pass_on(beat, out, mark=False) + [
                out.found.eq(beat.found),
                out.mark.eq(beat.mark),
                out.kind.eq(kinds[beat.error]),
                out.start.eq(beat.lane - backs[beat.error] - shift),
                out.end.eq(beat.lane + aheads[beat.error] - shift),
            ]
            for name, value in zip(_TOTALS, _weighed(beat)):
                m.d.sync += out[name].eq(value)
        return m


def _weighed(beat):
    """A beat's code points, UTF-16 units and UTF-8 bytes from its counts (:data:`WEIGHTS`), as
    sums of at most three adders in a row: a dropped mark is one thing less that begins."""
    assert WEIGHTS == {"begins": (1, 1, 3), "ascii": (0, 0, -2), "two": (0, 0, -1),
                       "four": (0, 1, 1)} and MARK_WEIGHT == (-1, -1, -3)
    begins = beat.begins - beat.mark
    less = (beat.ascii << 1) + beat.two
    return begins, begins + beat.four, ((begins << 1) + begins) + (beat.four - less)


class TallyMessages(wiring.Component):
    """Each message's first error and counts, gathered beat by beat and given with its last
    beat, a clock later.

    A message's positions count its bytes from 0 (from after a dropped mark, with
    ``positions_after_mark``). From ``2 ** bits`` bytes on the counts stop and ``overflow``
    says so: the top bit of the position, so that no long comparison follows its adder. Every
    beat goes on, one a clock; ``i.ready`` is ``o.ready`` (see
    :func:`register_stage`).

    Parameters
    ----------
    width : :class:`int`
        Bytes a beat.
    bits : :class:`int`
        A message of fewer than ``2 ** bits`` bytes is counted (33: 8 GiB), from 4 to 48.
    positions_after_mark : :class:`bool`
        CPython counts positions from after a dropped mark (``utf-8-sig``).

    Attributes
    ----------
    i : :py:`In(stream.Signature(BeatWeight(width)))`
    o : :py:`Out(stream.Signature(ValidatedBytes(width, bits)))`
    """
    def __init__(self, *, width, bits=33, positions_after_mark=False):
        check_width(width)
        check_integer("bits", bits, minimum=4, maximum=48)
        self.width = width
        self.bits = bits
        self._after_mark = positions_after_mark
        super().__init__({
            "i": In(stream.Signature(BeatWeight(width))),
            "o": Out(stream.Signature(ValidatedBytes(width, bits))),
        })

    def elaborate(self, platform):
        m = Module()
        takes, out = register_stage(m, self)
        beat = self.i.payload
        result = ValidationResult(self.bits)
        bits = self.bits
        # The message so far, before this beat: its bytes (after a mark ``utf-8-sig`` drops,
        # so that they are CPython's positions), whether it is past the counters, its first
        # error and its totals.
        position = Signal(bits + 1)
        overflow = Signal()
        found = Signal()
        kind = Signal(ErrorKind)
        start = Signal(bits)
        end = Signal(bits)
        totals = [Signal(result[name].shape, name=name) for name in _TOTALS]

        ending = Signal(bits + 1)
        m.d.comb += ending.eq(position + beat.count
                              - Mux(beat.mark, 3 if self._after_mark else 0, 0))
        past = overflow | ending[bits]
        # The counts stop once the message is past the counters (the beat that passes them
        # still adds, within the counters' room).
        new_totals = [Mux(overflow, total, (total + beat[name])[:len(total)])
                      for name, total in zip(_TOTALS, totals)]
        here = beat.found & ~found
        new_kind = Mux(here, beat.kind, kind)
        new_start = Mux(here, (position + beat.start)[:bits], start)
        new_end = Mux(here, (position + beat.end)[:bits], end)

        with m.If(takes):
            m.d.sync += _pass_on(beat, out, mark=False) + [out.result.eq(0)]
            with m.If(beat.last):
                m.d.sync += [
                    out.result.valid.eq(~(found | beat.found)),
                    out.result.kind.eq(new_kind),
                    out.result.start.eq(new_start),
                    out.result.end.eq(new_end),
                    out.result.overflow.eq(past),
                    out.result.code_points.eq(new_totals[0]),
                    out.result.utf16_units.eq(new_totals[1]),
                    out.result.utf8_bytes.eq(new_totals[2]),
                    position.eq(0), overflow.eq(0), found.eq(0), kind.eq(ErrorKind.NONE),
                    start.eq(0), end.eq(0),
                ]
                m.d.sync += [total.eq(0) for total in totals]
            with m.Else():
                m.d.sync += [
                    position.eq(Mux(overflow, position, ending)),
                    overflow.eq(past),
                    found.eq(found | beat.found),
                    kind.eq(new_kind), start.eq(new_start), end.eq(new_end),
                ]
                m.d.sync += [total.eq(value) for total, value in zip(totals, new_totals)]
        return m
