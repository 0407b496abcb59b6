"""CreditQueue: nothing lost, duplicated or reordered under output stalls, as long as the
writer honours ``room``."""

import random

import pytest

from utfhw.hdl.lanes.queue import CreditQueue

from support import run_taking


@pytest.mark.parametrize("stall", [0.0, 0.5, 0.9])
@pytest.mark.parametrize("depth,threshold", [(4, 1), (16, 3), (32, 12)])
def test_order_and_room(depth, threshold, stall):
    """The writer sends only while ``room`` was high ``delay`` clocks before its beat arrives (a
    pipeline of that many stages in front), the most the queue's depth allows."""
    delay = depth - threshold - 2
    dut = CreditQueue(shape=16, depth=depth, threshold=threshold)
    rng = random.Random(f"{depth}{stall}")
    values = list(range(1, 600))
    received = []

    async def writer(ctx):
        in_flight = [0] * delay
        sent = 0
        while sent < len(values) or any(in_flight):
            go = sent < len(values) and ctx.get(dut.room) and rng.random() < 0.8
            in_flight.append(values[sent] if go else 0)
            sent += go
            arriving = in_flight.pop(0)
            ctx.set(dut.i.valid, bool(arriving))
            ctx.set(dut.i.payload, arriving)
            await ctx.tick()
        ctx.set(dut.i.valid, 0)

    async def reader(ctx):
        # Long enough for every value at the slowest reader; a queue that lost some stops here.
        for _ in range(20 * len(values)):
            if len(received) >= len(values):
                break
            ctx.set(dut.o.ready, rng.random() >= stall)
            await ctx.tick()

    run_taking(dut, received, writer, reader)
    assert received == values
