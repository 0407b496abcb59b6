"""Repacker: beats of 0 to ``in_width`` items into beats of ``width`` items, the last of each
message with what is left, and at most one beat behind."""

import random

import pytest
from amaranth.lib import data

from utfhw.hdl.unicode.layout import Lanes
from utfhw.hdl.lanes.repack import Repacker
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
