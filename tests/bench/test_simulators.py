"""One behaviour in every simulator: the Verilog ``utfhw generate`` writes, run by a plain Verilog
test bench in Icarus Verilog as Verilog-2005 and as SystemVerilog and in Verilator, from reset and
without one, gives the reference model's output beats, and no output is X after the first clock.

CI runs a fixed set of modules that covers every source, every target, both handlers, the
pipelined core and the wide core at four widths to UTF-16, from UTF-8, UTF-16 and UTF-32 to
UTF-32, from UTF-8, UTF-32 and Latin-1 to UTF-8, to ASCII and Latin-1, from mark-reading codecs
and to mark-writing ones, in Icarus each in one dialect (three in both); ``UTFHW_SWEEP=full`` runs
every module in every simulator, in Icarus at W = 32 and 64 a sample (``ICARUS_SAMPLE``)."""

import functools
import itertools
import random
import shutil

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.cores import CoreSpec, PIPELINED_PAIRS, WIDE_PAIRS, make_core
from utfhw.hdl.cores.validator import validator_widths
from utfhw.hdl.cores.wide import wide_widths
from utfhw.sim.payload import units_to_bytes
from utfhw.sim.validation import read_result
from utfhw.hdl.forms import CODECS
from utfhw.verilog.generate import convert, generate_module
from utfhw.model.reference import transcoder_beats
from utfhw.model.wide import expected_beats
from utfhw.bench.stimulus import stress_input
from utfhw.toolchain.tools import find_program
from utfhw.bench.verilog import SIMULATORS, build_bench, bench_verilog
from utfhw.bench.verilog import _RUNTIME_OBJECTS, _runtime_folder

from support import MARK_CASES, WIDE_WIDTH, encoding_meets_unwritable


# Each source with the next codec as target, handlers alternating; the pair that Icarus as
# SystemVerilog once got wrong; the pipelined core both ways.
_NAMES = list(CODECS)
FIXED = [(source, target, errors, False, None) for (source, target), errors in zip(
    zip(_NAMES, _NAMES[1:] + _NAMES[:1]), itertools.cycle(["replace", "ignore"]))]
FIXED += [("utf-16", "utf-8-sig", "ignore", False, None),
          ("utf-8", "utf-16-le", "replace", True, None),
          ("utf-8", "utf-16-be", "ignore", True, None),
          ("utf-8", "utf-16-le", "replace", False, 1),
          ("utf-8", "utf-16-be", "ignore", False, 4),
          ("utf-8", "utf-16-le", "replace", False, WIDE_WIDTH),
          ("utf-8", "utf-32-be", "replace", False, 4),
          ("utf-32-be", "utf-16-le", "replace", False, 4),
          ("utf-16-le", "utf-32-be", "replace", False, 2),
          ("utf-16", "utf-32-be", "replace", False, 4),
          ("utf-8-sig", "utf-16-le", "ignore", False, 2),
          ("utf-32-be", "utf-8", "ignore", False, 8),
          ("utf-8", "utf-8", "replace", False, 2),
          ("utf-16-be", "utf-16", "replace", False, 2),
          ("utf-32", "utf-8-sig", "ignore", False, 4),
          ("latin-1", "utf-8", "replace", False, 4),
          ("ascii", "utf-8", "replace", False, 8),
          ("utf-8", "ascii", "ignore", False, 8),
          ("utf-16-le", "latin-1", "ignore", False, 2)]

EVERY = [(source, target, errors, False, None)
         for source, target in itertools.product(CODECS, CODECS)
         for errors in ("replace", "ignore")]
EVERY += [(source, target, errors, True, None) for source, target in PIPELINED_PAIRS
          for errors in ("replace", "ignore")]
EVERY += [(source, target, errors, False, width) for source, target in WIDE_PAIRS
          for errors in ("replace", "ignore") for width in wide_widths(source, target)]
MODULES = EVERY if FULL_SWEEP else FIXED
# A Verilator bench compiles its design's C++ (seconds for a small design, minutes at W = 64;
# the first also Verilator's runtime, which the others link), an Icarus bench takes one: in CI
# Verilator runs one module of the fixed sample, the wide core from UTF-8 to UTF-8 (every pair's
# cores go through Verilator's own driver in tests/sim/test_verilator.py and the wide tests in
# tests/hdl/, and an example bench runs in Verilator in tests/test_examples.py), Icarus all of
# them.
VERILATED = set(MODULES if FULL_SWEEP else [("utf-8", "utf-8", "replace", False, 2)])
# Icarus takes minutes a dialect for the largest modules at W = 32 and 64 (45 ms a clock for
# UTF-8 to UTF-8 at W = 32, six minutes for all of it at W = 64, eight for ASCII to UTF-8 at
# W = 64, which took two hours before it went through expand; docs/verification.md): there
# the full sweep gives it
# a sample, each codec to the next (each source and each target once) and the three pairs of
# forms that leaves out. Verilator runs every module at every width.
ICARUS_SAMPLED_WIDTHS = (32, 64)
ICARUS_SAMPLE = {(source, target, errors) for source, target, errors, *_ in
                 FIXED[:len(CODECS)] + [("utf-8", "utf-32-le", "ignore"),
                                        ("utf-16-le", "utf-8", "replace"),
                                        ("utf-32-be", "utf-16-le", "replace")]}


# In CI Icarus runs each module of the sample in one dialect, the two taking turns, and these in
# both: the first, the pair Icarus as SystemVerilog once got wrong, and a wide core.
BOTH_DIALECTS = {FIXED[0], ("utf-16", "utf-8-sig", "ignore", False, None),
                 ("utf-8", "utf-16-be", "ignore", False, 4)}


def simulated_in(simulator, module):
    if simulator == "verilator":
        return module in VERILATED
    source, target, errors, _, width = module
    if not FULL_SWEEP and module not in BOTH_DIALECTS and \
            simulator != ("icarus-2005", "icarus-2012")[MODULES.index(module) % 2]:
        return False
    return width not in ICARUS_SAMPLED_WIDTHS or (source, target, errors) in ICARUS_SAMPLE


def cut_messages(source):
    """Stress input cut into messages of 0 to 40 bytes, and the byte order mark cases."""
    data = stress_input(source, 2500, seed=7)
    rng = random.Random(source)
    messages = []
    while data:
        cut = rng.randrange(0, 41)
        messages.append(data[:cut])
        data = data[cut:]
    return messages + MARK_CASES


# Each module runs in two or three simulators, one after the other: made once.
@functools.lru_cache(maxsize=2)
def module_and_expected(source, target, errors, pipelined, width):
    """The Verilog exactly as ``utfhw generate`` writes it, the messages and the reference
    model's beats for them."""
    module = generate_module(CoreSpec.of(source, target, errors=errors, pipelined=pipelined,
                                         width=width), cached=True)
    messages = cut_messages(source)
    expected = [expected_beats(message, source, target, errors, width=width)
                for message in messages]
    return module, messages, expected


def needs(simulator):
    programs = ("verilator-cli", "verilator") if simulator == "verilator" else ("iverilog",)
    return pytest.mark.skipif(find_program(*programs) is None,
                              reason=f"{programs[0]} is not installed")


@pytest.mark.parametrize("simulator,source,target,errors,pipelined,width", [
    pytest.param(simulator, *module, marks=needs(simulator))
    for module in MODULES for simulator in SIMULATORS if simulated_in(simulator, module)])
def test_module_in_simulator(tmp_path, simulator, source, target, errors, pipelined, width):
    module, messages, expected = module_and_expected(source, target, errors, pipelined, width)
    core, name = module.top, module.name
    bench = build_bench(module.text, name, core, messages,
                            simulator=simulator, directory=tmp_path)
    cycles = set()
    for reset in (True, False):
        run = bench.run(reset=reset, stall=0.3, seed=5)
        assert run.x_clocks == [], f"X on an output at clocks {run.x_clocks[:10]}"
        for index, (got, want) in enumerate(zip(run.beats, expected)):
            assert got == want, (reset, index, messages[index].hex())
        cycles.add(run.cycles)
    # Reset held for two clocks changes nothing the bench counts.
    assert len(cycles) == 1


# The validator of each form: in CI in Icarus (tests/sim/test_validation.py runs them in
# Verilator); every source at every width in every simulator with the full sweep, Icarus
# sampled at W = 32 and 64.
VALIDATORS = ([(source, width) for source in CODECS for width in validator_widths(source)]
              if FULL_SWEEP else [("utf-8", 4), ("utf-16", 2), ("utf-32-be", 8), ("ascii", 16),
                                  ("utf-8-sig", 1)])


def validator_in(simulator, source, width):
    if FULL_SWEEP:
        return simulator == "verilator" or width not in ICARUS_SAMPLED_WIDTHS or \
            source in ("utf-8", "utf-16-le", "utf-32")
    return simulator != "verilator"


@pytest.mark.parametrize("simulator,source,width", [
    pytest.param(simulator, source, width, marks=needs(simulator))
    for source, width in VALIDATORS for simulator in SIMULATORS
    if validator_in(simulator, source, width)])
def test_validator_in_simulator(tmp_path, simulator, source, width):
    """A validator's beats are its input's, and each message's verdict is CPython's."""
    spec = CoreSpec.of(source, None, validate=True, width=width)
    module = generate_module(spec, cached=True)
    messages = cut_messages(source)
    bench = build_bench(module.text, module.name, module.top, messages, simulator=simulator,
                        directory=tmp_path)
    result_layout = spec.output_layout["result"].shape
    for reset in (True, False):
        run = bench.run(reset=reset, stall=0.3, seed=5)
        assert run.x_clocks == [], f"X on an output at clocks {run.x_clocks[:10]}"
        for message, beats in zip(messages, run.beats):
            assert b"".join(data for (data, _), _ in beats) == message
            verdict = read_result(result_layout, beats[-1][0][1], source)
            assert all(result == 0 for (_, result), _ in beats[:-1])
            text = message.decode(source, "replace")
            assert (verdict["code_points"], verdict["utf16_units"], verdict["utf8_bytes"]) == \
                (len(text), len(text.encode("utf-16-le")) // 2, len(text.encode()))
            try:
                message.decode(source)
                assert verdict["valid"], message.hex()
            except UnicodeDecodeError as error:
                assert (verdict["start"], verdict["end"], verdict["reason"]) == \
                    (error.start, error.end, error.reason), message.hex()


def test_bench_reads_what_the_design_does(tmp_path):
    """The bench's beats are the design's: a design judged as another pair fails."""
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    core = make_core("utf-8", "utf-16-le")
    messages = [b"a\xc3\xa9", b"\xff"]
    bench = build_bench(convert(core, name="m"), "m", core, messages,
                            simulator="icarus-2012", directory=tmp_path)
    run = bench.run(stall=0.5, seed=1)
    assert run.beats == [transcoder_beats(message, "utf-8", "utf-16-le") for message in messages]
    assert run.beats != [transcoder_beats(message, "utf-8", "utf-16-be") for message in messages]


def test_verilator_benches_share_its_runtime(tmp_path):
    """Once a Verilator bench is built, the runtime's objects are kept, and the next bench links
    them without compiling them again; both give the reference model's beats. (In the cache
    the suite shares, the first bench may be another test's: the runtime is compiled once a
    run.)"""
    if find_program("verilator-cli", "verilator") is None:
        pytest.skip("verilator is not installed")
    core = make_core("utf-32-le", "utf-32-be")
    messages = [b"A\x00\x00\x00", b"\x00\xd8\x00\x00\x41"]
    for bench_name in ("first", "second"):
        bench = build_bench(convert(core, name="m"), "m", core, messages, simulator="verilator",
                            directory=tmp_path / bench_name)
        assert bench.run(stall=0.3, seed=2).beats == [
            transcoder_beats(message, "utf-32-le", "utf-32-be") for message in messages]
        kept = _runtime_folder()
        assert all((kept / name).is_file() for name in _RUNTIME_OBJECTS)
    # The compiler writes a .d file for each source it compiles: the bench's, not the runtime's.
    assert list((tmp_path / "second" / "obj").glob("Vutfhw_testbench*.d"))
    assert not list((tmp_path / "second" / "obj").glob("verilated*.d"))


def test_bench_sees_x(tmp_path):
    """An output that is X after the first clock is reported, not passed over."""
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    core = make_core("utf-8", "utf-16-le")
    # The design behind a wrapper whose output valid is a register nothing assigns.
    broken = convert(core, name="inner") + """
module broken(clk, rst, i__valid, i__ready, i__payload, o__valid, o__ready, o__payload);
  input clk, rst, i__valid, o__ready;
  input [9:0] i__payload;
  output i__ready, o__valid;
  output [40:0] o__payload;
  reg unknown;
  assign o__valid = unknown;
  inner core(.clk(clk), .rst(rst), .i__valid(i__valid), .i__ready(i__ready),
             .i__payload(i__payload), .o__valid(), .o__ready(o__ready), .o__payload(o__payload));
endmodule
"""
    bench = build_bench(broken, "broken", core, [b"a"], simulator="icarus-2005",
                            directory=tmp_path)
    with pytest.raises(AssertionError, match="the bench ended after 0 of 1 messages"):
        bench.run()
    assert "x 1" in (tmp_path / "outputs.hex").read_text()


def test_bench_text_names_the_module():
    text = bench_verilog(name="my_core", input_bits=10, output_bits=41, beats=3, messages=1)
    assert "my_core dut (" in text and "reg [9:0] i__payload" in text


# Transcoders with a pair of handlers, an escape among them: their beats are no longer one an
# input beat, so the bench checks their bytes against CPython's.
# In CI two; with UTFHW_SWEEP=full every source to each target that cannot hold every
# character (the only ones where the encoding handler acts) with each pair the core takes.
PAIR_MODULES = ([(source, target, (decoding, encoding)) for source in CODECS
                 for target in ("latin-1", "ascii") for decoding in ("replace", "ignore")
                 for encoding in ("replace", "ignore", "backslashreplace", "xmlcharrefreplace")
                 if decoding != encoding] if FULL_SWEEP else
                [("utf-8", "latin-1", ("replace", "xmlcharrefreplace")),
                 ("utf-16-be", "ascii", ("ignore", "backslashreplace"))])


def _writes(target, text):
    """Whether CPython's ``target`` codec writes all of ``text``."""
    try:
        text.encode(target)
    except UnicodeEncodeError:
        return False
    return True


@pytest.mark.parametrize("simulator,source,target,errors", [
    pytest.param(simulator, *module, marks=needs(simulator))
    for module in PAIR_MODULES for simulator in SIMULATORS])
def test_pair_of_handlers_in_simulator(tmp_path, simulator, source, target, errors):
    module = generate_module(CoreSpec.of(source, target, errors=errors), cached=True)
    messages = cut_messages(source)
    bench = build_bench(module.text, module.name, module.top, messages, simulator=simulator,
                        directory=tmp_path)
    decoding, encoding = errors
    decoded = [message.decode(source, decoding) for message in messages]
    expected = [text.encode(target, encoding) for text in decoded]
    # The messages hold characters the encoding handler acts on wherever the pair can.
    acts = not all(_writes(target, text) for text in decoded)
    assert acts == encoding_meets_unwritable(source, target, decoding)
    for reset in (True, False):
        run = bench.run(reset=reset, stall=0.3, seed=5)
        assert run.x_clocks == [], f"X on an output at clocks {run.x_clocks[:10]}"
        assert [units_to_bytes(beats, target) for beats in run.beats] == expected
