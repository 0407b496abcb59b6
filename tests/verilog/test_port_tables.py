"""What the README and the docs say of the ports is what the modules' port descriptions say:
docs/verilog.md's tables are made from them (``tests/port_tables.py``), and every statement of
the error kind's bits in prose agrees with them."""

import pathlib
import re

import pytest

import port_tables
from utfhw.hdl.axis import TUSER_BITS_PER_UNIT


REPOSITORY = pathlib.Path(__file__).resolve().parent.parent.parent
TEXTS = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]

# The modules are made only for their port descriptions, never elaborated.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}

# The ways the prose states how many bits an error kind has: "a 4-bit error kind", "its error
# kind in bits [3:0]", "bits [3:0] are the ErrorKind", "the error kind in the low four (bits)".
_KIND_BITS = [
    (r"(\d+)-bit error kind", int),
    (r"error kind in (?:its byte's |bits )\[(\d+):0\]", lambda high: int(high) + 1),
    (r"bits \[(\d+):0\] are (?:the|its) ErrorKind", lambda high: int(high) + 1),
    (r"(?:error kind|ErrorKind)[^.;]{0,20}? in the low (\w+)", lambda word: _WORDS.get(word)),
    (r"the low (\w+)(?: bits)? are (?:its|the) (?:error kind|`?ErrorKind`?)",
     lambda word: _WORDS.get(word)),
]
# And the bits of m_axis_tuser a lane takes: "`m_axis_tuser` is 8 bits a lane".
_TUSER_BITS = r"(?:`?m_axis_tuser`? is )?(\d+) bits a (?:lane|unit)"


def statements(text):
    """``(what was said, bits)`` for each statement of an error kind's or a tuser lane's bits
    in ``text``, the bits ``None`` where the words say no number."""
    text = " ".join(text.split())
    found = [(match[0], ("kind", read(match[1])))
             for pattern, read in _KIND_BITS for match in re.finditer(pattern, text)]
    found += [(match[0], ("tuser", int(match[1]))) for match in re.finditer(_TUSER_BITS, text)]
    return found


def the_modules_bits():
    """The error kind's bits and a tuser lane's, from the port description of a module."""
    described = port_tables.describe("utf8_to_utf16le", {"source": "utf-8",
                                                         "target": "utf-16-le"}, "stream")
    (payload,) = [port for port in described["ports"] if port["name"] == "o__payload"]
    (error,) = {field["width"] for field in payload["fields"]
                if field["name"].endswith(".error")}
    return {"kind": error, "tuser": TUSER_BITS_PER_UNIT}


def test_the_tables_are_the_modules_descriptions():
    text = port_tables.DOCUMENT.read_text()
    made = port_tables.replace_between(text, port_tables.BEGIN, port_tables.END,
                                       port_tables.tables())
    assert text == made, "docs/verilog.md's port tables are stale: python tests/port_tables.py"


def test_the_tables_show_every_error_kind_and_field():
    tables = port_tables.tables()
    assert "| `o__payload` | `[19:16]` | `lanes.0.error` |" in tables
    assert "| `m_axis_tuser` | out | 16 | 8 bits a lane" in tables
    assert "| `m_axis_tuser` | `[0]` | `valid` |" in tables


@pytest.mark.parametrize("path", TEXTS, ids=lambda path: path.name)
def test_no_statement_of_the_bits_contradicts_the_modules(path):
    bits = the_modules_bits()
    for said, (what, number) in statements(path.read_text()):
        assert number == bits[what], f"{path.name}: {said!r} (the JSON: {bits[what]} bits)"


def test_the_bits_are_stated_and_checked():
    # The statements above are found where the README and the docs make them, so that the
    # test above has something to check.
    said = [statement for path in TEXTS for statement in statements(path.read_text())]
    assert len([1 for _, (what, _) in said if what == "kind"]) >= 4
    assert any(what == "tuser" for _, (what, _) in said)


@pytest.mark.parametrize("text,number", [
    ("`m_axis_tuser` is 8 bits a lane, the lane's error kind in the low three (don't-care)", 3),
    ("each unit's error kind in its byte's [2:0]", 3),
    ("and carries a 3-bit error kind from which", 3),
])
def test_a_contradiction_is_found(text, number):
    (kinds,) = [bits for _, (what, bits) in statements(text) if what == "kind"]
    assert kinds == number != the_modules_bits()["kind"]
