"""The wide core from UTF-32 (DecodeUTF32Lanes and EncodeLanes, in WideTranscoder): the unit rule
of the model against CPython at the edges of the scalar range, the beats in Amaranth's simulator
against the model, and the generated Verilog in Verilator against CPython at widths 4 and 8
(every width with ``UTFHW_SWEEP=full``): every scalar value, messages at every lane offset,
adversarial streams with stalls, the corpus, a multi-megabyte message and strict errors."""

import random

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.forms import FORMS
from utfhw.hdl.cores import check_core
from utfhw.hdl.unicode.layout import ErrorKind
from utfhw.hdl.unicode.params import WIDTHS
from utfhw.hdl.cores.wide import WideTranscoder, output_lanes
from utfhw.hdl.wide.encode import EncodeLanes
from utfhw.hdl.forms.utf32.wide import DecodeUTF32Lanes
from utfhw.model.wide import utf32_unit

from support import (SAMPLED_BACKENDS, WIDE_WIDTH, check_a_beat_every_clock, check_verilated,
                     check_wide_beats, check_wide_strict, corpus_messages, cpython_strict_error,
                     handlers, joined)


SOURCES = {"utf-32-le": "little", "utf-32-be": "big"}
TARGETS = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8")

# The edges of the scalar range (Unicode ch. 3, D76, D71) and of the unit's bytes.
EDGE_VALUES = [0x0, 0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
               0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x10FFFF, 0x110000, 0x1FFFFF,
               0x200000, 0xD800 | 0x10000, 0x00FFFFFF, 0x01000000, 0x7FFFFFFF, 0x80000000,
               0xFFFFFFFF, 0x0010D800, 0x0000DC00 | 1 << 24]


def edge_units(byteorder):
    return [value.to_bytes(4, byteorder) for value in EDGE_VALUES]


@pytest.mark.parametrize("source,byteorder", SOURCES.items())
def test_unit_rule_against_cpython(source, byteorder):
    """Each edge value alone, after another, and cut to 1 to 3 bytes at a message's end: the
    model's code point and error kind, and CPython's strict span for the error."""
    units = edge_units(byteorder)
    for unit in units:
        for before in (b"", units[1]):
            message = before + unit
            code_point, kind = utf32_unit(unit, byteorder)
            assert chr(code_point) == message.decode(source, "replace")[-1]
            error = cpython_strict_error(message, source)
            assert (error is None) == (kind == ErrorKind.NONE), message.hex()
            for cut in (1, 2, 3):
                assert utf32_unit(unit[:cut], byteorder) == (0xFFFD, ErrorKind.TRUNCATED_DATA)
                assert (before + unit[:cut]).decode(source, "replace")[-1] == "\ufffd"


@pytest.mark.parametrize("arguments,message", [
    ({"source": "utf-32-le", "width": 2}, "width must be at least 4 for utf-32-le, not 2"),
    ({"source": "utf-32-be", "width": 1}, "width must be at least 4 for utf-32-be, not 1"),
    ({"source": "utf-32", "target": "utf-32", "width": 2},
     "width must be at least 4 for utf-32, not 2"),
])
def test_parameters(arguments, message):
    with pytest.raises(ValueError) as error:
        WideTranscoder(**arguments)
    assert str(error.value) == message


def test_stage_parameters():
    with pytest.raises(ValueError, match=r"^width must be at least 4 for utf-32-be, not 2$"):
        DecodeUTF32Lanes(width=2, byteorder="big")
    with pytest.raises(ValueError, match=r"^form must be an encoding form of utfhw.hdl.forms, "
                                         r"not 'utf-7'$"):
        EncodeLanes(form="utf-7", byteorder="little", lanes=2)
    with pytest.raises(ValueError, match=r"^lanes must be an integer of at least 1, not 0$"):
        EncodeLanes(form=FORMS["utf-16"], byteorder="little", lanes=0)
    with pytest.raises(ValueError, match=r"^width must be at least 4 for utf-32-le, not 2$"):
        check_core("utf-32-le", "utf-16-le", width=2)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_output_lanes():
    """From UTF-32, width bytes a beat out: one unit a code point to UTF-32, two to UTF-16,
    four bytes to UTF-8."""
    assert [output_lanes("utf-32-le", target, 16) for target in TARGETS] == [8, 8, 4, 4, 16]
    assert WideTranscoder(source="utf-32-be", target="utf-16-le", width=8).o.payload.shape() \
        .lane_count == 4


def random_messages(rng, byteorder, width, count):
    units = edge_units(byteorder)
    messages = []
    for _ in range(count):
        message = b"".join(rng.choice(units) for _ in range(rng.randrange(0, 3 * width // 4 + 2)))
        messages.append(message + rng.choice(units)[:rng.choice([0, 0, 0, 1, 2, 3])])
    return messages + [b"", b"\x00", b"\x41\x00\x00"]


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("source,target,width", [
    ("utf-32-le", "utf-16-le", 4), ("utf-32-be", "utf-16-be", 8), ("utf-32-le", "utf-32-be", 4),
    ("utf-32-be", "utf-32-le", 8), ("utf-32-be", "utf-8", 4)])
def test_beats_as_the_model_gives(source, target, width, errors):
    """Beat for beat what the model of the wide core says, under stalls on both sides."""
    rng = random.Random(f"{source}{target}{width}{errors}")
    check_wide_beats(random_messages(rng, SOURCES[source], width, 50), source, target, width,
                     errors)


@pytest.mark.parametrize("target", ["utf-16-le", "utf-32-be", "utf-8"])
def test_a_beat_every_clock(target):
    """With the output always ready, any input moves at ``width`` bytes a clock."""
    rng = random.Random(target)
    message = b"".join(rng.choice(edge_units("little")) for _ in range(150))
    check_a_beat_every_clock([message, message[:8 * 5 + 4], b"", b"\x00"], "utf-32-le", target,
                             8)


VERILATED_WIDTHS = [width for width in WIDTHS if width >= 4] if FULL_SWEEP else [4, WIDE_WIDTH]


# Each encoder at both widths in the full sweep; in CI at one, the widths taking turns (to
# UTF-8 at the wide width, whose core the adversarial test builds too).
@pytest.mark.parametrize("source,target,width", [
    (source, target, width)
    for index, (source, target) in enumerate([("utf-32-le", "utf-16-le"),
                                              ("utf-32-be", "utf-32-le"), ("utf-32-be", "utf-8")])
    for width in VERILATED_WIDTHS
    if FULL_SWEEP or width == VERILATED_WIDTHS[(index + 1) % 2]])
def test_every_scalar_value(source, target, width):
    """Every code point from 0 to 10FFFF (the surrogates as errors), in one message and cut
    into messages that start at every lane offset: each encoder over every scalar value."""
    byteorder = SOURCES[source]
    every = b"".join(value.to_bytes(4, byteorder) for value in range(0x110000))
    check_verilated(every, [len(every)], source, target, width=width)
    rng = random.Random(width)
    lengths = []
    left = len(every) // 40
    while left > 0:
        lengths.append(min(left, 4 * rng.randrange(0, 2 * width)))
        left -= lengths[-1]
    check_verilated(every[:sum(lengths)], lengths, source, target, errors="ignore",
                    width=width, stall=0.2, seed=width)


# At the wide width, in CI, to UTF-8 alone: the wide cores CI builds from UTF-32 are UTF-32-BE to
# UTF-8 with both handlers and UTF-32-LE to UTF-16-LE with replace (each build takes seconds,
# more than its checks).
@pytest.mark.parametrize("source,target,stall,width", [
    (source, target, stall, width)
    for source, target, stall in [("utf-32-le", "utf-16-be", 0.0), ("utf-32-be", "utf-8", 0.5),
                                  ("utf-32-le", "utf-32-le", 0.3)]
    for width in VERILATED_WIDTHS if FULL_SWEEP or width != WIDE_WIDTH or target == "utf-8"])
def test_adversarial_with_stalls(source, target, width, stall):
    """Messages of edge units of every length around the width, partial units at their ends,
    empty and one-byte messages, the corpus's texts as UTF-32 and its files' bytes as they
    are; stalls on both sides."""
    rng = random.Random(f"{source}{width}{stall}")
    messages = random_messages(rng, SOURCES[source], width, 800)
    for errors in handlers(source, target, width, stall):
        check_verilated(*joined(messages), source, target, errors=errors, width=width,
                        stall=stall, seed=width)


@pytest.mark.parametrize("width", [4, WIDE_WIDTH])
def test_corpus(corpus, width):
    """Every file of the corpus as UTF-32 (its text, decoded as UTF-8 with replacement), and
    its bytes read as UTF-32 as they are."""
    check_verilated(*joined(corpus_messages(corpus, "utf-32-be")), "utf-32-be", "utf-8",
                    width=width, stall=0.2, seed=3)


def test_multi_megabyte_message():
    rng = random.Random(2)
    units = edge_units("little")
    data = b"".join(rng.choice(units) for _ in range((4 if FULL_SWEEP else 1) << 20))
    run = check_verilated(data, [len(data)], "utf-32-le", "utf-16-le", width=WIDE_WIDTH)
    assert run.input_beats == len(data) // WIDE_WIDTH


@pytest.mark.parametrize("backend", SAMPLED_BACKENDS)
def test_strict(backend):
    """CPython's start, end and reason, found from the wide core's units."""
    units = edge_units("little")
    rng = random.Random(backend)
    cases = [b"A\x00\x00\x00" * 3 + unit + b"B\x00\x00\x00" for unit in units]
    cases += ["😀a".encode("utf-32-le") + b"ab", b"\x00", "é€😀".encode("utf-32-le")]
    cases += [b"".join(rng.choice(units) for _ in range(rng.randrange(1, 6))) +
              bytes(rng.randrange(4)) for _ in range(10)]
    check_wide_strict(cases, "utf-32-le", ((4, "utf-16-le"), (8, "utf-32-be"), (4, "utf-8")),
                      backend)
