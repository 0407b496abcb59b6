"""The AXI4-Stream top's input rules (hdl/axis.py) in Amaranth's simulator: null beats are taken
and dropped; a beat with a hole in ``s_axis_tkeep``, kept bytes not from byte 0, or a short beat
that is not ``s_axis_tlast`` is a protocol error, which ``protocol_error`` and the protocol
error bit of the message's ``m_axis_tlast`` beat report, and the messages after it are exact."""

import random

import pytest
from amaranth.sim import Simulator

from utfhw.hdl.axis import AXIStreamTop, TUSER_BITS_PER_UNIT, TUSER_PROTOCOL_ERROR_BIT
from utfhw.hdl.cores import make_core
from utfhw.hdl.reset import ResetGuard


def run_axis(top, beats, *, stall, seed):
    """Send ``beats`` (``(bytes by position or None for a null byte, last)``) into ``top``
    with random stalls on both sides; returns the output messages as ``(bytes, marked)`` and
    the clocks on which ``protocol_error`` was high."""
    rng = random.Random(seed)
    width = top.input_bytes
    unit_bytes, lanes = top.unit_bytes, top.lanes
    messages, errors = [], []
    expected_messages = sum(1 for _, last in beats if last)

    async def producer(ctx):
        for data, last in beats:
            while rng.random() < stall:
                await ctx.tick()
            value = keep = 0
            for index, byte in enumerate(data):
                if byte is not None:
                    value |= byte << (8 * index)
                    keep |= 1 << index
            ctx.set(top.s_axis_tdata, value)
            ctx.set(top.s_axis_tkeep, keep)
            ctx.set(top.s_axis_tlast, last)
            ctx.set(top.s_axis_tvalid, 1)
            await ctx.tick().until(top.s_axis_tready)
            ctx.set(top.s_axis_tvalid, 0)

    async def consumer(ctx):
        output = bytearray()
        while len(messages) < expected_messages:
            ready = rng.random() >= stall
            ctx.set(top.m_axis_tready, ready)
            _, _, valid, data, keep, user, last, error = await ctx.tick().sample(
                top.m_axis_tvalid, top.m_axis_tdata, top.m_axis_tkeep, top.m_axis_tuser,
                top.m_axis_tlast, top.protocol_error)
            if error:
                errors.append(len(messages))
            if not (valid and ready):
                continue
            for lane in range(lanes):
                if keep >> (lane * unit_bytes) & 1:
                    output += ((data >> (8 * unit_bytes * lane)) & ((1 << 8 * unit_bytes) - 1)
                               ).to_bytes(unit_bytes, "little")
            if last:
                marks = {(user >> (lane * TUSER_BITS_PER_UNIT + TUSER_PROTOCOL_ERROR_BIT)) & 1
                         for lane in range(lanes)}
                assert len(marks) == 1, "every lane of the last beat carries the same mark"
                messages.append((bytes(output), bool(marks.pop())))
                output = bytearray()

    assert width
    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.run()
    return messages, errors


def beats_of(message, width, *, last=True):
    """A message's bytes as full beats of ``width``, the last one short."""
    chunks = [message[start:start + width] for start in range(0, len(message), width)] or [b""]
    return [(list(chunk), last and index == len(chunks) - 1) for index, chunk in enumerate(chunks)]


@pytest.mark.parametrize("stall", [0.0, 0.4])
@pytest.mark.parametrize("source,width", [("utf-8", None), ("utf-16-le", None), ("utf-8", 4)])
def test_input_rules(source, width, stall):
    top = AXIStreamTop(ResetGuard(make_core(source, "utf-8", width=width)))
    size = top.input_bytes
    good = "añ€😀".encode(source)
    beats, expected = [], []
    # A message as it should come, with null beats between its beats and after its last.
    for data, last in beats_of(good, size):
        beats += [([None] * size, False), (data, last)]
    expected.append((good.decode(source).encode(), False))
    # Kept bytes not from byte 0, a short beat that is not last, and a hole: each a protocol
    # error, after two whole beats of the message.
    broken = []
    if size > 1:
        broken.append(([None] + list(good[1:size]), True))
        broken.append(([good[0]] + [None] * (size - 1), False))
    if size > 2:
        broken.append(([good[0], None] + list(good[2:size]), True))
    for data, last in broken:
        beats += beats_of(good[:2 * size], size, last=False) + [(data, last)]
        if not last:
            beats += beats_of(good, size)
        expected.append((None, True))
    # The message after them is exact, and an empty one too.
    beats += beats_of(good, size) + [([None] * size, True)]
    expected += [(good.decode(source).encode(), False), (b"", False)]
    messages, errors = run_axis(top, beats, stall=stall, seed=size)
    assert [marked for _, marked in messages] == [marked for _, marked in expected]
    assert [got for (got, _), (want, _) in zip(messages, expected) if want is not None] == \
        [want for want, _ in expected if want is not None]
    assert len(errors) == len(broken)


@pytest.mark.parametrize("stall", [0.0, 0.4])
def test_validator_verdict_in_tuser(stall):
    """A validator behind AXI4-Stream: its output beats are its input's, and m_axis_tuser on
    each tlast beat is the message's verdict (CPython's), with the protocol error bit on top;
    0 on the other beats."""
    from utfhw.hdl.cores import CoreSpec
    from utfhw.sim.validation import read_result

    spec = CoreSpec.of("utf-8", None, validate=True, width=4)
    top = AXIStreamTop(ResetGuard(spec.build()))
    result_layout = spec.output_layout["result"].shape
    messages = [b"h\xc3\xa9llo \xe2\x82\xac!", b"ab\xed\xa0\x80cd", b""]
    beats = [beat for message in messages for beat in beats_of(message, 4)]
    # A protocol error: a short beat that is not a message's last.
    beats += [([0x41, None, None, None], False), ([0x42], True)]
    rng = random.Random(1)
    got, users, verdicts = [], [], []

    async def producer(ctx):
        for data, last in beats:
            while rng.random() < stall:
                await ctx.tick()
            ctx.set(top.s_axis_tdata, sum((byte or 0) << (8 * index)
                                          for index, byte in enumerate(data)))
            ctx.set(top.s_axis_tkeep, sum((byte is not None) << index
                                          for index, byte in enumerate(data)))
            ctx.set(top.s_axis_tlast, last)
            ctx.set(top.s_axis_tvalid, 1)
            await ctx.tick().until(top.s_axis_tready)
            ctx.set(top.s_axis_tvalid, 0)

    async def consumer(ctx):
        output = bytearray()
        while len(verdicts) < len(messages) + 1:
            ready = rng.random() >= stall
            ctx.set(top.m_axis_tready, ready)
            _, _, valid, data, keep, user, last = await ctx.tick().sample(
                top.m_axis_tvalid, top.m_axis_tdata, top.m_axis_tkeep, top.m_axis_tuser,
                top.m_axis_tlast)
            if not (valid and ready):
                continue
            output += data.to_bytes(4, "little")[:bin(keep).count("1")]
            if not last:
                users.append(user)
                continue
            got.append(bytes(output))
            output = bytearray()
            verdicts.append((user >> top.verdict_bits, user & ((1 << top.verdict_bits) - 1)))

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    sim.run()
    assert got[:3] == messages and users == [0] * len(users)
    marks = [mark for mark, _ in verdicts]
    assert marks == [0, 0, 0, 1]
    # The verdict's bits are the core's result layout's, from bit 0.
    for message, (_, bits) in zip(messages, verdicts):
        verdict = read_result(result_layout, bits, "utf-8")
        text = message.decode("utf-8", "replace")
        assert (verdict["code_points"], verdict["utf8_bytes"]) == \
            (len(text), len(text.encode()))
        try:
            message.decode("utf-8")
            assert verdict["valid"]
        except UnicodeDecodeError as error:
            assert (verdict["start"], verdict["end"], verdict["reason"]) == \
                (error.start, error.end, error.reason)
