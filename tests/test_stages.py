"""Single stages on their own: every encoder with any code points, the UTF-16 and UTF-32
decoders over their whole unit space, against the reference model and CPython."""

import os

import pytest
from hypothesis import given, strategies as st

from utfhw.hdl import (UTF8Encoder, UTF16Encoder, UTF32Encoder, UTF16Decoder, UTF32Decoder,
                       ErrorKind, UnitBytes)
from utfhw.sim.harness import run_payloads
from utfhw.sim.payload import LaneFormat, pack_units
from utfhw.sim.reference import utf8_sequence, utf16_units, utf16_items, utf32_items


FULL_SWEEP = os.environ.get("UTFHW_SWEEP") == "full"

SCALAR_VALUES = [*range(0xD800), *range(0xE000, 0x110000)]

ENCODERS = {
    UTF8Encoder:  lambda code_point: list(utf8_sequence(code_point)),
    UTF16Encoder: lambda code_point: list(utf16_units(code_point)),
    UTF32Encoder: lambda code_point: [code_point],
}


def run_encoder(encoder_class, beats, *, stall=0.0, seed=0):
    """Drive ``(code points with error kinds, last)`` beats into a fresh encoder; return its
    output beats as ``(units, last)``."""
    dut = encoder_class()
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


def run_decoder(decoder_class, messages, width):
    """Numeric-unit messages (little-endian bytes) through a fresh decoder; the code points of
    each message as ``(code point, error)`` lists."""
    dut = decoder_class()
    output_format = LaneFormat(dut.o.payload.shape())
    decoded = [[]]

    def on_output(payload):
        items, last = output_format.unpack(payload)
        decoded[-1].extend(items)
        if last:
            decoded.append([])

    layout = UnitBytes(width)
    run_payloads(dut, [payload for message in messages for payload in pack_units(layout, message)],
                 on_output=on_output)
    return decoded[:-1]


def model_items(decoder, message):
    return [(item.code_point, item.error) for item in decoder(message, "little")]


def test_every_16_bit_unit_through_the_utf16_decoder():
    messages = [unit.to_bytes(2, "little") for unit in range(0x10000)]
    decoded = run_decoder(UTF16Decoder, messages, 2)
    assert len(decoded) == len(messages)
    for message, items in zip(messages, decoded):
        assert items == model_items(utf16_items, message), message.hex()
        assert "".join(chr(code_point) for code_point, _ in items) == \
            message.decode("utf-16-le", "replace")


@pytest.mark.slow
def test_surrogate_pairs_through_the_utf16_decoder():
    # Every high surrogate with the edge lows and a spread of others, and every low with the
    # edge highs, unless UTFHW_SWEEP=full runs all 1,048,576 pairs.
    highs = range(0xD800, 0xDC00)
    lows = range(0xDC00, 0xE000)
    if FULL_SWEEP:
        pairs = [(high, low) for high in highs for low in lows]
    else:
        pairs = [(high, low) for high in highs for low in (0xDC00, 0xDFFF, 0xDC00 + high % 1024)]
        pairs += [(high, low) for low in lows for high in (0xD800, 0xDBFF)]
    messages = [high.to_bytes(2, "little") + low.to_bytes(2, "little") for high, low in pairs]
    decoded = run_decoder(UTF16Decoder, messages, 2)
    assert len(decoded) == len(messages)
    for message, items in zip(messages, decoded):
        assert items == [(ord(message.decode("utf-16-le")), ErrorKind.NONE)], message.hex()


def test_surrogates_out_of_place_through_the_utf16_decoder():
    # A high surrogate before every kind of unit, a lone low, a high at the end, odd bytes.
    followers = [0x0000, 0x0041, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF]
    messages = [b"\x00\xd8" + follower.to_bytes(2, "little") for follower in followers]
    messages += [b"\x00\xdc", b"\xff\xdb", b"\x00\xd8\x41", b"\x41", b"\x41\x00\x00\xd8",
                 b"\x00\xd8\x00\xd8\x00\xdc", b"\x00\xdc\x00\xd8"]
    decoded = run_decoder(UTF16Decoder, messages, 2)
    for message, items in zip(messages, decoded):
        assert items == model_items(utf16_items, message), message.hex()
        assert "".join(chr(code_point) for code_point, _ in items) == \
            message.decode("utf-16-le", "replace")


def test_utf32_decoder_edges():
    units = [*range(0xD7F0, 0xE010), *range(0x10FFF0, 0x110010), 0x1F0000, 0x200000, 0x7FFFFFFF,
             0x80000000, 0xFFFFFFFF, 0x00FFFFFF, 0x01000000, 0, 0xFEFF]
    messages = [unit.to_bytes(4, "little") for unit in units]
    messages += [b"\x41", b"\x41\x00", b"\x41\x00\x00", b"\x41\x00\x00\x00\x41"]
    decoded = run_decoder(UTF32Decoder, messages, 4)
    for message, items in zip(messages, decoded):
        assert items == model_items(utf32_items, message), message.hex()
        assert "".join(chr(code_point) for code_point, _ in items) == \
            message.decode("utf-32-le", "replace")
