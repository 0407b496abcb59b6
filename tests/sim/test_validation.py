"""The validators through their generated Verilog, run by Verilator, against CPython: for
every source codec, at its unit and UTF-8 at W = 8 (every width to 64 with ``UTFHW_SWEEP=full``), with
stalls on both sides, back-to-back messages at every lane offset, the corpus and a
multi-megabyte message; and every lane's decision over class-edge alphabets."""

import itertools
import random

import pytest

from conftest import FULL_SWEEP
from utfhw.bench.stimulus import stress_input, stress_messages
from utfhw.hdl.cores.validator import Validator, validator_widths
from utfhw.hdl.forms import CODECS, plain_codec
from utfhw.sim import validate_messages
from utfhw.sim.verilator import verilator_available

from support import EDGES_25, WIDE_WIDTH, corpus_messages, cpython_verdict


pytestmark = pytest.mark.skipif(not verilator_available(), reason="Verilator is not installed")


def check(messages, source, width, tally, *, stall=0.3, seed=0):
    tally("messages validated", len(messages))
    run = validate_messages(messages, source, width=width, backend="verilator", stall=stall,
                            seed=seed)
    assert len(run.results) == len(messages)
    for index, (message, result) in enumerate(zip(messages, run.results)):
        assert result.output == message, index
        got = {name: getattr(result, name) for name in cpython_verdict(message, source)}
        assert got == cpython_verdict(message, source), (index, message[:64])
    return run


def offsets(messages, width, filler, *, every=True):
    """Each message after 0 to ``width - 1`` units of ``filler``, so that it meets every lane
    offset of a beat (or, not ``every``, the first four and the last four)."""
    unit = len(filler)
    shifts = range(0, width, unit)
    if not every and width > 8:
        shifts = [*shifts[:4], *shifts[-4:]]
    return [filler * (shift // unit) + message for message in messages for shift in shifts]


# A unit of "A" in each codec, without a mark.
FILLERS = {name: "A".encode(plain_codec(codec.form, codec.target_byteorder or "little"))
           for name, codec in CODECS.items()}

# In CI a source of each form at one width its other tests here build too (so that each build
# serves several), UTF-8 at the wide width (64 with the full sweep: its build alone takes a
# minute); the other sources go through Amaranth's simulator (tests/hdl/cores/test_validator.py)
# and Icarus (tests/bench/test_simulators.py). Every source at every width with the full sweep.
CI_WIDTHS = {"utf-8": (WIDE_WIDTH,), "utf-8-sig": (), "utf-16": (4,), "utf-16-le": (),
             "utf-16-be": (), "utf-32": (8,), "utf-32-le": (), "utf-32-be": (),
             "latin-1": (), "ascii": (1,)}


def cases():
    """(source, width)."""
    for source in CODECS:
        for width in validator_widths(source) if FULL_SWEEP else CI_WIDTHS[source]:
            yield source, width


@pytest.mark.parametrize("source,width", list(cases()))
def test_every_source(source, width, tally):
    messages = stress_messages(source, seed=width) + [b"", b"\x00"[:CODECS[source].unit_bytes]]
    rng = random.Random(width)
    messages += [stress_input(source, rng.randrange(0, 3 * width + 5), seed=seed)
                 for seed in range(300 if FULL_SWEEP else 100)]
    check(offsets(messages, width, FILLERS[source], every=FULL_SWEEP), source, width, tally,
          stall=0.3, seed=width)


@pytest.mark.parametrize("width", [64] if FULL_SWEEP else [WIDE_WIDTH])
def test_corpus_and_a_long_message(corpus, width, tally):
    """The corpus, each file a message, and a 4 MB message of text and malformed bytes, from
    UTF-8 at W = 64 (the wide width in CI) without stalls: a beat a clock."""
    messages = corpus_messages(corpus, "utf-8")
    long = stress_input("utf-8", 4 << 20, seed=7)
    run = check(messages + [long], "utf-8", width, tally, stall=0.0)
    beats = sum(max(1, -(-len(message) // width)) for message in messages + [long])
    assert run.input_beats == beats
    # One clock a beat, and the latency once.
    assert run.cycles == beats + Validator.latency


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5] if FULL_SWEEP else [1, 2, 3])
def test_every_short_utf8_message(length, tally):
    """Every UTF-8 message of ``length`` bytes over Table 3-7's class edges (EDGES_25), at
    every lane offset of a beat of four, each its own message, back to back."""
    messages = [bytes(message) for message in itertools.product(EDGES_25, repeat=length)]
    check(offsets(messages, 4, b"A"), "utf-8", 4, tally, stall=0.1)


UTF16_EDGES = [0x0041, 0x007F, 0x0080, 0x07FF, 0x0800, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF,
               0xE000, 0xFEFF, 0xFFFE, 0xFFFF]
UTF32_EDGES = [0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xD800, 0xDFFF, 0xE000, 0xFEFF, 0xFFFF,
               0x10000, 0x10FFFF, 0x110000, 0xFFFE0000, 0xFFFFFFFF]


@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be", "utf-16"])
def test_every_short_utf16_message(source, tally):
    """Every message of one to three UTF-16 units over their class edges, then with an odd
    byte, at every lane offset of a beat of four."""
    order = "big" if source.endswith("be") else "little"
    units = [unit.to_bytes(2, order) for unit in UTF16_EDGES]
    messages = [b"".join(parts) + tail for length in (1, 2, 3)
                for parts in itertools.product(units, repeat=length) for tail in (b"", b"\x41")]
    check(offsets(messages, 4, FILLERS[source]) + messages, source, 4, tally, stall=0.1)


@pytest.mark.parametrize("source", ["utf-32-le", "utf-32"])
def test_every_short_utf32_message(source, tally):
    """Every message of one or two UTF-32 units over their class edges, then with one to
    three bytes more, at every lane offset of a beat of eight."""
    units = [unit.to_bytes(4, "little") for unit in UTF32_EDGES]
    messages = [b"".join(parts) + tail for length in (1, 2)
                for parts in itertools.product(units, repeat=length)
                for tail in (b"", b"\x41", b"\x41\x00\x00")]
    check(offsets(messages, 8, FILLERS[source]) + messages, source, 8, tally, stall=0.1)
