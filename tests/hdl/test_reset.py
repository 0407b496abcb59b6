"""Reset at any clock: ``rst`` held for one to three clocks at random points of a run (mid-message,
mid-beat of a stall, with the output held or draining) returns every kind of core to its initial
state. While ``rst`` is high ``i.ready`` and ``o.valid`` are low (the driver fails the run
otherwise); a message a reset cuts gives only what came before the reset, and every message
after it is exact (CPython's output)."""

import itertools
import random
import shutil

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.cores import CoreSpec
from utfhw.sim.payload import pack_units
from utfhw.bench.soak import check_messages, soak
from utfhw.bench.stimulus import stress_input
from utfhw.sim.verilator import verilated_pipeline
from utfhw.bench.verilog import axis_adapter, build_bench
from utfhw.model.wide import expected_beats
from utfhw.verilog.generate import generate_module, make_top

from support import WIDE_WIDTH


#: One core of each kind: scalar pairs of each source form, the pipelined core, and the wide
#: cores at the narrowest width, at 4 and at the wide width (8 in CI, 32 in the full sweep),
#: UTF-8 to UTF-8 and a mark-writing target among them.
KINDS = [
    ("utf-8", "utf-16-le", None, False),
    ("utf-16", "utf-8", None, False),
    ("utf-32-be", "utf-32", None, False),
    ("utf-8", "utf-16-be", None, True),
    ("utf-8", "utf-8", 1, False),
    ("utf-16-le", "utf-16", 2, False),
    ("utf-8", "utf-16-le", 4, False),
    ("utf-32-le", "utf-8", 4, False),
    ("utf-8", "utf-8", WIDE_WIDTH, False),
]
#: The kinds whose random resets run with ``ignore``, the others with ``replace``.
IGNORING = [("utf-16", "utf-8", None), ("utf-8", "utf-8", 1), ("utf-32-le", "utf-8", 4)]


def check_resets(source, target, errors, width, pipelined, *, messages, stall, reset, seed):
    """Run ``messages`` through the Verilated core with random resets and check them; returns
    the run."""
    spec = CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width)
    run = verilated_pipeline(spec).run(messages, stall=stall, seed=seed, reset=reset)
    assert len(run.cut) == len(run.output_lengths) == len(messages)
    assert check_messages(messages, run, source, target, errors) == []
    return run


@pytest.mark.parametrize("source,target,width,pipelined", KINDS)
def test_random_resets(source, target, width, pipelined):
    rng = random.Random(f"{source}{target}{width}")
    data = stress_input(source, 20_000, seed=3)
    messages = [b"", b"A"]
    while data:
        cut = rng.choice([0, 1, 7, 40, rng.randrange(300)])
        messages.append(data[:cut])
        data = data[cut:]
    # One handler a kind, each build taking longer than its run; the widest with ``replace``,
    # whose core tests/hdl/forms/utf8/test_expand.py builds too.
    errors, stall = (("ignore", 0.4) if (source, target, width) in IGNORING else
                     ("replace", 0.0))
    for stall in (stall, 0.3):
        run = check_resets(source, target, errors, width, pipelined, messages=messages,
                           stall=stall, reset=0.005, seed=len(messages))
        assert run.resets >= 5 and 0 < sum(run.cut) < len(messages) / 2


def test_reset_probability_is_checked():
    pipeline = verilated_pipeline(CoreSpec.of("utf-8", "utf-16-le", errors="replace"))
    with pytest.raises(ValueError, match=r"^reset must be a probability from 0 up to \(not "
                                         r"including\) 1, not 1\.5$"):
        pipeline.run([b"a"], reset=1.5)


def check_segments(run, messages, layout, source, target, errors, width):
    """After each reset of a plain-bench ``run``, the output is the beginning of that of the
    messages sent after it (all of it after the last reset); no X, the handshake low in
    reset."""
    assert run.x_clocks == [] and run.handshake_in_reset == []
    assert len(run.segments) > 3
    # The input beat each message starts at, and the beats it should give.
    starts = list(itertools.accumulate([len(pack_units(layout, message)) for message in messages],
                                       initial=0))
    expected = [expected_beats(message, source, target, errors, width=width)
                for message in messages]
    bounds = [start for start, _ in run.segments[1:]] + [starts[-1]]
    for index, ((start, got), end) in enumerate(zip(run.segments, bounds)):
        sent = [beats for first, beats in zip(starts, expected) if start <= first < end]
        want = [beat for beats in sent for beat in beats]
        if index == len(run.segments) - 1:
            assert got == want, index
        else:
            assert got == want[:len(got)], index


def bench_messages(source, target, width, size):
    rng = random.Random(f"{source}{target}{width}")
    data = stress_input(source, size, seed=5)
    messages = [b""]
    while data:
        cut = rng.choice([0, 1, 7, 40, rng.randrange(120)])
        messages.append(data[:cut])
        data = data[cut:]
    return messages


# Icarus takes half a minute for the widest core: W = 8 stands for it here. Every kind as
# SystemVerilog, a scalar, the pipelined and a wide core as Verilog-2005 too.
@pytest.mark.parametrize("source,target,width,pipelined,simulator", [
    (source, target, 8 if width == WIDE_WIDTH else width, pipelined, simulator)
    for source, target, width, pipelined in KINDS
    for simulator in ("icarus-2005", "icarus-2012")
    if simulator == "icarus-2012" or pipelined or width in (None, 4) and source == "utf-8"])
def test_random_resets_in_icarus(tmp_path, simulator, source, target, width, pipelined):
    """The Verilog exactly as ``utfhw generate`` writes it, in a plain Verilog bench with random
    resets: the handshake is low in reset, no output is X, and after each reset the output is
    the beginning of that of the messages sent after it (all of it after the last reset)."""
    if shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    errors = "replace"
    spec = CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width)
    module = generate_module(spec, cached=True)
    messages = bench_messages(source, target, width, 3000)
    bench = build_bench(module.text, module.name, module.top, messages, simulator=simulator,
                        directory=tmp_path)
    run = bench.run(stall=0.3, seed=2, resets=0.004)
    check_segments(run, messages, module.top.i.payload.shape(), source, target, errors, width)


# The AXI4-Stream modules: scalar cores of two source forms and two wide cores, each in Icarus
# both ways, a scalar and a wide one in Verilator too (a build takes half a minute); in CI each
# in one dialect, the two taking turns, and the wide one from UTF-8 in Verilator.
@pytest.mark.parametrize("source,target,width,simulator", [
    (source, target, width, simulator)
    for index, (source, target, width) in enumerate([
        ("utf-8", "utf-16-le", None), ("utf-16-be", "utf-8", None), ("utf-8", "utf-16-le", 4),
        ("utf-32-le", "utf-8", 8)])
    for simulator in ("icarus-2005", "icarus-2012", "verilator")
    if FULL_SWEEP and (simulator != "verilator" or source == "utf-8")
    or simulator == ("icarus-2005", "icarus-2012")[index % 2]
    or simulator == "verilator" and (source, width) == ("utf-8", 4)])
def test_random_resets_of_axis_modules(tmp_path, simulator, source, target, width):
    """The AXI4-Stream module as ``utfhw generate --interface axis`` writes it, in the plain
    bench through an adapter to stream ports (``s_axis_tkeep`` from the count, the count from
    ``m_axis_tkeep``, a lane flagged with a protocol error read as a wrong kind), with random
    resets: ``s_axis_tready`` and ``m_axis_tvalid`` low in reset, no X, nothing of a cut
    message after a reset, no protocol error."""
    if simulator.startswith("icarus") and shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    errors = "replace"
    spec = CoreSpec.of(source, target, errors=errors, width=width)
    module = generate_module(spec, interface="axis", cached=True)
    core = make_top(spec)
    name = module.name + "_as_stream"
    verilog = module.text + axis_adapter(name, module.name, core, module.top)
    messages = bench_messages(source, target, width, 2000)
    bench = build_bench(verilog, name, core, messages, simulator=simulator, directory=tmp_path)
    run = bench.run(stall=0.3, seed=4, resets=0.004)
    check_segments(run, messages, core.i.payload.shape(), source, target, errors, width)


def test_bounded_soak():
    """The soak (``python -m utfhw.bench.soak``) in a bounded form: 600 kB of adversarial messages
    through the wide core with stalls and resets, no mismatch."""
    figures = soak(CoreSpec.of("utf-8", "utf-16-le", width=4), 600_000, chunk=200_000,
                   reset=2e-4, seed=3)
    assert figures.bytes >= 600_000 and figures.resets > 10 and figures.cut > 0
    assert figures.mismatches == 0


def test_cut_output_may_only_begin_the_expected():
    """The check a soak makes: a cut message may give a beginning of CPython's output, no other
    message anything but all of it."""
    class Run:
        output_lengths = [1, 1, 2]
        cut = [True, True, False]

        def messages(self):
            return iter([b"a", b"x", b"ab"])
    assert [index for index, *_ in check_messages([b"ab", b"ab", b"ab"], Run(), "utf-8",
                                                  "utf-8", "replace")] == [1]
