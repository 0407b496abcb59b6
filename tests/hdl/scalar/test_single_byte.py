"""The scalar stages of the one-byte forms (hdl/scalar/single_byte.py): every byte through
each decoder, every kind of code point through ``ReplaceUnencodable`` and the encoder, against
CPython, and their parameters."""

import pytest
from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from utfhw.hdl.scalar.single_byte import (ReplaceUnencodable, SingleByteDecoder,
                                          SingleByteEncoder)
from utfhw.hdl.unicode.layout import ByteUnitLanes, CodePointLanes, ErrorKind, UnitBytes
from utfhw.sim.payload import LaneFormat, pack_units
from utfhw.sim.pysim import run_payloads


def run(dut, payloads, messages):
    """Raw payloads through ``dut``; its output beats' items, message by message."""
    output = LaneFormat(dut.o.payload.shape())
    got = [[]]

    def on_output(payload):
        items, last = output.unpack(payload)
        got[-1].extend(items)
        if last:
            got.append([])

    run_payloads(dut, payloads, messages=messages, on_output=on_output, stall=0.3, seed=1)
    return got[:-1]


@pytest.mark.parametrize("codec,last", [("latin-1", 0xFF), ("ascii", 0x7F)])
def test_every_byte_through_the_decoder(codec, last):
    """Each byte alone: its code point, or U+FFFD of ORDINAL_NOT_IN_RANGE where CPython's
    codec raises "ordinal not in range(128)"."""
    messages = [bytes([byte]) for byte in range(256)] + [b""]
    payloads = [payload for message in messages for payload in pack_units(UnitBytes(1), message)]
    got = run(SingleByteDecoder(last=last), payloads, len(messages))
    for message, items in zip(messages, got):
        try:
            text = message.decode(codec)
        except UnicodeDecodeError as error:
            assert error.reason == "ordinal not in range(128)"
            assert items == [(0xFFFD, ErrorKind.ORDINAL_NOT_IN_RANGE)], message.hex()
        else:
            assert items == [(ord(character), ErrorKind.NONE) for character in text]


@pytest.mark.parametrize("codec,last", [("latin-1", 0xFF), ("ascii", 0x7F)])
def test_what_the_target_cannot_hold_is_a_question_mark(codec, last):
    """Code points at the edges of each range, data and replacements, two a beat, through
    ``ReplaceUnencodable`` and the encoder: CPython's ``replace``, and the kind that says
    which characters strict would have stopped at."""
    values = [0x00, 0x41, 0x7F, 0x80, 0xFF, 0x100, 0x20AC, 0xFFFD, 0x10FFFF]
    items = [(value, ErrorKind.NONE) for value in values] + [(0xFFFD, ErrorKind.SURROGATE)]
    output = LaneFormat(CodePointLanes)
    beats = [output.pack(items[index:index + 2], index + 2 >= len(items))
             for index in range(0, len(items), 2)]
    encoded = sum(run(_Encoding(last), beats, 1), [])
    for (value, kind), (unit, got_kind) in zip(items, encoded):
        assert bytes([unit]) == chr(value).encode(codec, "replace"), hex(value)
        try:
            chr(value).encode(codec)
        except UnicodeEncodeError:
            assert got_kind == (kind if kind != ErrorKind.NONE
                                else ErrorKind.UNENCODABLE_CHARACTER), hex(value)
        else:
            assert got_kind == kind, hex(value)
    assert len(encoded) == len(items)


class _Encoding(wiring.Component):
    """``ReplaceUnencodable`` then the encoder, as the ``Transcoder`` joins them."""
    i: In(stream.Signature(CodePointLanes))
    o: Out(stream.Signature(ByteUnitLanes))

    def __init__(self, last):
        self._last = last
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.submodules.replace = replace = ReplaceUnencodable(last=self._last)
        m.submodules.encode = encode = SingleByteEncoder()
        wiring.connect(m, wiring.flipped(self.i), replace.i)
        wiring.connect(m, replace.o, encode.i)
        wiring.connect(m, encode.o, wiring.flipped(self.o))
        return m


@pytest.mark.parametrize("make", [SingleByteDecoder, ReplaceUnencodable])
@pytest.mark.parametrize("last", [0x80, 0x10FFFF, True, "0xFF"])
def test_last_must_be_a_one_byte_form(make, last):
    with pytest.raises(ValueError, match=f"^last must be 0x7F or 0xFF, not {last!r}$"):
        make(last=last)
