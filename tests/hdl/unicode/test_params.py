"""Every parameter check, with its message."""

import gc
import re

import pytest

from utfhw.hdl import (ByteOrderReader, ByteOrderWriter, ByteOrderMarkWriter, Transcoder,
                       Lanes, UnitBytes, CodePoint, UTF16UnitLanes, CodePointLanes)
from utfhw.hdl import ByteLanes, WideUTF8ToUTF16
from utfhw.hdl.lanes.queue import CreditQueue
from utfhw.hdl.lanes.repack import Packer, Repacker
from utfhw.hdl.lanes.window import LaneWindow
from utfhw.hdl.forms.utf8.expand import ExpandReplacements
from utfhw.hdl.forms.utf8.wide import DecodePositions
from utfhw.sim import simulate, transcode
from utfhw.cli import main


# A component whose __init__ raises was still created, and Amaranth warns that it went unused.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")


# What a message that refuses a codec lists before the name it refuses.
CODEC_NAMES = ("'utf-8', 'utf-8-sig', 'utf-16', 'utf-16-le', 'utf-16-be', 'utf-32', 'utf-32-le', "
               "'utf-32-be', 'latin-1', 'ascii' or another of CPython's names for them, not ")


def raises(exception, message):
    return pytest.raises(exception, match=f"^{re.escape(message)}$")


def test_errors_parameter():
    with raises(ValueError, "errors must be 'replace' or 'ignore', not 'strict'"):
        Transcoder(errors="strict")
    with raises(ValueError, "errors must be a handler's name or a (decoding, encoding) pair of "
                            "them, not None"):
        Transcoder(errors=None)


def test_codec_parameters():
    with raises(ValueError, "source codec must be " + CODEC_NAMES + "'utf-7'"):
        Transcoder(source="utf-7")
    with raises(ValueError, "target codec must be " + CODEC_NAMES + "'cp1252'"):
        Transcoder(target="cp1252")


def test_byte_order_reader_parameters():
    with raises(ValueError, "width must be 2 or 4 bytes, not 1"):
        ByteOrderReader(width=1, byteorder="little")
    with raises(ValueError, "byteorder must be 'little', 'big' or 'detect', not 'middle'"):
        ByteOrderReader(width=2, byteorder="middle")


def test_byte_order_writer_parameters():
    with raises(ValueError, "byteorder must be 'little' or 'big', not 'detect'"):
        ByteOrderWriter(layout=UTF16UnitLanes, byteorder="detect")
    with raises(TypeError, "layout must be a Lanes layout of 16- or 32-bit units, not "
                           f"{CodePointLanes!r}"):
        ByteOrderWriter(layout=CodePointLanes, byteorder="big")


def test_mark_writer_parameter():
    with raises(ValueError, "form must be an encoding form of utfhw.hdl.forms, not 'utf-7'"):
        ByteOrderMarkWriter(form="utf-7")


@pytest.mark.parametrize("make", [
    lambda: Transcoder("utf-8"),
    lambda: ByteOrderReader(2, "little"),
    lambda: ByteOrderWriter(UTF16UnitLanes, "big"),
    lambda: ByteOrderMarkWriter("utf-8"),
])
def test_parameters_are_keyword_only(make):
    with pytest.raises(TypeError):
        make()
    gc.collect()    # so that Amaranth's unused-elaboratable warning is raised, and ignored, here


def test_layout_parameters():
    with raises(ValueError, "lane count must be a positive integer, not 0"):
        Lanes(CodePoint, 0)
    with raises(ValueError, "width must be 1, 2 or 4 bytes, not 3"):
        UnitBytes(3)


@pytest.mark.parametrize("stall", [1, 1.5, -0.1, "0.5", True])
def test_stall(stall):
    with raises(ValueError,
                f"stall must be a probability from 0 up to (not including) 1, not {stall!r}"):
        simulate(b"a", stall=stall)


def test_codec_names():
    with raises(ValueError, "source codec must be " + CODEC_NAMES + "'utf-9'"):
        transcode(b"a", "utf-9", "utf-16-le")
    with raises(ValueError, "target codec must be " + CODEC_NAMES + "'UTF-7'"):
        transcode(b"a", "utf-8", "UTF-7")


def test_error_handler_name():
    with raises(ValueError,
                "errors must be 'replace', 'ignore' or 'strict', not 'backslashreplace'"):
        transcode(b"a", errors="backslashreplace")


def test_bench_needs_input(capsys):
    with pytest.raises(SystemExit):
        main(["bench"])
    assert "give at least one FILE, --stress BYTES or --every-pair" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["bench", "x.txt", "--every-pair"])
    assert "give FILE arguments or --every-pair, not both" in capsys.readouterr().err


@pytest.mark.parametrize("make", [
    lambda width: WideUTF8ToUTF16(width=width),
    lambda width: ByteLanes(width),
    lambda width: transcode(b"a", width=width),
])
@pytest.mark.parametrize("width", [0, 3, 128, "4", True])
def test_width(make, width):
    with raises(ValueError, f"width must be a power of two from 1 to 64, not {width!r}"):
        make(width)


@pytest.mark.parametrize("stage", [Packer, Repacker])
@pytest.mark.parametrize("width,message", [
    (0, "width must be an integer of at least 1, not 0"),
    (6, "width must be a power of two, not 6"),
    (4.0, "width must be an integer of at least 1, not 4.0"),
    (True, "width must be an integer of at least 1, not True")])
def test_lanes_are_a_power_of_two(stage, width, message):
    with raises(ValueError, message):
        stage(item=CodePoint, width=width)


@pytest.mark.parametrize("stage", [Packer, Repacker])
def test_lanes_beyond_a_core_width(stage):
    """From UTF-16 to UTF-8 at W = 64 the output has 128 lanes: the stages take them."""
    assert stage(item=CodePoint, width=128).o.payload.shape()["lanes"].shape.length == 128


def test_width_holds_a_unit_of_the_source():
    with raises(ValueError, "width must be at least 4 for utf-32, not 2"):
        transcode(b"a", "utf-32", "utf-8", width=2)


def test_width_on_the_command_line(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)     # a width that became valid would write x.v here
    with pytest.raises(SystemExit):
        main(["generate", "-o", "x.v", "--width", "5"])
    assert "argument --width: width must be a power of two from 1 to 64, not '5'" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "-o", "x.v", "--width", "2", "--from", "utf-32-be"])
    assert "--width must be at least 4 for utf-32-be, not 2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["generate", "-o", "x.v", "--width", "4", "--pipelined"])
    assert "--pipelined and --width are two different cores; give one of them" in \
        capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_stage_parameters():
    with raises(ValueError, "behind must be an integer of at least 1, not 0"):
        LaneWindow(item=CodePoint, width=4, behind=0)
    with raises(ValueError, "valid_copies must be True or False, not 1"):
        LaneWindow(item=CodePoint, width=4, behind=3, valid_copies=1)
    with raises(ValueError, "depth must be a power of two, not 12"):
        CreditQueue(shape=8, depth=12, threshold=3)
    with raises(ValueError, "threshold must be an integer from 1 to 15, not 16"):
        CreditQueue(shape=8, depth=16, threshold=16)
    with raises(ValueError, "form must be 'utf-16', 'utf-32' or 'utf-8', not 'utf-7'"):
        DecodePositions(width=4, form="utf-7")
    with raises(ValueError, "lead must be fewer items than width (2), not 2"):
        Repacker(item=CodePoint, width=2, lead=[0, 0])
    with raises(ValueError, "rests must be True or False, not 1"):
        ExpandReplacements(width=4, rests=1)
