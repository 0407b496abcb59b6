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


def test_latency():
    assert [Compactor.latency_of(width) for width in (1, 2, 4, 8, 16, 32, 64)] == \
        [1, 2, 3, 5, 6, 8, 9]
