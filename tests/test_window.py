"""LaneWindow: each beat with the lanes before it and the first lane of the next."""

import random

import pytest
from amaranth.lib import data

from utfhw.hdl.window import LaneBeat, LaneWindow, WindowBeat

from support import run_valid_stream


ITEM = data.StructLayout({"present": 1, "value": 7})


@pytest.mark.parametrize("width,behind", [(1, 3), (2, 3), (4, 3), (8, 1)])
def test_windows(width, behind):
    rng = random.Random(width)
    beat = LaneBeat(ITEM, width)
    messages = []
    for _ in range(80):
        beats = [[1 + rng.randrange(127) for _ in range(width)]
                 for _ in range(rng.choice([1, 1, 2, 4]))]
        beats[-1] = beats[-1][:rng.randrange(width + 1)]
        messages.append(beats)
    payloads = []
    for beats in messages:
        for index, lanes in enumerate(beats):
            bits = int(index == len(beats) - 1) << beat["last"].offset
            for lane, value in enumerate(lanes):
                bits |= (1 | value << 1) << (beat["lanes"].offset + lane * ITEM.size)
            payloads.append(bits)
    received = run_valid_stream(LaneWindow(item=ITEM, width=width, behind=behind), payloads,
                                gap=0.3, seed=width)
    window = WindowBeat(ITEM, width, behind)
    expected = []
    for beats in messages:
        flat = [value for lanes in beats for value in lanes]
        for index, lanes in enumerate(beats):
            start = index * width
            around = [flat[position] if 0 <= position < len(flat) else 0
                      for position in range(start - behind, start + width + 1)]
            last = index == len(beats) - 1
            # Lanes past the count of a short last beat are absent, and so is what follows
            # the message.
            for lane in range(len(lanes), width + last):
                around[behind + lane] = 0
            expected.append((around, last))
    assert len(received) == len(expected)
    for bits, (around, last) in zip(received, expected):
        lanes = [(bits >> (window["window"].offset + ITEM.size * lane)) & 0xFF
                 for lane in range(behind + width + 1)]
        assert [lane >> 1 if lane & 1 else 0 for lane in lanes] == around
        assert (bits >> window["last"].offset) & 1 == last
