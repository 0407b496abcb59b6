"""Repacker and Packer: beats of 0 to ``in_width`` items (for the Packer, slots full or empty)
into beats of ``width`` items, the last of each message with what is left, and at most one
beat behind."""

import random

import pytest
from amaranth.lib import data

from utfhw.hdl.unicode.layout import Lanes
from utfhw.hdl.lanes.repack import Packer, Repacker
from utfhw.hdl.lanes.window import LaneBeat, Slot
from utfhw.sim.payload import LaneFormat
from utfhw.model.wide import repack_beats

from support import run_valid_stream


ITEM = data.StructLayout({"data": 8, "error": 3})


def messages_of(rng, width, count):
    """Messages as lists of beats, each a list of items: counts that fill, spill and stop
    short, empty beats and empty messages."""
    messages = []
    serial = 0
    for _ in range(count):
        beats = []
        for _ in range(rng.choice([1, 1, 2, 3, 6])):
            size = rng.choice([0, width, width, width - 1, 1, rng.randrange(width + 1)])
            beats.append([(serial + index) % 256 for index in range(size)])
            serial += size
        messages.append(beats)
    return messages


@pytest.mark.parametrize("gap", [0.0, 0.4])
@pytest.mark.parametrize("width,in_width", [(1, 1), (2, 2), (4, 4), (8, 8), (32, 32),
                                            (2, 1), (4, 1), (4, 2), (8, 4)])
def test_beats_as_the_model_gives(width, in_width, gap):
    """Beats of ``in_width`` items or fewer (gathered when narrower) into full beats of
    ``width``."""
    rng = random.Random(f"{width}{in_width}{gap}")
    messages = messages_of(rng, in_width, 150)
    sent = LaneFormat(Lanes(ITEM, in_width))
    payloads = [sent.pack([(value, 0) for value in beat], index == len(beats) - 1)
                for beats in messages for index, beat in enumerate(beats)]
    received = run_valid_stream(Repacker(item=ITEM, width=width, in_width=in_width), payloads,
                                gap=gap, seed=width)
    expected = [beat for beats in messages
                for beat in repack_beats([[(value, 0) for value in beat] for beat in beats],
                                         width)]
    lanes = LaneFormat(Lanes(ITEM, width))
    got = [lanes.unpack(bits) for bits in received]
    assert [([value for value, _ in items], last) for items, last in got] == \
        [([value for value, _ in items], last) for items, last in expected]


@pytest.mark.parametrize("width,in_width", [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32),
                                            (64, 64), (4, 2), (16, 8)])
def test_packer_packs_slots_as_the_model_gives(width, in_width):
    """Slots full and empty in every pattern (every one for up to eight slots, at random
    above), with every pointer they meet: the full ones' items, in order, in full beats."""
    rng = random.Random(f"pack{width}{in_width}")
    if in_width <= 8:
        patterns = [[pattern >> slot & 1 for slot in range(in_width)]
                    for pattern in range(1 << in_width)]
    else:
        patterns = [[0] * in_width, [1] * in_width] + [
            [int(rng.random() < density) for _ in range(in_width)]
            for density in (0.1, 0.5, 0.9, 0.97) for _ in range(60)]
    rng.shuffle(patterns)
    messages, serial = [], 0
    while patterns:
        beats = []
        for _ in range(rng.choice([1, 2, 3, 6])):
            if not patterns:
                break
            beats.append([(serial + index) % 256 if full else None
                          for index, full in enumerate(patterns.pop())])
            serial += in_width
        messages.append(beats)
    layout = LaneBeat(Slot(ITEM), in_width)
    payloads = []
    for beats in messages:
        for index, beat in enumerate(beats):
            value = layout.const({"last": index == len(beats) - 1, "lanes": [
                {"valid": item is not None, "item": {"data": item or 0, "error": 0}}
                for item in beat]})
            payloads.append(value.as_value().value)
    received = run_valid_stream(Packer(item=ITEM, width=width, in_width=in_width), payloads,
                                gap=0.2, seed=width)
    expected = [beat for beats in messages
                for beat in repack_beats([[(value, 0) for value in beat if value is not None]
                                          for beat in beats], width)]
    lanes = LaneFormat(Lanes(ITEM, width))
    got = [lanes.unpack(bits) for bits in received]
    assert [([value for value, _ in items], last) for items, last in got] == \
        [([value for value, _ in items], last) for items, last in expected]


def test_model_needs_the_second_beat():
    """A last beat that spills past a full half gives two beats: a full one and the rest."""
    assert repack_beats([[1, 2, 3], [4, 5, 6, 7]], 4) == [([1, 2, 3, 4], False),
                                                          ([5, 6, 7], True)]
    assert repack_beats([[1, 2, 3, 4], []], 4) == [([1, 2, 3, 4], False), ([], True)]


@pytest.mark.parametrize("in_width", [0, 5, 2.0])
def test_in_width_must_fit_the_output(in_width):
    with pytest.raises(ValueError, match=f"in_width must be an integer from 1 to 4, not "
                                         f"{in_width!r}"):
        Repacker(item=ITEM, width=4, in_width=in_width)
