"""Third-party material from the corpus (corpus/, see its MANIFEST.md) through the gateware, compared with CPython."""

import json

import pytest

from utfhw.hdl import Transcoder
from utfhw.sim import simulate
from utfhw.sim.pysim import run_messages

from conftest import FULL_SWEEP
from support import check_messages


# Amaranth's simulator runs about 10k clocks/s here, so long texts go in as slices.
SLICE = 3000

MULTILINGUAL = [
    "lipsum/Arabic-Lipsum.utf8.txt", "lipsum/Chinese-Lipsum.utf8.txt",
    "lipsum/Emoji-Lipsum.utf8.txt", "lipsum/Hebrew-Lipsum.utf8.txt",
    "lipsum/Hindi-Lipsum.utf8.txt", "lipsum/Japanese-Lipsum.utf8.txt",
    "lipsum/Korean-Lipsum.utf8.txt", "lipsum/Russian-Lipsum.utf8.txt",
    "wikipedia_mars/greek.utf8.txt", "wikipedia_mars/thai.utf8.txt",
    "wikipedia_mars/vietnamese.utf8.txt",
]


def check_file_slice(data, stall=0.0, seed=0):
    # Each byte order and each handler once: the whole corpus goes through Verilator from
    # every source, UTF-8 to UTF-16-LE among the pairs, in tests/sim/test_verilator_sweeps.py.
    for target, errors in (("utf-16-le", "replace"), ("utf-16-be", "ignore")):
        result = simulate(data, "utf-8", target, errors=errors, stall=stall, seed=seed)
        assert result.output == data.decode("utf-8", errors).encode(target, errors)


# In CI each file with one handler (the two differ by one stage, and the whole corpus goes
# through Verilator with both); both with UTFHW_SWEEP=full.
@pytest.mark.parametrize("name,handlers", [
    ("UTF-8-test.txt", ("replace", "ignore") if FULL_SWEEP else ("replace",)),
    ("UTF-8-demo.txt", ("replace", "ignore") if FULL_SWEEP else ("ignore",))])
def test_kuhn(corpus, name, handlers):
    data = (corpus / "kuhn" / name).read_bytes()
    for errors in handlers:
        result = simulate(data, errors=errors, stall=0.1, seed=1)
        assert result.output == data.decode("utf-8", errors).encode("utf-16-le")


def test_kuhn_stress_test_strict(corpus):
    data = (corpus / "kuhn" / "UTF-8-test.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError) as expected:
        data.decode("utf-8")
    with pytest.raises(UnicodeDecodeError) as got:
        simulate(data, errors="strict")
    assert (got.value.encoding, got.value.start, got.value.end, got.value.reason) == \
        (expected.value.encoding, expected.value.start, expected.value.end, expected.value.reason)


# Amaranth's simulator takes seconds a file: in CI, scripts of two-byte characters (Arabic,
# Greek), of three-byte ones (Chinese, Hindi) and of four-byte ones (Emoji); every file with
# UTFHW_SWEEP=full. The whole corpus goes through Verilator in tests/sim/test_verilator_sweeps.py.
SAMPLED_SCRIPTS = ["Arabic", "Chinese", "Emoji", "greek", "Hindi"]


def sampled(names):
    return [name for name in names
            if FULL_SWEEP or any(script in str(name) for script in SAMPLED_SCRIPTS)]


@pytest.mark.parametrize("name", sampled(MULTILINGUAL))
def test_multilingual_slices(corpus, name):
    data = (corpus / name).read_bytes()
    # Cutting at an arbitrary byte leaves a truncated sequence at the end: that is tested too.
    middle = len(data) // 2
    check_file_slice(data[:SLICE], stall=0.2, seed=len(name))
    simulated = simulate(data[middle:middle + SLICE])
    assert simulated.output == data[middle:middle + SLICE].decode("utf-8", "replace") \
        .encode("utf-16-le")


# WHATWG decoder names of the WPT cases, as CPython codecs.
WPT_DECODERS = {"utf-8": "utf-8", "utf-16le": "utf-16-le", "utf-16be": "utf-16-be",
                "utf-16": "utf-16"}


def _check_cases(cases, source, errors, target="utf-16-le"):
    """Run the cases' inputs back to back; compare with the model and CPython (beats, bytes and
    strict errors, see check_messages) and, for "replace", with the code points the case file
    records for CPython."""
    messages = [bytes.fromhex(case["input_hex"]) for case in cases]
    check_messages(messages, source, target, errors=errors, stall=0.3, seed=5)
    if errors == "replace":
        beats, _ = run_messages(Transcoder(source=source, target="utf-32-le"), messages)
        for case, message_beats in zip(cases, beats):
            code_points = [unit for units, _ in message_beats for unit, _ in units]
            assert code_points == case["cpython_codepoints"], case["id"]


@pytest.mark.parametrize("decoder", WPT_DECODERS)
@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_wpt_cases(corpus, decoder, errors):
    cases = [case for case in json.loads((corpus / "wpt" / "wpt_utf_decode_cases.json").read_text())
             if case["decoder"] == decoder]
    assert cases
    for target in ("utf-16-le", "utf-8"):
        _check_cases(cases, WPT_DECODERS[decoder], errors, target)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_utf8tests_cases(corpus, errors):
    cases = [case for case in json.loads((corpus / "utf8tests" / "utf8tests_cases.json")
                                         .read_text()) if case["input_hex"]]
    assert len(cases) > 200
    _check_cases(cases, "utf-8", errors)


UTF16_FILES = [
    ("lipsum/Arabic-Lipsum.utf16.txt", "utf-16"), ("lipsum/Chinese-Lipsum.utf16.txt", "utf-16"),
    ("lipsum/Emoji-Lipsum.utf16.txt", "utf-16"), ("lipsum/Hebrew-Lipsum.utf16.txt", "utf-16"),
    ("lipsum/Hindi-Lipsum.utf16.txt", "utf-16"), ("lipsum/Japanese-Lipsum.utf16.txt", "utf-16"),
    ("lipsum/Korean-Lipsum.utf16.txt", "utf-16"), ("lipsum/Latin-Lipsum.utf16.txt", "utf-16"),
    ("lipsum/Russian-Lipsum.utf16.txt", "utf-16"),
    ("wikipedia_mars/greek.utf16be.txt", "utf-16-be"),
]


@pytest.mark.parametrize("name,source", sampled(UTF16_FILES))
def test_utf16_files(corpus, name, source):
    data = (corpus / name).read_bytes()
    # The head keeps the file's mark (the Emoji file has two); a slice from the middle, cut at
    # an odd byte, starts and ends mid-character.
    head = data[:SLICE]
    middle = data[len(data) // 2 + 1:len(data) // 2 + 1 + SLICE - 1]
    check_messages([head, middle], source, "utf-8", stall=0.2, seed=len(name))
    check_messages([head], source, "utf-32-be", errors="ignore")
    # Read with the other codecs too: a BOM-less file as utf-16 is little-endian text, and
    # every codec must still agree with CPython on it.
    other = "utf-16" if source == "utf-16-be" else "utf-16-be"
    check_messages([head[:600], middle[:601]], other, "utf-16-le")
