"""SkidBuffer: nothing lost, duplicated or reordered under stalls on both sides, with
``i.ready`` a flip-flop and its copies equal to it."""

import random

import pytest

from utfhw.hdl.lanes.skid import SkidBuffer

from support import run_taking


@pytest.mark.parametrize("gap,stall", [(0.0, 0.0), (0.0, 0.5), (0.3, 0.3), (0.0, 0.9)])
def test_order_and_ready(gap, stall):
    dut = SkidBuffer(shape=16, copies=3)
    rng = random.Random(f"{gap}{stall}")
    values = list(range(1, 500))
    received = []
    agree = []

    async def writer(ctx):
        sent = 0
        while sent < len(values):
            valid = rng.random() >= gap
            ctx.set(dut.i.valid, valid)
            ctx.set(dut.i.payload, values[sent])
            # The stream rule: a beat stays offered until it is taken.
            await ctx.tick()
            while valid and not ctx.get(dut.i.ready):
                await ctx.tick()
            sent += valid
        ctx.set(dut.i.valid, 0)

    async def reader(ctx):
        for _ in range(20 * len(values)):
            if len(received) >= len(values):
                break
            ready = rng.random() >= stall
            ctx.set(dut.o.ready, ready)
            # Neither ready nor valid moves with o.ready within the clock.
            before = (ctx.get(dut.i.ready), ctx.get(dut.o.valid))
            ctx.set(dut.o.ready, not ready)
            assert (ctx.get(dut.i.ready), ctx.get(dut.o.valid)) == before
            ctx.set(dut.o.ready, ready)
            agree.append(all(ctx.get(copy) == ctx.get(dut.i.ready)
                             for copy in dut.ready_copies))
            await ctx.tick()

    run_taking(dut, received, writer, reader)
    assert received == values
    assert all(agree)


def test_copies_message():
    with pytest.raises(ValueError, match=r"^copies must be an integer of at least 1, not 0$"):
        SkidBuffer(shape=8, copies=0)
