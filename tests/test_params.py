"""Every parameter check, with its message."""

import re

import pytest
from amaranth.hdl import Fragment

from utfhw.hdl import UTF8Decoder, UTF16ByteOrder, UTF8ToUTF16, Lanes, CodePoint
from utfhw.sim import simulate, transcode
from utfhw.sim.harness import run_messages


# A component whose __init__ raises was still created, and Amaranth warns that it went unused.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")


def raises(exception, message):
    return pytest.raises(exception, match=f"^{re.escape(message)}$")


@pytest.mark.parametrize("make", [UTF8Decoder, UTF8ToUTF16])
def test_errors_parameter(make):
    with raises(ValueError, "errors must be 'replace' or 'ignore', not 'strict'"):
        make(errors="strict")
    with raises(ValueError, "errors must be 'replace' or 'ignore', not None"):
        make(errors=None)


@pytest.mark.parametrize("make", [UTF16ByteOrder, UTF8ToUTF16])
def test_byteorder_parameter(make):
    with raises(ValueError, "byteorder must be 'little' or 'big', not 'middle'"):
        make(byteorder="middle")


@pytest.mark.parametrize("make", [UTF8Decoder, UTF16ByteOrder, UTF8ToUTF16])
def test_parameters_are_keyword_only(make):
    with pytest.raises(TypeError):
        make("replace")


def test_lane_count():
    with raises(ValueError, "lane count must be a positive integer, not 0"):
        Lanes(CodePoint, 0)


@pytest.mark.parametrize("stall", [1, 1.5, -0.1, "0.5", True])
def test_stall(stall):
    with raises(ValueError,
                f"stall must be a probability from 0 up to (not including) 1, not {stall!r}"):
        simulate(b"a", stall=stall)


def test_codec_names():
    with raises(ValueError, "source codec must be one of utf-8, utf-8-sig, utf-16, utf-16-le, "
                            "utf-16-be, utf-32, utf-32-le, utf-32-be, not 'utf8'"):
        transcode(b"a", "utf8", "utf-16-le")
    with raises(ValueError, "the gateware does not transcode utf-8 to utf-32 yet; it transcodes "
                            "utf-8 to utf-16-le or utf-16-be"):
        transcode(b"a", "utf-8", "utf-32")


def test_error_handler_name():
    with raises(ValueError,
                "errors must be one of 'replace', 'ignore', 'strict', not 'backslashreplace'"):
        transcode(b"a", errors="backslashreplace")


def test_empty_message():
    dut = UTF8ToUTF16()
    with raises(ValueError, "every message must hold at least one byte"):
        run_messages(dut, [b"a", b""])
    Fragment.get(dut, None)    # the rejected run never elaborated it; Amaranth would warn
