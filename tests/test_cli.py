"""The ``utfhw`` command line."""

import subprocess
import sys

import pytest

from utfhw.sim.cli import main
from utfhw.sim.lint import find_verilator, lint_verilog


def run(*args):
    return subprocess.run([sys.executable, "-m", "utfhw.sim.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_transcode(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \u20ac \U0001F600 \xff".encode("utf-8") + b"\xe2\x82")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--to", "utf-16-be", "--stall", "0.3", "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode("utf-8", "replace").encode("utf-16-be")
    assert "cycles" in result.stderr and "input bytes per clock" in result.stderr


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
    (["--to", "utf-32"], "invalid choice: 'utf-32'"),
    (["--errors", "nope"], "invalid choice: 'nope'"),
])
def test_bad_arguments(tmp_path, args, message):
    source = tmp_path / "in.txt"
    source.write_bytes(b"a")
    result = run("transcode", source, tmp_path / "out.bin", *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_generate_rtlil(tmp_path):
    path = tmp_path / "top.il"
    assert main(["generate", "-o", str(path)]) == 0
    assert "module \\utf8_to_utf16le" in path.read_text()


def test_generate_bad_extension(tmp_path):
    result = run("generate", "-o", tmp_path / "top.sv")
    assert result.returncode == 2
    assert "output file must end in .v (Verilog) or .il (RTLIL), not" in result.stderr


@pytest.mark.parametrize("target,errors", [("utf-16-le", "replace"), ("utf-16-be", "ignore")])
def test_generated_verilog_passes_verilator_lint(tmp_path, target, errors):
    try:
        find_verilator()
    except FileNotFoundError as error:
        pytest.skip(str(error))
    name = "utf8_to_" + target.replace("-", "")
    path = tmp_path / f"{name}.v"
    result = run("generate", "-o", path, "--to", target, "--errors", errors)
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    for port in ("i__valid", "i__ready", "i__payload", "o__valid", "o__ready", "o__payload"):
        assert port in text
    lint = lint_verilog(path, top=name)
    assert lint.returncode == 0, lint.stderr
