"""Compactor: the valid slots of each beat packed from lane 0, in order."""

import random

import pytest
from amaranth.lib import data

from utfhw.hdl.lanes.compact import Compactor, Slot
from utfhw.hdl.unicode.layout import Lanes
from utfhw.hdl.lanes.window import LaneBeat

from support import run_valid_stream


ITEM = data.StructLayout({"value": 8})


@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32])
def test_packs_in_order(width):
    rng = random.Random(width)
    beat = LaneBeat(Slot(ITEM), width)
    beats = []
    # Every slot pattern for small widths, random ones (all empty and all full among them) for
    # larger.
    patterns = ([[(pattern >> slot) & 1 for slot in range(width)] for pattern in range(1 << width)]
                if width <= 8 else
                [[0] * width, [1] * width] +
                [[int(rng.random() < density) for _ in range(width)]
                 for density in (0.1, 0.5, 0.9) for _ in range(40)])
    for pattern in patterns:
        values = [rng.randrange(256) for _ in range(width)]
        beats.append((pattern, values, rng.random() < 0.3))
    payloads = []
    for pattern, values, last in beats:
        bits = int(last) << beat["last"].offset
        for slot, (valid, value) in enumerate(zip(pattern, values)):
            bits |= (valid | value << 1) << (beat["lanes"].offset + slot * Slot(ITEM).size)
        payloads.append(bits)
    dut = Compactor(item=ITEM, width=width)
    received = run_valid_stream(dut, payloads, gap=0.2, seed=width)
    assert len(received) == len(beats)
    output = Lanes(ITEM, width)
    for (pattern, values, last), bits in zip(beats, received):
        count = (bits >> output["count"].offset) & ((1 << output["count"].width) - 1)
        kept = [value for valid, value in zip(pattern, values) if valid]
        assert count == len(kept)
        lanes = [(bits >> (output["lanes"].offset + 8 * lane)) & 0xFF for lane in range(count)]
        assert lanes == kept
        assert (bits >> output["last"].offset) & 1 == last


@pytest.mark.parametrize("width", [1, 2, 4, 8, 16, 32, 64])
def test_latency(width):
    """A beat comes out ``latency_of(width)`` clocks after it went in."""
    from amaranth.sim import Simulator
    dut = Compactor(item=ITEM, width=width)
    clocks = []

    async def bench(ctx):
        ctx.set(dut.i.valid, 1)
        await ctx.tick()
        ctx.set(dut.i.valid, 0)
        for clock in range(1, 20):
            if ctx.get(dut.o.valid):
                clocks.append(clock)
                return
            await ctx.tick()

    simulator = Simulator(dut)
    simulator.add_clock(1e-8)
    simulator.add_testbench(bench)
    simulator.run()
    assert clocks == [Compactor.latency_of(width)]
