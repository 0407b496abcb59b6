"""The golden model for a user's bench (bench/golden.py): its beats are the cores', at the
stream ports and at AXI4-Stream, and its checker finds every kind of difference."""

import pytest

from utfhw.bench.golden import AxisBeat, BeatMismatch, check_beats, expected_beats
from utfhw.bench.stimulus import stress_messages
from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.axis import TUSER_BITS_PER_UNIT, TUSER_PROTOCOL_ERROR_BIT
from utfhw.sim import simulate_messages
from utfhw.sim.payload import LaneFormat, VerdictFormat
from utfhw.sim.validation import read_result, validate_messages


SPECS = [CoreSpec("utf-8", "utf-16-le", kind="wide", width=1),
         CoreSpec("utf-16-be", "utf-8", kind="wide", width=4),
         CoreSpec("utf-32-le", "utf-16", kind="wide", width=16),
         CoreSpec("utf-16", "utf-32-be"),
         CoreSpec("utf-8", "utf-16-be", kind="pipelined")]


@pytest.mark.parametrize("spec", SPECS, ids=str)
def test_the_golden_beats_are_the_cores(spec):
    """What the golden model expects is what the core gives, beat for beat (in Amaranth's
    simulator, with stalls), at the stream ports; its AXI4-Stream beats hold the same units."""
    messages = stress_messages(spec.source, seed=2)[:12]
    run = simulate_messages(messages, spec.source, spec.target, width=spec.width,
                            pipelined=spec.pipelined, stall=0.2, record_beats=True,
                            backend="amaranth")
    got = [beat for beats in run.beats for beat in beats]
    assert check_beats(messages, got, spec) == len(got)
    lanes = LaneFormat(spec.output_layout)
    payloads = [lanes.pack(units, last) for units, last in got]
    assert [payload for beats in expected_beats(messages, spec) for payload in beats] == payloads
    axis = [beat for beats in expected_beats(messages, spec, interface="axis") for beat in beats]
    assert check_beats(messages, axis, spec, interface="axis") == len(got)
    assert [beat.tlast for beat in axis] == [last for _, last in got]


def test_the_checker_finds_each_difference():
    spec = CoreSpec("utf-8", "utf-32-be", kind="wide", width=4)
    messages = [b"A\xe2\x82\xac\xffB", b"", "\U0001F600".encode()]
    good = [beat for beats in expected_beats(messages, spec, interface="axis")
            for beat in beats]
    assert check_beats(messages, good, spec, interface="axis") == len(good)

    def fails(beats):
        with pytest.raises(BeatMismatch) as error:
            check_beats(messages, beats, spec, interface="axis")
        return error.value

    first = good[0]
    wrong_data = fails([AxisBeat(first.tdata ^ 0x100, first.tkeep, first.tlast, first.tuser),
                        *good[1:]])
    assert (wrong_data.message, wrong_data.beat, wrong_data.lane) == (0, 0, 0)
    assert "expected 0x41000000 NONE, got 0x41000100 NONE" in str(wrong_data)
    assert "CPython: utf-8 strict raises at start=4, end=5: invalid start byte" in \
        str(wrong_data)
    wrong_kind = fails([AxisBeat(first.tdata, first.tkeep, first.tlast, first.tuser | 1),
                        *good[1:]])
    assert wrong_kind.lane == 0 and "INVALID_START_BYTE" in str(wrong_kind)
    flagged = fails([AxisBeat(first.tdata, first.tkeep, first.tlast,
                              first.tuser | 1 << (TUSER_BITS_PER_UNIT + TUSER_PROTOCOL_ERROR_BIT)),
                     *good[1:]])
    assert flagged.lane is None and "tuser" in str(flagged)
    holed = fails([AxisBeat(first.tdata, first.tkeep & ~0x1, first.tlast, first.tuser),
                   *good[1:]])
    assert holed.beat == 0
    missing = fails(good[:-1])
    assert (missing.message, missing.beat) == (2, 0) and "ended after" in str(missing)
    extra = fails(good + good[-1:])
    assert "more than" in str(extra)
    lasts = [AxisBeat(beat.tdata, beat.tkeep, not beat.tlast, beat.tuser) for beat in good]
    assert "last: expected" in str(fails(lasts))


def test_interface_is_checked():
    with pytest.raises(ValueError, match=r"^interface must be 'stream' or 'axis', not 'apb'$"):
        expected_beats([b""], CoreSpec(), interface="apb")


def test_the_docs_first_example_runs():
    """docs/golden.md's first code block, its imports and core, runs as written."""
    import re
    from conftest import REPOSITORY
    text = (REPOSITORY / "docs" / "golden.md").read_text()
    first = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    namespace = {}
    exec(compile(first, "docs/golden.md", "exec"), namespace)
    assert namespace["spec"] == CoreSpec("utf-16-le", "utf-8", kind="wide", width=16)


@pytest.mark.parametrize("source,width", [("utf-8", 4), ("utf-16", 8), ("ascii", 16)])
def test_a_validators_golden_beats_are_the_cores(source, width):
    """For a validator, the golden model's beats are the input's, and the result on each
    message's last beat is what the core says (in Amaranth's simulator, with stalls)."""
    spec = CoreSpec.of(source, None, validate=True, width=width)
    messages = stress_messages(source, seed=4)[:10]
    run = validate_messages(messages, source, width=width, stall=0.2, backend="amaranth")
    result = spec.output_layout["result"]
    for message, beats, verdict in zip(messages, expected_beats(messages, spec), run.results):
        assert b"".join(VerdictFormat(spec.output_layout).unpack(beat)[0][0]
                        for beat in beats) == message == verdict.output
        expected = read_result(result.shape, beats[-1] >> result.offset, source)
        assert expected == {name: getattr(verdict, name) for name in expected}
    axis = [beat for beats in expected_beats(messages, spec, interface="axis") for beat in beats]
    assert check_beats(messages, axis, spec, interface="axis") == len(axis)


def test_the_checker_finds_each_difference_of_a_validator():
    spec = CoreSpec.of("utf-8", None, validate=True, width=4)
    messages = [b"A\xe2\x82\xac\xffB", b""]
    good = [beat for beats in expected_beats(messages, spec) for beat in beats]
    assert check_beats(messages, good, spec) == len(good) == 3

    def fails(beats):
        with pytest.raises(BeatMismatch) as error:
            check_beats(messages, beats, spec)
        return str(error.value)

    assert "bytes passed through changed: expected 41 e2 82 ac, got 40 e2 82 ac" in \
        fails([good[0] ^ 1, *good[1:]])
    start = spec.output_layout["result"].offset + spec.output_layout["result"].shape["start"].offset
    wrong = fails([good[0], good[1] ^ (1 << start), good[2]])
    assert "the result: expected valid=False, start=4, end=5, reason=invalid start byte" in wrong
    assert "got valid=False, start=5" in wrong
    last = 1 << spec.output_layout["last"].offset
    assert "last: expected False, got True" in fails([good[0] | last, *good[1:]])
    assert "ended after" in fails(good[:-1])
    assert "more than" in fails(good + good[-1:])
