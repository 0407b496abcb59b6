"""Equivalence at scale through the generated Verilog, run by Verilator, against CPython: every
UTF-8 message of one to three bytes, every scalar value through every decoder and encoder, every
UTF-16 unit and unit pair class, the third-party corpus through every pair, and with
``UTFHW_SWEEP=full`` every pair's wide core at widths 4 and 32."""

import itertools
import random

import pytest

from conftest import FULL_SWEEP, FULL_SWEEP_ONLY
from utfhw.hdl.cores import WIDE_PAIRS
from utfhw.hdl.cores.wide import wide_widths
from utfhw.model.reference import CODECS

from support import (BUILT_PAIRS, SHORT_MESSAGE_SLICES, SWEPT_CODECS, adversarial_message,
                     check_verilated, every_two_bytes_messages, joined)


# The slices of SHORT_MESSAGE_SLICES with replace, and in CI the messages of one and two bytes
# with ignore (every slice with UTFHW_SWEEP=full). The ignore pipelines differ by one stage,
# which drops errors; tests/sim/test_verilator.py streams stress input from each source form
# through it.
@pytest.mark.parametrize("chunk,errors", [
    (chunk, errors) for chunk in SHORT_MESSAGE_SLICES for errors in ("replace", "ignore")
    if FULL_SWEEP or chunk == 0 or errors == "replace"],
    ids=lambda value: value if isinstance(value, str) else "1-2 bytes" if value == 0 else
    f"3 bytes {32 * (value - 1):02X}-{32 * value - 1:02X}")
def test_every_short_utf8_message(chunk, errors, tally):
    """All 16,843,008 UTF-8 messages of 1 to 3 bytes, each its own message, to UTF-16-LE, in
    nine slices so that they spread over the test workers."""
    data, lengths = next(itertools.islice(every_two_bytes_messages(), chunk, None))
    tally(f"1-3-byte UTF-8 messages with {errors}", len(lengths))
    run = check_verilated(data, lengths, "utf-8", "utf-16-le", errors=errors)
    assert run.input_beats == len(data)


SCALARS = "".join(map(chr, itertools.chain(range(0xD800), range(0xE000, 0x110000))))
FORMS = ["utf-8", "utf-16-le", "utf-32-le"]


@pytest.mark.parametrize("target", SWEPT_CODECS)
def test_every_scalar_through_every_encoder(target):
    """All 1,112,064 scalar values, one message, from UTF-32 into every target codec."""
    data = SCALARS.encode("utf-32-le")
    check_verilated(data, [len(data)], "utf-32-le", target)


@pytest.mark.parametrize("source", ["utf-8", "utf-16-be", "utf-32-be", "utf-16"])
def test_every_scalar_through_every_decoder(source):
    data = SCALARS.encode(source)
    check_verilated(data, [len(data)], source, "utf-32-le")


@pytest.mark.parametrize("source", ["latin-1", "ascii"])
def test_every_byte_through_the_one_byte_decoders(source):
    """Every byte, in one message and each alone: Latin-1 to ASCII, ASCII to UTF-8."""
    data = bytes(range(256))
    for target in ("ascii",) if source == "latin-1" else ("utf-8",):
        for errors in ("replace", "ignore"):
            check_verilated(data * 2, [len(data)] * 2, source, target, errors=errors)
            check_verilated(data, [1] * len(data), source, target, errors=errors)


# A unit of each class: non-surrogates at both edges, high and low surrogates at both edges.
UNIT_CLASSES = [0x0000, 0x0041, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFEFF, 0xFFFE,
                0xFFFF]


@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be"])
def test_every_utf16_unit(source):
    """Every 16-bit unit alone, with an odd byte after it, and before and after a unit of each
    class, each its own message."""
    order = "little" if source == "utf-16-le" else "big"
    units = [value.to_bytes(2, order) for value in range(1 << 16)]
    classes = [value.to_bytes(2, order) for value in UNIT_CLASSES]
    messages = units + [unit + b"\x41" for unit in units]
    messages += [unit + other for unit in units for other in classes]
    messages += [other + unit for unit in units for other in classes]
    check_verilated(*joined(messages), source, "utf-32-le")
    check_verilated(*joined(messages[:1 << 17]), source, "utf-8", stall=0.3, seed=2)


def test_every_surrogate_pair():
    """All 1,048,576 surrogate pairs, each its own message, and all of them in one message."""
    data = b"".join(((high << 16) | low).to_bytes(4, "big")
                    for high in range(0xD800, 0xDC00) for low in range(0xDC00, 0xE000))
    check_verilated(data, [4] * (len(data) // 4), "utf-16-be", "utf-32-le")
    check_verilated(data, [len(data)], "utf-16-be", "utf-8")


def corpus_messages(corpus, source):
    """Every text file of the corpus as it is, and its text encoded with ``source``."""
    messages = []
    for path in sorted(corpus.rglob("*.txt")):
        raw = path.read_bytes()
        messages.append(raw)
        codec = "utf-16" if ".utf16." in path.name else \
            "utf-16-be" if ".utf16be." in path.name else "utf-8"
        messages.append(raw.decode(codec, "replace").encode(source, "replace"))
    return messages


# Every pair with UTFHW_SWEEP=full; in CI every other pair of BUILT_PAIRS.
@pytest.mark.parametrize("source,target", [
    (source, target) for index, (source, target) in enumerate(BUILT_PAIRS)
    if FULL_SWEEP or (index + index // len(CODECS)) % 2 == 0])
def test_corpus_every_pair(corpus, source, target):
    check_verilated(*joined(corpus_messages(corpus, source)), source, target, stall=0.2, seed=5)


@FULL_SWEEP_ONLY
@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("width", [4, 32])
@pytest.mark.parametrize("source,target", WIDE_PAIRS)
def test_every_wide_pair(source, target, width, errors):
    """Every pair's wide core at widths 4 and 32 (the least it takes, if more): adversarial
    messages of every length around the width back to back, with stalls on both sides, and
    without stalls at the rate the model gives."""
    width = max(width, wide_widths(source, target)[0])
    rng = random.Random(f"{source}{target}{width}{errors}")
    messages = [b"", adversarial_message(rng, 1)]
    for _ in range(600):
        message = adversarial_message(rng, rng.choice([2, 12, 40]))
        messages.append(message[:rng.choice([len(message), width - 1, width, width + 1])])
    for stall in (0.0, 0.3):
        check_verilated(*joined(messages), source, target, errors=errors, width=width,
                        stall=stall, seed=width)
