"""Third-party material from ../shared/corpus through the gateware, compared with CPython."""

import json

import pytest

from utfhw.hdl import UTF8ToUTF16
from utfhw.sim import simulate
from utfhw.sim.harness import run_messages, units_to_bytes
from utfhw.sim.reference import utf8_to_utf16_beats


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
    for target in ("utf-16-le", "utf-16-be"):
        for errors in ("replace", "ignore"):
            result = simulate(data, "utf-8", target, errors=errors, stall=stall, seed=seed)
            assert result.output == data.decode("utf-8", errors).encode(target)


@pytest.mark.parametrize("name", ["UTF-8-test.txt", "UTF-8-demo.txt"])
def test_kuhn(corpus, name):
    data = (corpus / "kuhn" / name).read_bytes()
    for errors in ("replace", "ignore"):
        result = simulate(data, errors=errors, stall=0.1, seed=1)
        assert result.output == data.decode("utf-8", errors).encode("utf-16-le")


def test_kuhn_stress_test_strict(corpus):
    data = (corpus / "kuhn" / "UTF-8-test.txt").read_bytes()
    with pytest.raises(UnicodeDecodeError) as expected:
        data.decode("utf-8")
    with pytest.raises(UnicodeDecodeError) as got:
        simulate(data, errors="strict")
    assert (got.value.start, got.value.end, got.value.reason) == \
        (expected.value.start, expected.value.end, expected.value.reason)


@pytest.mark.parametrize("name", MULTILINGUAL)
def test_multilingual_slices(corpus, name):
    data = (corpus / name).read_bytes()
    # Cutting at an arbitrary byte leaves a truncated sequence at the end: that is tested too.
    middle = len(data) // 2
    check_file_slice(data[:SLICE], stall=0.2, seed=len(name))
    simulated = simulate(data[middle:middle + SLICE])
    assert simulated.output == data[middle:middle + SLICE].decode("utf-8", "replace") \
        .encode("utf-16-le")


def _check_cases(cases, errors):
    """Run the cases' inputs back to back; compare with the model, CPython and, for "replace",
    the code points the case file records for CPython."""
    messages = [bytes.fromhex(case["input_hex"]) for case in cases]
    beats, _ = run_messages(UTF8ToUTF16(errors=errors), messages, stall=0.3, seed=5)
    for case, message, message_beats in zip(cases, messages, beats):
        assert message_beats == utf8_to_utf16_beats(message, errors)
        output = units_to_bytes(message_beats)
        assert output == message.decode("utf-8", errors).encode("utf-16-le")
        if errors == "replace":
            assert [ord(char) for char in output.decode("utf-16-le")] == \
                case["cpython_codepoints"], case["id"]


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_wpt_cases(corpus, errors):
    cases = [case for case in json.loads((corpus / "wpt" / "wpt_utf_decode_cases.json").read_text())
             if case["decoder"] == "utf-8" and case["input_hex"]]
    assert len(cases) > 20
    _check_cases(cases, errors)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_utf8tests_cases(corpus, errors):
    cases = [case for case in json.loads((corpus / "utf8tests" / "utf8tests_cases.json")
                                         .read_text()) if case["input_hex"]]
    assert len(cases) > 200
    _check_cases(cases, errors)
