"""The wide core from UTF-16 (ClassifyUTF16Lanes, the lane window and DecodeUTF16Positions, in
WideTranscoder): the unit rule of the model against CPython on every message of up to four
units over the surrogate and BMP edges with odd tails, the beats in Amaranth's simulator against
the model, and the generated Verilog in Verilator against CPython at widths 4 and 8 (every
width with ``UTFHW_SWEEP=full``)."""

import itertools
import random

import pytest
from amaranth.hdl import Fragment

from conftest import FULL_SWEEP
from utfhw.hdl.unicode.params import WIDTHS
from utfhw.hdl.cores.wide import WideTranscoder, output_lanes
from utfhw.hdl.forms.utf16.wide import ClassifyUTF16Lanes, DecodeUTF16Positions
from utfhw.model.reference import transcoder_beats
from utfhw.model.wide import utf16_positions

from support import (SAMPLED_BACKENDS, WIDE_WIDTH, check_a_beat_every_clock, check_verilated,
                     check_wide_beats, check_wide_strict, corpus_messages, handlers, joined)


SOURCES = {"utf-16-le": "little", "utf-16-be": "big"}
FORMS = {"utf-16": "utf-16-le", "utf-32": "utf-32-le"}

# The edges of the surrogate ranges and of the BMP (Unicode ch. 3, D71 to D75).
EDGE_UNITS = [0x0000, 0x0041, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFEFF, 0xFFFD,
              0xFFFF]


def edge_messages(byteorder, units):
    """Every message of ``units`` edge units, with no tail and with an odd final byte."""
    for message in itertools.product(EDGE_UNITS, repeat=units):
        body = b"".join(unit.to_bytes(2, byteorder) for unit in message)
        yield body
        yield body + b"\xd8"


def model_output(message, byteorder, form, errors):
    unit_bytes = 2 if form == "utf-16" else 4
    return b"".join(unit.to_bytes(unit_bytes, "little")
                    for _, (unit, kind) in utf16_positions(message, byteorder, form)
                    if errors == "replace" or kind.value == 0)


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("source,byteorder", SOURCES.items())
def test_unit_rule_against_cpython(source, byteorder, form):
    """Every message of 0 to 4 edge units, with and without an odd byte after them."""
    checked = 0
    for units in range(5):
        for message in edge_messages(byteorder, units):
            for errors in ("replace", "ignore"):
                assert model_output(message, byteorder, form, errors) == \
                    message.decode(source, errors).encode(FORMS[form]), (message.hex(), errors)
            checked += 1
    assert checked == 2 * sum(len(EDGE_UNITS) ** units for units in range(5))


@pytest.mark.parametrize("form", FORMS)
def test_error_kinds_are_the_scalar_cores(form):
    """The replacements carry the scalar cores' error kinds, in the same order."""
    for message in edge_messages("little", 3):
        expected = [item for units, _ in transcoder_beats(message, "utf-16-le", FORMS[form])
                    for item in units]
        assert [unit for _, unit in utf16_positions(message, "little", form)] == expected, \
            message.hex()


def test_stage_parameters():
    with pytest.raises(ValueError, match=r"^width must be at least 2 for utf-16-le, not 1$"):
        ClassifyUTF16Lanes(width=1)
    with pytest.raises(ValueError, match=r"^form must be 'utf-16', 'utf-32' or 'code-point', "
                                         r"not 'utf-8'$"):
        DecodeUTF16Positions(width=2, form="utf-8")
    with pytest.raises(ValueError, match=r"^width must be at least 2 for utf-16-be, not 1$"):
        WideTranscoder(source="utf-16-be", width=1)


def test_output_lanes():
    assert [output_lanes("utf-16-be", target, 16)
            for target in ("utf-16-le", "utf-32-be", "utf-8")] == [8, 8, 32]


def test_widest_to_utf8_builds():
    """At W = 64 the output beat to UTF-8 has 128 byte lanes, more than any core's input: its
    compactor and repacker (here with the mark to lead) take them (they once took only a
    core's widths)."""
    core = WideTranscoder(source="utf-16-le", target="utf-8-sig", width=64)
    assert core.o.payload.shape()["lanes"].shape.length == 128
    Fragment.get(core, None)


def random_messages(rng, byteorder, width, count):
    units = [unit.to_bytes(2, byteorder) for unit in EDGE_UNITS]
    messages = []
    for _ in range(count):
        message = b"".join(rng.choice(units) for _ in range(rng.randrange(0, 3 * width // 2 + 2)))
        messages.append(message + rng.choice([b"", b"", b"\x00"]))
    return messages + [b"", b"\x00", b"\x00\xd8", b"\x00\xdc", b"\x00\xd8\x41"]


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("source,target,width", [
    ("utf-16-le", "utf-16-le", 2), ("utf-16-be", "utf-16-le", 4), ("utf-16-le", "utf-16-be", 8),
    ("utf-16-le", "utf-32-le", 2), ("utf-16-be", "utf-32-be", 4), ("utf-16-be", "utf-8", 4)])
def test_beats_as_the_model_gives(source, target, width, errors):
    """Beat for beat what the model of the wide core says, under stalls on both sides."""
    rng = random.Random(f"{source}{target}{width}{errors}")
    check_wide_beats(random_messages(rng, SOURCES[source], width, 50), source, target, width,
                     errors)


@pytest.mark.parametrize("target", ["utf-16-le", "utf-32-be", "utf-8"])
def test_a_beat_every_clock(target):
    """With the output always ready, any input moves at ``width`` bytes a clock."""
    rng = random.Random(target)
    message = b"".join(rng.choice(EDGE_UNITS).to_bytes(2, "little") for _ in range(300))
    check_a_beat_every_clock([message, message[:8 * 5 + 3], b"", b"\x00"], "utf-16-le", target,
                             8)


VERILATED_WIDTHS = [width for width in WIDTHS if width >= 2] if FULL_SWEEP else [4, WIDE_WIDTH]


# The wide-width cores CI builds from UTF-16 (each build takes seconds, more than its checks):
# UTF-16-LE to UTF-8 with replace, and UTF-16-BE to UTF-16-LE with both handlers.
@pytest.mark.parametrize("source,target,errors,width", [
    (source, target, errors, width)
    for source, target, errors in [("utf-16-le", "utf-16-be", "replace"),
                                   ("utf-16-be", "utf-32-le", "ignore"),
                                   ("utf-16-le", "utf-8", "replace")]
    for width in VERILATED_WIDTHS if FULL_SWEEP or width != WIDE_WIDTH or target == "utf-8"])
def test_every_pair_of_units_at_every_lane(source, target, errors, width):
    """Every message of one to three edge units (odd tails included), each after 0 to
    ``width / 2 - 1`` units of ASCII, of high surrogates and of low ones, so that it meets every
    lane and the beat boundary with every unit before it; and every code unit, and every
    surrogate pair of the edges, in one message (to UTF-8, every BMP scalar value's one to
    three bytes and a grid of four-byte ones)."""
    byteorder = SOURCES[source]
    rng = random.Random(width)
    fillers = [unit.to_bytes(2, byteorder) for unit in (0x41, 0xD800, 0xDC00)]
    messages = []
    for units in (1, 2, 3):
        for message in edge_messages(byteorder, units):
            messages.append(rng.choice(fillers) * rng.randrange(width // 2) + message)
    check_verilated(*joined(messages), source, target, errors=errors, width=width)
    every = b"".join(unit.to_bytes(2, byteorder) for unit in range(0x10000))
    pairs = b"".join(high.to_bytes(2, byteorder) + low.to_bytes(2, byteorder)
                     for high in range(0xD800, 0xDC00, 7) for low in range(0xDC00, 0xE000, 5))
    check_verilated(every + pairs, [len(every), len(pairs)], source, target, errors=errors,
                    width=width, stall=0.2, seed=width)


@pytest.mark.parametrize("source,target,stall,width", [
    (source, target, stall, width)
    for source, target, stall in [("utf-16-le", "utf-32-be", 0.0), ("utf-16-be", "utf-16-le", 0.5)]
    for width in VERILATED_WIDTHS if FULL_SWEEP or width != WIDE_WIDTH or source == "utf-16-be"])
def test_adversarial_with_stalls(source, target, width, stall):
    """Messages of edge units of every length around the width, odd bytes at their ends, empty
    and one-byte messages; stalls on both sides."""
    rng = random.Random(f"{source}{width}{stall}")
    messages = random_messages(rng, SOURCES[source], width, 800)
    for errors in handlers(source, target, width, stall):
        check_verilated(*joined(messages), source, target, errors=errors, width=width,
                        stall=stall, seed=width)


@pytest.mark.parametrize("width", [4, WIDE_WIDTH])
def test_corpus(corpus, width):
    """Every file of the corpus as UTF-16 (its text, decoded as UTF-8 with replacement), and
    its bytes read as UTF-16 as they are."""
    check_verilated(*joined(corpus_messages(corpus, "utf-16-le")), "utf-16-le", "utf-8",
                    width=width, stall=0.2, seed=3)


def test_multi_megabyte_message():
    rng = random.Random(2)
    units = [unit.to_bytes(2, "big") for unit in EDGE_UNITS]
    data = b"".join(rng.choice(units) for _ in range((8 if FULL_SWEEP else 2) << 20))
    run = check_verilated(data, [len(data)], "utf-16-be", "utf-16-le", width=WIDE_WIDTH)
    assert run.input_beats == len(data) // WIDE_WIDTH


@pytest.mark.parametrize("backend", SAMPLED_BACKENDS)
def test_strict(backend):
    """CPython's start, end and reason, found from the wide core's units."""
    rng = random.Random(backend)
    units = [unit.to_bytes(2, "little") for unit in EDGE_UNITS]
    cases = [b"A\x00" * 3 + unit + tail + b"B\x00" for unit in units for tail in (b"", b"\xd8")]
    cases += [b"\x00\xd8", b"\x00\xd8\x41", b"\x41", b"a\x00\x41", "😀é".encode("utf-16-le")]
    cases += [b"".join(rng.choice(units) for _ in range(rng.randrange(1, 8))) +
              bytes(rng.randrange(2)) for _ in range(12)]
    # Amaranth's simulator is slow: two of the cores there.
    cores = ((2, "utf-16-be"), (8, "utf-32-le"), (4, "utf-8"))
    check_wide_strict(cases, "utf-16-le", cores if backend == "verilator" else cores[::2],
                      backend)
