"""The golden model for your own bench: the output beats any core utfhw generates must give
for a list of messages, as integers of its ports, and a checker that says "exact" or names the
first difference.

A core is named by its :class:`~utfhw.hdl.cores.CoreSpec`; ``interface`` is ``"stream"`` (the
core's own ports: ``o__payload`` an integer, lanes, ``count`` and ``last`` fields) or
``"axis"`` (``m_axis_tdata``, ``m_axis_tkeep``, ``m_axis_tlast``, ``m_axis_tuser``). Units are
in wire order, ``[7:0]`` first on the wire: ``A`` in UTF-32-BE is the lane value
``0x41000000``. The beats come from the reference model (:mod:`utfhw.model`), which the tests
hold to the cores beat for beat and to CPython byte for byte. A validator's are its input
beats, with CPython's verdict on the message as the
:class:`~utfhw.hdl.unicode.layout.ValidationResult` of its last beat (``o__payload``'s
``result``, or ``m_axis_tuser`` on the ``m_axis_tlast`` beat; 0 on the other beats).

What a beat leaves open is not compared: lanes at or above ``count`` (stream), the bytes and
error kinds of lanes ``m_axis_tkeep`` does not keep (AXI4-Stream).
"""

from dataclasses import dataclass

from ..hdl.axis import TUSER_BITS_PER_UNIT
from ..hdl.forms import CODECS
from ..hdl.unicode.layout import ErrorKind
from ..hdl.unicode.params import check_choice, handler_pair
from ..model.reference import decode_items
from ..model.wide import expected_beats as _model_beats
from ..sim.payload import LaneFormat, VerdictFormat
from ..sim.validation import read_result


__all__ = ["AxisBeat", "INTERFACES", "expected_beats", "check_beats", "BeatMismatch",
           "Scoreboard", "cpython_result"]


#: The bits of a lane's ``tuser`` that hold its error kind.
_KIND_MASK = (1 << ErrorKind.as_shape().width) - 1


#: The ports a generated module can have.
INTERFACES = ("stream", "axis")


@dataclass(frozen=True)
class AxisBeat:
    """One beat of ``m_axis_*``, each field the integer on its port."""
    tdata: int
    tkeep: int
    tlast: bool
    tuser: int


class BeatMismatch(AssertionError):
    """A DUT's beats differ from the golden model's. Its text names the message, beat and lane,
    what was expected and what came, the input bytes around it and CPython's strict verdict on
    the message; ``message``, ``beat`` and ``lane`` say where (``lane`` ``None`` for a beat's
    ``last`` or ``count``)."""
    def __init__(self, text, *, message, beat, lane):
        super().__init__(text)
        self.message, self.beat, self.lane = message, beat, lane


def _beats(spec, message, empty_beats):
    """The message's output beats as the reference model gives them: ``(units, last)``."""
    return _model_beats(bytes(message), spec.source, spec.target, spec.hardware_errors,
                        width=spec.width if spec.kind == "wide" else None,
                        empty_beats=empty_beats)


def _axis_beat(units, last, *, unit_bytes):
    tdata = tkeep = tuser = 0
    for lane, (data, error) in enumerate(units):
        tdata |= data << (8 * unit_bytes * lane)
        tkeep |= ((1 << unit_bytes) - 1) << (unit_bytes * lane)
        tuser |= ErrorKind(error).value << (TUSER_BITS_PER_UNIT * lane)
    return AxisBeat(tdata, tkeep, bool(last), tuser)


def expected_beats(messages, spec, *, interface="stream", empty_beats=True):
    """For each of ``messages`` (:class:`bytes`), the beats the core ``spec`` names gives on
    its output, as a bench reads them: with ``interface="stream"`` each an ``o__payload``
    integer (lanes above ``count`` 0), with ``"axis"`` an :class:`AxisBeat` (lanes not kept 0).
    ``empty_beats=False`` is a module made with ``--no-empty-beats``."""
    check_choice("interface", interface, INTERFACES)
    if spec.kind == "validator":
        return [[_verdict_beat(beat, spec, interface) for beat in _verdict_beats(spec, message)]
                for message in messages]
    lanes = LaneFormat(spec.output_layout)
    result = []
    for message in messages:
        beats = _beats(spec, message, empty_beats)
        if interface == "stream":
            result.append([lanes.pack(units, last) for units, last in beats])
        else:
            unit_bytes = CODECS[spec.target].unit_bytes
            result.append([_axis_beat(units, last, unit_bytes=unit_bytes)
                           for units, last in beats])
    return result


def cpython_result(message, spec):
    """The bits of the :class:`~utfhw.hdl.unicode.layout.ValidationResult` the validator
    ``spec`` names must give for ``message``: CPython's verdict, ``message.decode(source)``'s
    error (its kind, from the reason, and ``start`` and ``end``) and the lengths of
    ``message.decode(source, "replace")``."""
    layout = spec.output_layout["result"].shape
    message = bytes(message)
    if len(message) >= 1 << layout.bits:
        raise ValueError(f"a message of {len(message)} bytes is past the validator's count "
                         f"(fewer than 2**{layout.bits} bytes)")
    text = message.decode(spec.source, "replace")
    fields = {"valid": 1, "code_points": len(text),
              "utf16_units": len(text.encode("utf-16-le")) // 2,
              "utf8_bytes": len(text.encode("utf-8"))}
    try:
        message.decode(spec.source)
    except UnicodeDecodeError as error:
        kinds = {reason: kind for kind, reason in CODECS[spec.source].form.error_kinds.items()}
        fields.update(valid=0, kind=kinds[error.reason].value, start=error.start, end=error.end)
    return sum(value << layout[name].offset for name, value in fields.items())


def _verdict_beats(spec, message):
    """A validator's output beats for one message: ``(data, result, last)``, its bytes
    ``spec.width`` a beat (one empty beat if none) and the result's bits on the last."""
    message = bytes(message)
    width = spec.width
    chunks = [message[start:start + width] for start in range(0, len(message), width)] or [b""]
    result = cpython_result(message, spec)
    return [(chunk, result if index == len(chunks) - 1 else 0, index == len(chunks) - 1)
            for index, chunk in enumerate(chunks)]


def _verdict_beat(beat, spec, interface):
    data, result, last = beat
    if interface == "axis":
        return AxisBeat(int.from_bytes(data, "little"), (1 << len(data)) - 1, last, result)
    return VerdictFormat(spec.output_layout).pack((data, result), last)


def _as_verdict_beat(beat, spec, interface):
    """A validator DUT's beat as ``(data, result, last, flags)``: ``flags`` the bits of
    ``m_axis_tuser`` above the result (a protocol error)."""
    if interface == "stream":
        if isinstance(beat, int):
            (data, result), last = VerdictFormat(spec.output_layout).unpack(beat)
        else:
            (data, result), last = beat
        return data, result, last, 0
    tdata, tkeep, tlast, tuser = (beat.tdata, beat.tkeep, beat.tlast, beat.tuser) \
        if isinstance(beat, AxisBeat) else beat
    bits = spec.output_layout["result"].shape.size
    kept = bin(tkeep).count("1")
    data = tdata.to_bytes(spec.width, "little")[:kept]
    if tkeep != (1 << kept) - 1:
        data = ("tkeep", hex(tkeep))
    return data, tuser & ((1 << bits) - 1), bool(tlast), tuser >> bits


def _describe_result(bits, spec):
    fields = read_result(spec.output_layout["result"].shape, bits, spec.source)
    return ", ".join(f"{name}={fields[name]}" for name in (
        "valid", "start", "end", "reason", "code_points", "utf16_units", "utf8_bytes",
        "overflow"))


def _check_verdict_beats(messages, got, spec, interface):
    """:func:`check_beats` for a validator."""
    position = 0
    for index, message in enumerate(messages):
        for number, (data, result, last) in enumerate(_verdict_beats(spec, message)):
            where = f"message {index}, beat {number}"
            if position >= len(got):
                raise BeatMismatch(f"{where}: expected {len(data)} bytes last={last}, but the "
                                   f"DUT's beats ended after {len(got)}\n  "
                                   f"{_cpython(message, spec.source)}",
                                   message=index, beat=number, lane=None)
            data_got, result_got, last_got, flags = _as_verdict_beat(got[position], spec,
                                                                      interface)
            position += 1
            if data_got != data:
                shown = data_got.hex(" ") if isinstance(data_got, bytes) else data_got
                raise BeatMismatch(f"{where}: the bytes passed through changed: expected "
                                   f"{data.hex(' ') or 'none'}, got {shown or 'none'}",
                                   message=index, beat=number, lane=None)
            if last_got != last:
                raise BeatMismatch(f"{where}, last: expected {last}, got {last_got}",
                                   message=index, beat=number, lane=None)
            if flags:
                raise BeatMismatch(f"{where}, tuser: bits {flags:#x} above the result (a "
                                   f"protocol error?)", message=index, beat=number, lane=None)
            if result_got != result:
                raise BeatMismatch(f"{where}, the result: expected {_describe_result(result, spec)}"
                                   f"\n  got {_describe_result(result_got, spec)}"
                                   f"\n  {_cpython(message, spec.source)}",
                                   message=index, beat=number, lane=None)
    if position < len(got):
        raise BeatMismatch(f"{len(got) - position} beat(s) more than the {position} the "
                           f"golden model gives for {len(messages)} message(s)",
                           message=len(messages), beat=0, lane=None)
    return position


def _as_units(beat, spec, interface, lanes):
    """A DUT's beat as ``(units, last)`` (``units`` the ``(data, ErrorKind)`` of its lanes
    holding a unit), and for AXI4-Stream its protocol error bits; the beat is an ``o__payload``
    integer or ``(units, last)`` (stream), or an :class:`AxisBeat` or a tuple of its four
    integers (AXI4-Stream); ``lanes`` is the :class:`~utfhw.sim.payload.LaneFormat` of the
    core's output."""
    layout = spec.output_layout
    if interface == "stream":
        if isinstance(beat, int):
            return lanes.unpack(beat) + (0,)
        units, last = beat
        return [(data, ErrorKind(error)) for data, error in units], bool(last), 0
    tdata, tkeep, tlast, tuser = (beat.tdata, beat.tkeep, beat.tlast, beat.tuser) \
        if isinstance(beat, AxisBeat) else beat
    unit_bytes = CODECS[spec.target].unit_bytes
    units, kept, flags = [], [], 0
    for lane in range(layout.lane_count):
        lane_keep = (tkeep >> (unit_bytes * lane)) & ((1 << unit_bytes) - 1)
        user = (tuser >> (TUSER_BITS_PER_UNIT * lane)) & ((1 << TUSER_BITS_PER_UNIT) - 1)
        # Above the error kind, every lane's bits are 0 (the protocol error bit among them).
        flags |= user & ~_KIND_MASK
        if lane_keep:
            kept.append(lane_keep == (1 << unit_bytes) - 1)
            data = (tdata >> (8 * unit_bytes * lane)) & ((1 << (8 * unit_bytes)) - 1)
            units.append((data, ErrorKind(user & _KIND_MASK)))
    if kept != [True] * len(kept) or tkeep >> (unit_bytes * len(units)):
        # Kept bytes that are not whole lanes packed from lane 0: shown as they came.
        units.append(("tkeep", hex(tkeep)))
    return units, bool(tlast), flags


def _cpython(message, source):
    try:
        bytes(message).decode(source)
    except UnicodeDecodeError as error:
        return (f"CPython: {source} strict raises at start={error.start}, end={error.end}: "
                f"{error.reason}")
    return f"CPython: the message is well-formed {source}"


def _input_span(message, spec, unit_index):
    """The input bytes that make output unit ``unit_index`` of a message, as ``(start,
    end)``: from the reference model's items and the target form's units a code point."""
    target = CODECS[spec.target]
    spans = [(0, 0)] * (target.form.mark_units if target.mark else 0)
    for item in decode_items(bytes(message), spec.source):
        if handler_pair(spec.hardware_errors)[0] == "ignore" and item.error != ErrorKind.NONE:
            continue
        units = target.form.code_point_bytes(item.code_point) // target.unit_bytes
        spans += [(item.start, item.end)] * units
    return spans[unit_index] if unit_index < len(spans) else (len(message), len(message))


def _describe(items):
    return "[" + ", ".join(f"{data:#x} {error.name}" if isinstance(error, ErrorKind)
                           else f"{data} {error}" for data, error in items) + "]"


def check_beats(messages, got, spec, *, interface="stream", empty_beats=True):
    """Check the beats a DUT gave for ``messages`` against the golden model: ``got`` is every
    output beat in the order they came (all messages, back to back), each as
    :func:`expected_beats` gives it (an ``o__payload`` integer or ``(units, last)`` for the
    stream ports, an :class:`AxisBeat` or ``(tdata, tkeep, tlast, tuser)`` for AXI4-Stream).
    Returns the number of beats checked; raises :exc:`BeatMismatch` at the first difference.
    """
    check_choice("interface", interface, INTERFACES)
    got = list(got)
    if spec.kind == "validator":
        return _check_verdict_beats(messages, got, spec, interface)
    lanes = LaneFormat(spec.output_layout)
    position = 0
    for index, message in enumerate(messages):
        expected = _beats(spec, message, empty_beats)
        unit = 0
        for number, (units, last) in enumerate(expected):
            where = f"message {index}, beat {number}"
            if position >= len(got):
                raise BeatMismatch(
                    f"{where}: expected {_describe(units)} last={last}, but the DUT's beats "
                    f"ended after {len(got)}\n  {_cpython(message, spec.source)}",
                    message=index, beat=number, lane=None)
            units_got, last_got, flags = _as_units(got[position], spec, interface, lanes)
            position += 1
            units = [(data, ErrorKind(error)) for data, error in units]
            lane = next((lane for lane, (one, other) in enumerate(zip(units, units_got))
                         if one != other), None)
            if lane is None and len(units) != len(units_got):
                lane = min(len(units), len(units_got))
            if lane is not None or last != last_got or flags:
                start, end = _input_span(message, spec, unit + (lane or 0))
                if lane is not None:
                    one = _describe(units[lane:lane + 1])[1:-1] or "no unit"
                    other = _describe(units_got[lane:lane + 1])[1:-1] or "no unit"
                    what = f"lane {lane}: expected {one}, got {other}"
                elif last != last_got:
                    what = f"last: expected {last}, got {last_got}"
                else:
                    what = f"tuser: bits {flags:#x} above the error kinds (a protocol error?)"
                around = bytes(message)[max(0, start - 8):end + 8]
                raise BeatMismatch(
                    f"{where}, {what}\n  the beat: expected {_describe(units)} last={last}"
                    f"\n            got      {_describe(units_got)} last={last_got}"
                    f"\n  input bytes {max(0, start - 8)}..{min(len(message), end + 8)} of "
                    f"the message: {around.hex(' ')} (that unit from bytes {start}..{end})"
                    f"\n  {_cpython(message, spec.source)}",
                    message=index, beat=number, lane=lane)
            unit += len(units)
    if position < len(got):
        raise BeatMismatch(f"{len(got) - position} beat(s) more than the {position} the "
                           f"golden model gives for {len(messages)} message(s)",
                           message=len(messages), beat=0, lane=None)
    return position


class Scoreboard:
    """A scoreboard for a cocotb test (or any bench): give it each message as it goes in
    (:meth:`expect`) and each output beat or frame as it comes (:meth:`add_beat`,
    :meth:`add_frame`); at each message's last beat it checks that message's beats against the
    golden model and raises :exc:`BeatMismatch` at the first difference. It writes nothing
    unless ``log`` (a :class:`logging.Logger`) is given, and then one line a message at
    ``DEBUG`` and its summary (:meth:`finish`) at ``INFO``.

    Parameters
    ----------
    spec : :class:`~utfhw.hdl.cores.CoreSpec`
        The core the DUT holds.
    interface : :class:`str`
        ``"stream"`` or ``"axis"``, as :func:`expected_beats` takes it.
    empty_beats : :class:`bool`
        ``False`` for a module made with ``--no-empty-beats``.
    """
    def __init__(self, spec, *, interface="axis", empty_beats=True, log=None):
        check_choice("interface", interface, INTERFACES)
        self.spec, self.interface, self.empty_beats, self.log = \
            spec, interface, empty_beats, log
        self._messages, self._beats = [], []
        self._format = (VerdictFormat if spec.kind == "validator" else LaneFormat)(
            spec.output_layout)
        self.checked = self.beats = 0

    def expect(self, message):
        """The DUT has been given ``message`` (:class:`bytes`), after those before it."""
        self._messages.append(bytes(message))

    def add_beat(self, beat):
        """One output beat, as :func:`check_beats` takes it."""
        self._beats.append(beat)
        if isinstance(beat, AxisBeat):
            last = beat.tlast
        elif self.interface == "axis":
            last = beat[2]
        else:
            last = (self._format.unpack(beat) if isinstance(beat, int) else beat)[1]
        if last:
            self._check()

    def add_frame(self, frame):
        """One output frame of cocotbext-axi's ``AxiStreamSink.recv(compact=False)``: a
        message's beats, every byte of each beat with its ``tkeep`` and the beat's ``tuser``."""
        layout = self.spec.output_layout
        size = (self.spec.width if self.spec.kind == "validator"
                else layout.lane_count * CODECS[self.spec.target].unit_bytes)
        count = len(frame.tdata) // size
        for index in range(count):
            first = index * size
            tuser = frame.tuser[first] if isinstance(frame.tuser, list) else frame.tuser or 0
            self.add_beat(AxisBeat(
                int.from_bytes(bytes(frame.tdata[first:first + size]), "little"),
                sum(int(bool(keep)) << bit
                    for bit, keep in enumerate(frame.tkeep[first:first + size])),
                index == count - 1, int(tuser)))

    def _check(self):
        index = self.checked
        if index >= len(self._messages):
            raise BeatMismatch(f"a message's last beat came, but only {len(self._messages)} "
                               f"message(s) went in", message=index, beat=0, lane=None)
        try:
            self.beats += check_beats([self._messages[index]], self._beats, self.spec,
                                      interface=self.interface, empty_beats=self.empty_beats)
        except BeatMismatch as mismatch:
            text = str(mismatch).replace("message 0", f"message {index}", 1)
            raise BeatMismatch(text, message=index, beat=mismatch.beat,
                               lane=mismatch.lane) from None
        if self.log is not None:
            self.log.debug("message %d: %d beats exact", index, len(self._beats))
        self.checked += 1
        self._beats = []

    def finish(self):
        """Raise unless every message given has come out whole; return the messages
        checked."""
        if self.checked != len(self._messages) or self._beats:
            raise BeatMismatch(f"{len(self._messages) - self.checked} message(s) did not come "
                               f"out whole", message=self.checked, beat=len(self._beats),
                               lane=None)
        if self.log is not None:
            self.log.info("%d messages, %d beats: exact", self.checked, self.beats)
        return self.checked
