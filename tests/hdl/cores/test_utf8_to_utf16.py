"""UTF-8 to UTF-16 (the foundation) in Amaranth's simulator, beat by beat against the reference
model and byte for byte against CPython, with random stalls on both sides."""

import pytest
from hypothesis import given, strategies as st

from utfhw.hdl import ErrorKind
from utfhw.sim import simulate, transcode

from conftest import FULL_SWEEP
from support import TRICKY_BYTES, byte_soup, cpython_error, check_messages as check_pair_messages


TARGETS = {"utf-16-le": "little", "utf-16-be": "big"}

# Examples of U+FFFD substitution of maximal subparts (Unicode ch. 3, Tables 3-8 to 3-11, and
# the cases around them), as in the README's error policy.
MAXIMAL_SUBPART_EXAMPLES = ["ED A0 80", "E0 80", "F0 9F 98 41", "E2 28 A1",
                "61 F1 80 80 E1 80 C2 62 80 63 80 BF 64", "F4 91 92 93 FF 41 80 BF 42", "E2 82"]

BOUNDARY_CODE_POINTS = [0x0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFF, 0x1000, 0xCFFF, 0xD000, 0xD7FF,
                        0xE000, 0xFEFF, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1F600, 0x3FFFF,
                        0x40000, 0xFFFFF, 0x100000, 0x10FFFF]

# One input per error kind and per narrowed second-byte range of Table 3-7.
ERROR_CASES = {
    "continuation without lead": "80", "C0 lead": "C0 80", "C1 lead": "C1 BF",
    "F5 lead": "F5 80 80 80", "FF": "FF", "overlong E0": "E0 9F BF", "surrogate ED": "ED BF BF",
    "overlong F0": "F0 8F BF BF", "above U+10FFFF": "F4 90 80 80", "cut by ASCII": "E2 82 41",
    "cut by lead": "F0 9F 98 F0 9F 98 80", "unfinished 2": "C2", "unfinished 3": "E2 82",
    "unfinished 4": "F0 9F 98",
}


def check_messages(messages, *, target="utf-16-le", errors="replace", stall=0.0, seed=0):
    return check_pair_messages(messages, "utf-8", target, errors=errors, stall=stall, seed=seed)


def hardware_error(data, **kwargs):
    try:
        transcode(data, errors="strict", **kwargs)
    except UnicodeDecodeError as error:
        return error.start, error.end, error.reason
    return None


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_maximal_subpart_examples(target, errors):
    check_messages([bytes.fromhex(case) for case in MAXIMAL_SUBPART_EXAMPLES], target=target, errors=errors)


@pytest.mark.parametrize("target", TARGETS)
def test_boundary_code_points(target):
    messages = [chr(code_point).encode("utf-8") for code_point in BOUNDARY_CODE_POINTS]
    check_messages(messages + [b"".join(messages)], target=target)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_error_cases(errors):
    check_messages([bytes.fromhex(case) for case in ERROR_CASES.values()], errors=errors)


@pytest.mark.parametrize("name", ERROR_CASES)
def test_strict_positions(name):
    data = b"ab" + bytes.fromhex(ERROR_CASES[name]) + b"cd"
    assert hardware_error(data) == cpython_error(data)
    assert hardware_error(data[:-2]) == cpython_error(data[:-2])


def test_every_error_kind_is_emitted():
    kinds = set()
    for case in ERROR_CASES.values():
        for units, _ in simulate(bytes.fromhex(case)).beats:
            kinds.update(error for _, error in units)
    assert kinds == {ErrorKind.NONE, ErrorKind.INVALID_START_BYTE, ErrorKind.INVALID_CONTINUATION_BYTE,
                     ErrorKind.UNEXPECTED_END_OF_DATA}


def test_truncation_at_last():
    # Every proper prefix of every multi-byte sequence, each ending a message.
    messages = [chr(code_point).encode("utf-8")[:cut] for code_point in BOUNDARY_CODE_POINTS
                for cut in range(1, len(chr(code_point).encode("utf-8")))]
    check_messages(messages)
    check_messages(messages, errors="ignore")


def test_state_does_not_leak_across_messages():
    # A message ending inside a sequence must not let the next one's continuation bytes finish it.
    messages = [b"\xe2\x82", b"\xac", b"\xf0\x9f", b"\x98\x80", b"\xc3", b"\xa9x"]
    check_messages(messages)
    check_messages(messages, stall=0.5, seed=7)


def test_every_one_and_two_byte_message():
    """Every one-byte message, and the two-byte ones: all 65,536 in the full sweep, in CI those
    that begin with a byte at the edge of a class of Table 3-7 (Verilator runs them all,
    tests/sim/test_verilator_sweeps.py)."""
    firsts = range(256) if FULL_SWEEP else TRICKY_BYTES
    messages = [bytes([byte]) for byte in range(256)]
    messages += [bytes([first, second]) for first in firsts for second in range(256)]
    check_messages(messages)


@pytest.mark.parametrize("stall", [0.25, 0.75])
@given(messages=st.lists(byte_soup(min_size=1), min_size=1, max_size=4),
       target=st.sampled_from(list(TARGETS)), errors=st.sampled_from(["replace", "ignore"]),
       seed=st.integers(0, 2**32 - 1))
def test_random_backpressure(stall, messages, target, errors, seed):
    check_messages(messages, target=target, errors=errors, stall=stall, seed=seed)


@given(data=byte_soup(min_size=1), stall=st.sampled_from([0.0, 0.5]), seed=st.integers(0, 99))
def test_strict_matches_cpython(data, stall, seed):
    assert hardware_error(data, stall=stall, seed=seed) == cpython_error(data)


@given(byte_soup(min_size=1, max_size=200))
def test_one_byte_per_clock(data):
    # Latency is two clocks, so a message of N bytes takes N + 2 clocks with no stalls.
    assert simulate(data).cycles == len(data) + 2


def test_one_byte_per_clock_on_worst_cases():
    for pattern in [b"\xe2\x41", b"\xc2\x41", b"\xe2\xc2", b"\x80", b"\xf0\x9f\x98\x41",
                    b"\xf0\x9f\x98\x80", b"\xed\xa0\x80"]:
        data = pattern * 64
        assert simulate(data).cycles == len(data) + 2


def test_empty_message():
    # One empty beat with `last` goes in and one empty beat comes out, two clocks later.
    result = simulate(b"")
    assert (result.output, result.cycles, result.input_beats) == (b"", 3, 1)
    check_messages([b"", b"a", b"", b"\xe2\x82", b""])


def test_vcd(tmp_path):
    path = tmp_path / "trace.vcd"
    simulate(b"\xe2\x82\xac", vcd=path)
    text = path.read_text()
    assert "i__valid" in text and "o__payload" in text


def test_progress_reports_every_byte():
    reports = []
    simulate(b"x" * 3000, progress=lambda done, total: reports.append((done, total)))
    assert reports[-1] == (3000, 3000)
    assert [done for done, _ in reports] == sorted(done for done, _ in reports)
