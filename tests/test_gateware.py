"""The gateware in Amaranth's simulator, beat by beat against the reference model and byte for
byte against CPython, with random stalls on both sides."""

import itertools
import random

import pytest
from hypothesis import given, strategies as st

from utfhw.hdl import UTF8ToUTF16, UTF16Encoder, CodePointLanes, ErrorKind
from utfhw.sim import simulate, transcode
from utfhw.sim.harness import run_messages, units_to_bytes
from utfhw.sim.reference import utf8_to_utf16_beats, utf16_units, encode_utf16

from support import byte_soup, cpython_error


TARGETS = {"utf-16-le": "little", "utf-16-be": "big"}

# Hex inputs of the table in DESIGN.md (maximal-subpart replacement).
DESIGN_TABLE = ["ED A0 80", "E0 80", "F0 9F 98 41", "E2 28 A1",
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
    """Run messages back to back through one core; compare beats with the model and bytes
    with CPython."""
    dut = UTF8ToUTF16(byteorder=TARGETS[target], errors=errors)
    beats, cycles = run_messages(dut, messages, stall=stall, seed=seed)
    assert len(beats) == len(messages)
    for message, message_beats in zip(messages, beats):
        assert message_beats == utf8_to_utf16_beats(message, errors, TARGETS[target]), \
            message.hex()
        assert units_to_bytes(message_beats) == message.decode("utf-8", errors).encode(target)
    return cycles


def hardware_error(data, **kwargs):
    try:
        transcode(data, errors="strict", **kwargs)
    except UnicodeDecodeError as error:
        return error.start, error.end, error.reason
    return None


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_design_table(target, errors):
    check_messages([bytes.fromhex(case) for case in DESIGN_TABLE], target=target, errors=errors)


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
    assert kinds == {ErrorKind.NONE, ErrorKind.INVALID_BYTE, ErrorKind.TRUNCATED,
                     ErrorKind.UNFINISHED}


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
    messages = [bytes(combination) for length in (1, 2)
                for combination in itertools.product(range(256), repeat=length)]
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


def test_empty_input():
    result = simulate(b"")
    assert (result.output, result.cycles) == (b"", 0)


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


def _encoder_beats(dut, beats, *, stall, seed):
    """Drive code point lane beats into a UTF16Encoder; return its output unit lists and lasts."""
    from amaranth.sim import Simulator
    from utfhw.sim.payload import LaneFormat
    from utfhw.sim.stream import stream_get, stream_put

    def pack(code_points, last):
        value = CodePointLanes.const({
            "lanes": [{"data": cp, "error": ErrorKind.NONE} for cp in code_points]
                     + [{"data": 0, "error": ErrorKind.NONE}] * (2 - len(code_points)),
            "count": len(code_points), "last": last})
        return value.as_value().value

    rng = random.Random(seed)
    output_format = LaneFormat(dut.o.payload.shape())
    collected = []

    async def producer(ctx):
        await stream_put(ctx, dut.i, [pack(cps, last) for cps, last in beats], stall=stall,
                         rng=random.Random(rng.getrandbits(32)))

    async def consumer(ctx):
        for payload in await stream_get(ctx, dut.o, until_last=sum(last for _, last in beats),
                                        stall=stall, rng=random.Random(rng.getrandbits(32))):
            collected.append(output_format.unpack(payload))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.run()
    return collected


scalar_value = st.one_of(st.integers(0, 0xD7FF), st.integers(0xE000, 0x10FFFF))


@pytest.mark.parametrize("stall", [0.0, 0.5])
@given(beats=st.lists(st.tuples(st.lists(scalar_value, max_size=2), st.booleans()),
                      min_size=1, max_size=12),
       seed=st.integers(0, 99))
def test_encoder_alone(stall, beats, seed):
    # Beats of two code points with a supplementary one need four units; they go out as two beats.
    beats[-1] = (beats[-1][0], True)
    output = _encoder_beats(UTF16Encoder(), beats, stall=stall, seed=seed)
    units = [unit for unit_list, _ in output for unit, _ in unit_list]
    expected = [unit for code_points, _ in beats for cp in code_points for unit in utf16_units(cp)]
    assert units == expected
    assert all(count <= 2 for count in map(len, (items for items, _ in output)))
    assert sum(last for _, last in output) == sum(last for _, last in beats)
    assert output[-1][1]
    # Exactly one output beat per input beat, plus one for each beat that needs four units.
    extra = sum(1 for code_points, _ in beats if sum(len(utf16_units(cp)) for cp in code_points) > 2)
    assert len(output) == len(beats) + extra


def test_encoder_every_plane_boundary():
    code_points = [0x0, 0xD7FF, 0xE000, 0xFFFF] + [plane << 16 | low for plane in range(1, 17)
                                                   for low in (0x0000, 0x03FF, 0x0400, 0xFFFF)]
    beats = [([cp], False) for cp in code_points[:-1]] + [([code_points[-1]], True)]
    output = _encoder_beats(UTF16Encoder(), beats, stall=0.0, seed=0)
    units = [unit for unit_list, _ in output for unit, _ in unit_list]
    assert b"".join(unit.to_bytes(2, "little") for unit in units) == \
        "".join(map(chr, code_points)).encode("utf-16-le")
    assert encode_utf16(code_points) == "".join(map(chr, code_points)).encode("utf-16-le")
