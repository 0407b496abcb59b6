"""``Escaper`` (hdl/scalar/escape.py): CPython's ``backslashreplace`` and
``xmlcharrefreplace`` on encoding, against CPython, with stalls, and its parameters."""

import random
import re

import pytest
from amaranth.back import verilog

from utfhw.hdl import Transcoder
from utfhw.hdl.scalar.escape import ESCAPE_CLOCKS, Escaper, escape_length
from utfhw.hdl.unicode.layout import CodePointLanes, ErrorKind
from utfhw.sim.payload import LaneFormat
from utfhw.sim.pysim import run_payloads
from utfhw.toolchain.tools import ToolchainError, find_verilator
from utfhw.verilog.lint import lint_verilog


# An escaper refused in its constructor is collected later, in another test.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")


# A codec whose target form ends at each ``last``.
CODEC_OF = {0x7F: "ascii", 0xFF: "latin-1", 0x10FFFF: "utf-8"}

# Code points at the edges of what each form writes and of each escape's length.
EDGES = [0x00, 0x26, 0x41, 0x7F, 0x80, 0xFF, 0x100, 0x3E7, 0x3E8, 0x20AC, 0xD7FF, 0xD800,
         0xDBFF, 0xDC00, 0xDC80, 0xDFFF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0xF423F,
         0xF4240, 0x10FFFF, 0x9, 0xA, 0x63, 0x64, 0x270F, 0x2710, 0x1869F, 0x186A0]


def expected(items, codec, errors):
    """Each item as CPython's encoder hands it to ``errors``: the escape's characters, each
    with the item's kind (``UNENCODABLE_CHARACTER`` for data), or the item itself."""
    result = []
    for value, kind in items:
        try:
            chr(value).encode(codec)
        except UnicodeEncodeError:
            escape = chr(value).encode(codec, errors).decode("ascii")
            kind = ErrorKind.UNENCODABLE_CHARACTER if kind == ErrorKind.NONE else kind
            result += [(ord(character), kind) for character in escape]
        else:
            result.append((value, kind))
    return result


def run(errors, last, messages):
    """``messages`` (lists of items) through the escaper, at most two items a beat and some
    beats empty, with stalls on both sides; the items that come out, message by message."""
    lanes = LaneFormat(CodePointLanes)
    rng = random.Random(3)
    payloads = []
    for items in messages:
        beats, position = [], 0
        while position < len(items) or not beats:
            taken = rng.choice((0, 1, 2, 2))
            beats.append(items[position:position + taken])
            position += taken
        payloads += [lanes.pack(beat, index == len(beats) - 1) for index, beat in enumerate(beats)]
    got = [[]]

    def on_output(payload):
        items, last = lanes.unpack(payload)
        got[-1].extend(items)
        if last:
            got.append([])

    run_payloads(Escaper(errors=errors, last=last), payloads, messages=len(messages),
                 on_output=on_output, stall=0.3, seed=5)
    return got[:-1]


@pytest.mark.parametrize("errors", ["backslashreplace", "xmlcharrefreplace"])
@pytest.mark.parametrize("last", [0x7F, 0xFF, 0x10FFFF])
def test_escapes_are_cpythons(errors, last):
    rng = random.Random(last)
    values = EDGES + [rng.randrange(0x110000) for _ in range(60)]
    kinds = [ErrorKind.NONE, ErrorKind.NONE, ErrorKind.INVALID_START_BYTE]
    items = [(value, ErrorKind.NONE) for value in values]
    items += [(0xFFFD, kind) for kind in kinds]
    rng.shuffle(items)
    messages = [items[index:index + 7] for index in range(0, len(items), 7)] + [[]]
    got = run(errors, last, messages)
    assert got == [expected(items, CODEC_OF[last], errors) for items in messages]


@pytest.mark.parametrize("arguments,message", [
    ({"errors": "replace", "last": 0xFF},
     "errors must be 'backslashreplace' or 'xmlcharrefreplace', not 'replace'"),
    ({"errors": "xmlcharrefreplace", "last": 0xFFFF},
     "last must be 0x7F, 0xFF or 0x10FFFF, not 65535"),
    ({"errors": "xmlcharrefreplace", "last": True},
     "last must be 0x7F, 0xFF or 0x10FFFF, not True"),
])
def test_parameters(arguments, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Escaper(**arguments)


@pytest.mark.parametrize("errors", ["backslashreplace", "xmlcharrefreplace"])
def test_transcoder_with_an_escape_lints(tmp_path, errors):
    # Until ``utfhw generate`` writes such cores (and its lint test takes them), here.
    try:
        find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))
    core = Transcoder(source="utf-16-le", target="ascii", errors=("ignore", errors))
    path = tmp_path / "top.v"
    path.write_text(verilog.convert(core, name="top"))
    result = lint_verilog(path, top="top")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("errors", ["backslashreplace", "xmlcharrefreplace"])
def test_escape_length_is_cpythons(errors):
    """Every code point ASCII cannot hold: the length the burst rule and the expansion take
    is that of CPython's escape."""
    lengths = [len(chr(code_point).encode("ascii", errors))
               for code_point in range(0x80, 0x110000)]
    assert [escape_length(errors, code_point) for code_point in range(0x80, 0x110000)] == lengths


@pytest.mark.parametrize("errors", ["backslashreplace", "xmlcharrefreplace"])
@pytest.mark.parametrize("code_point", [0xE9, 0x100, 0x20AC, 0x10FFFF])
def test_clocks_an_escape_takes(errors, code_point):
    """A beat of one escaped character: a clock to start, ESCAPE_CLOCKS, and one a character
    of its escape, as the docstring bounds them."""
    from utfhw.sim.pysim import run_messages
    cycles = [run_messages(Transcoder(source="utf-32-le", target="ascii",
                                      errors=("replace", errors)),
                           [code_point.to_bytes(4, "little") * count])[1] for count in (1, 4)]
    assert (cycles[1] - cycles[0]) / 3 == 1 + ESCAPE_CLOCKS[errors] + \
        escape_length(errors, code_point)
