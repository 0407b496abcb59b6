"""What each byte position of a wide core from UTF-8 (or each unit, from UTF-32) emits: a model
written from the specification, for the wide cores to be checked against.

A wide core takes W bytes a clock, so no lane can wait for the lanes before it. Two facts make
the lanes independent (see ``docs/wide-design.md``): the decoder's state after byte ``i`` is a
function of bytes ``i-2`` to ``i`` alone (Unicode ch. 3, Table 3-7: a sequence is at most four
bytes, and a byte that breaks one is read again from the start state); and with one byte of
lookahead every byte position emits at most one UTF-16 unit:

- a complete character at its last byte: its unit, or its low surrogate;
- a four-byte character's high surrogate at its third byte, once byte ``i+1`` continues it;
- a U+FFFD at the last byte of a maximal ill-formed subpart (Unicode ch. 3, D93b and "U+FFFD
  Substitution of Maximal Subparts"), when byte ``i+1`` does not continue it or the message
  ends there;
- nothing for a byte that only starts or continues a sequence.

For UTF-32 the rule is the same but for four-byte characters, which give their scalar value
whole at their last byte and nothing at their third.

:func:`position_unit` is that rule for one position, from bytes ``i-3`` to ``i+1``; the
tests check it against CPython over every message of a few bytes drawn from the bytes at the
edges of Table 3-7. The error kinds are the ones the scalar cores give the same replacements.
"""

import functools
from dataclasses import dataclass

from ..hdl.unicode.layout import ErrorKind, REPLACEMENT_CHARACTER
from ..hdl.forms import CODECS, canonical_pair
from .reference import following_ranges, transcoder_beats, utf8_sequence


__all__ = ["LOOKBEHIND", "position_unit", "message_units", "utf16_positions", "utf32_unit",
           "source_byteorder", "repack_beats",
           "stream_clocks", "wide_clocks", "wide_beats", "expected_beats", "without_empty_beats"]


#: Bytes before position ``i`` that decide the state it meets.
LOOKBEHIND = 3


@dataclass(frozen=True)
class _State:
    needs: int = 0          # continuation bytes the pending sequence still needs
    ranges: tuple = ()      # the ranges they must fall in, the next one first
    value: int = 0          # the scalar value's bits so far
    length: int = 0         # bytes of the whole sequence


_START = _State()


def _continues(state, byte):
    if not state.needs or byte is None:
        return False
    low, high = state.ranges[0]
    return low <= byte <= high


@functools.lru_cache(maxsize=1 << 16)
def _advance(state, byte):
    """The state after ``byte``: it continues the pending sequence, or starts afresh."""
    if _continues(state, byte):
        return _State(state.needs - 1, state.ranges[1:], state.value << 6 | byte & 0x3F,
                      state.length)
    ranges = following_ranges(byte)
    if not ranges:          # ASCII, or a byte that starts no sequence
        return _START
    return _State(len(ranges), tuple(ranges), byte & (0x7F >> (len(ranges) + 1)),
                  len(ranges) + 1)


@functools.lru_cache(maxsize=1 << 20)
def _state_before(behind):
    state = _START
    for byte in behind:
        if byte is not None:
            state = _advance(state, byte)
    return state


def _replacement(following):
    # The message ends inside the subpart, or the next byte breaks it.
    return REPLACEMENT_CHARACTER, (ErrorKind.UNEXPECTED_END_OF_DATA if following is None
                                   else ErrorKind.INVALID_CONTINUATION_BYTE)


def position_unit(behind, byte, following, form="utf-16"):
    """The UTF-16 unit (or, with ``form="utf-32"``, the UTF-32 unit) byte position ``i``
    emits, as ``(unit, ErrorKind)``, or ``None``.

    ``behind`` holds bytes ``i-3`` to ``i-1`` (``None`` for positions before the message),
    ``byte`` is byte ``i`` and ``following`` byte ``i+1``, or ``None`` where the message ends
    at ``i``."""
    if len(behind) != LOOKBEHIND:
        raise ValueError(f"behind must hold {LOOKBEHIND} bytes, not {len(behind)}")
    return _window_unit(tuple(behind), byte, following, form)


# A message of n bytes asks for n windows, and the tests' messages repeat their windows: each
# is worked out once (the suite's long runs spent most of their time here).
@functools.lru_cache(maxsize=1 << 20)
def _window_unit(behind, byte, following, form):
    state = _state_before(behind)
    if _continues(state, byte):
        after = _advance(state, byte)
        if not after.needs:
            value = after.value
            if value >= 0x10000 and form == "utf-16":
                return 0xDC00 | value & 0x3FF, ErrorKind.NONE
            return value, ErrorKind.NONE
        if not _continues(after, following):
            return _replacement(following)
        if state.length == 4 and after.needs == 1 and form == "utf-16":
            # RFC 2781, 2.1: the high surrogate holds bits 10 to 20 of U - 0x10000, all of
            # them in the three bytes so far.
            return 0xD800 | ((after.value << 6) - 0x10000) >> 10, ErrorKind.NONE
        return None
    if byte < 0x80:
        return byte, ErrorKind.NONE
    if following_ranges(byte):
        if _continues(_advance(_START, byte), following):
            return None
        return _replacement(following)
    return REPLACEMENT_CHARACTER, ErrorKind.INVALID_START_BYTE


def _position_units(message, errors, form="utf-16"):
    """What each position of ``message`` emits: ``(unit, ErrorKind)`` or ``None``."""
    padded = [None] * LOOKBEHIND + list(message) + [None]
    units = []
    for index, byte in enumerate(message):
        if byte < 0x80:
            # An ASCII byte continues no sequence, so it is its own unit whatever is behind it.
            units.append((byte, ErrorKind.NONE))
            continue
        position = index + LOOKBEHIND
        emitted = _window_unit(tuple(padded[position - LOOKBEHIND:position]), byte,
                               padded[position + 1], form)
        if emitted is not None and errors == "ignore" and emitted[1] != ErrorKind.NONE:
            emitted = None
        units.append(emitted)
    return units


def message_units(message, errors="replace", form="utf-16"):
    """The ``(unit, ErrorKind)`` of one message, position by position, each from its own
    window; ``errors="ignore"`` leaves the replacements out."""
    return [unit for unit in _position_units(bytes(message), errors, form) if unit is not None]


def repack_beats(items, width):
    """What :class:`~utfhw.hdl.lanes.repack.Repacker` makes of one message whose input beats hold
    ``items`` (a list per beat): ``(items, last)`` beats of ``width`` items, the last of the
    message with what is left (maybe nothing).

    The items of each beat join a queue, and every ``width`` of them make a beat; the last
    input beat sends what is left with ``last``, even nothing, so a message whose items fill
    its beats exactly ends with an empty beat when its last input beat adds no item."""
    beats = []
    queue = []
    for index, beat_items in enumerate(items):
        queue += beat_items
        final = index == len(items) - 1
        if len(queue) > width or (len(queue) == width and not final):
            beats.append((queue[:width], False))
            queue = queue[width:]
        if final:
            beats.append((queue, True))
    return beats


def utf32_unit(chunk, byteorder):
    """The code point one UTF-32 unit (``chunk``, 4 bytes, or 1 to 3 at the end of a message)
    decodes to, as ``(code point, ErrorKind)`` (Unicode ch. 3, D90; CPython's kinds of
    error)."""
    if len(chunk) < 4:
        return REPLACEMENT_CHARACTER, ErrorKind.TRUNCATED_DATA
    value = int.from_bytes(chunk, byteorder)
    if value > 0x10FFFF:
        return REPLACEMENT_CHARACTER, ErrorKind.OUT_OF_RANGE
    if 0xD800 <= value < 0xE000:
        return REPLACEMENT_CHARACTER, ErrorKind.SURROGATE
    return value, ErrorKind.NONE


def utf16_positions(message, byteorder, form="utf-16"):
    """What each unit of a UTF-16 message (and its odd final byte) emits, position by position:
    ``(byte offset, (unit, ErrorKind))`` for each that emits one, the unit numeric in ``form``
    (RFC 2781, section 2.2; CPython's replacements). A surrogate pair emits its two units at
    its two positions to UTF-16, its code point at the low one to UTF-32; a unit decides from
    the unit before and the unit after it alone."""
    units = [int.from_bytes(message[offset:offset + 2], byteorder)
             for offset in range(0, len(message) - 1, 2)]

    def high(index):
        return 0 <= index < len(units) and 0xD800 <= units[index] < 0xDC00

    def low(index):
        return 0 <= index < len(units) and 0xDC00 <= units[index] < 0xE000

    emitted = []
    for index, unit in enumerate(units):
        if high(index):
            if low(index + 1):
                if form == "utf-16":
                    emitted.append((2 * index, (unit, ErrorKind.NONE)))
            elif index + 1 < len(units):
                emitted.append((2 * index, (REPLACEMENT_CHARACTER,
                                            ErrorKind.UNPAIRED_HIGH_SURROGATE)))
            else:       # the message ends after it, or after one more byte
                emitted.append((2 * index, (REPLACEMENT_CHARACTER, ErrorKind.UNEXPECTED_END_OF_DATA)))
        elif low(index):
            if not high(index - 1):
                emitted.append((2 * index, (REPLACEMENT_CHARACTER, ErrorKind.SURROGATE)))
            elif form == "utf-16":
                emitted.append((2 * index, (unit, ErrorKind.NONE)))
            else:
                code_point = 0x10000 + ((units[index - 1] - 0xD800) << 10) + (unit - 0xDC00)
                emitted.append((2 * index, (code_point, ErrorKind.NONE)))
        else:
            emitted.append((2 * index, (unit, ErrorKind.NONE)))
    if len(message) % 2 and not high(len(units) - 1):
        emitted.append((len(message) - 1, (REPLACEMENT_CHARACTER, ErrorKind.TRUNCATED_DATA)))
    return emitted


def _encoded(code_point, form):
    """The numeric units of one code point in UTF-8 (its bytes), UTF-16 or UTF-32 (RFC 2781,
    section 2.1)."""
    if form == "utf-8":
        return list(utf8_sequence(code_point))
    if form == "utf-32" or code_point < 0x10000:
        return [code_point]
    offset = code_point - 0x10000
    return [0xD800 | offset >> 10, 0xDC00 | offset & 0x3FF]


#: U+FEFF, which a byte order mark encodes.
_MARK = 0xFEFF

# The forms of one-byte units, each with the greatest code point it holds (ISO/IEC 8859-1,
# ANSI X3.4); as a target, CPython writes ``?`` for any other.
_SINGLE_BYTE_LAST = {"latin-1": 0xFF, "ascii": 0x7F}

#: The byte order marks of ``utf-16`` and ``utf-32`` (Unicode ch. 23.8), with the order each
#: gives.
_MARKS = {"utf-16": {b"\xff\xfe": "little", b"\xfe\xff": "big"},
          "utf-32": {b"\xff\xfe\x00\x00": "little", b"\x00\x00\xfe\xff": "big"}}


def source_byteorder(message, source):
    """``(byteorder, mark bytes)`` of a UTF-16 or UTF-32 message: the codec's order, or for
    ``utf-16`` and ``utf-32`` that of a leading mark (and its length), little-endian without
    one."""
    codec = CODECS[source]
    if codec.byteorder != "detect":
        return codec.byteorder, 0
    for mark, byteorder in _MARKS[codec.form.name].items():
        if message.startswith(mark):
            return byteorder, len(mark)
    return "little", 0


def _emissions(message, errors, source, form):
    """``(byte offset, (unit, ErrorKind))`` for each unit the message gives, before repacking:
    at the position that emits it from UTF-8 and UTF-16, at its unit from UTF-32, at its byte
    from a one-byte form. To a one-byte form, each code point the form cannot hold is ``?``
    of kind ``UNENCODABLE_CHARACTER`` (a replacement keeps its kind), or dropped (``ignore``)."""
    if form in _SINGLE_BYTE_LAST:
        emitted = []
        for offset, (value, kind) in _emissions(message, errors, source, "utf-32"):
            if value > _SINGLE_BYTE_LAST[form]:
                if errors == "ignore":
                    continue
                value = ord("?")
                kind = kind if kind != ErrorKind.NONE else ErrorKind.UNENCODABLE_CHARACTER
            emitted.append((offset, (value, kind)))
        return emitted
    source_form = CODECS[source].form.name
    if source_form in _SINGLE_BYTE_LAST:
        last = _SINGLE_BYTE_LAST[source_form]
        return [(offset, (unit, kind)) for offset, byte in enumerate(message)
                for code_point, kind in [(byte, ErrorKind.NONE) if byte <= last else
                                         (REPLACEMENT_CHARACTER, ErrorKind.ORDINAL_NOT_IN_RANGE)]
                if errors == "replace" or kind == ErrorKind.NONE
                for unit in _encoded(code_point, form)]
    if source_form == "utf-8":
        emitted = list(enumerate(_position_units(message, errors, form)))
        if source == "utf-8-sig" and message.startswith(b"\xef\xbb\xbf"):
            emitted[2] = (2, None)          # the mark is taken in, and gives nothing
        return [(offset, unit) for offset, unit in emitted if unit is not None]
    byteorder, skipped = source_byteorder(message, source)
    rest = message[skipped:]
    if CODECS[source].form.name == "utf-16":
        # To UTF-8, each unit's code point as its bytes.
        emitted = [(offset, (unit, kind))
                   for offset, (value, kind) in utf16_positions(
                       rest, byteorder, "utf-32" if form == "utf-8" else form)
                   for unit in (_encoded(value, form) if form == "utf-8" else [value])]
    else:
        emitted = [(offset, (unit, kind)) for offset in range(0, len(rest), 4)
                   for code_point, kind in [utf32_unit(rest[offset:offset + 4], byteorder)]
                   for unit in _encoded(code_point, form)]
    return [(skipped + offset, unit) for offset, unit in emitted
            if errors == "replace" or unit[1] == ErrorKind.NONE]


def _position_bytes(message, errors, source):
    """From UTF-8 to UTF-8, what each position of ``message`` gives: its own byte when it
    belongs to a complete character (the characters are where the rule to UTF-32 emits a
    scalar value, as long as its UTF-8 sequence), or U+FFFD's three bytes where that rule
    emits a replacement, each with its ``ErrorKind``."""
    emitted = [[] for _ in message]
    for offset, (value, kind) in _emissions(message, errors, source, "utf-32"):
        if kind == ErrorKind.NONE:
            length = len(utf8_sequence(value))
            for position in range(offset - length + 1, offset + 1):
                emitted[position] = [(message[position], kind)]
        else:
            emitted[offset] = [(byte, kind) for byte in utf8_sequence(value)]
    return emitted


#: From UTF-8 to UTF-8, the clocks a beat with a U+FFFD takes (a quarter of its positions a
#: clock), and so the beats it gives before repacking.
EXPANDED_CHUNKS = 4


def _expands(width, source, form):
    """Whether the core writes U+FFFD's bytes after a queue, over four clocks for a beat with
    one: to UTF-8 from UTF-8, and from ASCII (whose U+FFFD is three bytes for one) at four
    bytes a beat or more."""
    source_form = CODECS[source].form.name
    return form == "utf-8" and (source_form == "utf-8"
                                or (source_form == "ascii" and width >= EXPANDED_CHUNKS))


def _positions(width, source, form):
    """Bytes a beat of the stages holds: from UTF-8 to UTF-8 at least four, the bytes after
    a position that decide it (narrower input beats are gathered)."""
    if CODECS[source].form.name == form == "utf-8":
        return max(width, EXPANDED_CHUNKS)
    return width


def _stage_beats(message, width, errors, source, form):
    """The units each beat of the stages gives, before repacking, in the parts it gives them
    in: one part, or from UTF-8 to UTF-8 four for a beat with a U+FFFD."""
    expands = _expands(width, source, form)
    width = _positions(width, source, form)
    starts = range(0, len(message), width) if message else [0]
    if expands:
        emitted = _position_bytes(message, errors, source)
        beats = []
        for start in starts:
            positions = emitted[start:start + width]
            if any(kind != ErrorKind.NONE for units in positions for _, kind in units):
                part = width // EXPANDED_CHUNKS
                beats.append([[unit for units in positions[chunk * part:(chunk + 1) * part]
                               for unit in units] for chunk in range(EXPANDED_CHUNKS)])
            else:
                beats.append([[unit for units in positions for unit in units]])
        return beats
    beats = [[] for _ in starts]
    for offset, unit in _emissions(message, errors, source, form):
        beats[offset // width].append(unit)
    return [[units] for units in beats]


def _beat_units(message, width, errors, source, form):
    """The units of each part of each beat of the stages, before repacking."""
    return [part for beat in _stage_beats(message, width, errors, source, form)
            for part in beat]


def _beat_clocks(message, width, errors, source, form):
    """The clocks each beat of the stages takes: its parts (:func:`_stage_beats`)."""
    positions = _positions(width, source, form)
    beats = max(1, -(-len(message) // positions))
    if _expands(width, source, form) and errors == "replace":
        # A beat takes four parts where a position of it gives a U+FFFD: found from the
        # replacements alone, without the units (the suite's wide runs spent most of their
        # time working those out).
        replaced = {offset // positions for offset, (_, kind)
                    in _emissions(message, errors, source, "utf-32") if kind != ErrorKind.NONE}
        return [EXPANDED_CHUNKS if beat in replaced else 1 for beat in range(beats)]
    return [1] * beats


def stream_clocks(messages, width, *, errors="replace", target="utf-16-le", source="utf-8"):
    """Clocks the wide core's slowest stage takes for ``messages`` sent back to back with the
    output ready: a clock for each input beat, and to a target that writes a mark a clock of
    rest after each message.

    From UTF-8 to UTF-8 with ``replace``, a beat of the stages with a U+FFFD takes four
    clocks. Below four bytes a beat, the beats of the stages are gathered from input beats,
    and a beat that is not its message's last waits for the next one (whose bytes decide its
    last positions): a beat ends ``max(the input beat it waits for, the end of the beat
    before it) + its clocks`` clocks in, which is a clock per input beat while no beat takes
    longer than its input did. (At four bytes or more the beats are the input's, and the
    clocks their sum.)

    That is exact but where the input waits for the queue in the middle, below four bytes a
    beat from UTF-8 to UTF-8 (``replace`` with many U+FFFD, or many short messages to
    ``utf-8-sig``): then it is the fewest clocks, and the most are a clock for each input
    beat and each clock of *expand* (this function at width 4), since while the input waits
    *expand* is busy."""
    source, target = canonical_pair(source, target)
    form = CODECS[target].form.name
    rest = CODECS[target].mark
    gathered = _positions(width, source, form)
    end = beats_in = 0
    for message in messages:
        message = bytes(message)
        clocks = _beat_clocks(message, width, errors, source, form)
        # The input beat each beat of the stages is complete with, counted from 1.
        complete = []
        for beat in range(len(clocks)):
            size = len(message) - beat * gathered if beat == len(clocks) - 1 else gathered
            beats_in += max(1, -(-size // width))
            complete.append(beats_in)
        # A beat starts once the next one of its message is complete, a clock after which is
        # in the latency; its message's last, once it is.
        waits = [following - 1 for following in complete[1:]] + complete[-1:]
        for beat, (wait, beat_clocks) in enumerate(zip(waits, clocks)):
            end = max(wait - 1, end) + beat_clocks + rest * (beat == len(clocks) - 1)
    return end


def wide_clocks(message, width, *, errors="replace", target="utf-16-le", source="utf-8"):
    """Clocks the wide core's slowest stage takes for one message with the output ready
    (:func:`stream_clocks`)."""
    return stream_clocks([message], width, errors=errors, target=target, source=source)


def wide_beats(message, width, *, errors="replace", target="utf-16-le", source="utf-8"):
    """The output beats of the wide core from ``source`` to ``target`` (``utf-16-le``, ``-be``,
    ``utf-32-le``, ``-be`` or ``utf-8``) for one message
    sent ``width`` bytes a beat: ``(units, last)`` tuples, ``units`` a list of ``(data,
    ErrorKind)`` with ``data`` in wire order, as :class:`~utfhw.sim.payload.LaneFormat` reads
    them.

    From UTF-8 each byte position emits what :func:`position_unit` says; from UTF-32 each unit
    its code point's units. Each input beat's units go to :func:`repack_beats` (an empty
    message is one empty beat), whose beats hold as many units as one input beat can give
    (:func:`~utfhw.hdl.cores.wide.output_lanes`)."""
    message = bytes(message)
    source, target = canonical_pair(source, target)
    codec = CODECS[target]
    units = _beat_units(message, width, errors, source, codec.form.name)
    if codec.mark:
        # The target's byte order mark, before the first beat's units.
        units[0] = [(unit, ErrorKind.NONE) for unit in _encoded(_MARK, codec.form.name)] + units[0]
    beats = repack_beats(units, _output_lanes(source, target, width))
    if codec.byteorder == "big":
        beats = [([(int.from_bytes(unit.to_bytes(codec.unit_bytes, "big"), "little"), kind)
                   for unit, kind in units], last) for units, last in beats]
    return beats


def _output_lanes(source, target, width):
    # The model's own count: a byte gives at most one unit (and at least four bytes a beat
    # from UTF-8 to UTF-8), and so does a UTF-16 unit (or up to four bytes of UTF-8); a UTF-32
    # unit one code point, one UTF-32 unit, up to two UTF-16 units or four bytes. A beat has
    # room for more than the mark, in a power of two.
    form = CODECS[target].form.name
    most = {"utf-8": 4, "utf-16": 2, "utf-32": 1, "latin-1": 1, "ascii": 1}[form]
    source_form = CODECS[source].form.name
    if source_form == "utf-8":
        lanes = _positions(width, source, form)
    elif source_form == "utf-16":
        lanes = width // 2 * (4 if form == "utf-8" else 1)
    elif _expands(width, source, form):
        # A beat of ASCII's bytes or U+FFFD's three, written over four clocks.
        lanes = width
    elif source_form in _SINGLE_BYTE_LAST:
        # A byte of Latin-1 is up to two bytes of UTF-8, one of ASCII U+FFFD's three (in
        # four slots, a power of two); one unit of any other form.
        lanes = width * ({"latin-1": 2, "ascii": 4}[source_form] if form == "utf-8" else 1)
    else:
        lanes = width // 4 * most
    while CODECS[target].mark and lanes <= len(_encoded(_MARK, form)):
        lanes *= 2
    return lanes


def expected_beats(message, source, target, errors="replace", *, width=None, empty_beats=True):
    """The output beats of the core :func:`~utfhw.hdl.cores.make_core` builds for one
    message: :func:`~utfhw.model.reference.transcoder_beats` of the scalar cores, or with
    ``width`` :func:`wide_beats` of the wide core; without ``empty_beats``, as
    :class:`~utfhw.hdl.empty_beats.DropEmptyBeats` passes them on
    (:func:`without_empty_beats`)."""
    if width is None:
        beats = transcoder_beats(message, source, target, errors)
    else:
        beats = wide_beats(message, width, errors=errors, target=target, source=source)
    return beats if empty_beats else without_empty_beats(beats)


def without_empty_beats(beats):
    """One message's ``(units, last)`` beats without those that carry no unit: the message's
    ``last`` on its last beat with units, or one empty beat with ``last`` if it has none."""
    kept = [(units, False) for units, _ in beats if units]
    if not kept:
        return [([], True)]
    return kept[:-1] + [(kept[-1][0], True)]
