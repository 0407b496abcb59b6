"""The output without beats that carry no unit (``utfhw generate --no-empty-beats``,
hdl/empty_beats.py): DropEmptyBeats against its model with stalls on both sides, whole cores
behind it in Amaranth's simulator and as generated Verilog in Icarus, and the AXI4-Stream top
watched by cocotbext-axi."""

import random
import shutil

import pytest

from utfhw.hdl.cores import CoreSpec, make_core
from utfhw.hdl.empty_beats import DropEmptyBeats, WithoutEmptyBeats
from utfhw.hdl.unicode.layout import ErrorKind, Lanes, UTF16Unit
from utfhw.sim.payload import LaneFormat
from utfhw.sim.pysim import run_messages, run_payloads
from utfhw.bench.stimulus import stress_input
from utfhw.bench.verilog import build_bench
from utfhw.model.wide import expected_beats, without_empty_beats
from utfhw.verilog.generate import generate_module, module_name


def test_model():
    assert without_empty_beats([([], False), ([(1, 0)], False), ([], False), ([], True)]) == \
        [([(1, 0)], True)]
    assert without_empty_beats([([], False), ([], True)]) == [([], True)]
    assert without_empty_beats([([(1, 0)], False), ([(2, 0)], True)]) == \
        [([(1, 0)], False), ([(2, 0)], True)]


@pytest.mark.parametrize("stall", [0.0, 0.4])
def test_stage_as_the_model_gives(stall):
    """Messages of beats with 0 to 2 units, many of them empty, the last empty or not."""
    rng = random.Random(stall)
    layout = Lanes(UTF16Unit, 2)
    lanes = LaneFormat(layout)
    messages = []
    for index in range(300):
        beats = [[(rng.randrange(1 << 16), ErrorKind.NONE)
                  for _ in range(rng.choice([0, 0, 1, 2]))]
                 for _ in range(rng.choice([1, 1, 2, 3, 6]))]
        messages.append([(units, number == len(beats) - 1)
                         for number, units in enumerate(beats)])
    payloads = [lanes.pack(units, last) for beats in messages for units, last in beats]
    received = []
    run_payloads(DropEmptyBeats(layout), payloads, stall=stall, seed=3,
                 on_output=lambda payload: received.append(lanes.unpack(payload)))
    assert received == [beat for beats in messages for beat in without_empty_beats(beats)]


@pytest.mark.parametrize("source,target,width", [("utf-8", "utf-16-le", None),
                                                 ("utf-16-be", "utf-32", None),
                                                 ("utf-8", "utf-8", 4),
                                                 ("utf-32-le", "utf-16-be", 8)])
def test_core_without_empty_beats(source, target, width):
    """A core behind the stage: the model's beats without the empty ones, CPython's bytes, and
    no beat without a unit but an empty message's."""
    messages = [b"", b"a", stress_input(source, 300, seed=1), b"\xff"]
    rng = random.Random(source)
    data = stress_input(source, 600, seed=2)
    while data:
        cut = rng.randrange(40)
        messages.append(data[:cut])
        data = data[cut:]
    core = WithoutEmptyBeats(make_core(source, target, width=width))
    beats, _ = run_messages(core, messages, stall=0.3, seed=1)
    for message, got in zip(messages, beats):
        assert got == expected_beats(message, source, target, width=width, empty_beats=False)
        assert all(units for units, _ in got) or got == [([], True)]


@pytest.mark.parametrize("simulator,width", [("icarus-2005", None), ("icarus-2012", None),
                                             ("icarus-2012", 4),
                                             ("verilator", 4)])
def test_generated_module(tmp_path, simulator, width):
    """The Verilog ``utfhw generate --no-empty-beats`` writes, in Icarus and Verilator: its
    name, its header, and beats as the model gives them, with no X."""
    if simulator.startswith("icarus") and shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    spec = CoreSpec.of("utf-8", "utf-16-le", errors="replace", width=width)
    module = generate_module(spec, empty_beats=False, cached=True)
    assert module.name == module_name(spec, empty_beats=False) == \
        "utf8_to_utf16le" + ("" if width is None else f"_w{width}") + "_noempty"
    assert "--no-empty-beats" in module.ports["generator"]["command"]
    messages = [b"", "añ€😀".encode() * 3, b"\xe0\x80", stress_input("utf-8", 400, seed=4)]
    bench = build_bench(module.text, module.name, module.top, messages,
                        simulator=simulator, directory=tmp_path)
    run = bench.run(stall=0.3, seed=2)
    assert run.x_clocks == []
    assert run.beats == [expected_beats(message, "utf-8", "utf-16-le", width=width,
                                        empty_beats=False) for message in messages]


def test_axis_without_empty_beats(tmp_path):
    """cocotbext-axi's sink takes every frame, and no beat keeps no byte; the same bench on the
    module with empty beats finds them, so the watch can fail."""
    pytest.importorskip("cocotbext.axi")
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    from utfhw.bench.cocotb import run
    assert run(source="utf-8", target="utf-16-le", interface="axis", empty_beats=False,
               build_dir=tmp_path / "without") == (1, 0)
    assert run(source="utf-8", target="utf-16-le", interface="axis",
               build_dir=tmp_path / "with", judge_as={"UTFHW_EMPTY_BEATS": "0"}) == (1, 1)
