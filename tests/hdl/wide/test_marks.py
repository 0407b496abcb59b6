"""The wide core from and to the codecs with a byte order mark. As sources, ``utf-8-sig`` strips
one leading EF BB BF, ``utf-16`` and ``utf-32`` take the byte order of a leading mark for the
whole message (little-endian without one); as targets, they begin every message with the mark
(little-endian). The model against CPython on every short message of mark-edge units, the
beats in Amaranth's simulator against the model, and the generated Verilog in Verilator
against CPython at widths 4 and 8 (every width to 64 with ``UTFHW_SWEEP=full``) with
messages back to back, so that every message reads and writes its own mark."""

import itertools
import random

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.cores import make_core
from utfhw.hdl.forms import CODECS
from utfhw.hdl.cores.wide import WIDE_SOURCES, output_lanes
from utfhw.hdl.forms.utf16.wide import ClassifyUTF16Lanes
from utfhw.sim.backends import simulate
from utfhw.bench.stimulus import stress_input
from utfhw.model.wide import wide_beats

from support import (MARK_CASES, SAMPLED_BACKENDS, WIDE_WIDTH, check_a_beat_every_clock,
                     check_verilated, check_wide_beats, check_wide_strict, cpython_strict_error,
                     error_fields, handlers, joined)


TARGETS = ("utf-16-le", "utf-32-be")

# Units around the marks: the mark in either order, a character, a surrogate.
EDGES = {
    "utf-8-sig": [b"\xef\xbb\xbf", b"\xef\xbb", b"\xbf", b"A", b"\xef\xbf\xbe", b"\xff"],
    "utf-16": [b"\xff\xfe", b"\xfe\xff", b"A\x00", b"\x00A", b"\x00\xd8", b"\xdc\x00"],
    "utf-32": [b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"A\x00\x00\x00", b"\x00\x00\x00A",
               b"\x00\xd8\x00\x00"],
}
TAILS = {"utf-8-sig": [b""], "utf-16": [b"", b"\xff"], "utf-32": [b"", b"\xff\xfe"]}


def short_messages(source, length):
    for parts in itertools.product(EDGES[source], repeat=length):
        for tail in TAILS[source]:
            yield b"".join(parts) + tail


def model_output(message, source, target, errors, width=4):
    unit_bytes = CODECS[target].unit_bytes
    return b"".join(unit.to_bytes(unit_bytes, "little")
                    for units, _ in wide_beats(message, width, errors=errors, target=target,
                                               source=source)
                    for unit, _ in units)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", EDGES)
def test_model_against_cpython(source, target):
    """Every message of up to four edge parts (with the tails a unit can leave), as the model
    of the wide core at width 4 gives it."""
    for length in range(5):
        for message in short_messages(source, length):
            for errors in ("replace", "ignore"):
                assert model_output(message, source, target, errors) == \
                    message.decode(source, errors).encode(target, errors), (message.hex(), errors)


def test_stage_parameters():
    with pytest.raises(ValueError, match=r"^width must be at least 2 for utf-16, not 1$"):
        ClassifyUTF16Lanes(width=1, byteorder="detect")
    with pytest.raises(ValueError, match=r"^byteorder must be 'little', 'big' or 'detect', "
                                         r"not 'native'$"):
        ClassifyUTF16Lanes(width=4, byteorder="native")


def mark_messages(rng, source, count):
    """Short messages of edge parts, most of them after a mark, and the mark cases."""
    messages = []
    for _ in range(count):
        parts = [rng.choice(EDGES[source]) for _ in range(rng.randrange(0, 9))]
        messages.append(b"".join(parts) + rng.choice(TAILS[source]))
    return messages + MARK_CASES


# Each case with one handler in CI, the two taking turns; with both in the full sweep.
@pytest.mark.parametrize("source,target,width,errors", [
    (source, target, width, errors)
    for source, target, width in [("utf-8-sig", "utf-16-le", 1), ("utf-8-sig", "utf-32-be", 4),
                                  ("utf-16", "utf-16-be", 2), ("utf-16", "utf-32-le", 4),
                                  ("utf-32", "utf-16-le", 4), ("utf-32", "utf-32-be", 8)]
    for errors in handlers(source, target, width)])
def test_beats_as_the_model_gives(source, target, width, errors):
    rng = random.Random(f"{source}{target}{width}{errors}")
    check_wide_beats(mark_messages(rng, source, 40), source, target, width, errors)


VERILATED_WIDTHS = [4, 8, 16, 32, 64] if FULL_SWEEP else [4, WIDE_WIDTH]


# At the wide width, in CI, UTF-16 alone (a core from UTF-8 takes long to convert and build
# there; UTF-32 reads its mark at that width in test_back_to_back_writing_the_mark).
@pytest.mark.parametrize("source,target,width", [
    (source, target, width)
    for source, target in (("utf-8-sig", "utf-16-be"), ("utf-16", "utf-32-le"),
                           ("utf-32", "utf-16-le"))
    for width in VERILATED_WIDTHS if FULL_SWEEP or width != WIDE_WIDTH or source == "utf-16"])
def test_back_to_back_with_stalls(source, target, width):
    """Thousands of short messages back to back, each with its own mark or none, with and
    without stalls: a message's order never leaks into the next."""
    rng = random.Random(f"{source}{width}")
    messages = mark_messages(rng, source, 3000)
    messages += [message for length in (1, 2, 3) for message in short_messages(source, length)]
    for errors, stall in (("replace", 0.0), ("ignore", 0.4)):
        if errors not in handlers(source, target, width):
            continue
        check_verilated(*joined(messages), source, target, errors=errors, width=width,
                        stall=stall, seed=width)


@pytest.mark.parametrize("backend", SAMPLED_BACKENDS)
def test_strict(backend):
    """CPython's start, end and reason, counted with the mark (and for utf-8-sig after it,
    as CPython counts)."""
    cases = {
        "utf-8-sig": [b"\xef\xbb\xbf\xff", b"\xef\xbb\xbfab\xe2\x82", b"\xef\xbb\xff",
                      b"ab\x80"],
        "utf-16": [b"\xff\xfe\x00\xd8", b"\xfe\xff\xd8\x00a", b"\xff\xfe\x41", b"\xff",
                   b"\xfe\xff\x00A\xdc\x00"],
        "utf-32": [b"\xff\xfe\x00\x00\x00\xd8\x00\x00", b"\x00\x00\xfe\xff\x00\x11\x00\x00",
                   b"A\x00\x00\x00\x00\x00\x11\x00", b"\x00\x00\xfe\xff\x00"],
    }
    for source, datas in cases.items():
        for data in datas:
            expected = cpython_strict_error(data, source)
            assert expected is not None
            with pytest.raises(UnicodeDecodeError) as error:
                simulate(data, source, "utf-16-le", errors="strict", width=4, backend=backend)
            assert error_fields(error.value) == expected, (source, data.hex())


# --- targets that write a mark ---------------------------------------------------------------

MARK_TARGETS = ("utf-8-sig", "utf-16", "utf-32")


@pytest.mark.parametrize("target", MARK_TARGETS)
@pytest.mark.parametrize("source", WIDE_SOURCES)
def test_model_writes_the_mark(source, target):
    """The model of the wide core at width 8: the mark, then the message's units."""
    messages = [b"", b"A", *MARK_CASES, stress_input(source, 200, seed=3)]
    messages += [message[:cut] for message in messages for cut in (1, 5, 9)]
    for message in messages:
        for errors in ("replace", "ignore"):
            assert model_output(message, source, target, errors, width=8) == \
                message.decode(source, errors).encode(target, errors), (message.hex(), errors)


@pytest.mark.parametrize("source,target,width,lanes", [
    ("utf-8", "utf-16", 1, 2), ("utf-8", "utf-32", 1, 2), ("utf-8", "utf-16", 2, 2),
    ("utf-16-le", "utf-32", 2, 2), ("utf-32-be", "utf-32", 4, 2), ("utf-32-be", "utf-32", 8, 2),
    ("utf-8", "utf-8-sig", 1, 4), ("utf-32", "utf-16", 4, 2)])
def test_an_output_beat_holds_more_than_the_mark(source, target, width, lanes):
    """At the narrowest widths an output beat is widened to hold the mark and a unit."""
    assert output_lanes(source, target, width) == lanes
    assert len(make_core(source, target, width=width).o.payload.lanes) == lanes


# Each case with one handler in CI, the two taking turns; with both in the full sweep.
@pytest.mark.parametrize("source,target,width,errors", [
    (source, target, width, errors)
    for source, target, width in [("utf-8", "utf-16", 1), ("utf-8", "utf-8-sig", 1),
                                  ("utf-16-le", "utf-8-sig", 2), ("utf-16-be", "utf-32", 2),
                                  ("utf-32-be", "utf-32", 4), ("utf-8", "utf-8-sig", 4),
                                  ("utf-16", "utf-16", 4)]
    for errors in handlers(source, target, width)])
def test_beats_with_the_mark_as_the_model_gives(source, target, width, errors):
    """The mark in the first lanes of each message's first beat, the units after it."""
    rng = random.Random(f"{source}{target}{width}{errors}")
    messages = [stress_input(source, rng.randrange(0, 6 * width), seed=index)
                for index in range(30)]
    check_wide_beats(messages + [b"", b"A"], source, target, width, errors)


def test_a_message_costs_a_clock_more():
    """Alone, a message takes its input beats and the latency, or a clock more (the mark can
    make its output a beat longer than its input)."""
    check_a_beat_every_clock([b"", b"A" * 8, b"A" * 9, "añ€😀".encode() * 10], "utf-8",
                             "utf-16", 8)


# In CI a mark read and written at 4, UTF-32 reading one at the wide width and the narrowest
# widths to UTF-16 and UTF-32; the rest with the full sweep (each core's build costs more than
# its checks).
WRITING_IN_CI = {("utf-8-sig", "utf-8-sig", 4), ("utf-32", "utf-8-sig", WIDE_WIDTH),
                 ("utf-8", "utf-16", 1), ("utf-16-be", "utf-32", 2)}


@pytest.mark.parametrize("source,target,width", [
    case for case in [
        (source, target, width)
        for source, target in (("utf-8", "utf-16"), ("utf-16-be", "utf-8-sig"),
                               ("utf-32", "utf-8-sig"), ("utf-8-sig", "utf-8-sig"))
        for width in VERILATED_WIDTHS if FULL_SWEEP or width == 4 or source == "utf-32"] + [
        # The narrowest widths, whose output beats are widened to hold the mark and a unit.
        ("utf-8", "utf-16", 1), ("utf-8", "utf-8-sig", 1), ("utf-16-be", "utf-32", 2),
        ("utf-32", "utf-32", 4)]
    if FULL_SWEEP or case in WRITING_IN_CI])
def test_back_to_back_writing_the_mark(source, target, width):
    """Short messages of every length around the width back to back, each given its own mark,
    with and without stalls: each message a clock more than its beats."""
    rng = random.Random(f"{source}{target}{width}")
    data = stress_input(source, 30_000 if FULL_SWEEP else 10_000, seed=width)
    messages = [b"", b"", b"A"]
    while data:
        cut = rng.choice([0, 1, width - 1, width, width + 1, 2 * width, rng.randrange(200)])
        messages.append(data[:cut])
        data = data[cut:]
    for errors, stall in (("replace", 0.0), ("ignore", 0.4)):
        if errors not in handlers(source, target, width):
            continue
        check_verilated(*joined(messages), source, target, errors=errors, width=width,
                        stall=stall, seed=width)


@pytest.mark.parametrize("backend", SAMPLED_BACKENDS)
def test_strict_after_the_mark(backend):
    """CPython's start, end and reason: the mark written is not counted."""
    cases = [b"ok \xf0\x9f\x98", b"\xed\xa0\x80x", "é€😀".encode() * 3 + b"\xc3", b"\xff"]
    check_wide_strict(cases, "utf-8", ((4, "utf-16"), (4, "utf-8-sig"), (4, "utf-32")),
                      backend)
