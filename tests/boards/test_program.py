"""Programming a board: the programmer found, the command it runs, and what is said when
there is none; through ``utfhw board --board``."""

import os
import subprocess
import sys

import pytest

from utfhw.boards.program import PROGRAMMERS, default_bitstream, program, programmer_command
from utfhw.boards.top import BOARDS
from utfhw.toolchain import tools
from utfhw.toolchain.tools import BuildError, ToolchainError


def fake_programmer(folder, name, *, status=0):
    """A program ``name`` in ``folder`` that writes its arguments to ``name.args`` there and
    exits with ``status``."""
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho \"$@\" > '{folder / name}.args'\n"
                    f"echo 'cannot find the board' >&2\nexit {status}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def no_programs(monkeypatch, tmp_path):
    """Only the programs in ``tmp_path / "bin"`` are found."""
    monkeypatch.setattr(tools.sys, "executable", str(tmp_path / "no-python"))
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    return tmp_path / "bin"


@pytest.mark.parametrize("board,name,arguments", [
    ("icebreaker", "openFPGALoader", ["-b", "ice40_generic"]),
    ("icebreaker", "iceprog", []),
    ("ulx3s-85f", "openFPGALoader", ["-b", "ulx3s"]),
    ("colorlight-5a-75b", "openFPGALoader", ["-b", "colorlight"]),
    ("tang-nano-9k", "openFPGALoader", ["-b", "tangnano9k"]),
    ("tang-primer-20k", "openFPGALoader", ["-b", "tangprimer20k"]),
    ("tang-mega-138k-pro", "openFPGALoader", ["-b", "tangmega138k"]),
])
def test_programmer_command(no_programs, board, name, arguments):
    path = fake_programmer(no_programs, name)
    assert programmer_command(board, "b.bin") == [str(path), *arguments, "b.bin"]


def test_openfpgaloader_first(no_programs):
    fake_programmer(no_programs, "iceprog")
    loader = fake_programmer(no_programs, "openFPGALoader")
    assert programmer_command("icebreaker", "b.bin")[0] == str(loader)


@pytest.mark.parametrize("board,message", [
    ("icebreaker", "no programmer for the icebreaker found: install openFPGALoader or iceprog "
                   "(Debian: apt install openfpgaloader), then run: openFPGALoader -b "
                   "ice40_generic b.bin"),
    ("ulx3s-85f", "no programmer for the ulx3s-85f found: install openFPGALoader (Debian: apt "
                  "install openfpgaloader), then run: openFPGALoader -b ulx3s b.bin"),
    ("colorlight-5a-75b", "no programmer for the colorlight-5a-75b found: install "
                          "openFPGALoader (Debian: apt install openfpgaloader), then run: "
                          "openFPGALoader -b colorlight b.bin"),
])
def test_no_programmer(no_programs, board, message):
    with pytest.raises(ToolchainError) as raised:
        programmer_command(board, "b.bin")
    assert str(raised.value) == message


def test_program(no_programs, tmp_path):
    fake_programmer(no_programs, "iceprog")
    bitstream = tmp_path / "b.bin"
    bitstream.write_bytes(b"\x7e\xaa\x99\x7e")
    assert program("icebreaker", bitstream)[1:] == [str(bitstream)]
    assert (no_programs / "iceprog.args").read_text() == f"{bitstream}\n"


def test_programmer_fails(no_programs, tmp_path):
    fake_programmer(no_programs, "iceprog", status=1)
    bitstream = tmp_path / "b.bin"
    bitstream.write_bytes(b"")
    with pytest.raises(BuildError, match=r"^programming the icebreaker failed \(exit 1\)"):
        program("icebreaker", bitstream)


def test_missing_bitstream(tmp_path):
    with pytest.raises(FileNotFoundError) as raised:
        program("ulx3s-85f", tmp_path / "b.bit")
    assert str(raised.value) == (f"{tmp_path / 'b.bit'} does not exist: make it with utfhw "
                                 f"build --board ulx3s-85f")


def test_default_bitstream():
    assert str(default_bitstream("icebreaker")) == os.path.join("build", "icebreaker",
                                                               "utfhw_bridge.bin")
    assert str(default_bitstream("ulx3s-85f")).endswith("utfhw_bridge.bit")
    assert str(default_bitstream("tang-nano-9k")).endswith("utfhw_bridge.fs")
    assert set(PROGRAMMERS) == set(BOARDS)


def board(*args, path, cwd):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", "board", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd,
                          env=dict(os.environ, PATH=str(path)))


def test_board_programs_then_streams(tmp_path):
    """``--board``: programmed with the programmer found, then the port is opened."""
    fake_programmer(tmp_path / "bin", "openFPGALoader")
    (tmp_path / "build" / "icebreaker").mkdir(parents=True)
    (tmp_path / "build" / "icebreaker" / "utfhw_bridge.bin").write_bytes(b"")
    result = board("--board", "icebreaker", "--port", tmp_path / "ttyUSB9",
                   path=tmp_path / "bin", cwd=tmp_path)
    assert result.returncode == 1
    assert (tmp_path / "bin" / "openFPGALoader.args").read_text() == \
        "-b ice40_generic build/icebreaker/utfhw_bridge.bin\n"
    assert result.stderr.splitlines() == [
        f"utfhw board: programmed the icebreaker: {tmp_path / 'bin' / 'openFPGALoader'} -b "
        f"ice40_generic build/icebreaker/utfhw_bridge.bin",
        f"utfhw board: error: cannot open {tmp_path / 'ttyUSB9'}: No such file or directory"]


@pytest.mark.parametrize("setup,message", [
    ("nothing", "build/icebreaker/utfhw_bridge.bin does not exist: make it with utfhw build "
                "--board icebreaker"),
    ("bitstream", "no programmer for the icebreaker found: install openFPGALoader or iceprog "
                  "(Debian: apt install openfpgaloader), then run: openFPGALoader -b "
                  "ice40_generic build/icebreaker/utfhw_bridge.bin"),
    ("failing", "programming the icebreaker failed (exit 1): "),
])
def test_board_cannot_program(tmp_path, setup, message):
    (tmp_path / "bin").mkdir()
    if setup != "nothing":
        (tmp_path / "build" / "icebreaker").mkdir(parents=True)
        (tmp_path / "build" / "icebreaker" / "utfhw_bridge.bin").write_bytes(b"")
    if setup == "failing":
        fake_programmer(tmp_path / "bin", "iceprog", status=1)
        message += f"{tmp_path / 'bin' / 'iceprog'} build/icebreaker/utfhw_bridge.bin"
    result = board("--board", "icebreaker", "--port", tmp_path / "ttyUSB9",
                   path=tmp_path / "bin", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == f"utfhw board: error: {message}\n"
