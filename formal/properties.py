"""Formal properties of the cores, as :class:`~utfhw.formal.checker.PropertyBench` subclasses."""

from amaranth.hdl import (Array, Assert, Assume, Cat, Const, Cover, Fragment, Module, Mux,
                          ResetSignal, Signal, Value)
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..hdl.axis import TUSER_BITS_PER_UNIT, TUSER_PROTOCOL_ERROR_BIT
from ..hdl.unicode.layout import ErrorKind, REPLACEMENT_CHARACTER
from ..hdl.forms import CODECS
from ..hdl.unicode.params import check_integer
from .checker import PropertyBench


__all__ = ["StreamProperties", "DecoderProperties", "EncoderProperties", "PipelineProperties",
           "WideStreamProperties", "WideProperties", "FixedLatency", "WindowAccounting",
           "RepackerAccounting", "QueueAccounting", "WideEquivalence", "ReadyView",
           "AXIStreamRules", "ResetToInitial", "ResetEquivalence", "PassThrough",
           "ValidatorEquivalence", "handshake_outputs",
           "reset_registers", "visible_output"]


class StreamProperties(PropertyBench):
    """What every core and pipeline promises about its beats, on top of the stream rules.

    Parameters
    ----------
    core : wiring.Component
        A core with streams ``i`` and ``o`` whose payloads have ``last``.
    latency : int
        Clocks from an input beat to its output beat (0 for a combinational stage).
    one_beat_per_beat : bool
        Every input beat gives exactly one output beat (all cores but the encoders, which may
        split a beat in two).
    capacity : int
        The most beats the core may hold (default: ``latency``; one more for a core with a
        skid register).

    Properties: with ``one_beat_per_beat``, the ``n``-th output beat carries ``last`` exactly
    when the ``n``-th input beat did, no output beat comes without an input beat, and no more
    than ``capacity`` beats are ever in flight. Without it, ``last`` leaves once for each
    ``last`` taken, never before. Either way nothing is lost: a beat in flight shows on the
    output within ``latency`` clocks and stays there until taken.
    """
    def __init__(self, core, *, latency, one_beat_per_beat=True, capacity=None):
        self.latency = latency
        self.capacity = latency if capacity is None else capacity
        self.one_beat_per_beat = one_beat_per_beat
        super().__init__(core)

    def properties(self, m, taken, given):
        in_last = self.i.payload.last
        out_last = self.o.payload.last
        depth = max(self.capacity, 1)
        if self.one_beat_per_beat:
            in_flight = Signal(range(depth + 2))
            lasts = Array(Signal(name=f"last_in_flight_{index}") for index in range(depth + 1))
            # The oldest beat in flight is the one the output gives; a combinational stage
            # gives the beat it takes on the same clock.
            oldest_last = Mux(in_flight == 0, in_last, lasts[0])
            with m.If(given):
                m.d.comb += [
                    Assert((in_flight != 0) | taken, "no output beat without an input beat"),
                    Assert(out_last == oldest_last,
                           "last on exactly the output beat of an input beat with last"),
                ]
            for index in range(depth + 1):
                shifted = lasts[index + 1] if index < depth else Const(0)
                with m.If(given & (in_flight != 0)):
                    m.d.sync += lasts[index].eq(shifted)
            with m.If(taken & ~(given & (in_flight == 0))):
                m.d.sync += lasts[Mux(given, in_flight - 1, in_flight)].eq(in_last)
            m.d.sync += in_flight.eq(in_flight + (taken & ~(given & (in_flight == 0)))
                                     - (given & (in_flight != 0)))
            m.d.comb += Assert(in_flight <= self.capacity, "at most capacity beats in flight")
            if self.latency == 1:
                # A registered stage holds exactly the beat in flight; stated, it makes the
                # properties inductive.
                m.d.comb += [
                    Assert(in_flight == self.o.valid, "the output holds the beat in flight"),
                    Assert(~self.o.valid | (out_last == lasts[0]),
                           "the output holds the beat in flight"),
                ]
        else:
            in_flight = Signal(range(depth + 2))   # lasts taken, not yet given
            self.lasts_in_flight = in_flight
            with m.If(given & out_last):
                m.d.comb += Assert((in_flight != 0) | (taken & in_last),
                                   "no last out without a last in")
            m.d.sync += in_flight.eq(in_flight + (taken & in_last) - (given & out_last))
            m.d.comb += Assert(in_flight <= depth, "at most latency lasts in flight")
            if self.latency == 1:
                m.d.comb += Assert(in_flight == (self.o.valid & out_last),
                                   "the output holds the last in flight")
        waiting = Signal(range(depth + 2))
        m.d.sync += waiting.eq(Mux((in_flight != 0) & ~self.o.valid,
                                   Mux(waiting > depth, waiting, waiting + 1), 0))
        m.d.comb += Assert(waiting <= self.latency, "a beat in flight shows within latency")


def _utf8_forms(code_point):
    """The shortest UTF-8 form of ``code_point`` for each length (in units), newest byte
    lowest: the way the bytes sit in a history register that shifts them in from the bottom."""
    continuation = [Cat(code_point[shift:shift + 6], Const(0b10, 2)) for shift in (0, 6, 12)]
    return {
        1: code_point[0:8],
        2: Cat(continuation[0], code_point[6:11], Const(0b110, 3)),
        3: Cat(continuation[0], continuation[1], code_point[12:16], Const(0b1110, 4)),
        4: Cat(*continuation, code_point[18:21], Const(0b11110, 5)),
    }


def _utf8_length(code_point):
    return Mux(code_point < 0x80, 1, Mux(code_point < 0x800, 2, Mux(code_point < 0x10000, 3, 4)))


def _utf16_forms(code_point):
    offset = (code_point - 0x10000)[0:20]
    return {1: code_point[0:16],
            2: Cat(offset[0:10], Const(0b110111, 6), offset[10:20], Const(0b110110, 6))}


def _utf16_length(code_point):
    return Mux(code_point < 0x10000, 1, 2)


#: For each encoding form: unit bits, the most units of one code point, the code point's forms
#: by length and its length, and the error kinds its decoder emits.
_DECODED_FORMS = {
    "utf-8": (8, 4, _utf8_forms, _utf8_length,
              [ErrorKind.INVALID_START_BYTE, ErrorKind.INVALID_CONTINUATION_BYTE, ErrorKind.UNEXPECTED_END_OF_DATA]),
    "utf-16": (16, 2, _utf16_forms, _utf16_length,
               [ErrorKind.TRUNCATED_DATA, ErrorKind.SURROGATE, ErrorKind.UNEXPECTED_END_OF_DATA,
                ErrorKind.UNPAIRED_HIGH_SURROGATE]),
    "utf-32": (32, 1, lambda code_point: {1: code_point}, lambda code_point: 1,
               [ErrorKind.TRUNCATED_DATA, ErrorKind.SURROGATE, ErrorKind.OUT_OF_RANGE]),
}


class DecoderProperties(StreamProperties):
    """Properties of a decoder (RFC 3629 section 10; RFC 2781 section 2.2; Unicode ch. 3, D90
    to D92 and Table 3-7), on top of :class:`StreamProperties` with latency 1.

    A decoder holds one output beat for the most recently taken input beat, so the bench keeps
    a history of the code units taken in the current message and checks each beat against it:

    - a valid (error-free) code point is never a surrogate or above U+10FFFF, comes last in its
      beat, and is exactly the shortest form of the units just taken in this message: no
      overlong UTF-8, no UTF-8 surrogate or out-of-range sequence, no unpaired UTF-16 surrogate
      is ever accepted;
    - a beat holds at most two items, and when two, the first is a replacement.

    Covers: every error kind the decoder emits, and two supplementary characters (two 4-byte
    UTF-8 characters, two surrogate pairs).

    Parameters
    ----------
    core : wiring.Component
        :class:`~utfhw.hdl.forms.utf8.scalar.UTF8Decoder`, :class:`~utfhw.hdl.forms.utf16.scalar.UTF16Decoder` or
        :class:`~utfhw.hdl.forms.utf32.scalar.UTF32Decoder`.
    form : str
        ``"utf-8"``, ``"utf-16"`` or ``"utf-32"``.
    """
    def __init__(self, core, *, form):
        self.form = form
        super().__init__(core, latency=1)

    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        unit_bits, max_units, forms, length_of, error_kinds = _DECODED_FORMS[self.form]
        beat = self.i.payload
        out = self.o.payload

        history = Signal(unit_bits * max_units)     # whole units of this message, newest lowest
        history_units = Signal(range(max_units + 1))
        after_last = Signal()
        whole_unit = beat.count == unit_bits // 8
        with m.If(taken):
            start = Mux(after_last, 0, history_units)
            with m.If(whole_unit):
                m.d.sync += history.eq(Cat(beat.data, history)[0:len(history)])
            m.d.sync += [
                history_units.eq(Mux(beat.count == 0, start,
                                     Mux(~whole_unit, 0,
                                         Mux(start == max_units, max_units, start + 1)))),
                after_last.eq(beat.last),
            ]

        if self.form == "utf-8":
            self._account_for_bytes(m, taken, given)

        supplementary = Signal(range(3))
        with m.If(self.o.valid):
            m.d.comb += Assert(out.count <= 2, "at most two items in a beat")
            with m.If(out.count == 2):
                m.d.comb += Assert(out.lanes[0].error != ErrorKind.NONE,
                                   "of two items, the first is a replacement")
            for index, lane in enumerate(out.lanes):
                code_point = lane.data
                valid = (index < out.count) & (lane.error == ErrorKind.NONE)
                length = length_of(code_point)
                with m.If(valid):
                    m.d.comb += [
                        Assert(~((code_point >= 0xD800) & (code_point <= 0xDFFF)),
                               "no surrogate"),
                        Assert(code_point <= 0x10FFFF, "nothing above U+10FFFF"),
                        Assert(index == out.count - 1, "a valid code point comes last"),
                        Assert(length <= history_units,
                               "a valid code point's units were all taken in this message"),
                    ]
                    for size, encoded in forms(code_point).items():
                        with m.If(length == size):
                            m.d.comb += Assert(history[0:unit_bits * size] == encoded,
                                               "a valid code point is the shortest form of the "
                                               "units just taken")
                with m.If(given & valid & (code_point >= 0x10000)):
                    m.d.sync += supplementary.eq(Mux(supplementary == 2, 2, supplementary + 1))
            for kind in error_kinds:
                m.d.comb += Cover(given & (out.count != 0) &
                                  ((out.lanes[0].error == kind) |
                                   ((out.count == 2) & (out.lanes[1].error == kind))))
        m.d.comb += Cover(supplementary == 2)

    def _account_for_bytes(self, m, taken, given):
        """Every byte taken is covered by exactly one item: a code point or the replacement of
        the maximal subpart it belongs to (Unicode ch. 3, "U+FFFD Substitution of Maximal
        Subparts"), and none is left over when a message ends."""
        out = self.o.payload
        unaccounted = Signal(range(4))      # bytes of the pending sequence, before this beat
        beat_bytes = Signal()               # the byte of the beat the output holds, if any
        with m.If(taken):
            m.d.sync += beat_bytes.eq(self.i.payload.count != 0)
        total = unaccounted + beat_bytes
        first = out.lanes[0]
        after = Signal(range(5))
        with m.If(self.o.valid):
            with m.If(out.count == 0):
                m.d.comb += after.eq(total)
            with m.Elif(out.count == 2):
                m.d.comb += [
                    Assert((unaccounted != 0) & beat_bytes,
                           "a cut-short sequence and the byte that cut it are one item each"),
                    after.eq(0),
                ]
            with m.Elif(first.error == ErrorKind.NONE):
                m.d.comb += [
                    Assert(_utf8_length(first.data) == total,
                           "a code point covers its pending bytes and this one"),
                    after.eq(0),
                ]
            with m.Elif(first.error == ErrorKind.INVALID_START_BYTE):
                m.d.comb += [
                    Assert((unaccounted == 0) & beat_bytes, "an invalid byte is one item"),
                    after.eq(0),
                ]
            with m.Elif(first.error == ErrorKind.INVALID_CONTINUATION_BYTE):
                m.d.comb += [
                    Assert(unaccounted != 0, "a truncated sequence covers its pending bytes"),
                    after.eq(beat_bytes),
                ]
            with m.Else():                      # UNEXPECTED_END_OF_DATA
                m.d.comb += [
                    Assert(total != 0, "an unfinished sequence covers at least one byte"),
                    after.eq(0),
                ]
            m.d.comb += Assert(after <= 3, "at most three bytes pending")
            with m.If(out.last):
                m.d.comb += Assert(after == 0, "no byte left over at the end of a message")
        with m.If(given):
            m.d.sync += unaccounted.eq(Mux(out.last, 0, after))


def _well_formed_utf8(m, units, count):
    """Whether the first ``count`` bytes of ``units`` are whole, well-formed UTF-8 characters
    (RFC 3629 section 4, Table 3-7)."""
    well_formed = Const(1)
    needed = Const(0, 2)        # continuation bytes still to come
    low, high = Const(0x80, 8), Const(0xBF, 8)
    for index, unit in enumerate(units):
        byte = unit.data
        present = index < count
        lead = (byte < 0x80) | ((byte >= 0xC2) & (byte <= 0xF4))
        continuation = (byte >= low) & (byte <= high)
        step_ok = Signal(name=f"utf8_ok_{index}")
        m.d.comb += step_ok.eq(well_formed & (~present | Mux(needed == 0, lead, continuation)))
        lead_needs = Mux(byte < 0x80, 0, Mux(byte < 0xE0, 1, Mux(byte < 0xF0, 2, 3)))
        # The second byte's range after E0, ED, F0 and F4; any later one's is 80..BF.
        lead_low = Mux(byte == 0xE0, 0xA0, Mux(byte == 0xF0, 0x90, 0x80))
        lead_high = Mux(byte == 0xED, 0x9F, Mux(byte == 0xF4, 0x8F, 0xBF))
        # Each lane's state in a signal of its own, so that the next lane's logic refers to it
        # rather than repeating the whole chain before it.
        next_needed = Signal(2, name=f"utf8_needed_{index}")
        next_low = Signal(8, name=f"utf8_low_{index}")
        next_high = Signal(8, name=f"utf8_high_{index}")
        m.d.comb += [
            next_needed.eq(Mux(present, Mux(needed == 0, lead_needs, needed - 1), needed)),
            next_low.eq(Mux(present, Mux(needed == 0, lead_low, 0x80), low)),
            next_high.eq(Mux(present, Mux(needed == 0, lead_high, 0xBF), high)),
        ]
        well_formed, needed, low, high = step_ok, next_needed, next_low, next_high
    return well_formed & (needed == 0)


def _well_formed_utf16(m, units, count):
    """Whether the first ``count`` units are whole characters: every high surrogate followed
    by a low one, every low one preceded by a high one (RFC 2781 section 2.1)."""
    well_formed = Const(1)
    for index, unit in enumerate(units):
        present = index < count
        high = (unit.data >= 0xD800) & (unit.data <= 0xDBFF)
        low = (unit.data >= 0xDC00) & (unit.data <= 0xDFFF)
        follows_high = Const(0) if index == 0 else \
            ((units[index - 1].data >= 0xD800) & (units[index - 1].data <= 0xDBFF))
        next_low = Const(0) if index + 1 == len(units) else \
            ((index + 1 < count) & (units[index + 1].data >= 0xDC00) &
             (units[index + 1].data <= 0xDFFF))
        well_formed = well_formed & (~present | ((~high | next_low) & (~low | follows_high)))
    return well_formed


def _well_formed_utf32(m, units, count):
    """Whether the first ``count`` units are scalar values (Unicode ch. 3, D76)."""
    well_formed = Const(1)
    for index, unit in enumerate(units):
        scalar = (unit.data <= 0x10FFFF) & ~((unit.data >= 0xD800) & (unit.data <= 0xDFFF))
        well_formed = well_formed & ((index >= count) | scalar)
    return well_formed


def _within(last):
    """Whether the first ``count`` units are characters of a one-byte form that ends at code
    point ``last`` (ISO/IEC 8859-1: 0xFF; ANSI X3.4: 0x7F), a character it cannot hold being
    ``?`` (CPython's ``replace`` on encoding)."""
    def well_formed(m, units, count):
        result = Const(1)
        for index, unit in enumerate(units):
            held = (unit.data <= last) & ((unit.error != ErrorKind.UNENCODABLE_CHARACTER)
                                          | (unit.data == ord("?")))
            result = result & ((index >= count) | held)
        return result
    return well_formed


_ENCODED_FORMS = {"utf-8": _well_formed_utf8, "utf-16": _well_formed_utf16,
                  "utf-32": _well_formed_utf32, "latin-1": _within(0xFF), "ascii": _within(0x7F)}


class EncoderProperties(StreamProperties):
    """Properties of an encoder, on top of :class:`StreamProperties` (latency 1, a beat may be
    split in two): given scalar values and U+FFFD replacements, every output beat is whole,
    well-formed code units of its form (RFC 3629 section 4; RFC 2781 section 2.1; Unicode
    ch. 3, D76). Covers: a supplementary character, and (UTF-8, UTF-16) a beat that must be
    split.

    Parameters
    ----------
    core : wiring.Component
        :class:`~utfhw.hdl.forms.utf8.scalar.UTF8Encoder`, :class:`~utfhw.hdl.forms.utf16.scalar.UTF16Encoder` or
        :class:`~utfhw.hdl.forms.utf32.scalar.UTF32Encoder`.
    form : str
        ``"utf-8"``, ``"utf-16"`` or ``"utf-32"``.
    """
    def __init__(self, core, *, form):
        self.form = form
        super().__init__(core, latency=1, one_beat_per_beat=False)

    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        beat = self.i.payload
        out = self.o.payload
        for index, lane in enumerate(beat.lanes):
            with m.If(self.i.valid & (index < beat.count)):
                with m.If(lane.error == ErrorKind.NONE):
                    m.d.comb += Assume((lane.data <= 0x10FFFF) &
                                       ~((lane.data >= 0xD800) & (lane.data <= 0xDFFF)))
                with m.Else():
                    m.d.comb += Assume(lane.data == REPLACEMENT_CHARACTER)
        with m.If(self.o.valid):
            m.d.comb += Assert(_ENCODED_FORMS[self.form](m, list(out.lanes), out.count),
                               "whole, well-formed code units")
        # The highest unit of the form: a four-byte sequence's lead, a high surrogate, a
        # supplementary code point, or a one-byte form's '?' for what it cannot hold.
        m.d.comb += Cover(given & (out.count != 0) & (out.lanes[0].error == ErrorKind.NONE) &
                          (out.lanes[0].data >= {"utf-8": 0xF0, "utf-16": 0xD800,
                                                 "utf-32": 0x10000}[self.form])
                          if self.form in ("utf-8", "utf-16", "utf-32") else
                          given & (out.count != 0) & (out.lanes[0].data == ord("?")))
        if self.form in ("utf-8", "utf-16"):
            # Two UTF-32 code points, or two bytes, always fit the two output lanes.
            m.d.comb += Cover(given & self.i.valid & ~self.i.ready)


class PipelineProperties(StreamProperties):
    """Properties of a :class:`~utfhw.hdl.cores.transcoder.Transcoder`, on top of
    :class:`StreamProperties` with its latency: whatever bytes come in, every output beat is
    whole, well-formed code units of the target form (read in the target's byte order), so no
    pipeline ever emits a surrogate, an overlong form or a value above U+10FFFF."""
    def __init__(self, core):
        super().__init__(core, latency=core.latency,
                         capacity=core.capacity)
        self.target_form = CODECS[core.target].form.name
        self.target_order = CODECS[core.target].byteorder

    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        out = self.o.payload
        units = []
        for lane in out.lanes:
            unit = Signal.like(lane)
            data = lane.data
            if self.target_order == "big":
                data = Cat(*reversed([data[index:index + 8]
                                      for index in range(0, len(data), 8)]))
            m.d.comb += [unit.data.eq(data), unit.error.eq(lane.error)]
            units.append(unit)
        with m.If(self.o.valid):
            m.d.comb += Assert(_ENCODED_FORMS[self.target_form](m, units, out.count),
                               "whole, well-formed code units")


class WideStreamProperties(StreamProperties):
    """Properties of a :class:`~utfhw.hdl.cores.wide.WideUTF8ToUTF16`'s beats, on top of
    :class:`StreamProperties` for a core whose beats out do not follow its beats in: ``last``
    leaves once for each ``last`` taken, never before, and a ``last`` in flight shows within
    the latency (one clock more for a last beat that makes two). The input is assumed to keep
    the wide core's rule: every beat but a message's last is full.

    Parameters
    ----------
    core : :class:`~utfhw.hdl.cores.wide.WideUTF8ToUTF16`
        Or a core with the same streams, ``width``, ``latency`` and ``capacity``.
    """
    def __init__(self, core):
        self.width = core.width
        super().__init__(core, latency=core.latency + 1, one_beat_per_beat=False,
                         capacity=core.capacity)

    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        with m.If(self.i.valid & ~self.i.payload.last):
            m.d.comb += Assume(self.i.payload.count == self.width)


class PassThrough(PropertyBench):
    """A core whose output beats are its input beats, unchanged (a validator's): the beats out
    are as many as the beats in and no more, at most ``capacity`` are in flight, and any one
    beat, chosen freely (the input ``watch``), leaves with the ``data``, ``count`` and
    ``last`` it came with, after exactly the beats that came before it.

    For induction the bench ties the watched beat to the core's registers:
    ``core.held_beats()`` says where the core holds its beats, oldest first, as ``(count,
    most, beat)`` (``count`` beats, at most ``most``, the one at ``position`` being
    ``beat(position)``). The beats in flight are as many as those, and the watched beat is
    the one in its place among them, unchanged. The core's ``invariants``, which the bench
    asserts, make that inductive. (Following one beat, rather than keeping every beat in
    flight, keeps the proof's state small: it took a validator with an output queue from
    minutes to seconds.)

    Parameters
    ----------
    core : wiring.Component
        With ``capacity`` and ``held_beats()``.
    """
    _FIELDS = ("data", "count", "last")

    def __init__(self, core):
        self.capacity = core.capacity
        super().__init__(core, free=["watch"])

    def properties(self, m, taken, given):
        def beat(payload):
            return Cat(*(payload[name] for name in self._FIELDS))

        depth = self.capacity
        in_flight = Signal(range(depth + 2), name="beats_in_flight")
        m.d.sync += in_flight.eq(in_flight + taken - given)
        m.d.comb += Assert(in_flight <= depth, "at most capacity beats in flight")
        with m.If(given):
            m.d.comb += Assert(in_flight != 0, "no output beat without an input beat")

        watching = Signal(name="watching")
        watched_once = Signal(name="watched_once")
        watched = Signal(len(beat(self.i.payload)), name="watched")
        ahead = Signal.like(in_flight, name="ahead_of_watched")
        rank = Const(0, range(depth + 1))
        for count, most, held in self.core.held_beats():
            for position in range(most):
                with m.If(watching & (position < count) & (rank + position == ahead)):
                    m.d.comb += Assert(beat(held(position)) == watched,
                                       "the core holds the watched beat unchanged, in its place")
            rank = rank + count
        m.d.comb += Assert(in_flight == rank, "the core holds every beat in flight")
        with m.If(watching):
            m.d.comb += Assert(ahead < in_flight, "the watched beat is in flight")
            with m.If(given):
                with m.If(ahead == 0):
                    m.d.comb += Assert(beat(self.o.payload) == watched,
                                       "the watched beat leaves unchanged, in its turn")
                    m.d.sync += watching.eq(0)
                with m.Else():
                    m.d.sync += ahead.eq(ahead - 1)
        with m.Elif(taken & self.watch & ~watched_once):
            m.d.sync += [watching.eq(1), watched_once.eq(1), watched.eq(beat(self.i.payload)),
                         ahead.eq(in_flight - given)]


class FixedLatency(PropertyBench):
    """A stage that never stops (seen through :class:`ReadyView`) passes every beat on exactly
    ``latency`` clocks after it took it, with its ``last``: its output is valid exactly when a
    beat was taken ``latency`` clocks before, and then carries that beat's ``last``. This is
    beat and last accounting in its strongest form: nothing lost, added, reordered or late.
    The bench keeps a line of ``latency`` clocks of what was taken, which induction of depth
    ``latency`` ties to the stage's pipeline.

    Parameters
    ----------
    view : :class:`ReadyView`
    latency : int
        Clocks, at least 1.
    """
    def __init__(self, view, *, latency):
        self.latency = latency
        super().__init__(view)

    def properties(self, m, taken, given):
        taken_line = Signal(self.latency, name="taken_line")
        last_line = Signal(self.latency, name="last_line")
        m.d.sync += [
            taken_line.eq(Cat(taken, taken_line[:-1])),
            last_line.eq(Cat(self.i.payload.last, last_line[:-1])),
        ]
        m.d.comb += Assert(self.o.valid == taken_line[-1],
                           "a beat goes out exactly latency clocks after it was taken")
        with m.If(self.o.valid):
            m.d.comb += Assert(self.o.payload.last == last_line[-1],
                               "a beat goes out with the last it was taken with")


class WindowAccounting(PropertyBench):
    """A :class:`~utfhw.hdl.lanes.window.LaneWindow` (seen through :class:`ReadyView`) passes every
    beat on once, in order, with its ``last``: a message's last beat three clocks after it was
    taken, any other beat two clocks after the next beat was taken, and nothing else.

    The bench keeps ``waiting`` (the last beat taken is not a message's last), and ties it to
    the stage's own (:meth:`~utfhw.hdl.lanes.window.LaneWindow.waiting`): a beat may wait for its
    successor for ever, so no depth of induction reaches back to where it came.

    Parameters
    ----------
    view : :class:`ReadyView`
        A view of a :class:`~utfhw.hdl.lanes.window.LaneWindow`.
    window : :class:`~utfhw.hdl.lanes.window.LaneWindow`
        The window whose state the bench names (default: ``view.core``).
    """
    def __init__(self, view, *, window=None):
        self.window = view.core if window is None else window
        super().__init__(view)

    def properties(self, m, taken, given):
        waiting = Signal(name="bench_waiting")
        with m.If(taken):
            m.d.sync += waiting.eq(~self.i.payload.last)
        # A waiting beat goes out two clocks after the next beat is taken; a last three
        # clocks after it is.
        released = Signal(2, name="released_line")
        lasts = Signal(3, name="last_line")
        m.d.sync += [
            released.eq(Cat(taken & waiting, released[0])),
            lasts.eq(Cat(taken & self.i.payload.last, lasts[:2])),
        ]
        m.d.comb += [
            Assert(self.o.valid == (released[1] | lasts[2]),
                   "a beat goes out two clocks after the next one, a last three after itself"),
            Assert(~self.o.valid | (self.o.payload.last == lasts[2]),
                   "a beat goes out with its last"),
            Assert(waiting == self.window.waiting(), "the window waits exactly when the bench does"),
        ]


class QueueAccounting(PropertyBench):
    """A :class:`~utfhw.hdl.lanes.queue.CreditQueue` whose writer honours ``room`` gives out every
    beat written, once, in order, unchanged, however its output stalls, and never overflows.

    The writer is assumed to send a beat only where ``room`` was high ``delay`` clocks before
    (a pipeline of ``delay`` stages in front of the queue, fed while ``room`` is high). The
    bench then states, for induction:

    - the beats the queue holds (:meth:`~utfhw.hdl.lanes.queue.CreditQueue.held_beats`) are the
      beats written and not given;
    - those, plus the beats that the writer may still send, never exceed ``threshold + delay
      + 2``, so the memory never fills (``delay`` at most ``depth - threshold - 3``);
    - one beat, chosen freely (the input ``watch``), is followed through: it stays where the
      beats before it put it, and leaves unchanged when they have left.

    Parameters
    ----------
    queue : :class:`~utfhw.hdl.lanes.queue.CreditQueue`
    delay : int
        Clocks from the writer's look at ``room`` to its beat.
    """
    def __init__(self, queue, *, delay):
        check_integer("delay", delay, minimum=1, maximum=queue._depth - queue._threshold - 3)
        self.delay = delay
        super().__init__(queue, free=["watch"])

    def properties(self, m, taken, given):
        queue, delay = self.core, self.delay
        m.d.comb += self.room.eq(queue.room)
        room_line = Signal(delay, name="room_line")     # room one to ``delay`` clocks ago
        m.d.sync += room_line.eq(Cat(queue.room, room_line[:-1]))
        m.d.comb += Assume(~self.i.valid | room_line[-1])

        count, beat = queue.held_beats()
        in_flight = Signal(range(queue._depth + 3), name="beats_in_flight")
        m.d.sync += in_flight.eq(in_flight + taken - given)
        bound = queue._threshold + delay + 2
        m.d.comb += [
            Assert(queue.fill_level_agrees(), "the queue's fill level counts its entries"),
            Assert(count == in_flight, "the queue holds every beat written and not given"),
            Assert(count - self.o.valid + sum(room_line) <= bound,
                   "the memory has room for every beat the writer may still send"),
        ]

        # One beat followed through the queue.
        watching = Signal(name="watching")
        watched_once = Signal(name="watched_once")
        watched = Signal(len(Value.cast(self.i.payload)), name="watched")
        ahead = Signal.like(in_flight, name="ahead_of_watched")
        with m.If(watching):
            m.d.comb += [
                Assert(ahead < in_flight, "the watched beat is in the queue"),
                Assert(beat(ahead) == watched, "the watched beat stays as it was written"),
            ]
            with m.If(given):
                with m.If(ahead == 0):
                    m.d.comb += Assert(Value.cast(self.o.payload) == watched,
                                       "the watched beat leaves unchanged, in its turn")
                    m.d.sync += watching.eq(0)
                with m.Else():
                    m.d.sync += ahead.eq(ahead - 1)
        with m.Elif(taken & self.watch & ~watched_once):
            m.d.sync += [watching.eq(1), watched_once.eq(1), watched.eq(self.i.payload),
                         ahead.eq(in_flight - given)]


class RepackerAccounting(StreamProperties):
    """Beat accounting of a :class:`~utfhw.hdl.lanes.repack.Repacker` (seen through
    :class:`ReadyView`), made provable by induction: ``last`` leaves once for each ``last``
    taken, never before, ``latency`` clocks after it was taken or one clock later from the
    holding register, and never more than ``latency + 2`` are in flight.

    The bench ties its count of lasts in flight to the stage's state: ``staged[j]`` says that
    a last beat taken ``j + 1`` clocks ago is still on its way. A last that is due goes out
    now or waits a clock for the holding register
    (:meth:`~utfhw.hdl.lanes.repack.Repacker.last_waits`), and a last that waits is due and has
    not gone out. With the repacker's own
    :meth:`~utfhw.hdl.lanes.repack.Repacker.invariants` (a held beat is never overwritten), these
    close the induction.

    Parameters
    ----------
    view : :class:`ReadyView`
        A view of a :class:`~utfhw.hdl.lanes.repack.Repacker`.
    repacker : :class:`~utfhw.hdl.lanes.repack.Repacker`
        The repacker whose state the bench names (default: ``view.core``), for a view with
        something between it and the repacker.
    """
    def __init__(self, view, *, repacker=None):
        self.repacker = view.core if repacker is None else repacker
        latency = self.repacker.latency
        super().__init__(view, latency=latency + 1, one_beat_per_beat=False,
                         capacity=latency + 2)

    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        due = self.repacker.latency - 1
        leaving = given & self.o.payload.last
        waits = self.repacker.last_waits()
        staged = Signal(due + 2, name="staged_lasts")
        left = Signal.like(staged, name="left_last")
        # The oldest last on its way is the one that goes out.
        m.d.comb += left.eq(Mux(leaving, Mux(staged[due + 1], 1 << (due + 1), 1 << due), 0))
        m.d.sync += staged.eq(Cat(taken & self.i.payload.last, (staged & ~left)[:-1]))
        m.d.comb += [
            Assert(~leaving | staged[due] | staged[due + 1],
                   "a last beat goes out when due, not before"),
            Assert(~staged[due + 1] | leaving,
                   "a last beat goes out at most a clock after it is due"),
            Assert(~staged[due] | waits | (leaving & ~staged[due + 1]),
                   "a last beat goes out when due, unless it waits a clock"),
            Assert(~waits | (staged[due] & (staged[due + 1] | ~leaving)),
                   "a last beat that waits is due and has not gone out"),
            Assert(self.lasts_in_flight == sum(staged),
                   "the lasts in flight are the lasts on their way"),
        ]


class WideProperties(WideStreamProperties):
    """:class:`WideStreamProperties`, and every output beat but a message's last is full (a
    property of the beats' contents, which the output queue keeps in memory: bounded
    only)."""
    def properties(self, m, taken, given):
        super().properties(m, taken, given)
        with m.If(self.o.valid & ~self.o.payload.last):
            m.d.comb += Assert(self.o.payload.count == len(self.o.payload.lanes),
                               "every output beat but a message's last is full")


class _OneMessage(wiring.Component):
    """A bench that sends one message of ``beats`` beats to ``wide`` (bytes and the last beat's
    count are free inputs, every earlier beat full), then the same bytes one code unit a clock
    to ``scalar`` (one empty beat if none; the last beat with the bytes that are left), both
    outputs always ready, and leaves the comparison to :meth:`compare`."""
    def __init__(self, wide, scalar, *, beats, deadline):
        self.wide = wide
        self.scalar = scalar
        self.beats = beats
        self.deadline = deadline
        width = wide.width
        super().__init__({"data": In(8 * width), "count": In(range(width + 1))})

    def elaborate(self, platform):
        m = Module()
        m.submodules.wide = wide = self.wide
        m.submodules.scalar = scalar = self.scalar
        m.d.comb += Assume(~ResetSignal())
        width, beats = self.wide.width, self.beats
        m.d.comb += Assume(self.count <= width)

        # The message into the wide core, and its bytes kept for the scalar one.
        sent = Signal(range(beats + 1))
        kept = Array(Signal(8, name=f"byte_{index}") for index in range(width * beats))
        length = Signal(range(width * beats + 1))
        final = sent == beats - 1
        m.d.comb += [
            wide.i.valid.eq(sent < beats),
            wide.i.payload.data.eq(self.data),
            wide.i.payload.count.eq(Mux(final, self.count, width)),
            wide.i.payload.last.eq(final),
            wide.o.ready.eq(1),
            scalar.o.ready.eq(1),
        ]
        with m.If(wide.i.valid & wide.i.ready):
            m.d.sync += [sent.eq(sent + 1), length.eq(length + wide.i.payload.count)]
            for index in range(width):
                m.d.sync += kept[sent * width + index].eq(self.data[8 * index:8 * index + 8])

        unit = scalar.i.payload.shape().width
        fed = Signal(range(width * beats + unit + 1))
        fed_all = Signal()
        all_sent = sent == beats
        m.d.comb += [
            scalar.i.valid.eq(all_sent & ~fed_all),
            scalar.i.payload.data.eq(Cat(*(kept[fed + index] for index in range(unit)))),
            scalar.i.payload.count.eq(Mux(fed + unit <= length, unit, length - fed)),
            scalar.i.payload.last.eq(fed + unit >= length),
        ]
        with m.If(scalar.i.valid & scalar.i.ready):
            m.d.sync += fed.eq(fed + unit)
            with m.If(fed + unit >= length):
                m.d.sync += fed_all.eq(1)

        wide_done = Signal()
        with m.If(wide.o.valid & wide.o.payload.last):
            m.d.comb += Assert(~wide_done, "one last beat")
            m.d.sync += wide_done.eq(1)
        clock = Signal(range(self.deadline + 2))
        m.d.sync += clock.eq(Mux(clock > self.deadline, clock, clock + 1))
        with m.If(clock == self.deadline):
            m.d.comb += Assert(wide_done, "the wide core's last beat within the deadline")
        self.compare(m, length)
        return m

    def compare(self, m, length):
        raise NotImplementedError


class WideEquivalence(_OneMessage):
    """The wide core and the scalar :class:`~utfhw.hdl.cores.transcoder.Transcoder` fed the same
    bytes: they must emit the same units, with the same error kinds, in the same order.

    The bench sends one message of ``beats`` beats to ``wide``, then the same bytes one unit a
    clock to ``scalar``, and keeps both cores' units. Each unit the wide core gives is
    asserted equal to the scalar's unit at the same place once both have given it, both
    messages to close the same number of units, and both last beats to come within
    ``deadline`` clocks (so the check cannot pass by a core saying nothing).

    Parameters
    ----------
    wide, scalar : wiring.Component
        Cores with streams ``i`` and ``o``; the wide one takes
        :class:`~utfhw.hdl.unicode.layout.ByteLanes`, the scalar one
        :class:`~utfhw.hdl.unicode.layout.UnitBytes` of the source's unit.
    beats : int
        Input beats of the message.
    deadline : int
        Clocks from reset by which the wide core's last beat must have come.
    """
    def compare(self, m, length):
        wide, scalar, beats = self.wide, self.scalar, self.beats
        # Both cores' units, in order, compared wherever both have given one: the wide core
        # may be done first (one with no compaction is quicker than the scalar core fed after
        # it). Each input beat gives at most a beat of units (from UTF-8 to UTF-8, a beat for
        # each of its clocks), and a mark-writing target three more.
        most = (beats * len(wide.o.payload.lanes) * getattr(wide, "most_clocks_per_beat", 1)
                + 3)
        unit_layout = wide.o.payload.shape().item
        reference = Array(Signal(unit_layout, name=f"unit_{index}") for index in range(most))
        got = Array(Signal(unit_layout, name=f"wide_unit_{index}") for index in range(most))
        produced = Signal(range(most + 1))
        scalar_done = Signal()
        out = scalar.o.payload
        with m.If(scalar.o.valid):
            for lane in range(len(out.lanes)):
                with m.If(lane < out.count):
                    m.d.sync += reference[produced + lane].eq(out.lanes[lane])
            m.d.sync += produced.eq(produced + out.count)
            with m.If(out.last):
                m.d.sync += scalar_done.eq(1)

        out = wide.o.payload
        seen = Signal(range(most + len(out.lanes) + 1))
        wide_done = Signal()
        with m.If(wide.o.valid):
            for lane in range(len(out.lanes)):
                with m.If(lane < out.count):
                    m.d.comb += Assert(seen + lane < most, "no more units than the input gives")
                    m.d.sync += got[seen + lane].eq(out.lanes[lane])
            m.d.sync += seen.eq(seen + out.count)
            with m.If(out.last):
                m.d.sync += wide_done.eq(1)
        for index in range(most):
            with m.If((index < seen) & (index < produced)):
                m.d.comb += Assert(got[index].as_value() == reference[index].as_value(),
                                   "the scalar core's unit and error kind")
        with m.If(wide_done & scalar_done):
            m.d.comb += Assert(seen == produced, "as many units")
        # Both messages end within the deadline, so that the checks above cannot pass by a
        # core saying nothing.
        clock = Signal(range(self.deadline + 2))
        m.d.sync += clock.eq(Mux(clock > self.deadline, clock, clock + 1))
        with m.If(clock == self.deadline):
            m.d.comb += Assert(scalar_done, "the scalar core's last beat within the deadline")


#: Bytes of a well-formed code point in each source form (the validator's positions count
#: them): UTF-8's shortest form, UTF-16's one or two units, one UTF-32 unit, one byte.
_SOURCE_BYTES = {
    "utf-8": _utf8_length,
    "utf-16": lambda code_point: 2 * _utf16_length(code_point),
    "utf-32": lambda code_point: 4,
    "latin-1": lambda code_point: 1,
    "ascii": lambda code_point: 1,
}


class ValidatorEquivalence(_OneMessage):
    """A validator's verdict and the scalar decoder's first error, for the same bytes.

    The bench sends one message of ``beats`` beats to the validator, then the same bytes one
    unit a clock to ``scalar``, a :class:`~utfhw.hdl.cores.transcoder.Transcoder` from the
    validator's source to ``utf-32-le`` with ``errors="replace"`` (so each of its units is one
    code point, or a replacement with its error kind). From the scalar's units it keeps the
    message's lengths (code points, UTF-16 units and UTF-8 bytes, a replacement counting as
    U+FFFD) and its first error: the kind, and the bytes of the code points before it (its
    ``start``). The validator's result must say the same: ``valid`` exactly when there is no
    error, the kind and ``start`` of the first, and the three lengths.

    The scalar's units carry no byte positions, so the first error's ``end`` is checked
    where the units fix it: when the message has no other error, the bytes after the first
    error are those of the code points that follow it, and ``end`` is the message's length
    less them. Otherwise ``start < end <= length``.

    Parameters
    ----------
    validator : :class:`~utfhw.hdl.cores.validator.Validator`
    scalar : :class:`~utfhw.hdl.cores.transcoder.Transcoder`
        From the validator's source to ``utf-32-le``, ``errors="replace"``.
    beats, deadline : int
        As for :class:`WideEquivalence`.
    """
    def compare(self, m, length):
        result = self.wide.o.payload.result
        bits = len(result.start)
        source_bytes = _SOURCE_BYTES[CODECS[self.wide.source].form.name]

        # The scalar's lengths and first error, lane by lane.
        totals = {name: Signal(bits + 2, name=f"scalar_{name}")
                  for name in ("code_points", "utf16_units", "utf8_bytes", "start", "after")}
        found = Signal()            # an error seen
        more = Signal()             # a second error seen
        kind = Signal(ErrorKind)
        kept_state = dict(totals, found=found, more=more, kind=kind)
        now = dict(kept_state)
        out = self.scalar.o.payload
        for lane in range(len(out.lanes)):
            code_point = out.lanes[lane].data
            error = out.lanes[lane].error != ErrorKind.NONE
            there = self.scalar.o.valid & (lane < out.count)
            step = {
                "code_points": now["code_points"] + 1,
                "utf16_units": now["utf16_units"] + _utf16_length(code_point),
                "utf8_bytes": now["utf8_bytes"] + _utf8_length(code_point),
                "start": Mux(now["found"] | error, now["start"],
                             now["start"] + source_bytes(code_point)),
                "after": Mux(now["found"] & ~error, now["after"] + source_bytes(code_point),
                             now["after"]),
                "found": now["found"] | error,
                "more": now["more"] | (now["found"] & error),
                "kind": Mux(~now["found"] & error, out.lanes[lane].error, now["kind"]),
            }
            following = {}
            for name, value in step.items():
                following[name] = Signal.like(now[name], name=f"{name}_{lane}")
                m.d.comb += following[name].eq(Mux(there, value, now[name]))
            now = following
        m.d.sync += [kept_state[name].eq(value) for name, value in now.items()]
        scalar_done = Signal()
        with m.If(self.scalar.o.valid & out.last):
            m.d.sync += scalar_done.eq(1)

        # The validator's result, kept from its last beat.
        kept = Signal.like(result)
        have = Signal()
        with m.If(self.wide.o.valid & self.wide.o.payload.last):
            m.d.sync += [kept.eq(result), have.eq(1)]
        with m.If(have & scalar_done):
            m.d.comb += [
                Assert(kept.valid == ~found, "valid exactly when the decoder finds no error"),
                Assert(kept.kind.as_value() == Mux(found, kind, ErrorKind.NONE),
                       "the decoder's first error kind"),
                Assert(kept.start == Mux(found, totals["start"], 0),
                       "start: the bytes of the code points before the first error"),
                Assert(kept.code_points == totals["code_points"], "the decoder's code points"),
                Assert(kept.utf16_units == totals["utf16_units"], "its UTF-16 units"),
                Assert(kept.utf8_bytes == totals["utf8_bytes"], "its UTF-8 bytes"),
                Assert(~kept.overflow, "no overflow"),
            ]
            with m.If(~found):
                m.d.comb += Assert(kept.end == 0, "end 0 when valid")
            with m.Elif(~more):
                m.d.comb += Assert(kept.end == length - totals["after"],
                                   "end: the bytes of the code points after the one error")
            with m.Else():
                m.d.comb += Assert((kept.start < kept.end) & (kept.end <= length),
                                   "end after start, within the message")


class ReadyView(wiring.Component):
    """A stage whose streams have no ``ready`` (it never stops), seen through streams that
    have one, for a :class:`~utfhw.formal.checker.PropertyBench`: ``i.ready`` is always high, and
    the bench is told to keep ``o.ready`` high."""
    def __init__(self, core):
        self.core = core
        for name in ("width", "latency", "capacity"):
            if hasattr(core, name):
                setattr(self, name, getattr(core, name))
        super().__init__({
            "i": In(stream.Signature(core.i.payload.shape())),
            "o": Out(stream.Signature(core.o.payload.shape())),
        })

    def invariants(self):
        """The stage's own :meth:`invariants`, if it states any."""
        return getattr(self.core, "invariants", lambda: ())()

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        m.d.comb += [
            self.i.ready.eq(1),
            core.i.valid.eq(self.i.valid),
            core.i.payload.eq(self.i.payload),
            self.o.valid.eq(core.o.valid),
            self.o.payload.eq(core.o.payload),
            Assume(self.o.ready),
        ]
        return m


class AXIStreamRules(wiring.Component):
    """The AXI4-Stream rules (ARM IHI 0051, section 2.2.1) on both sides of an
    :class:`~utfhw.hdl.axis.AXIStreamTop`, and its protocol errors flagged.

    The input is assumed to keep the rules: once ``s_axis_tvalid`` is high it stays high with
    the same ``tdata``, ``tkeep`` and ``tlast`` until taken. Asserted: the output keeps them
    (``m_axis_tvalid`` stays high with the same ``tdata``, ``tkeep``, ``tlast`` and ``tuser``
    until taken), and ``protocol_error`` is high exactly on the clock after a beat the core
    cannot take was taken: kept bytes with a hole or not from byte 0, or some but not all bytes
    kept without ``tlast`` (the bench's own statement of the rule). That ``m_axis_tvalid`` does
    not wait for ``m_axis_tready`` is a question of paths, for
    :func:`~utfhw.formal.checker.combinational_path`. Reset is assumed low.

    Parameters
    ----------
    top : :class:`~utfhw.hdl.axis.AXIStreamTop`
        Or a design with its ports; ``invariants``, if it has them, are asserted so that
        induction can use them.
    """
    def __init__(self, top):
        self.top = top
        super().__init__({name: In(member.shape) if member.flow == In else Out(member.shape)
                          for name, member in top.signature.members.items()})

    def elaborate(self, platform):
        m = Module()
        m.submodules.top = top = self.top
        _mirror_ports(m, self, top)
        m.d.comb += Assume(~ResetSignal())
        sides = (("s_axis", ("tdata", "tkeep", "tlast"), Assume),
                 ("m_axis", ("tdata", "tkeep", "tlast", "tuser"), Assert))
        for prefix, fields, check in sides:
            valid = getattr(self, f"{prefix}_tvalid")
            ready = getattr(self, f"{prefix}_tready")
            payload = Cat(*(getattr(self, f"{prefix}_{field}") for field in fields))
            stalled = Signal(name=f"{prefix}_stalled")
            held = Signal.like(payload, name=f"{prefix}_held")
            m.d.sync += [stalled.eq(valid & ~ready), held.eq(payload)]
            with m.If(stalled):
                m.d.comb += check(valid & (payload == held),
                                  f"{prefix}: the beat is held until taken")
        keep, last = self.s_axis_tkeep, self.s_axis_tlast
        width = len(keep)
        hole = Cat(~keep[low] & keep[high] for low in range(width)
                   for high in range(low + 1, width)).any() if width > 1 else Const(0)
        short = ~last & keep.any() & ~keep.all()
        flagged = Signal()
        m.d.sync += flagged.eq(self.s_axis_tvalid & self.s_axis_tready & (hole | short))
        m.d.comb += Assert(self.protocol_error == flagged,
                           "protocol_error exactly after a beat the core cannot take")
        for value, message in getattr(top, "invariants", lambda: ())():
            m.d.comb += Assert(value, message)
        return m


def _mirror_ports(m, bench, top, *, outputs=True):
    """Drive ``top``'s inputs from ``bench``'s ports of the same signature, and (with
    ``outputs``) ``bench``'s outputs from ``top``'s."""
    for (_, member, outer), (_, _, inner) in zip(bench.signature.flatten(bench),
                                                 top.signature.flatten(top)):
        if member.flow == In:
            m.d.comb += inner.eq(outer)
        elif outputs:
            m.d.comb += outer.eq(inner)


def handshake_outputs(top):
    """The two outputs of ``top`` that move beats, ``(ready of the input, valid of the
    output)``: ``i.ready`` and ``o.valid``, or ``s_axis_tready`` and ``m_axis_tvalid``; none
    for a design with neither (the UART bridge)."""
    if "s_axis_tready" in top.signature.members:
        return top.s_axis_tready, top.m_axis_tvalid
    if "i" in top.signature.members:
        return top.i.ready, top.o.valid
    return ()


def reset_registers(fragment):
    """Every signal ``fragment`` and the fragments below it drive from a clock domain, but
    those declared ``reset_less``: the registers a reset puts back to their initial values."""
    for domain, statements in fragment.statements.items():
        if domain == "comb":
            continue
        for statement in statements:
            for signal in statement._lhs_signals():
                if not signal.reset_less:
                    yield signal
    for subfragment, _, _ in fragment.subfragments:
        yield from reset_registers(subfragment)


class ResetToInitial(wiring.Component):
    """Reset from any state: while ``rst`` is high the handshake is low (``i.ready`` and
    ``o.valid``, or ``s_axis_tready`` and ``m_axis_tvalid``: ARM IHI 0051, section 2.7.2), and
    on the clock after one with ``rst`` high every register with a reset holds its initial
    value, whatever the state before and whatever the neighbours do.

    The property is about one clock of the transition, so k-induction proves it from every
    state, reachable or not. The registers are found in the design itself (every signal driven
    in a clock domain, but those declared ``reset_less``), so a register added later is checked
    without a change here. The ``reset_less`` data registers and memories are left to
    :class:`ResetEquivalence`, which shows that nothing of what they held before a reset
    reaches the output after it.

    Parameters
    ----------
    top : wiring.Component
        A core with streams ``i`` and ``o``, an AXI4-Stream top, or any other design (the UART
        bridge: registers only); its ports become the bench's, free.
    """
    def __init__(self, top):
        self.top = top
        super().__init__(top.signature)

    def elaborate(self, platform):
        m = Module()
        # Elaborated here, so that the registers found are the ones in the design checked.
        fragment = Fragment.get(self.top, platform)
        m.submodules.top = fragment
        _mirror_ports(m, self, self.top)
        for output in handshake_outputs(self.top):
            m.d.comb += Assert(~ResetSignal() | ~output, "the handshake is low in reset")
        after_reset = Signal(reset_less=True)
        m.d.sync += after_reset.eq(ResetSignal())
        registers = list({id(signal): signal for signal in reset_registers(fragment)}.values())
        self.register_count = len(registers)
        with m.If(after_reset):
            for register in registers:
                m.d.comb += Assert(register == register.init,
                                   "every register is back at its initial value")
        return m


class ResetEquivalence(wiring.Component):
    """After a reset, a core that was in any state behaves as one just powered up: two copies
    of the design get the same inputs, ``fresh`` from its initial state and ``reset`` from a
    state the solver picks, registers of either kind and memories alike (the check frees the
    initial state of everything under ``reset``, see :func:`~utfhw.formal.checker.check`). Both see
    ``rst`` high on the first clock, and free after it; the inputs are free, rules or not.
    Asserted on every clock: the same handshake on both sides, and whenever the output is
    valid, the same of everything a neighbour may read (:func:`visible_output`).

    A bounded check (BMC to a depth a few beats past the core's latency): it finds any data
    register or memory entry that a reset leaves holding something the output later shows.

    Parameters
    ----------
    make_top : callable
        Makes the design (called twice: one copy each).
    """
    def __init__(self, make_top):
        self.fresh = make_top()
        self.reset = make_top()
        super().__init__(self.fresh.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.fresh = fresh = self.fresh
        m.submodules.reset = reset = self.reset
        _mirror_ports(m, self, fresh)
        _mirror_ports(m, self, reset, outputs=False)
        begun = Signal(reset_less=True)
        m.d.sync += begun.eq(1)
        m.d.comb += Assume(begun | ResetSignal())
        fresh_ready, fresh_valid = handshake_outputs(fresh)
        reset_ready, reset_valid = handshake_outputs(reset)
        m.d.comb += Assert((fresh_ready == reset_ready) & (fresh_valid == reset_valid),
                           "the same handshake after a reset from any state")
        with m.If(fresh_valid):
            for (value, shown), (other, _) in zip(visible_output(fresh), visible_output(reset)):
                m.d.comb += Assert(~shown | (value == other),
                                   "the same output after a reset from any state")
        return m


def visible_output(top):
    """What a neighbour may read of a valid output beat of ``top``, as ``(value, shown)``
    pairs: ``value`` counts when ``shown`` is high. A stream top's ``count`` and ``last`` and
    the lanes below ``count``; an AXI4-Stream top's ``tkeep``, ``tlast`` and
    ``protocol_error``, the bytes ``tkeep`` keeps and their lanes' error kinds, and on the
    ``tlast`` beat each lane's protocol error bit. Lanes past ``count`` (bytes not kept) are
    don't-care, and may hold anything."""
    if "m_axis_tvalid" not in top.signature.members:
        payload = top.o.payload
        return [(payload.count, 1), (payload.last, 1)] + [
            (lane.as_value(), payload.count > index) for index, lane in enumerate(payload.lanes)]
    shown = [(top.m_axis_tkeep, 1), (top.m_axis_tlast, 1), (top.protocol_error, 1)]
    for byte in range(len(top.m_axis_tkeep)):
        shown.append((top.m_axis_tdata.word_select(byte, 8), top.m_axis_tkeep[byte]))
    for lane in range(top.lanes):
        user = top.m_axis_tuser.word_select(lane, TUSER_BITS_PER_UNIT)
        shown += [(user[:TUSER_PROTOCOL_ERROR_BIT], top.m_axis_tkeep[lane * top.unit_bytes]),
                  (user[TUSER_PROTOCOL_ERROR_BIT], top.m_axis_tlast)]
    return shown
