"""Every codec pair through the composed Transcoder in Amaranth's simulator: random and
adversarial input, byte order mark edge cases, strict positions and one unit per clock."""

import itertools
import random
import re

import pytest
from hypothesis import given, strategies as st

from utfhw.hdl import Transcoder
from utfhw.sim import simulate, transcode
from utfhw.model.reference import CODECS, input_beats, transcoder_beats
from utfhw.sim.payload import units_to_bytes
from utfhw.sim.pysim import run_messages

from conftest import FULL_SWEEP
from support import (MARK_CASES, adversarial_message, check_messages, cpython_strict_error,
                     cpython_strict_outcome, error_fields, handlers)


PAIRS = list(itertools.product(CODECS, CODECS))

# Units that matter to UTF-16 and UTF-32 decoders: marks, surrogates, the edges of the ranges.
def text_message(rng, source):
    """Well-formed text, with supplementary characters, encoded with ``source``."""
    alphabet = "aZ\u00e9\u0416\u05d0\u0e01\u4e2d\ufeff\ufffd\U0001F600\U00010000\U0010FFFF"
    return "".join(rng.choice(alphabet) for _ in range(rng.randrange(12))).encode(source,
                                                                                   "replace")


# Every pair with one handler in CI, the two taking turns; with both in the full sweep.
@pytest.mark.parametrize("source,target,errors", [
    (source, target, errors) for source, target in PAIRS for errors in handlers(source, target)])
def test_pair(source, target, errors):
    rng = random.Random(f"{source} {target} {errors}")
    messages = [adversarial_message(rng) for _ in range(24)]
    messages += [text_message(rng, source) for _ in range(4)]
    # Back to back with stalls on both sides, then one long stream with none.
    check_messages(messages + MARK_CASES, source, target, errors=errors, stall=0.3,
                   seed=rng.getrandbits(32))
    cycles = check_messages(messages, source, target, errors=errors)
    # One input code unit per clock on any input: N beats take N + latency clocks.
    beats = sum(input_beats(message, source) for message in messages)
    assert cycles == beats + Transcoder.latency


@given(data=st.binary(max_size=24), source=st.sampled_from(CODECS),
       target=st.sampled_from(CODECS), errors=st.sampled_from(["replace", "ignore", "strict"]),
       stall=st.sampled_from([0.0, 0.5]), seed=st.integers(0, 99))
def test_random_bytes(data, source, target, errors, stall, seed):
    try:
        expected = data.decode(source, errors).encode(target, errors)
    except (UnicodeDecodeError, UnicodeEncodeError) as error:
        with pytest.raises(type(error)) as got:
            transcode(data, source, target, errors=errors, stall=stall, seed=seed)
        assert error_fields(got.value) == error_fields(error)
    else:
        assert transcode(data, source, target, errors=errors, stall=stall, seed=seed) == expected


@pytest.mark.parametrize("source", CODECS)
def test_strict_through_simulate(source):
    rng = random.Random(source)
    for _ in range(6):
        data = adversarial_message(rng, 6)
        try:
            transcode(data, source, "utf-8", errors="strict")
        except UnicodeDecodeError as error:
            assert error_fields(error) == cpython_strict_error(data, source)
        else:
            assert cpython_strict_error(data, source) is None


@pytest.mark.parametrize("source", ["utf-8", "utf-16-be", "utf-32", "latin-1", "ascii"])
@pytest.mark.parametrize("target", ["latin-1", "ascii"])
def test_strict_to_a_target_that_cannot_hold_every_character(source, target):
    """To Latin-1 and ASCII, strict raises CPython's exception: a decoding error anywhere
    before an encoding one, else the first run of characters the target cannot hold, its
    positions counted in characters."""
    rng = random.Random(source + target)
    alphabet = "a\u00e9\u20ac\U0001F600\x7f\x80\xff\u0100"
    cases = [text.encode(source, "replace") + tail for text in ("", "a\u20ac\u20acb\u00e9", "\xff\u0100z")
             for tail in (b"", b"\xff", b"\x80\x80")]
    cases += ["".join(rng.choice(alphabet) for _ in range(8)).encode(source, "replace")
              for _ in range(6)]
    for data in cases:
        expected = cpython_strict_outcome(data, source, target)
        try:
            transcode(data, source, target, errors="strict")
        except (UnicodeDecodeError, UnicodeEncodeError) as error:
            assert (type(error).__name__,) + error_fields(error) == expected, data.hex()
        else:
            assert expected is None, data.hex()


def test_mark_split_by_last():
    # Each message starts afresh: a mark whose bytes straddle two messages is no mark.
    for source, messages in [("utf-16", [b"\xfe", b"\xff\x00\x41"]),
                             ("utf-32", [b"\x00\x00", b"\xfe\xff"]),
                             ("utf-8-sig", [b"\xef\xbb", b"\xbf\x41"]),
                             ("utf-16", [b"\xfe\xff\x00\x41", b"\x41\x00"])]:
        for target in ("utf-16", "utf-8-sig", "utf-32-be"):
            check_messages(messages, source, target, stall=0.4, seed=3)
            check_messages(messages, source, target, errors="ignore")


@pytest.mark.parametrize("target", CODECS)
def test_empty_message(target):
    result = simulate(b"", "utf-16", target)
    assert result.output == "".encode(target)
    assert (result.input_beats, result.cycles) == (1, 1 + Transcoder.latency)


def test_sanitizer():
    # UTF-8 to UTF-8 replaces each maximal ill-formed subpart with EF BF BD.
    data = b"a\xed\xa0\x80b\xf0\x9f\x98\x80\xc0"
    assert transcode(data, "utf-8", "utf-8") == data.decode("utf-8", "replace").encode("utf-8")
    assert transcode(data, "utf-8", "utf-8").count(b"\xef\xbf\xbd") == 4


# Pairs of handlers the Transcoder runs itself, each side different or an escape, into
# targets that cannot hold every character and one that can.
HANDLER_PAIRS = [(decoding, encoding) for decoding in ("replace", "ignore")
                 for encoding in ("replace", "ignore", "backslashreplace", "xmlcharrefreplace")
                 if decoding != encoding]


# In CI three targets that cannot hold every character and one that can; every pair of codecs
# with UTFHW_SWEEP=full.
@pytest.mark.parametrize("source,target", PAIRS if FULL_SWEEP else [
    ("utf-8", "latin-1"), ("utf-16-be", "ascii"), ("utf-32", "ascii"), ("utf-8", "utf-16-le")])
@pytest.mark.parametrize("errors", HANDLER_PAIRS)
def test_pair_of_handlers(source, target, errors):
    rng = random.Random(f"{source} {target} {errors}")
    messages = [adversarial_message(rng) for _ in range(16)]
    messages += [text_message(rng, source) for _ in range(6)] + [b""]
    beats, _ = run_messages(Transcoder(source=source, target=target, errors=errors), messages,
                            stall=0.3, seed=rng.getrandbits(32))
    decoding, encoding = errors
    assert [units_to_bytes(message_beats, target) for message_beats in beats] == \
        [message.decode(source, decoding).encode(target, encoding) for message in messages]
    # Beat for beat, each escape's characters one a beat, as the golden model has them.
    assert beats == [transcoder_beats(message, source, target, errors) for message in messages]


def test_one_beat_a_clock_where_nothing_is_escaped():
    messages = ["caf\u00e9 \u00e0 la cr\u00e8me".encode("utf-8")] * 4
    core = Transcoder(source="utf-8", target="latin-1", errors=("replace", "xmlcharrefreplace"))
    _, cycles = run_messages(core, messages)
    # One clock more than the Transcoder without an escape: the Escaper's register.
    assert core.latency == Transcoder.latency + 1
    assert cycles == sum(map(len, messages)) + core.latency


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("errors,message", [
    (("strict", "replace"), "errors for decoding must be 'replace' or 'ignore', not 'strict'"),
    (("replace", "surrogatepass"), "errors for encoding must be 'replace', 'ignore', "
                                   "'backslashreplace' or 'xmlcharrefreplace', not "
                                   "'surrogatepass'"),
    ("xmlcharrefreplace", "errors must be 'replace' or 'ignore', not 'xmlcharrefreplace'"),
])
def test_handlers_it_does_not_run(errors, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Transcoder(source="utf-8", target="ascii", errors=errors)
