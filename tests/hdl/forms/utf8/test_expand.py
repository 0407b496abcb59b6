"""The wide core from UTF-8 to UTF-8 (DecodePositions to UTF-8, the middle queue and
ExpandReplacements, in WideTranscoder): the model's rule against CPython on every message of up
to five bytes over the edges of Table 3-7, the beats in Amaranth's simulator against the model,
the clocks a beat takes, and the generated Verilog in Verilator against CPython at widths 2, 4
and 8 (every width with ``UTFHW_SWEEP=full``)."""

import itertools
import math
import random

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.unicode.params import WIDTHS
from utfhw.hdl.cores.wide import WideTranscoder
from utfhw.hdl.forms.utf8.expand import ExpandReplacements
from utfhw.hdl.lanes.repack import Repacker
from utfhw.hdl.forms.utf8.wide import DecodePositions
from utfhw.sim.backends import simulate
from utfhw.bench.stimulus import stress_input
from utfhw.model.wide import wide_beats, wide_clocks

from support import (MARK_CASES, WIDE_WIDTH, check_a_beat_every_clock, check_verilated,
                     check_wide_beats, check_wide_strict, handlers, joined)
from support import CLASS_MESSAGES, SWEEPS, random_messages


def model_output(message, errors, source="utf-8"):
    return bytes(byte for units, _ in wide_beats(message, 4, errors=errors, target="utf-8",
                                                 source=source)
                 for byte, _ in units)


@pytest.mark.parametrize("alphabet,length", SWEEPS,
                         ids=[f"{len(alphabet)}^{length}" for alphabet, length in SWEEPS])
def test_every_message_against_cpython(alphabet, length):
    """Each byte kept where it belongs to a complete character, U+FFFD's bytes where a maximal
    subpart ends: CPython's output, with either handler."""
    checked = 0
    for message in map(bytes, itertools.product(alphabet, repeat=length)):
        for errors in ("replace", "ignore"):
            assert model_output(message, errors) == message.decode("utf-8", errors).encode(), \
                (message.hex(), errors)
        checked += 1
    assert checked == len(alphabet) ** length


def test_mark_cases_against_cpython():
    """utf-8-sig to UTF-8 drops one leading mark, and keeps any other."""
    cases = [b"\xef\xbb\xbf", b"\xef\xbb\xbfa", b"\xef\xbb\xbf\xef\xbb\xbf", b"\xef\xbb",
             b"a\xef\xbb\xbf", b"\xef\xbb\xbf\xff", *MARK_CASES]
    for message in cases:
        for errors in ("replace", "ignore"):
            assert model_output(message, errors, "utf-8-sig") == \
                message.decode("utf-8-sig", errors).encode(), (message.hex(), errors)


@pytest.mark.parametrize("width", [1, 2])
def test_narrow_beats_are_gathered(width):
    """Below four bytes a beat, the window's three bytes of look-ahead would span beats: the
    input is gathered into beats of four, and an output beat holds four bytes."""
    core = WideTranscoder(target="utf-8", width=width)
    assert (core.i.payload.shape().width, len(core.o.payload.lanes)) == (width, 4)
    assert core.latency == (WideTranscoder.latency_of(4, target="utf-8")
                            + Repacker.latency_of(4))


def test_stage_parameters():
    with pytest.raises(ValueError, match=r"^width must be a multiple of 4, not 6$"):
        ExpandReplacements(width=6)
    with pytest.raises(ValueError, match=r"^width must be an integer of at least 4, not 2$"):
        ExpandReplacements(width=2)
    with pytest.raises(ValueError, match=r"^width must be at least 4 to utf-8, not 2$"):
        DecodePositions(width=2, form="utf-8")


# Each case with one handler in CI, the two taking turns; with both in the full sweep.
@pytest.mark.parametrize("source,width,errors", [
    (source, width, errors)
    for source, width in [("utf-8", 1), ("utf-8", 2), ("utf-8", 4), ("utf-8", 8),
                          ("utf-8-sig", 2), ("utf-8-sig", 4)]
    for errors in handlers(source, width)])
def test_beats_as_the_model_gives(source, width, errors):
    """Beat for beat what the model of the wide core says, under stalls on both sides."""
    rng = random.Random(f"{source}{width}{errors}")
    messages = random_messages(rng, width, 50)
    if source == "utf-8-sig":
        messages = [rng.choice([b"", b"\xef\xbb\xbf"]) + message for message in messages]
    check_wide_beats(messages, source, "utf-8", width, errors)


def test_a_beat_every_clock():
    """Well-formed text, and anything with ``ignore``, moves at ``width`` bytes a clock."""
    text = "añ€😀 ascii, Ελληνικά, 中文, עברית. ".encode() * 20
    check_a_beat_every_clock([text, text[:8 * 5 + 3], b"", b"a"], "utf-8", "utf-8", 8)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_clocks_on_malformed_input(errors):
    """A beat with a U+FFFD takes four clocks, every other beat one: a message is out
    :func:`wide_clocks` plus the latency clocks after it starts, or one more."""
    latency = WideTranscoder.latency_of(8, source="utf-8", target="utf-8")
    # Five beats, each all replacements; eight beats, one of them (the third) with a U+FFFD.
    cases = [(b"\xff" * 40, 20, 5), (b"a" * 20 + b"\xc0" + b"a" * 40, 11, 8),
             (stress_input("utf-8", 300), None, 38)]
    for message, replaced_clocks, beats in cases:
        clocks = wide_clocks(message, 8, errors=errors, target="utf-8")
        if errors == "ignore":
            assert clocks == beats
        elif replaced_clocks is not None:
            assert clocks == replaced_clocks
        result = simulate(message, "utf-8", "utf-8", errors=errors, width=8)
        assert clocks + latency <= result.cycles <= clocks + latency + 1, message.hex()


# In CI each width's cores are built once for these tests.
VERILATED_WIDTHS = list(WIDTHS) if FULL_SWEEP else [2, 4, WIDE_WIDTH]
LONG_WIDTH = WIDE_WIDTH


@pytest.mark.parametrize("width,errors", [
    (width, errors) for width in VERILATED_WIDTHS for errors in ("replace", "ignore")
    if FULL_SWEEP or errors == "replace"])
def test_short_messages_at_every_lane(width, errors):
    """Every 1-3-byte message of class-edge bytes, after 0 to ``max(width, 4) - 1`` bytes of ASCII, of
    an unfinished four-byte sequence and of stray continuation bytes, so that it meets every
    lane and the beat boundary with every state behind it and ahead of it; each its own
    message, and all of them back to back in one."""
    rng = random.Random(width)
    messages = []
    for message in CLASS_MESSAGES:
        offset = rng.randrange(max(width, 4))   # narrower beats are gathered into four bytes
        messages.append(b"a" * offset + message)
        messages.append(b"\xf0\x90\x80" * (offset // 3) + b"\x80" * (offset % 3) + message
                        + rng.choice([b"", b"\x80", b"\x80\x80", b"\xbf\xbf\xbf"]))
    check_verilated(*joined(messages), "utf-8", "utf-8", errors=errors, width=width)
    whole = b"".join(messages)
    check_verilated(whole, [len(whole)], "utf-8", "utf-8", errors=errors, width=width)


@pytest.mark.parametrize("source,width,stall", [
    (source, width, stall) for width in VERILATED_WIDTHS
    for source, stall in (("utf-8", 0.0), ("utf-8", 0.5), ("utf-8-sig", 0.3))
    if FULL_SWEEP or width != WIDE_WIDTH or stall == 0.0])
def test_adversarial_with_stalls(source, width, stall):
    """Adversarial messages of every length around the width, empty and one-byte messages,
    marks at their starts, with stalls on both sides."""
    rng = random.Random(f"{width}{stall}")
    data = stress_input("utf-8", 40_000 if FULL_SWEEP else 12_000, seed=width)
    messages = [b"", b"\xff", b"a", b"\xef\xbb\xbf", b""]
    while data:
        cut = rng.choice([0, 1, width - 1, width, width + 1, 2 * width, rng.randrange(300)])
        messages.append(rng.choice([b"", b"", b"\xef\xbb\xbf"]) + data[:cut])
        data = data[cut:]
    for errors in handlers(source, width, stall):
        check_verilated(*joined(messages), source, "utf-8", errors=errors, width=width,
                        stall=stall, seed=width)


@pytest.mark.parametrize("width", [4, 32] if FULL_SWEEP else [4])
def test_corpus(corpus, width):
    """Every file of the third-party corpus as a message of UTF-8, as it is."""
    files = sorted(path for path in corpus.rglob("*") if path.is_file())
    messages = [path.read_bytes() for path in files]
    for errors in ("replace", "ignore"):
        check_verilated(*joined(messages), "utf-8", "utf-8", errors=errors, width=width,
                        stall=0.2, seed=3)


def test_multi_megabyte_message():
    """Text at one beat a clock (1 MB, 16 MB with ``UTFHW_SWEEP=full``), and adversarial input
    as fast as its replacements allow (256 kB; 8 MB), at the wide width."""
    text = "añ€😀 ascii, Ελληνικά, 中文, עברית. ".encode() * ((64 if FULL_SWEEP else 4) << 12)
    run = check_verilated(text, [len(text)], "utf-8", "utf-8", width=LONG_WIDTH)
    assert run.input_beats == math.ceil(len(text) / LONG_WIDTH)
    data = stress_input("utf-8", (8 << 20) if FULL_SWEEP else (1 << 18), seed=1)
    check_verilated(data, [len(data)], "utf-8", "utf-8", width=LONG_WIDTH)


@pytest.mark.parametrize("backend", ["amaranth", "verilator"])
def test_strict(backend):
    """Validation: CPython's start, end and reason, found from the wide core's bytes."""
    rng = random.Random(backend)
    cases = [b"ok \xf0\x9f\x98", b"\xed\xa0\x80x", b"abc\xe0\x80", "é€😀".encode() + b"\xc3",
             b"\xf4\x90\x80\x80", b"\xc0\xaf", "ab€".encode() * 9 + b"\xe2\x82" + b"z" * 9,
             "é€😀".encode() * 5]
    cases += [bytes(rng.choice(CLASS_MESSAGES)[0] for _ in range(rng.randrange(1, 12)))
              for _ in range(40 if backend == "verilator" else 4)]
    check_wide_strict(cases, "utf-8", ((4, "utf-8"),) if backend == "amaranth"
                      else ((4, "utf-8"), (8, "utf-8")), backend)
