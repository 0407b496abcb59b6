"""The validators: a source's bytes passed through unchanged at ``width`` bytes a clock, each
message with CPython's verdict on it and its lengths."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..forms import CODECS, canonical_codec
from ..unicode.layout import ByteLanes, ValidatedBytes
from ..unicode.params import WIDTHS, check_integer, check_width
from ..lanes.queue import CreditQueue
from ..wide.validate import (ClassifyBytes, GatherGroups, MergeGroups, ReduceVerdicts,
                             TallyMessages, WeighBeats)


__all__ = ["VALIDATOR_SOURCES", "validator_widths", "check_validator_width", "Validator"]


#: The codecs a validator reads: all of them.
VALIDATOR_SOURCES = tuple(CODECS)


def validator_widths(source):
    """The widths of the validator of ``source``: every width from its unit to 64."""
    return tuple(width for width in WIDTHS if width >= CODECS[source].unit_bytes)


def check_validator_width(width, *, source, name="width"):
    """Raise :exc:`ValueError` unless ``width`` is a width of the validator of ``source``."""
    check_width(width, minimum=CODECS[source].unit_bytes, of=source, name=name)


#: The stages before the queue, in order.
_STAGE_NAMES = ("classify", "check", "reduce", "merge", "gather", "weigh", "tally")
#: ``i.ready`` is high while the queue holds at most this many beats.
_THRESHOLD = 3
_QUEUE_DEPTH = CreditQueue.depth_after(len(_STAGE_NAMES), _THRESHOLD)


class Validator(wiring.Component):
    """A source codec's bytes passed through unchanged, ``width`` bytes a clock, each message
    with what ``data.decode(source)`` says of it: whether it raises, CPython's ``start``,
    ``end`` and ``reason`` (the kind) of the first error, and the lengths of
    ``data.decode(source, "replace")`` in code points, UTF-16 units and UTF-8 bytes.

    Stages, each a register, which never stop:

    1. *classify* (:class:`~utfhw.hdl.wide.validate.ClassifyBytes`): what the checks need
       of each byte, and which lanes hold the message's bytes and where it ends;
    2. *check* (the form's :class:`~utfhw.hdl.wide.validate.LaneChecks`): each lane decided
       from the bytes before it, which it keeps from the message's earlier beats;
    3. *reduce* (:class:`~utfhw.hdl.wide.validate.ReduceVerdicts`): each group of eight
       lanes' first error and counts;
    4. *merge* (:class:`~utfhw.hdl.wide.validate.MergeGroups`): the groups', a few at a time;
    5. *gather* (:class:`~utfhw.hdl.wide.validate.GatherGroups`): the beat's;
    6. *weigh* (:class:`~utfhw.hdl.wide.validate.WeighBeats`): what they add to the message;
    7. *tally* (:class:`~utfhw.hdl.wide.validate.TallyMessages`): the message's, given with
       its last beat;
    8. *queue* (:class:`~utfhw.hdl.lanes.queue.CreditQueue`): the beats wait for the output.

    Latency: :attr:`latency` (10) clocks from an input beat to the same beat out: a clock a
    stage, and the queue's three.

    Throughput: a beat on every clock, whatever the bytes, while ``o.ready`` is high. A
    message of ``n`` bytes takes ``ceil(n / width)`` clocks (one if empty).

    Capacity: :attr:`capacity` (25) beats: the queue's, with its output register and its
    write register, and one a stage.

    Backpressure: the stages have no enable. A single one, made from ``o.ready``, reached
    every register of every stage, and at W = 64 on the ECP5-85F its route was the critical
    path however it was copied. The stages move a beat on every clock, and ``i.ready`` is the
    queue's ``room``, a flip-flop that is high while the queue has room for every beat the
    stages may still bring. Nothing is lost or duplicated, and neither ``o.valid`` nor
    ``i.ready`` depends on ``o.ready`` within the clock.

    Parameters
    ----------
    source : :class:`str`
        One of :data:`VALIDATOR_SOURCES`, by any name CPython's :func:`codecs.lookup` takes
        for it.
    width : :class:`int`
        Bytes a beat: 1, 2, 4, 8, 16, 32 or 64, at least the source's unit.
    bits : :class:`int`
        Messages of fewer than ``2 ** bits`` bytes are counted (33: 8 GiB, so any message of
        4 GiB); from there the result says ``overflow``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width)))`
        The source's bytes, as the wide cores take them: ``count`` from lane 0, ``last`` on a
        message's final beat, every beat of a message whole but its last.
    o : :py:`Out(stream.Signature(ValidatedBytes(width, bits)))`
        The same beats, and on each message's last beat its
        :class:`~utfhw.hdl.unicode.layout.ValidationResult`.

    Raises
    ------
    :exc:`ValueError`
        If ``source``, ``width`` or ``bits`` is not one of the values above.
    """
    #: Clocks from an input beat to the same beat out.
    latency = len(_STAGE_NAMES) + CreditQueue.latency
    #: The most beats it holds.
    capacity = _QUEUE_DEPTH + 2 + len(_STAGE_NAMES)

    def __init__(self, *, source="utf-8", width, bits=33):
        source = canonical_codec("source", source)
        check_validator_width(width, source=source)
        check_integer("bits", bits, minimum=4, maximum=48)
        self.source = source
        self.width = width
        self.bits = bits
        super().__init__(self.signature_of(source, width, bits))
        codec = CODECS[source]
        # Made here, so that :meth:`stage_outputs` can name their registers.
        check = codec.form.check(codec=codec, width=width)
        after_mark = check.positions_after_mark
        self._stages = list(zip(_STAGE_NAMES, [
            ClassifyBytes(width=width, classes=check.classes),
            check,
            ReduceVerdicts(width=width),
            MergeGroups(width=width),
            GatherGroups(width=width),
            WeighBeats(width=width, errors=check.ERRORS, positions_after_mark=after_mark),
            TallyMessages(width=width, bits=bits, positions_after_mark=after_mark),
        ]))
        self._queue = CreditQueue(shape=ValidatedBytes(width, bits), depth=_QUEUE_DEPTH,
                                  threshold=_THRESHOLD)

    @property
    def stage_names(self):
        """The names of its stages, from the input to the output."""
        return [name for name, _ in self._stages] + ["queue"]

    def held_beats(self):
        """For a formal bench: where the beats the core holds are, the oldest first, as
        ``(count, most, beat)``: ``count`` beats are there, at most ``most``, and
        ``beat(position)`` is the payload of one (a :class:`~amaranth.lib.data.View` of
        :data:`~utfhw.hdl.unicode.layout.ValidatedBytes`). The queue's come first
        (:meth:`CreditQueue.held_beats <utfhw.hdl.lanes.queue.CreditQueue.held_beats>`),
        then each stage's output register, from the last stage to the first."""
        layout = ValidatedBytes(self.width, self.bits)
        count, beat = self._queue.held_beats()
        yield count, _QUEUE_DEPTH + 2, lambda position: layout(beat(position))
        for _, stage in reversed(self._stages):
            yield stage.o.valid, 1, lambda position, stage=stage: stage.o.payload

    def invariants(self):
        """What holds in every reachable state, as ``(value, message)`` pairs for a formal
        bench to assert: the queue's own (:meth:`CreditQueue.invariants
        <utfhw.hdl.lanes.queue.CreditQueue.invariants>`), that its fill level counts its
        entries, and that it has room for every beat the stages may still bring: ``i.ready``
        is high only while it holds at most the threshold's entries, and then a beat more in
        each stage and one in its write register still fit."""
        queue = self._queue
        yield from queue.invariants()
        yield queue.fill_level_agrees(), "the validator's queue counts its entries"
        yield ~queue.room | queue.at_most_threshold(), \
            "the validator's queue has room when it says so"
        count, _ = queue.held_beats()
        in_stages = sum(stage.o.valid for _, stage in self._stages)
        yield (count - queue.o.valid + in_stages <= _THRESHOLD + len(self._stages) + 2,
               "the validator's queue has room for every beat in the stages")

    @staticmethod
    def signature_of(source, width, bits=33):
        """The ports of the validator of ``source`` at ``width``, without making one."""
        return wiring.Signature({
            "i": In(stream.Signature(ByteLanes(width))),
            "o": Out(stream.Signature(ValidatedBytes(width, bits))),
        })

    def elaborate(self, platform):
        m = Module()
        stages = [stage for _, stage in self._stages]
        for name, stage in self._stages:
            m.submodules[name] = stage
        m.submodules.queue = queue = self._queue
        m.d.comb += [
            self.i.ready.eq(queue.room),
            stages[0].i.valid.eq(self.i.valid & queue.room),
            stages[0].i.payload.eq(self.i.payload),
        ]
        for before, after in zip(stages, stages[1:] + [queue]):
            m.d.comb += [after.i.valid.eq(before.o.valid), after.i.payload.eq(before.o.payload),
                         before.o.ready.eq(1)]
        connect(m, queue.o, wiring.flipped(self.o))
        return m
