"""The ``utfhw`` command line."""

import os
import shutil
import subprocess
import sys

import pytest

from utfhw.cli import main
from utfhw.sim.generate import pipeline_hdl
from utfhw.sim.lint import lint_verilog
from utfhw.sim.tools import find_verilator


def run(*args):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_transcode(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \u20ac \U0001F600 \xff".encode("utf-8") + b"\xe2\x82")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--to", "utf-16-be", "--stall", "0.3", "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode("utf-8", "replace").encode("utf-16-be")
    assert "cycles" in result.stderr and "input units per clock" in result.stderr


def test_transcode_any_pair(tmp_path):
    text = "\ufeffh\u00e9llo \u20ac \U0001F600"
    source = tmp_path / "in.txt"
    source.write_bytes(text.encode("utf-16-be") + b"\x00\xd8\x00")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--from", "utf-16", "--to", "utf-8-sig")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == \
        source.read_bytes().decode("utf-16", "replace").encode("utf-8-sig")
    assert "25 input bytes (13 code units)" in result.stderr


def test_progress_bar(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"x" * 5000)
    result = run("transcode", source, tmp_path / "out.bin", "--progress")
    assert result.returncode == 0, result.stderr
    assert "100% 5000/5000 bytes" in result.stderr


def test_strict_reports_offset(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"abc\xed\xa0\x80")
    result = run("transcode", source, tmp_path / "out.bin", "--errors", "strict")
    assert result.returncode == 1
    assert "malformed utf-8 at byte 3: invalid continuation byte (start=3, end=4)" in result.stderr
    assert not (tmp_path / "out.bin").exists()


def test_unreadable_input(tmp_path):
    result = run("transcode", tmp_path / "missing.txt", tmp_path / "out.bin")
    assert result.returncode == 1
    assert f"cannot read {tmp_path / 'missing.txt'}" in result.stderr


@pytest.mark.parametrize("args,message", [
    (["--stall", "1"], "stall must be a probability from 0 up to (not including) 1, not 1.0"),
    (["--stall", "often"], "not a number: 'often'"),
    (["--to", "utf-7"], "invalid choice: 'utf-7'"),
    (["--from", "latin-1"], "invalid choice: 'latin-1'"),
    (["--errors", "nope"], "invalid choice: 'nope'"),
])
def test_bad_arguments(tmp_path, args, message):
    source = tmp_path / "in.txt"
    source.write_bytes(b"a")
    result = run("transcode", source, tmp_path / "out.bin", *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_report_bad_pnr_timeout(tmp_path):
    result = run("report", "--pairs", "headline", "--pnr-timeout", "-5",
                 "-o", tmp_path / "report.md")
    assert result.returncode == 2
    assert "--pnr-timeout must be a positive number of minutes, not -5" in result.stderr
    assert not (tmp_path / "report.md").exists()


def test_report_bad_router(tmp_path):
    result = run("report", "--pairs", "headline", "--router", "router3",
                 "-o", tmp_path / "report.md")
    assert result.returncode == 2
    assert "invalid choice: 'router3'" in result.stderr
    assert not (tmp_path / "report.md").exists()


def test_generate_rtlil(tmp_path):
    path = tmp_path / "top.il"
    assert main(["generate", "-o", str(path)]) == 0
    assert "module \\utf8_to_utf16le" in path.read_text()


def test_generate_bad_extension(tmp_path):
    result = run("generate", "-o", tmp_path / "top.sv")
    assert result.returncode == 2
    assert "output file must end in .v (Verilog) or .il (RTLIL), not" in result.stderr


def test_generate_names_module_after_pair(tmp_path):
    path = tmp_path / "top.il"
    assert main(["generate", "-o", str(path), "--from", "utf-8-sig", "--to", "utf-32-be"]) == 0
    assert "module \\utf8sig_to_utf32be" in path.read_text()


# tests/test_lint.py lints every pipeline; these go through the command line.
@pytest.mark.parametrize("source,target,errors", [
    ("utf-8", "utf-16-le", "replace"), ("utf-16", "utf-8-sig", "ignore"),
])
def test_generated_verilog_passes_verilator_lint(tmp_path, source, target, errors):
    try:
        find_verilator()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    name = source.replace("-", "") + "_to_" + target.replace("-", "")
    path = tmp_path / f"{name}.v"
    result = run("generate", "-o", path, "--from", source, "--to", target, "--errors", errors)
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    for port in ("i__valid", "i__ready", "i__payload", "o__valid", "o__ready", "o__payload"):
        assert port in text
    lint = lint_verilog(path, top=name)
    assert lint.returncode == 0, lint.stderr


def test_transcode_on_verilator(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("\U0001F600 caf\u00e9 ".encode("utf-16-be") * 500 + b"\x00\xd8\x00")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--from", "utf-16-be", "--to", "utf-8",
                 "--sim", "verilator", "--stall", "0.5", "--seed", "2")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode("utf-16-be", "replace").encode()
    result = run("transcode", source, target, "--from", "utf-16-be", "--sim", "verilator",
                 "--errors", "strict")
    assert result.returncode == 1
    with pytest.raises(UnicodeDecodeError) as cpython:
        source.read_bytes().decode("utf-16-be")
    error = cpython.value
    assert f"malformed {error.encoding} at byte {error.start}: {error.reason} " \
        f"(start={error.start}, end={error.end})" in result.stderr


def test_vcd_needs_amaranth(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"a")
    result = run("transcode", source, tmp_path / "out.bin", "--sim", "verilator",
                 "--vcd", tmp_path / "x.vcd")
    assert result.returncode == 2
    assert "--vcd needs --sim amaranth" in result.stderr


def test_bench_both_simulators(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \xff".encode("latin-1") * 100)
    result = run("bench", source, "--sim", "both")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines[1:3]] == ["amaranth", "verilator"]
    assert [line.split()[4] for line in lines[1:3]] == ["702", "702"]      # 700 bytes + 2
    assert "times as many input bytes per second as amaranth" in lines[3]


def test_cocotb_command(tmp_path):
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    result = run("cocotb", "--from", "utf-32", "--to", "utf-16-be", "--build-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr


def test_cocotb_command_messages_relative_and_no_folder_left(tmp_path):
    """--messages is read relative to the caller's folder, and without --build-dir the
    temporary build folder is gone afterwards."""
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    (tmp_path / "message.txt").write_bytes(b"caf\xc3\xa9 \xf0\x9f\x98\x80 \xff")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environment = dict(os.environ, TMPDIR=str(scratch))
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "cocotb", "--messages",
                             "message.txt"], capture_output=True, text=True, cwd=tmp_path,
                            env=environment)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr
    assert list(scratch.iterdir()) == []


def test_hdl_language_checked():
    with pytest.raises(ValueError, match="language must be 'verilog' or 'rtlil', not 'vhdl'"):
        pipeline_hdl(language="vhdl")
