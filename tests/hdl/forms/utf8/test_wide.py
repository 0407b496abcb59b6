"""The UTF-8 stages of the wide core: ClassifyLanes against Table 3-7 as the reference model
reads it, and DecodePositions position by position against the wide model's rule."""

import random

import pytest
from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from utfhw.hdl.unicode.layout import ByteLanes, ErrorKind
from utfhw.hdl.forms.utf8.wide import (ByteClass, ClassifyLanes, DecodePositions, LOOKBEHIND,
                                 POSITION_FORMS)
from utfhw.hdl.lanes.window import LaneBeat, LaneWindow
from utfhw.sim.payload import pack_units
from utfhw.model.reference import following_ranges
from utfhw.model.wide import position_unit

from support import TRICKY_BYTES, run_valid_stream


def _field(bits, layout, lane, name, beat=None):
    beat = beat or LaneBeat(layout, 1)
    field = layout[name]
    offset = beat["lanes"].offset + lane * layout.size + field.offset
    return (bits >> offset) & ((1 << field.width) - 1)


@pytest.mark.parametrize("width", [4, 16])
def test_classify_every_byte(width):
    """ASCII, continuation and lead flags of every byte, in every lane; all clear past
    ``count``."""
    data = bytes(range(256))
    beats = [data[start:start + width] for start in range(0, 256, width)]
    layout = ByteLanes(width)
    payloads = [pack_units(layout, beat)[0] for beat in beats]
    payloads += [pack_units(layout, data[:count])[0] for count in range(width)]
    received = run_valid_stream(ClassifyLanes(width=width), payloads, gap=0.3, seed=width)
    assert len(received) == len(payloads)
    beat_layout = LaneBeat(ByteClass, width)
    for bits, payload in zip(received, payloads):
        count = (payload >> layout["count"].offset) & ((1 << layout["count"].width) - 1)
        for lane in range(width):
            byte = (payload >> 8 * lane) & 0xFF
            fields = {name: _field(bits, ByteClass, lane, name, beat_layout)
                      for name in ("present", "ascii", "lead", "in_80_bf", "byte")}
            if lane >= count:
                assert not any(fields[name] for name in ("present", "ascii", "lead",
                                                         "in_80_bf")), (lane, count)
                continue
            assert fields["byte"] == byte
            assert fields["present"] == 1
            assert fields["ascii"] == (byte < 0x80)
            assert fields["in_80_bf"] == (0x80 <= byte <= 0xBF)
            assert fields["lead"] == bool(following_ranges(byte)), hex(byte)


class _Decoder(wiring.Component):
    """ClassifyLanes, LaneWindow and DecodePositions in a row, as in the wide core."""
    def __init__(self, width, errors, form="utf-16"):
        self._width = width
        self._errors = errors
        self._form = form
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(POSITION_FORMS[form], width), always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.classify = classify = ClassifyLanes(width=self._width)
        m.submodules.window = window = LaneWindow(item=ByteClass, width=self._width,
                                                  behind=LOOKBEHIND, valid_copies=True)
        m.submodules.decode = decode = DecodePositions(width=self._width, errors=self._errors,
                                                       form=self._form)
        connect(m, wiring.flipped(self.i), classify.i)
        connect(m, classify.o, window.i)
        m.d.comb += window.valid_copies.eq(classify.valid_copies)
        connect(m, window.o, decode.i)
        connect(m, decode.o, wiring.flipped(self.o))
        return m


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("width,form", [(1, "utf-16"), (4, "utf-16"), (8, "utf-16"),
                                        (1, "utf-32"), (4, "utf-32")])
def test_decode_positions(width, errors, form):
    """Each position's slot is the unit the rule gives for its five-byte window, or empty."""
    rng = random.Random(f"{width}{errors}{form}")
    messages = [bytes(rng.choice(TRICKY_BYTES) for _ in range(rng.randrange(0, 3 * width + 2)))
                for _ in range(150)]
    layout = ByteLanes(width)
    payloads = [payload for message in messages for payload in pack_units(layout, message)]
    received = run_valid_stream(_Decoder(width, errors, form), payloads, gap=0.3, seed=width)
    assert len(received) == len(payloads)
    slot_layout = POSITION_FORMS[form]
    unit_bits = 16 if form == "utf-16" else 32
    beat_layout = LaneBeat(slot_layout, width)
    expected = []
    for message in messages:
        padded = [None] * LOOKBEHIND + list(message) + [None] * (width + 1)
        for start in range(0, max(len(message), 1), width):
            beat = []
            for lane in range(width):
                position = LOOKBEHIND + start + lane
                unit = None
                if start + lane < len(message):
                    unit = position_unit(padded[position - LOOKBEHIND:position],
                                         padded[position], padded[position + 1], form)
                if unit is not None and errors == "ignore" and unit[1] != ErrorKind.NONE:
                    unit = None
                beat.append(unit)
            expected.append(beat)
    for bits, beat in zip(received, expected):
        for lane, unit in enumerate(beat):
            slot = (bits >> (beat_layout["lanes"].offset + lane * slot_layout.size)) & \
                ((1 << slot_layout.size) - 1)
            got = None
            if slot & 1:
                got = ((slot >> 1) & ((1 << unit_bits) - 1),
                       ErrorKind((slot >> (1 + unit_bits)) & 0xF))
            assert got == unit, (lane, beat)

