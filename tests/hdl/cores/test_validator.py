"""The Validator in Amaranth's simulator: what it says of each message is CPython's, its beats
are its input's, and its parameters are checked. (Every codec and width through Verilator:
tests/sim/test_validation.py.)"""

import math

import pytest

from utfhw.bench.stimulus import stress_messages
from utfhw.hdl import Validator
from utfhw.hdl.forms import CODECS
from utfhw.sim import validate, validate_messages

from support import cpython_verdict


def check_verdicts(messages, results, source):
    assert len(results) == len(messages)
    for message, result in zip(messages, results):
        assert result.output == message
        got = {name: getattr(result, name) for name in cpython_verdict(message, source)}
        assert got == cpython_verdict(message, source), message
        assert not result.overflow


@pytest.mark.parametrize("source", list(CODECS))
def test_every_source_at_its_unit(source):
    width = CODECS[source].unit_bytes
    messages = stress_messages(source, seed=3)[:40] + [b""]
    run = validate_messages(messages, source, width=width, stall=0.3, seed=1)
    check_verdicts(messages, run.results, source)


@pytest.mark.parametrize("source,width", [("utf-8", 8), ("utf-16-be", 4), ("utf-32", 8)])
def test_wider_beats(source, width):
    messages = stress_messages(source, seed=4)[:30]
    run = validate_messages(messages, source, width=width, stall=0.4, seed=2)
    check_verdicts(messages, run.results, source)


@pytest.mark.parametrize("width", [1, 4])
def test_a_beat_every_clock(width):
    """With no stalls a message of n bytes takes ceil(n / width) clocks and the latency."""
    for message in [b"", b"A", "h\u00e9llo \U0001F600 w\xf6rld".encode() + b"\xed\xa0\x80"]:
        result = validate(message, "utf-8", width=width)
        assert result.cycles == max(1, math.ceil(len(message) / width)) + Validator.latency


def test_overflow():
    """Counters of ``bits`` hold a message of fewer than 2 ** bits bytes; a longer one says
    so."""
    from amaranth.sim import Simulator
    from utfhw.sim.payload import pack_units
    from utfhw.sim.stream import stream_get, stream_put
    from utfhw.sim.validation import read_verdict

    dut = Validator(source="utf-8", width=4, bits=5)
    messages = [b"A" * 31, b"A" * 32, b"\xff" * 31, b"B"]
    payloads = [payload for message in messages
                for payload in pack_units(dut.i.payload.shape(), message)]
    got = []

    async def producer(ctx):
        await stream_put(ctx, dut.i, payloads)

    async def consumer(ctx):
        got.extend(await stream_get(ctx, dut.o, until_last=len(messages)))

    simulator = Simulator(dut)
    simulator.add_clock(1e-8)
    simulator.add_testbench(producer)
    simulator.add_testbench(consumer)
    simulator.run()
    layout = dut.o.payload.shape()
    last_bit = 1 << layout["last"].offset
    verdicts = [read_verdict(layout, payload, "utf-8") for payload in got
                if payload & last_bit]
    assert [verdict["overflow"] for verdict in verdicts] == [False, True, False, False]
    assert verdicts[0]["code_points"] == 31 and verdicts[0]["valid"]
    assert (verdicts[2]["utf8_bytes"], verdicts[2]["start"]) == (93, 0)
    # The message after one that overflowed is counted afresh.
    assert verdicts[3]["code_points"] == 1


@pytest.mark.parametrize("arguments,message", [
    ({"source": "utf-7", "width": 4},
     "source codec must be 'utf-8', 'utf-8-sig', 'utf-16', 'utf-16-le', 'utf-16-be', 'utf-32', "
     "'utf-32-le', 'utf-32-be', 'latin-1', 'ascii' or another of CPython's names for them, "
     "not 'utf-7'"),
    ({"width": 3}, "width must be a power of two from 1 to 64, not 3"),
    ({"source": "utf-16-le", "width": 1}, "width must be at least 2 for utf-16-le, not 1"),
    ({"width": 4, "bits": 3}, "bits must be an integer from 4 to 48, not 3"),
])
def test_parameter_messages(arguments, message):
    with pytest.raises(ValueError) as error:
        Validator(**arguments)
    assert str(error.value) == message


def test_validate_messages():
    with pytest.raises(ValueError, match="^backend must be 'amaranth' or 'verilator', not 'x'$"):
        validate(b"", backend="x")
    with pytest.raises(ValueError, match="^stall must be"):
        validate(b"", stall=1.5)
