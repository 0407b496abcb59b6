"""The wide stages of the one-byte forms (hdl/wide/single_byte.py) and the wide core from and
to Latin-1 and ASCII: each lane's decision for every byte, and in Verilator against CPython
at width 4 and the wide width with stalls (every such pair at 4 and 32 with
``UTFHW_SWEEP=full``, in tests/sim/test_verilator_sweeps.py)."""

import random

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.unicode.layout import ByteLanes, ErrorKind
from utfhw.hdl.wide.single_byte import DecodeSingleByteLanes

from support import WIDE_WIDTH, adversarial_message, check_verilated, joined, run_valid_stream


def every_byte_in_every_lane(width):
    """Beats that put every byte value in each lane, each whole or cut short to every count:
    ``(data, count)`` pairs, and the payloads of :class:`ByteLanes` that carry them."""
    beats = [(bytes((byte + lane * 67) % 256 for lane in range(width)), count)
             for byte in range(256) for count in range(width + 1)]
    layout = ByteLanes(width)
    return beats, [layout.const({"data": int.from_bytes(data, "little"), "count": count,
                                 "last": 1}).as_value().value for data, count in beats]


def each_lane_of_every_byte(dut, width, lane_bits):
    """``dut`` run on :func:`every_byte_in_every_lane`: for each beat and lane, ``(data,
    count, lane, bits)``, ``bits`` being the ``lane_bits`` of that lane's output."""
    beats, payloads = every_byte_in_every_lane(width)
    got = run_valid_stream(dut, payloads)
    assert len(got) == len(beats)
    for (data, count), payload in zip(beats, got):
        lanes = payload >> slots_offset(dut)
        for lane in range(width):
            yield data, count, lane, (lanes >> (lane * lane_bits)) & ((1 << lane_bits) - 1)


@pytest.mark.parametrize("codec,last", [("latin-1", 0xFF), ("ascii", 0x7F)])
@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_every_byte_in_every_lane(codec, last, errors):
    """Every byte value in each of the four lanes, each beat whole or cut short: the slot
    each lane gives is CPython's decoding of that byte."""
    width = 4
    dut = DecodeSingleByteLanes(width=width, last=last, errors=errors)
    slot_bits = dut.o.payload.shape()["lanes"].shape.elem_shape.size
    for data, count, lane, slot in each_lane_of_every_byte(dut, width, slot_bits):
        valid, item = slot & 1, slot >> 1
        value, kind = item & ((1 << 21) - 1), ErrorKind(item >> 21)
        text = data[lane:lane + 1].decode(codec, errors) if lane < count else ""
        assert valid == (text != ""), (data.hex(), count, lane)
        if valid:
            assert value == ord(text), (data.hex(), lane)
            assert kind == (ErrorKind.NONE if text != "\ufffd"
                            else ErrorKind.ORDINAL_NOT_IN_RANGE)


@pytest.mark.parametrize("errors", ["replace", "ignore"])
def test_every_ascii_byte_as_a_token_in_every_lane(errors):
    """As tokens for *expand* (ASCII to UTF-8): each byte of the message is kept where CPython
    decodes it to itself, and with ``replace`` replaced (of ``ORDINAL_NOT_IN_RANGE``) where it
    decodes to U+FFFD; lanes past ``count`` give nothing."""
    from utfhw.hdl.forms.utf8.wide import ByteToken
    width = 4
    dut = DecodeSingleByteLanes(width=width, last=0x7F, errors=errors, token=ByteToken)
    for data, count, lane, bits in each_lane_of_every_byte(dut, width, ByteToken.size):
        def field(name):
            return (bits >> ByteToken[name].offset) & ((1 << ByteToken[name].width) - 1)
        text = data[lane:lane + 1].decode("ascii", errors) if lane < count else ""
        assert (field("kept"), field("replaced")) == (
            int(text not in ("", "\ufffd")), int(text == "\ufffd")), (data.hex(), lane)
        if field("kept"):
            assert field("byte") == ord(text)
            assert ErrorKind(field("error")) == ErrorKind.NONE
        if field("replaced"):
            assert ErrorKind(field("error")) == ErrorKind.ORDINAL_NOT_IN_RANGE
    assert dut.o.payload.shape()["lanes"].shape.elem_shape == ByteToken


def slots_offset(dut):
    return dut.o.payload.shape()["lanes"].offset


# A core of each front end to and from the one-byte forms, the handlers taking turns.
# In CI a one-byte decoder to UTF-8 (from Latin-1, and from ASCII through *expand*) and to
# UTF-16 and a one-byte encoder; with UTFHW_SWEEP=full
# also from UTF-8 and UTF-32 to Latin-1 and to a mark-writing codec (each core's build takes
# more than its checks).
@pytest.mark.parametrize("source,target,width,stall,errors", [
    ("latin-1", "utf-8", 4, 0.3, "replace"), ("ascii", "utf-16-le", WIDE_WIDTH, 0.5, "ignore"),
    ("utf-16-be", "ascii", 4, 0.0, "ignore"), ("ascii", "utf-8", 4, 0.3, "replace")] + ([
        ("utf-8", "latin-1", WIDE_WIDTH, 0.3, "replace"), ("utf-32", "latin-1", 4, 0.4, "ignore"),
        ("ascii", "utf-8-sig", 4, 0.2, "replace")] if FULL_SWEEP else []))
def test_wide_core_in_verilator(source, target, width, stall, errors):
    """Adversarial messages of every length around the width, and the 256 bytes, back to back
    (every pair of the ten codecs, both handlers, at 4 and 32, with ``UTFHW_SWEEP=full`` in
    tests/sim/test_verilator_sweeps.py)."""
    rng = random.Random(f"{source}{target}{width}")
    messages = [b"", bytes(range(256)), "a\u00e9\u20ac\U0001F600".encode(source, "replace")]
    for _ in range(300):
        message = adversarial_message(rng, rng.choice([2, 12, 40]))
        messages.append(message[:rng.choice([len(message), width - 1, width, width + 1])])
    check_verilated(*joined(messages), source, target, errors=errors, width=width,
                    stall=stall, seed=width)


@pytest.mark.parametrize("last", [0x80, None])
def test_last_must_be_a_one_byte_form(last):
    with pytest.raises(ValueError, match=f"^last must be 0x7F or 0xFF, not {last!r}$"):
        DecodeSingleByteLanes(width=4, last=last)
