"""The UTF-8, UTF-16 and UTF-32 encoders on their own (hdl/forms/utf8/scalar.py, hdl/forms/utf16/scalar.py, hdl/forms/utf32/scalar.py,
hdl/scalar/encoder.py): any code points and error kinds, beats that must split, every scalar value,
against the reference model."""

import functools

import pytest
from hypothesis import given, strategies as st

from conftest import FULL_SWEEP
from utfhw.hdl import UTF8Encoder, UTF16Encoder, UTF32Encoder, ErrorKind
from utfhw.sim.payload import LaneFormat
from utfhw.sim.pysim import run_payloads
from utfhw.model.reference import utf8_sequence, utf16_units


SCALAR_VALUES = [*range(0xD800), *range(0xE000, 0x110000)]

ENCODERS = {
    UTF8Encoder:  lambda code_point: list(utf8_sequence(code_point)),
    UTF16Encoder: lambda code_point: list(utf16_units(code_point)),
    UTF32Encoder: lambda code_point: [code_point],
}


@functools.lru_cache(maxsize=None)
def _encoder(encoder_class):
    # One object a class: run_payloads keeps its simulator, reset for each run.
    return encoder_class()


def run_encoder(encoder_class, beats, *, stall=0.0, seed=0):
    """Drive ``(code points with error kinds, last)`` beats into an encoder from reset; return
    its output beats as ``(units, last)``."""
    dut = _encoder(encoder_class)
    input_format = LaneFormat(dut.i.payload.shape())
    output_format = LaneFormat(dut.o.payload.shape())
    output = []
    run_payloads(dut, [input_format.pack(items, last) for items, last in beats], stall=stall,
                 seed=seed, on_output=lambda payload: output.append(output_format.unpack(payload)))
    return output, dut.o.payload.shape().lane_count


def expected_units(encoder_class, beats):
    units_of = ENCODERS[encoder_class]
    return [(unit, error) for items, _ in beats for code_point, error in items
            for unit in units_of(code_point)]


def expected_beat_count(encoder_class, beats, lanes):
    # One output beat per input beat, plus one for each beat whose units do not fit the lanes.
    return len(beats) + sum(1 for items, _ in beats
                            if len(expected_units(encoder_class, [(items, False)])) > lanes)


scalar_value = st.one_of(st.integers(0, 0xD7FF), st.integers(0xE000, 0x10FFFF),
                         st.sampled_from([0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF]))
item = st.tuples(scalar_value, st.sampled_from(list(ErrorKind)))


@pytest.mark.parametrize("encoder_class", ENCODERS)
@pytest.mark.parametrize("stall", [0.0, 0.5])
@given(beats=st.lists(st.tuples(st.lists(item, max_size=2), st.booleans()),
                      min_size=1, max_size=12),
       seed=st.integers(0, 99))
def test_encoder_with_any_code_points(encoder_class, stall, beats, seed):
    beats[-1] = (beats[-1][0], True)
    output, lanes = run_encoder(encoder_class, beats, stall=stall, seed=seed)
    assert [unit for units, _ in output for unit in units] == expected_units(encoder_class, beats)
    # `last` comes out once per input `last`, on the beat that finishes it.
    assert len(output) == expected_beat_count(encoder_class, beats, lanes)
    assert sum(last for _, last in output) == sum(last for _, last in beats)
    assert output[-1][1]


def _sweep(values, stride):
    return values if FULL_SWEEP else values[::stride]


@pytest.mark.slow
@pytest.mark.parametrize("encoder_class", ENCODERS)
def test_every_scalar_value_through_each_encoder(encoder_class):
    # Two code points per beat; bounded to every 61st value (and the edges) unless
    # UTFHW_SWEEP=full.
    values = sorted(set(_sweep(SCALAR_VALUES, 61) + [0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000,
                                                      0xFFFF, 0x10000, 0x10FFFF]))
    pairs = [values[index:index + 2] for index in range(0, len(values), 2)]
    beats = [([(value, ErrorKind.NONE) for value in pair], False) for pair in pairs]
    beats[-1] = (beats[-1][0], True)
    output, lanes = run_encoder(encoder_class, beats)
    units = [unit for units, _ in output for unit, _ in units]
    text = "".join(map(chr, values))
    if encoder_class is UTF8Encoder:
        assert bytes(units) == text.encode("utf-8")
    elif encoder_class is UTF16Encoder:
        assert b"".join(unit.to_bytes(2, "little") for unit in units) == text.encode("utf-16-le")
    else:
        assert b"".join(unit.to_bytes(4, "little") for unit in units) == text.encode("utf-32-le")
    assert len(output) == expected_beat_count(encoder_class, beats, lanes)
