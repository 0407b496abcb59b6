"""The JSON port description ``utfhw generate`` writes beside the Verilog (verilog/ports.py) agrees
with the Verilog's own port list and with the payload layouts."""

import gc
import json
import re
import subprocess
import sys

import pytest

from utfhw.hdl.cores import make_core
from utfhw.sim.payload import LaneFormat


def generate(tmp_path, *arguments):
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "generate", "-o",
                             str(tmp_path / "m.v"), *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return (tmp_path / "m.v").read_text(), json.loads((tmp_path / "m.json").read_text())


def verilog_ports(text, module):
    """``{name: (direction, width)}`` of the top module's ports, from its declarations."""
    header = text[text.index(f"module {module}("):]
    header = header[:header.index("endmodule")]
    ports = {}
    for direction, high, name in re.findall(r"^\s*(input|output)\s+(?:\[(\d+):0\]\s+)?(\w+);",
                                            header, re.MULTILINE):
        ports[name] = ("in" if direction == "input" else "out", int(high or 0) + 1)
    order = re.match(r"module \w+\(([^)]*)\)", header).group(1).replace(" ", "").split(",")
    return ports, order


@pytest.mark.parametrize("arguments,module", [
    (["--from", "utf-8", "--to", "utf-16-le"], "utf8_to_utf16le"),
    (["--from", "utf-16", "--to", "utf-8-sig", "--errors", "ignore"], "utf16_to_utf8sig"),
    (["--from", "utf-8", "--to", "utf-16-be", "--pipelined"], "utf8_to_utf16be_pipelined"),
    (["--from", "utf-32", "--to", "utf-8", "--interface", "axis"], "utf32_to_utf8_axis"),
])
def test_description_matches_the_verilog(tmp_path, arguments, module):
    text, description = generate(tmp_path, *arguments)
    ports, order = verilog_ports(text, module)
    assert description["module"] == module
    assert [port["name"] for port in description["ports"]] == order
    assert order[:2] == ["clk", "rst"]
    for port in description["ports"]:
        assert ports[port["name"]] == (port["direction"], port["width"]), port["name"]
        fields = port.get("fields")
        if fields:
            # The fields tile the port, lowest first, and each says what it is.
            assert fields[0]["offset"] == 0
            for field, after in zip(fields, fields[1:]):
                assert field["offset"] + field["width"] == after["offset"]
            assert fields[-1]["offset"] + fields[-1]["width"] == port["width"]
            assert all(field["meaning"] for field in fields)
        else:
            assert port["meaning"]


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_fields_are_the_layouts(tmp_path):
    _, description = generate(tmp_path, "--from", "utf-8", "--to", "utf-16-le")
    fields = {port["name"]: {field["name"]: (field["offset"], field["width"])
                             for field in port.get("fields", [])}
              for port in description["ports"]}
    core = make_core("utf-8", "utf-16-le")
    output = LaneFormat(core.o.payload.shape())
    # Only its layouts are wanted: collect it now, while its unused-design warning is ignored.
    del core
    gc.collect()
    # A beat packed by the layout's own format has its last bit where the description says.
    offset, width = fields["o__payload"]["last"]
    assert width == 1 and output.pack([], True) >> offset == 1
    # Lane 0 (16 data bits, a 4-bit kind), then lane 1's data, then its kind.
    assert fields["o__payload"]["lanes.1.error"] == (36, 4)
    assert fields["i__payload"] == {"data": (0, 8), "count": (8, 1), "last": (9, 1)}
    assert (description["latency"], description["capacity"]) == (2, 2)
    assert description["most_clocks_per_beat"] == 1


@pytest.mark.parametrize("errors,most", [("replace,backslashreplace", 1 + 2 * (1 + 10)),
                                         ("replace,xmlcharrefreplace", 1 + 2 * (24 + 10))])
def test_an_escape_bounds_the_clocks_of_a_beat(tmp_path, errors, most):
    """The description gives the bound; a beat that escapes takes a clock to start and each
    escape's clocks, within it."""
    from utfhw.hdl.scalar.escape import ESCAPE_CLOCKS, escape_length
    from utfhw.sim.pysim import run_messages
    _, description = generate(tmp_path, "--from", "utf-8", "--to", "ascii", "--errors", errors)
    assert description["most_clocks_per_beat"] == most
    decoding, encoding = errors.split(",")
    core = make_core("utf-8", "ascii", errors=(decoding, encoding))
    assert core.most_clocks_per_beat == most
    # F4 8F BF cut short by C0: the beat of C0 has two U+FFFD; then U+10FFFF's last byte.
    _, cycles = run_messages(core, [b"\xf4\x8f\xbf\xc0" + "\U0010ffff".encode()])
    escapes = {3: [0xFFFD, 0xFFFD], 7: [0x10FFFF]}
    beats = [1 + sum(ESCAPE_CLOCKS[encoding] + escape_length(encoding, code_point)
                     for code_point in escapes[index]) if index in escapes else 1
             for index in range(8)]
    assert max(beats) <= most
    assert cycles == sum(beats) + core.latency


@pytest.mark.parametrize("source,target,width", [
    ("utf-8", "utf-16-le", 16), ("utf-16-be", "utf-8", 4), ("utf-32-le", "utf-8-sig", 8),
    ("utf-8", "utf-8", 1)])
def test_axis_description_of_output_beats(source, target, width):
    """What the AXI4-Stream description says of the wide core's output beats holds of the beats
    the model gives (and the model is the core's, beat for beat, in the wide tests): every
    beat before a message's last holds all its lanes, and the lanes and bytes it names are the
    core's."""
    from utfhw.bench.stimulus import stress_messages
    from utfhw.hdl.cores import CoreSpec
    from utfhw.model.wide import expected_beats
    from utfhw.verilog.generate import make_top
    from utfhw.verilog.ports import axis_meanings

    spec = CoreSpec(source, target, kind="wide", width=width)
    top = make_top(spec, interface="axis")
    meanings = axis_meanings(top, spec)
    lanes = spec.output_layout.lane_count
    assert f"up to {lanes} target code units" in meanings["m_axis_tdata"]
    assert f"holds all {lanes} lanes" in meanings["m_axis_tdata"]
    assert (f"keeps all {width} bytes" if width > 1 else "keeps 1 byte") in meanings["s_axis_tkeep"]
    for message in stress_messages(source)[:40]:
        beats = expected_beats(message, source, target, width=width)
        assert all(len(units) == lanes for units, _ in beats[:-1])
        assert beats[-1][1] and not any(last for _, last in beats[:-1])


@pytest.mark.parametrize("spec,stages", [
    ({"source": "latin-1", "target": "ascii", "kind": "wide", "width": 8},
     ["decode", "encode", "queue"]),
    ({"source": "utf-8", "target": "utf-16-le", "kind": "wide", "width": 8},
     ["classify", "window", "decode", "pack", "queue"]),
    # With ignore, a character ASCII cannot hold is dropped: the beats need compaction.
    ({"source": "latin-1", "target": "ascii", "errors": "ignore", "kind": "wide", "width": 8},
     ["decode", "encode", "pack", "queue"]),
    # A mark written first makes a message's output longer than its input.
    ({"source": "latin-1", "target": "utf-16", "kind": "wide", "width": 8},
     ["decode", "encode", "pack", "queue"]),
    ({"source": "utf-16", "target": "utf-8"},
     ["source_byte_order", "decoder", "mark_stripper", "encoder"]),
])
def test_description_names_the_cores_stages(spec, stages):
    """The JSON says which stages the core has: a wide core whose pair needs no compaction has
    no *pack*."""
    from utfhw.hdl.cores import CoreSpec
    from utfhw.verilog.generate import make_top
    from utfhw.verilog.ports import describe_ports
    spec = CoreSpec(**spec)
    described = describe_ports(make_top(spec), name="top", spec=spec, interface="stream")
    assert described["stages"] == stages
