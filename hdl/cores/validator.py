"""The validators: a source's bytes passed through unchanged at ``width`` bytes a clock, each
message with CPython's verdict on it and its lengths."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..forms import CODECS, canonical_codec
from ..unicode.layout import ByteLanes, ValidatedBytes
from ..unicode.params import WIDTHS, check_integer, check_width
from ..lanes.skid import SkidBuffer
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


class Validator(wiring.Component):
    """A source codec's bytes passed through unchanged, ``width`` bytes a clock, each message
    with what ``data.decode(source)`` says of it: whether it raises, CPython's ``start``,
    ``end`` and ``reason`` (the kind) of the first error, and the lengths of
    ``data.decode(source, "replace")`` in code points, UTF-16 units and UTF-8 bytes.

    Stages, each a register:

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
    8. *skid* (:class:`~utfhw.hdl.lanes.skid.SkidBuffer`): the output register, and one
       beside it for the beat that comes on the clock the output is held.

    Latency: :attr:`latency` (8) clocks from an input beat to the same beat out.

    Throughput: a beat on every clock, whatever the bytes, while ``o.ready`` is high. A
    message of ``n`` bytes takes ``ceil(n / width)`` clocks (one if empty).

    Capacity: nine beats, one a stage and one in the skid buffer's side register.

    Backpressure: all stages stop together while the skid buffer's side register holds a beat:
    ``i.ready`` and every stage's enable are flip-flops, copies of "the side register is
    empty" (one a stage, so that no one net reaches every register), and the side register
    takes the beat that comes on the clock the output is held. Nothing is lost or duplicated,
    and neither ``o.valid`` nor ``i.ready`` depends on ``o.ready`` within the clock.

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
    latency = 8
    #: The most beats it holds.
    capacity = 9

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
        self._stages = [
            ("classify", ClassifyBytes(width=width, classes=check.classes)),
            ("check", check),
            ("reduce", ReduceVerdicts(width=width)),
            ("merge", MergeGroups(width=width)),
            ("gather", GatherGroups(width=width)),
            ("weigh", WeighBeats(width=width, errors=check.ERRORS,
                                 positions_after_mark=after_mark)),
            ("tally", TallyMessages(width=width, bits=bits, positions_after_mark=after_mark)),
        ]
        self._skid = SkidBuffer(shape=ValidatedBytes(width, bits), copies=len(self._stages))

    @property
    def stage_names(self):
        """The names of its stages, from the input to the output."""
        return [name for name, _ in self._stages] + ["skid"]

    def stage_outputs(self):
        """The output streams of the stages, the oldest beat's first (the first is ``o``'s,
        then the skid buffer's side register): each is a register, so the beats the core
        holds are those of the valid ones, in this order. For a formal bench."""
        return [self._skid.o, self._skid.side,
                *(stage.o for _, stage in reversed(self._stages))]

    def invariants(self):
        """What holds in every reachable state (:meth:`SkidBuffer.invariants
        <utfhw.hdl.lanes.skid.SkidBuffer.invariants>`), for a formal bench."""
        yield from self._skid.invariants()

    @staticmethod
    def signature_of(source, width, bits=33):
        """The ports of the validator of ``source`` at ``width``, without making one."""
        return wiring.Signature({
            "i": In(stream.Signature(ByteLanes(width))),
            "o": Out(stream.Signature(ValidatedBytes(width, bits))),
        })

    def elaborate(self, platform):
        m = Module()
        stages = self._stages
        for name, stage in stages:
            m.submodules[name] = stage
        m.submodules.skid = skid = self._skid
        connect(m, wiring.flipped(self.i), stages[0][1].i)
        # Each stage moves on its own copy of the skid buffer's ready, all equal.
        afters = [after.i for _, after in stages[1:]] + [skid.i]
        for (_, before), after, ready in zip(stages, afters, skid.ready_copies):
            m.d.comb += [after.valid.eq(before.o.valid), after.payload.eq(before.o.payload),
                         before.o.ready.eq(ready)]
        connect(m, skid.o, wiring.flipped(self.o))
        return m
