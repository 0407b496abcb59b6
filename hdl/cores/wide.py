"""The wide cores: any of the ten codecs to any other, at ``width`` bytes per
clock."""

from amaranth.hdl import Cat, Const, Module, Signal, unsigned
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..forms import CODECS, canonical_pair
from ..lanes.queue import CreditQueue
from ..lanes.repack import Packer, Repacker
from ..lanes.stage import WidthStage
from ..unicode.layout import ByteLanes, Lanes
from ..unicode.params import (WIDTHS, CodecPair, check_byteorder, check_errors, check_flag,
                              check_width)
from ..wide.encode import mark_items


__all__ = ["WIDE_SOURCES", "WIDE_TARGETS", "WIDE_PAIRS", "check_wide_width", "wide_widths",
           "output_lanes",
           "WideTranscoder", "WideUTF8ToUTF16"]


#: The codecs a wide core reads, and those it writes: all of them.
WIDE_SOURCES = WIDE_TARGETS = tuple(CODECS)

#: The pairs a wide core covers: every source to each of :data:`WIDE_TARGETS`.
WIDE_PAIRS = tuple((source, target) for target in WIDE_TARGETS for source in WIDE_SOURCES)


def _front(source, target, width, errors="replace"):
    """The wide stages of the source's form for this core
    (:class:`~utfhw.hdl.wide.front.WideFront`), not yet built."""
    return CODECS[source].form.wide(source=CODECS[source], target=CODECS[target], width=width,
                                    errors=errors)


def wide_widths(source, target):
    """The widths of the wide core from ``source`` to ``target``, as :func:`check_wide_width`
    takes them: every width from the source's unit to 64."""
    return tuple(width for width in WIDTHS if width >= CODECS[source].unit_bytes)


def check_wide_width(width, *, source, target, name="width"):
    """Raise :exc:`ValueError` unless ``width`` is a width of the wide core from ``source`` to
    ``target``: a power of two from 1 to 64, at least the source's unit (``name`` as in
    :func:`~utfhw.hdl.unicode.params.check_width`)."""
    check_width(width, minimum=CODECS[source].unit_bytes, of=source, name=name)


def _output_lanes(front):
    lanes = front.slots
    if front.target.mark:
        lanes = max(lanes, 1 << front.target.form.mark_units.bit_length())
    return lanes


def output_lanes(source, target, width):
    """Units per output beat of the wide core from ``source`` to ``target`` at ``width`` bytes
    in per beat: the most one input beat can give. From UTF-8, one unit per byte at most
    (``width``; to UTF-8, at least 4); from UTF-16, one unit per unit (``width // 2``), or four
    bytes to UTF-8 (``2 * width``); from UTF-32, per code point one UTF-32 unit, two UTF-16
    units or four bytes. A target that writes a byte order mark has at least one unit more
    than the mark, so that a message's first beat holds the mark and a unit."""
    return _output_lanes(_front(source, target, width))


def _packs(front, general=False):
    """Whether the core packs its slots and fills its beats (*pack*): unless the front's beats
    come packed (:attr:`~utfhw.hdl.wide.front.WideFront.packed`) and the target
    writes no mark before them, so that each input beat gives one output beat as it is."""
    return general or not front.packed or front.target.mark


def _stages(front, general=False):
    """Clocks from the input to the write port of the queue at the end, and with an expansion
    (from UTF-8 to UTF-8) those of the two parts, before and after the queue in the middle."""
    tail = 0
    if _packs(front, general):
        tail = Packer.latency_of(_output_lanes(front))
    if front.expansion is not None:
        return front.latency, front.expansion.latency + tail
    return front.latency + tail, 0


def _signature(front):
    """The ports of the core that ``front`` begins: its bytes in, the target's units out."""
    return wiring.Signature({
        "i": In(stream.Signature(ByteLanes(front.width))),
        "o": Out(stream.Signature(Lanes(front.target.form.unit, _output_lanes(front)))),
    })


def _latency(front, general=False):
    """Clocks from an input beat to the output beat it completes, through ``front``'s stages,
    the lane layer and the queue (two, from UTF-8 to UTF-8)."""
    return (sum(_stages(front, general))
            + CreditQueue.latency * (1 + (front.expansion is not None)))


class WideTranscoder(CodecPair, WidthStage):
    """A codec pair at ``width`` bytes per clock, exact to
    ``bytes.decode(source, errors).encode(target, errors)`` on every input: any of the ten codecs
    (:data:`WIDE_SOURCES`) to any of them (:data:`WIDE_TARGETS`). A target that writes a byte
    order mark (``utf-8-sig``, ``utf-16``, ``utf-32``) begins each message with it, through
    the packer's ``lead``, and the input rests a clock after each message's last beat.

    Each beat brings up to ``width`` bytes, each beat out carries :func:`output_lanes` target
    units (all beats full but the last of a message): from UTF-8 ``width`` units, ``width``
    bytes of UTF-8, ``2 * width`` of UTF-16 or ``4 * width`` of UTF-32; from UTF-16 ``width //
    2`` units, or ``2 * width`` bytes of UTF-8; from UTF-32 ``width`` bytes; from Latin-1 or
    ASCII a unit a byte, or to UTF-8 two bytes a byte from Latin-1, and from ASCII ``width``
    bytes (four a byte below width 4) (and at least four bytes from UTF-8 to UTF-8, and a unit
    more than a mark the target writes). The stages, each
    a component of its own, run without stopping; only the input waits. From UTF-8:

    1. *classify* (:class:`~utfhw.hdl.forms.utf8.wide.ClassifyLanes`): what each byte is;
    2. *window* (:class:`~utfhw.hdl.lanes.window.LaneWindow`): each beat with the three bytes before
       it and the one after it, so it waits for the next beat of its message; from width 8
       on it loads its lanes on copies of classify's valid bit, one per four lanes
       (:class:`~utfhw.hdl.lanes.window.ValidCopies`);
    3. *decode* and *emit* (:class:`~utfhw.hdl.forms.utf8.wide.DecodePositions`): the one unit or
       none that each byte position emits (Unicode ch. 3, Table 3-7 and maximal subparts;
       RFC 2781, section 2.1, or D90 for UTF-32);
    4. *pack* (:class:`~utfhw.hdl.lanes.repack.Packer`): the units packed into full beats of
       ``width`` units, through one network that also lines them up with the beat being
       filled;
    5. an output queue (:class:`~utfhw.hdl.lanes.queue.CreditQueue`) of ``queue_depth`` beats.

    From UTF-16 the first three are :class:`~utfhw.hdl.forms.utf16.wide.ClassifyUTF16Lanes`, the
    window with one unit either side and :class:`~utfhw.hdl.forms.utf16.wide.DecodeUTF16Positions`;
    from UTF-32, *decode* (:class:`~utfhw.hdl.forms.utf32.wide.DecodeUTF32Lanes`: each unit's code
    point, alone) and *encode* (:class:`~utfhw.hdl.wide.encode.EncodeLanes`: its one or two
    target units, or to UTF-8 one to four bytes); from UTF-16 to UTF-8, *decode* gives code
    points and *encode* follows it; *pack* works on their slots. ``utf-8-sig``
    drops a leading mark in *decode*, ``utf-16`` and ``utf-32`` read theirs
    (:mod:`~utfhw.hdl.wide.marks`). From UTF-8 to UTF-8 the window looks three bytes ahead,
    *decode* gives each position's byte token (:data:`~utfhw.hdl.forms.utf8.wide.ByteToken`), and
    the tokens wait in a middle queue for *expand*
    (:class:`~utfhw.hdl.forms.utf8.expand.ExpandReplacements`), which writes them as bytes in
    ``width`` slots a clock, four clocks for a beat with a U+FFFD. From ASCII to UTF-8 (from
    width 4, as :attr:`~utfhw.hdl.unicode.form.Form.expansion` allows), *decode* gives each
    byte's token and *expand* follows the same way: a U+FFFD is three bytes for one, which
    would otherwise give every byte four slots to pack.

    A pair whose front gives its slots packed (:attr:`~utfhw.hdl.wide.front.WideFront.packed`:
    each source unit the same number of target units, none dropped, as from Latin-1 or ASCII to
    either of them or to UTF-16-LE, -BE or UTF-32-LE, -BE, and from UTF-32-LE or -BE to UTF-32,
    Latin-1 or ASCII, with ``replace``) to a target that writes no mark has no *pack*: each
    beat goes to the queue as it is, and its latency is that much shorter.
    :attr:`stage_names` says which stages a core has. ``general=True`` keeps them, for a
    proof that the two give the same.

    Throughput: with ``o.ready`` high the core takes a beat on every clock, whatever the bytes
    and however messages are split, well-formed or not, but to UTF-8 from UTF-8, or from
    ASCII at width 4 and up, with ``replace``, where a beat with a U+FFFD (from ASCII, a byte
    from 80 up) takes :attr:`most_clocks_per_beat` (4). Over a message the output has no
    more beats than the input (no input beat gives more units than an output beat holds, or
    with *expand* than its clocks' beats hold), and the
    packer's output lags by at most one beat.
    A message of ``n`` bytes alone takes ``ceil(n / width)`` input clocks (one if empty) and
    is out ``latency`` clocks after its last beat went in, or one clock later when its last
    beat completes two output beats.

    Latency: ``latency`` clocks from the input beat that completes an output beat to that
    beat, when the beat after it follows at once (a beat that is not a message's last waits
    for the next beat of the message, whose first byte decides its last position).

    Backpressure: the stages never stop, so ``i.ready`` is a flip-flop that is high while the
    queue holds few enough beats that everything in the stages still fits. When the output is
    held the queue fills and the input stops; nothing is lost or duplicated, ``o.valid`` and
    ``i.ready`` do not depend on ``o.ready`` combinationally. ``capacity`` is the most beats
    the core holds.

    Parameters
    ----------
    source : :class:`str`
        One of :data:`WIDE_SOURCES`: any of the ten codecs (:data:`~utfhw.hdl.forms.CODECS`),
        by any name CPython's :func:`codecs.lookup` takes for it.
    target : :class:`str`
        One of :data:`WIDE_TARGETS`, by any of CPython's names.
    width : :class:`int`
        Bytes per input beat: 1, 2, 4, 8, 16, 32 or 64, at least the source's unit (4 for
        UTF-32). From UTF-8 to UTF-8 below 4, the input beats are gathered into beats of four
        bytes first (stage *gather*, a :class:`~utfhw.hdl.lanes.repack.Repacker`), since the
        window looks three bytes ahead.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    general : :class:`bool`
        Keep *pack* where the pair does not need it.

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width)))`
        The source's bytes in wire order, ``count`` present from lane 0, ``last`` on a message's final
        beat. A message starts on a new beat and only its last beat may be short; an empty
        message is one beat with ``count == 0`` and ``last``.
    o : :py:`Out(stream.Signature(Lanes(unit, output_lanes(source, target, width))))`
        Target units (:data:`~utfhw.hdl.unicode.layout.UTF8Unit`,
        :data:`~utfhw.hdl.unicode.layout.UTF16Unit` or
        :data:`~utfhw.hdl.unicode.layout.UTF32Unit`) in wire order (``data[0:8]`` first), each
        with its :class:`~utfhw.hdl.unicode.layout.ErrorKind`, ``count`` from lane 0, ``last``
        on the message's final beat.

    Raises
    ------
    :exc:`ValueError`
        If ``source``, ``target``, ``width``, ``errors`` or ``general`` is not one of the values
        above.
    """
    # ``i.ready`` is high while the queue holds at most this many beats.
    _threshold = 3

    def __init__(self, *, source="utf-8", target="utf-16-le", width, errors="replace",
                 general=False):
        source, target = canonical_pair(source, target)
        check_wide_width(width, source=source, target=target)   # before the ports' layouts
        check_errors(errors)
        check_flag("general", general)
        self._source, self._target, self._errors = source, target, errors
        self._byteorder = CODECS[target].target_byteorder
        self._front = front = _front(source, target, width, errors)
        self._lanes = _output_lanes(front)
        self._packs = _packs(front, general)
        stages, tail = _stages(front, general)
        # Room for every beat in the stages, the packer's extra beat, the clock the ready
        # flip-flop lags, and a few beats of slack so a drained output never stops the input.
        self.queue_depth = CreditQueue.depth_after(tail or stages, self._threshold)
        #: The most beats the core holds: the queue with its output register, and the
        #: stages' beats (and from UTF-8 to UTF-8, the middle queue's and the stages' before).
        self.capacity = self.queue_depth + 1 + (tail or stages) + 1
        self._middle = None
        if tail:
            # The middle queue says "room" while it holds enough beats to keep *expand* busy
            # for as long as beats take to come through the stages before it, so that after a
            # run of slow beats it never waits for the input to start again.
            middle_threshold = stages + 2
            middle_depth = CreditQueue.depth_after(stages, middle_threshold)
            self._middle = CreditQueue(shape=front.expansion.queue_shape, depth=middle_depth,
                                       threshold=middle_threshold)
            self.capacity += middle_depth + 1 + stages + 1
        super().__init__(_signature(front), width=width)
        self.latency = _latency(front, general)
        # Made here, so that :meth:`invariants` can name their state.
        self._queue = CreditQueue(shape=self.o.payload.shape(), depth=self.queue_depth,
                                  threshold=self._threshold)

    @property
    def most_clocks_per_beat(self):
        """The most clocks one input beat takes with the output ready: 1, or with *expand* (to
        UTF-8 from UTF-8 or ASCII) and ``replace``
        :data:`~utfhw.hdl.forms.utf8.expand.CHUNKS` for a beat with a U+FFFD."""
        if self._middle is not None and self._errors == "replace":
            return self._front.expansion.most_clocks
        return 1

    @property
    def byteorder(self):
        """``"little"`` or ``"big"``: the target's byte order (``None`` for UTF-8)."""
        return self._byteorder

    def invariants(self):
        """What holds in every reachable state, as ``(value, message)`` pairs for a formal
        bench to assert (see :meth:`CreditQueue.invariants
        <utfhw.hdl.lanes.queue.CreditQueue.invariants>`)."""
        yield from self._queue.invariants()
        if self._middle is not None:
            yield from self._middle.invariants()

    @staticmethod
    def signature_of(source, target, width):
        """The ports of the core from ``source`` to ``target`` at ``width``, without making
        one: ``width`` bytes in, :func:`output_lanes` units of the target out."""
        return _signature(_front(source, target, width))

    @staticmethod
    def latency_of(width, *, source="utf-8", target="utf-16-le", errors="replace"):
        """Clocks from an input beat to the output beat it completes (see above), at
        ``width``, from ``source`` to ``target``."""
        return _latency(_front(source, target, width, errors))

    @property
    def stage_names(self):
        """The names of the core's stages, from the input to the output: the front's, the lane
        layer's where the pair needs it (``pack``) and ``queue``."""
        front = self._front
        names = [*(["gather"] if front.positions > self._width else []), *front.stage_names]
        if front.expansion is not None:
            names += ["middle", "expand"]
        if self._packs:
            names += ["pack"]
        return [*names, "queue"]

    def elaborate(self, platform):
        m = Module()
        unit = self.o.payload.shape().item
        front = self._front
        # A target that writes a mark begins each message's output with it.
        writes_mark = CODECS[self._target].mark
        m.submodules.queue = queue = self._queue
        entry = queue
        first, decoded = front.build(m)
        if self._middle is not None:
            # UTF-8 to UTF-8: the decoded beats wait in the middle queue for *expand*, which
            # takes four clocks for a beat with a U+FFFD.
            m.submodules.middle = entry = self._middle
            m.submodules.expand = expand = front.expansion.stage(rests=writes_mark)
            tokens = decoded.payload.lanes
            m.d.comb += [
                entry.i.valid.eq(decoded.valid),
                entry.i.payload.lanes.eq(tokens),
                entry.i.payload.last.eq(decoded.payload.last),
                entry.i.payload.replaces.eq(front.expansion.replaces(tokens)),
            ]
            connect(m, entry.o, expand.i)
            m.d.comb += expand.room.eq(queue.room)
            decoded = expand.o
        # The mark can make a message's output a beat longer than its input: after a
        # message's last beat the input rests a clock, which the packer needs (the middle
        # queue's *expand* rests instead, from UTF-8 to UTF-8).
        resting = Signal()
        if writes_mark and self._middle is None:
            m.d.sync += resting.eq(self.i.valid & self.i.ready & self.i.payload.last)
        m.d.comb += self.i.ready.eq(entry.room & ~resting)
        if front.positions > self._width:
            # Narrow beats from UTF-8 to UTF-8 are gathered into beats of four bytes.
            m.submodules.gather = gather = Repacker(item=unsigned(8), width=front.positions,
                                                    in_width=self._width)
            m.d.comb += [
                gather.i.valid.eq(self.i.valid & self.i.ready),
                gather.i.payload.eq(self.i.payload.as_value()),
                first.i.valid.eq(gather.o.valid),
                first.i.payload.eq(gather.o.payload.as_value()),
            ]
        else:
            m.d.comb += [
                first.i.valid.eq(self.i.valid & self.i.ready),
                first.i.payload.eq(self.i.payload),
            ]
        if self._packs:
            m.submodules.pack = pack = Packer(
                item=unit, width=self._lanes, in_width=front.slots,
                lead=mark_items(CODECS[self._target].form) if writes_mark else ())
            connect(m, decoded, pack.i)
            connect(m, pack.o, queue.i)
        else:
            # The slots come packed: each beat goes to the queue as it is, its count read
            # from the filled slots, a run from slot 0 (a thermometer code).
            slots = decoded.payload.lanes
            m.d.comb += [
                queue.i.valid.eq(decoded.valid),
                queue.i.payload.last.eq(decoded.payload.last),
                queue.i.payload.count.eq(_thermometer_count(
                    [slot.valid for slot in slots])),
            ]
            for lane, slot in zip(queue.i.payload.lanes, slots):
                m.d.comb += lane.eq(slot.item)
        connect(m, queue.o, wiring.flipped(self.o))
        return m


def _thermometer_count(filled):
    """How many of ``filled`` are high, where those are a run from the first: each bit of the
    count is an OR of the places where the run ends, so no adder."""
    ends = [here & ~after for here, after in zip(filled, [*filled[1:], Const(0)])]
    return Cat(*(Cat(*(end for index, end in enumerate(ends) if (index + 1) >> bit & 1)).any()
                 for bit in range(len(filled).bit_length())))


class WideUTF8ToUTF16(WideTranscoder):
    """The :class:`WideTranscoder` from UTF-8 to UTF-16-LE (``byteorder="little"``) or -BE
    (``"big"``), by the name it had before the other pairs.

    Raises
    ------
    :exc:`ValueError`
        If ``width``, ``byteorder`` or ``errors`` is not one the :class:`WideTranscoder`
        takes.
    """
    def __init__(self, *, width, byteorder="little", errors="replace"):
        check_byteorder(byteorder)
        super().__init__(source="utf-8", target="utf-16-le" if byteorder == "little"
                         else "utf-16-be", width=width, errors=errors)
