"""LaneWindow: each beat with the lanes before it and the first lane of the next."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from utfhw.hdl.lanes.copies import registered_copies
from utfhw.hdl.lanes.window import LaneBeat, LaneWindow, ValidCopies, WindowBeat

from support import run_valid_stream


ITEM = data.StructLayout({"present": 1, "value": 7})


class _CopiedWindow(wiring.Component):
    """A register stage that makes copies of its ``o.valid``, as the wide core's classify
    does, before a window that takes them; ``copies=False`` leaves the copies at 0, a
    broken stage before."""
    def __init__(self, width, behind, copies=True):
        self._width, self._behind, self._copies = width, behind, copies
        super().__init__({
            "i": In(stream.Signature(LaneBeat(ITEM, width), always_ready=True)),
            "o": Out(stream.Signature(WindowBeat(ITEM, width, behind), always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.window = window = LaneWindow(item=ITEM, width=self._width,
                                                  behind=self._behind, valid_copies=True)
        m.d.sync += [window.i.valid.eq(self.i.valid), window.i.payload.eq(self.i.payload)]
        if self._copies:
            registered_copies(m, window.valid_copies, self.i.valid)
        wiring.connect(m, window.o, wiring.flipped(self.o))
        return m


def _messages(width, seed):
    rng = random.Random(seed)
    messages = []
    for _ in range(80):
        beats = [[1 + rng.randrange(127) for _ in range(width)]
                 for _ in range(rng.choice([1, 1, 2, 4]))]
        beats[-1] = beats[-1][:rng.randrange(width + 1)]
        messages.append(beats)
    return messages


def _payloads(messages, width):
    beat = LaneBeat(ITEM, width)
    payloads = []
    for beats in messages:
        for index, lanes in enumerate(beats):
            bits = int(index == len(beats) - 1) << beat["last"].offset
            for lane, value in enumerate(lanes):
                bits |= (1 | value << 1) << (beat["lanes"].offset + lane * ITEM.size)
            payloads.append(bits)
    return payloads


def _windows(messages, width, behind, ahead=1):
    """Each beat's window as the reference gives it: ``(lanes, last)``."""
    expected = []
    for beats in messages:
        flat = [value for lanes in beats for value in lanes]
        for index, lanes in enumerate(beats):
            start = index * width
            around = [flat[position] if 0 <= position < len(flat) else 0
                      for position in range(start - behind, start + width + ahead)]
            last = index == len(beats) - 1
            # Lanes past the count of a short last beat are absent, and so is what follows
            # the message.
            for lane in range(len(lanes), width + (ahead if last else 0)):
                around[behind + lane] = 0
            expected.append((around, last))
    return expected


def _received(bits_list, width, behind, ahead=1):
    window = WindowBeat(ITEM, width, behind, ahead)
    windows = []
    for bits in bits_list:
        lanes = [(bits >> (window["window"].offset + ITEM.size * lane)) & 0xFF
                 for lane in range(behind + width + ahead)]
        windows.append(([lane >> 1 if lane & 1 else 0 for lane in lanes],
                        (bits >> window["last"].offset) & 1 == 1))
    return windows


@pytest.mark.parametrize("width,behind,ahead", [(1, 3, 1), (2, 3, 1), (4, 3, 1), (8, 1, 1),
                                                (4, 3, 3), (8, 1, 3)])
def test_windows(width, behind, ahead):
    messages = _messages(width, width)
    received = run_valid_stream(LaneWindow(item=ITEM, width=width, behind=behind, ahead=ahead),
                                _payloads(messages, width), gap=0.3, seed=width)
    assert _received(received, width, behind, ahead) == _windows(messages, width, behind,
                                                                  ahead)


def test_ahead_is_within_the_next_beat():
    with pytest.raises(ValueError, match=r"^ahead must be an integer from 1 to 2, not 3$"):
        LaneWindow(item=ITEM, width=2, behind=3, ahead=3)


@pytest.mark.parametrize("width", [1, 4, 5, 8])
def test_windows_with_valid_copies(width):
    """The window that takes its lanes' load enables from copies of ``i.valid``, one per
    group of lanes, gives the same windows."""
    messages = _messages(width, width)
    received = run_valid_stream(_CopiedWindow(width, 3), _payloads(messages, width),
                                gap=0.3, seed=width)
    assert _received(received, width, 3) == _windows(messages, width, 3)


def test_windows_need_their_valid_copies():
    """Copies that never change load no lane: the windows come out empty."""
    messages = _messages(8, 8)
    received = run_valid_stream(_CopiedWindow(8, 3, copies=False), _payloads(messages, 8),
                                gap=0.3, seed=8)
    assert len(received) == len(_windows(messages, 8, 3))
    assert _received(received, 8, 3) != _windows(messages, 8, 3)


def test_valid_copies_layout():
    """One copy per group of four lanes, the last group short."""
    assert [ValidCopies(width).length for width in (1, 4, 5, 32)] == [1, 1, 2, 8]
