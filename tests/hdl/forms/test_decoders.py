"""The UTF-16 and UTF-32 decoders on their own (hdl/forms/utf16/scalar.py, hdl/forms/utf32/scalar.py) over their whole unit
space, against the reference model and CPython. (The UTF-8 decoder is tested through the
transcoder in test_utf8_to_utf16.py, and exhaustively through Verilator.)"""

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl import UTF16Decoder, UTF32Decoder, ErrorKind, UnitBytes
from utfhw.sim.payload import LaneFormat, pack_units
from utfhw.sim.pysim import run_payloads
from utfhw.model.reference import utf16_items, utf32_items


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
