"""``utfhw board``: the host against the bridge simulated behind a pseudo-terminal, its error
cases, and the host's parts on their own."""

import os
import re
import signal
import subprocess
import sys
import time
import tty

import pytest

from utfhw.bench.board import (BoardError, Host, Message, PROBE, builtin_messages,
                               burst_message, read_messages)
from utfhw.bench.golden import cpython_result
from utfhw.hdl.bridge import VERDICT_BYTES, burst_limit, expansion
from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.forms import CODECS
from utfhw.sim.bridge import SimulatedBoard
from utfhw.toolchain.tools import ToolchainError, find_verilator

from conftest import FULL_SWEEP


def needs_verilator():
    try:
        find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))


def board(*args):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", "board", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


# The built-in messages (the sample, the malformed sequences, a burst at the limit) through
# the scalar core and a wide one; the full sweep adds pairs with two- and four-byte units,
# marks and ``ignore``.
PAIRS = [
    ("utf-8", "utf-16-le", "replace", None),
    ("utf-8", "utf-16-le", "replace", 4),
    # An escape on encoding: expansion 8, &#65533; for each bad byte.
    ("utf-8", "ascii", "replace,xmlcharrefreplace", None),
]
if FULL_SWEEP:
    PAIRS += [
        ("utf-8", "utf-8", "replace", None),      # expansion 3: U+FFFD for each bad byte
        ("utf-16-be", "utf-32", "ignore", 2),
        ("utf-32", "utf-8-sig", "replace", 8),
        ("utf-8-sig", "utf-16", "replace", 16),
        ("latin-1", "utf-8", "replace", None),
        ("utf-8", "ascii", "replace", 4),
    ]


@pytest.mark.parametrize("source,target,errors,width", PAIRS)
def test_simulated_board_matches_cpython(source, target, errors, width):
    needs_verilator()
    options = ["--from", source, "--to", target, "--errors", errors]
    if width is not None:
        options += ["--width", width]
    result = board("--simulate", *options)
    assert result.returncode == 0, result.stdout + result.stderr
    errors = tuple(errors.split(",")) if "," in errors else errors
    messages = builtin_messages(source, target, errors)
    limit = burst_limit(source, target, errors)
    assert len(messages[-1].data) == (limit or 2 * 2048)
    assert f"{len(messages)} messages" in result.stdout
    assert "matches CPython" in result.stdout
    assert f"{sum(len(message.data) for message in messages):,} bytes in" in result.stdout
    assert "bytes/s in" in result.stdout
    # The bridge dropped no byte and saw no bad frame.
    assert "flag is set" not in result.stderr


# The validating bridge: each message answered with its verdict.
VALIDATORS = [("utf-8", 4)]
if FULL_SWEEP:
    VALIDATORS += [("utf-16-le", 2), ("utf-32", 8), ("ascii", 1)]


@pytest.mark.parametrize("source,width", VALIDATORS)
def test_simulated_validating_board_matches_cpython(source, width):
    needs_verilator()
    result = board("--simulate", "--validate", "--from", source, "--width", width)
    assert result.returncode == 0, result.stdout + result.stderr
    messages = builtin_messages(source, source, "replace")
    assert (f"utfhw board: {len(messages)} messages ({source} validator, {width} bytes a beat),"
            f" matches CPython: {sum(len(message.data) for message in messages):,} bytes in "
            f"and {len(messages) * VERDICT_BYTES:,} out") in result.stdout
    assert "flag is set" not in result.stderr


def test_long_messages_are_paced(tmp_path):
    """Messages three times the burst limit, and random bytes, through a small FIFO: the
    host paces them so that nothing is dropped and no gap ends a message early. The idle
    time is long (35 ms) for a busy machine, whose host process can be held up for several
    milliseconds between two chunks of a message."""
    needs_verilator()
    limit = burst_limit("utf-8", "utf-8", "replace", fifo_depth=128)
    (tmp_path / "invalid.txt").write_bytes(b"\xff" * (3 * limit))
    (tmp_path / "mixed.txt").write_bytes(("a\u00e9\u20ac\U0001F600" * 300).encode())
    (tmp_path / "random.bin").write_bytes(os.urandom(1000))
    result = board("--simulate", tmp_path, "--to", "utf-8", "--fifo-depth", 128,
                   "--idle-bits", 4000)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "3 messages" in result.stdout and "matches CPython" in result.stdout
    assert "flag is set" not in result.stderr


def test_interrupt_exits_130_with_one_line(tmp_path):
    """Ctrl-C mid-run, to the whole process group as at a terminal: status 130, one line, and
    no simulation left running."""
    needs_verilator()
    # Built before the clock starts, so the interrupt lands in the run.
    SimulatedBoard(idle_bits=2000).build()
    (tmp_path / "long.txt").write_bytes(b"x" * 200_000)
    process = subprocess.Popen(
        [sys.executable, "-m", "utfhw.cli", "board", "--simulate", "--idle-bits", "2000",
         str(tmp_path / "long.txt")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(4)
    os.killpg(process.pid, signal.SIGINT)
    output, errors = process.communicate(timeout=60)
    assert process.returncode == 130, output + errors
    assert "Traceback" not in errors
    assert errors.splitlines() == ["utfhw board: interrupted"]
    with pytest.raises(ProcessLookupError):
        os.killpg(process.pid, 0)


def test_port_that_does_not_exist(tmp_path):
    result = board("--port", tmp_path / "ttyUSB9")
    assert result.returncode == 1
    assert result.stderr == f"utfhw board: error: cannot open {tmp_path / 'ttyUSB9'}: No such " \
                            f"file or directory\n"


def test_board_that_does_not_answer():
    """A pseudo-terminal that nothing reads: the probe gets no answer."""
    master, slave = os.openpty()
    tty.setraw(slave)
    name = os.ttyname(slave)
    try:
        started = time.monotonic()
        result = board("--port", name, "--timeout", "0.5")
        assert time.monotonic() - started < 20
    finally:
        os.close(slave)
        os.close(master)
    assert result.returncode == 1
    assert result.stderr == f"utfhw board: error: no answer from {name} within 0.5 s: is " \
                            f"the board programmed with the bridge, at 115200 baud?\n"


@pytest.mark.parametrize("bridge_baud", [57600, 230400])
def test_wrong_baud_rate(bridge_baud):
    """The host at 115200 baud, the simulated bridge at half or twice that: what comes back
    is not the probe's answer."""
    needs_verilator()
    result = board("--simulate", "--simulate-baud", bridge_baud, "--timeout", "1")
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    assert len(lines) == 1 + lines[0].startswith("utfhw: building"), result.stderr
    assert re.fullmatch(r"utfhw board: error: the simulated bridge \(/dev/\S+\) answered the "
                        r"probe with \d+ bytes? \([0-9a-f ]+\), not the bridge's answer of 34: "
                        r"a wrong baud rate\? \(check --baud 115200, --from utf-8, --to "
                        r"utf-16-le, --errors replace against utfhw build's\)", lines[-1])


@pytest.mark.parametrize("arguments,message", [
    (["--port", "x", "--simulate"], "argument --simulate: not allowed with argument --port"),
    ([], "one of the arguments --port --simulate is required"),
    (["--port", "x", "--simulate-baud", "9600"], "--simulate-baud is for --simulate"),
    (["--simulate", "--board", "icebreaker"],
     "--board programs a real board, not with --simulate"),
    (["--port", "x", "--bitstream", "a.bin"], "--bitstream needs --board"),
    (["--port", "x", "--timeout", "0"],
     "argument --timeout: timeout must be a positive number of seconds, not '0'"),
    (["--port", "x", "--width", "3"],
     "argument --width: width must be a power of two from 1 to 64, not '3'"),
    (["--port", "x", "--from", "utf-16", "--width", "1"],
     "--width must be at least 2 for utf-16, not 1"),
    (["--port", "x", "--baud", "0"], "--baud must be an integer of at least 1, not 0"),
    (["--port", "x", "--fifo-depth", "15"],
     "--fifo-depth must be an integer of at least 16, not 15"),
    (["--port", "x", "--idle-bits", "19"],
     "--idle-bits must be an integer of at least 20, not 19"),
])
def test_usage_errors(arguments, message):
    result = board(*arguments)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"utfhw board: error: {message}"


def test_unreadable_message(tmp_path):
    result = board("--port", "x", tmp_path / "missing.txt")
    assert result.returncode == 1
    assert result.stderr == f"utfhw board: error: cannot read {tmp_path / 'missing.txt'}: No " \
                            f"such file or directory\n"


def test_empty_folder(tmp_path):
    result = board("--port", "x", tmp_path)
    assert result.returncode == 1
    assert result.stderr == f"utfhw board: error: no files in {tmp_path}\n"


class EchoBridge:
    """A port that answers each write at once with CPython's transcoding (the host writes a
    short message whole), but for the bytes in ``corrupt``, which it changes."""
    name = "echo"

    def __init__(self, source, target, errors, corrupt=b"\x00"):
        self.codecs = source, target, errors
        self.corrupt = corrupt
        self.waiting = bytearray()
        self.written = []

    @property
    def in_waiting(self):
        return len(self.waiting)

    def write(self, data):
        self.written.append(bytes(data))
        source, target, errors = self.codecs
        answer = bytes(data).decode(source, errors).encode(target)
        if self.corrupt in data:
            answer = answer[:3] + b"?" + answer[4:]
        self.waiting += answer

    def read(self, size):
        if not self.waiting:
            time.sleep(0.01)
        data = bytes(self.waiting[:size])
        del self.waiting[:size]
        return data

    def close(self):
        pass


def test_mismatch_is_reported_as_the_golden_checker_does():
    port = EchoBridge("utf-8", "utf-16-le", "replace", corrupt=b"\xc0")
    messages = [Message(b"fine", "a fine one"), Message(b"[\xc0\xaf]", "an overlong '/'")]
    with Host(port, idle_bits=20, timeout=0.2) as host:
        run = host.run(messages)
    assert port.written[0] == PROBE.encode("utf-8")
    assert run.messages == 2 and run.input_bytes == 8
    assert len(run.mismatches) == 1
    assert run.mismatches[0] == (
        "message 1 of 2 (an overlong '/', 4 bytes), output byte 3: expected ff, got 3f\n"
        "  expected 5b 00 fd ff fd ff 5d 00 (8 bytes)\n"
        "  got      5b 00 fd 3f fd ff 5d 00 (8 bytes)\n"
        "  input bytes 0..4 of the message: 5b c0 af 5d (that unit from bytes 1..2)\n"
        "  CPython: utf-8 strict raises at start=1, end=2: invalid start byte")


class VerdictBridge(EchoBridge):
    """A port that answers each write with CPython's verdict, as a validating bridge's
    :data:`VERDICT_BYTES`, but one count more for a message holding ``corrupt``."""
    def write(self, data):
        self.written.append(bytes(data))
        spec = CoreSpec.of(self.codecs[0], None, width=4, validate=True)
        answer = cpython_result(data, spec)
        if self.corrupt in data:
            answer += 1 << spec.output_layout["result"].shape["code_points"].offset
        self.waiting += answer.to_bytes(VERDICT_BYTES, "little")


def test_validating_bridge_mismatch_names_both_verdicts():
    port = VerdictBridge("utf-8", None, None, corrupt=b"\xc0")
    messages = [Message(b"fine", "a fine one"), Message(b"[\xc0\xaf]", "an overlong '/'")]
    with Host(port, idle_bits=20, timeout=0.2, width=4, validate=True, target=None) as host:
        run = host.run(messages)
    assert run.messages == 2 and run.output_bytes == 2 * VERDICT_BYTES
    assert run.mismatches == [
        "message 1 of 2 (an overlong '/', 4 bytes): the verdict differs\n"
        "  expected valid=False, start=1, end=2, reason=invalid start byte, code_points=4, "
        "utf16_units=4, utf8_bytes=8, overflow=False\n"
        "  got      valid=False, start=1, end=2, reason=invalid start byte, code_points=5, "
        "utf16_units=4, utf8_bytes=8, overflow=False\n"
        "  CPython: utf-8 strict raises at start=1, end=2: invalid start byte"]


def test_probe_answered_wrongly():
    port = EchoBridge("utf-8", "utf-16-le", "replace", corrupt=b"u")
    with Host(port, idle_bits=20, timeout=0.2, name="/dev/ttyX") as host:
        with pytest.raises(BoardError, match=r"^/dev/ttyX answered the probe with 34 bytes "
                                             r"\(75 00 74 3f .*\), not the bridge's answer "
                                             r"of 34: a wrong baud rate\? \(check --baud "
                                             r"115200, --from utf-8, --to utf-16-le, --errors "
                                             r"replace against utfhw build's\)$"):
            host.probe()


@pytest.mark.parametrize("arguments,message", [
    ({"baud": 0}, "baud must be an integer of at least 1, not 0"),
    ({"fifo_depth": 15}, "fifo_depth must be an integer of at least 16, not 15"),
    ({"idle_bits": 19}, "idle_bits must be an integer of at least 20, not 19"),
    ({"timeout": 0}, "timeout must be a positive number of seconds, not 0"),
    ({"width": 3}, "width must be a power of two from 1 to 64, not 3"),
    ({"validate": "yes", "target": None, "width": 4}, "validate must be True or False, not 'yes'"),
])
def test_host_arguments(arguments, message):
    with pytest.raises(ValueError, match="^" + message + "$"):
        Host(EchoBridge("utf-8", "utf-16-le", "replace"), **arguments)


@pytest.mark.parametrize("source", CODECS)
@pytest.mark.parametrize("target", ["utf-8", "utf-16-le", "utf-32", "latin-1", "ascii"])
def test_burst_message_is_the_worst_case(source, target):
    """The burst grows by the pair's expansion: the worst case the burst rule allows for."""
    for errors in ("replace", "ignore", ("replace", "backslashreplace"),
                   ("ignore", "xmlcharrefreplace")):
        message = burst_message(source, target, errors, fifo_depth=256).data
        limit = burst_limit(source, target, errors, fifo_depth=256)
        assert len(message) == (limit or 512)
        decoding, encoding = (errors, errors) if isinstance(errors, str) else errors
        grown = len(message.decode(source, decoding).encode(target, encoding)) / len(message)
        assert grown >= expansion(source, target, errors) * 0.98, (source, target, errors)


def test_read_messages(tmp_path):
    (tmp_path / "b.txt").write_bytes(b"b")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "c.txt").write_bytes(b"c")
    (tmp_path / ".hidden").write_bytes(b"h")
    (tmp_path / "empty").write_bytes(b"")
    single = tmp_path / "single.bin"
    single.write_bytes(b"s")
    messages = read_messages([tmp_path / "a", single])
    assert [(message.data, message.description) for message in messages] == [
        (b"c", str(tmp_path / "a" / "c.txt")), (b"s", str(single))]
    assert [message.data for message in read_messages([tmp_path])] == [b"c", b"b", b"s"]
