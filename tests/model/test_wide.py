"""The per-position rule of the wide UTF-8 to UTF-16 and UTF-32 cores (model/wide.py), each
position decided from bytes i-3 to i+1 alone, against CPython and the reference model: every
message of up to a few bytes over the bytes at the edges of Unicode Table 3-7."""

import itertools
import random

import pytest

from support import EDGES_9, EDGES_13, EDGES_25, SWEEPS
from utfhw.hdl.unicode.layout import ErrorKind
from utfhw.hdl.forms import CODECS
from utfhw.model.reference import transcoder_beats
from utfhw.model.wide import LOOKBEHIND, message_units, position_unit
from utfhw.model.wide import _beat_clocks, _stage_beats


FORMS = {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}


def units_bytes(units, form="utf-16"):
    return b"".join(unit.to_bytes(2 if form == "utf-16" else 4, "little") for unit, _ in units)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("alphabet,length", SWEEPS,
                         ids=[f"{len(alphabet)}^{length}" for alphabet, length in SWEEPS])
def test_every_message_against_cpython(alphabet, length, form):
    checked = 0
    for message in itertools.product(alphabet, repeat=length):
        message = bytes(message)
        for errors in ("replace", "ignore"):
            units = message_units(message, errors, form)
            assert units_bytes(units, form) == \
                message.decode("utf-8", errors).encode(FORMS[form]), (message.hex(), errors)
        checked += 1
    assert checked == len(alphabet) ** length


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("alphabet,length", [(EDGES_25, 3), (EDGES_13, 4)])
def test_error_kinds_are_the_scalar_cores(alphabet, length, form):
    """The same replacements carry the same error kinds as the scalar cores' (which the
    reference model gives beat by beat): only where they come out differs."""
    for message in map(bytes, itertools.product(alphabet, repeat=length)):
        expected = [(unit, kind) for units, _ in transcoder_beats(message, "utf-8", FORMS[form])
                    for unit, kind in units]
        assert message_units(message, form=form) == expected, message.hex()


@pytest.mark.parametrize("form", FORMS)
def test_at_most_one_unit_a_position_and_no_more_units_than_bytes(form):
    for message in map(bytes, itertools.product(EDGES_13, repeat=4)):
        assert len(message_units(message, form=form)) <= len(message)


def test_window_is_all_a_position_sees():
    """Bytes before i-3 do not change what position i emits: a position after a long prefix
    emits what it emits after only its window."""
    for window in itertools.product(EDGES_9, repeat=LOOKBEHIND + 2):
        *behind, byte, following = window
        for prefix in (b"\xf0\x9f", b"\xe2", b"A\xc3"):
            whole = prefix + bytes(window)
            position = len(prefix) + LOOKBEHIND
            in_message = position_unit(list(whole[position - LOOKBEHIND:position]),
                                       whole[position], whole[position + 1])
            assert in_message == position_unit(behind, byte, following)


def test_known_cases():
    # Unicode's examples of maximal subparts, and a supplementary character.
    assert [unit for unit, _ in message_units(bytes.fromhex("F4 91 92 93 FF 41 80 BF 42"))] == \
        [0xFFFD] * 5 + [0x41, 0xFFFD, 0xFFFD, 0x42]
    assert message_units(b"\xf0\x9f\x98\x80") == [(0xD83D, ErrorKind.NONE),
                                                  (0xDE00, ErrorKind.NONE)]
    assert message_units(b"\xf0\x9f\x98\x80", form="utf-32") == [(0x1F600, ErrorKind.NONE)]
    assert message_units(b"\xf4\x8f\xbf\xbf", form="utf-32") == [(0x10FFFF, ErrorKind.NONE)]
    assert message_units(b"\xe2\x82") == [(0xFFFD, ErrorKind.UNEXPECTED_END_OF_DATA)]
    assert message_units(b"\xe2\x28") == [(0xFFFD, ErrorKind.INVALID_CONTINUATION_BYTE), (0x28, ErrorKind.NONE)]


def test_window_length_checked():
    with pytest.raises(ValueError, match="^behind must hold 3 bytes, not 2$"):
        position_unit([None, 0x41], 0x41, None)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("source", ["utf-8", "utf-8-sig", "utf-16", "utf-16-be", "utf-32-le"])
def test_clocks_a_beat_are_its_parts(source, errors):
    """The clocks the model counts for each beat of the stages, which it counts without the
    units where a beat is one part, are the parts the stages give it."""
    rng = random.Random(f"{source}{errors}")
    messages = [bytes(rng.choice(EDGES_25) for _ in range(rng.randrange(40)))
                for _ in range(40)] + [b"", "\ufeffé€😀".encode(source)]
    for target, width in itertools.product(["utf-8", "utf-16-be", "utf-32"], [1, 2, 4, 8]):
        form = CODECS[target].form.name
        width = max(width, CODECS[source].unit_bytes)
        for message in messages:
            parts = _stage_beats(message, width, errors, source, form)
            assert _beat_clocks(message, width, errors, source, form) == \
                [len(beat) for beat in parts]
