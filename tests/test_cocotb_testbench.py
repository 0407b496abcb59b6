"""The cocotb bench runs on the generated Verilog and scores it with the reference model."""

import shutil

import pytest

from utfhw.sim.cocotb_testbench import run

pytest.importorskip("cocotb_tools.runner")


needs_icarus = pytest.mark.skipif(shutil.which("iverilog") is None,
                                  reason="Icarus Verilog is not installed")


@needs_icarus
@pytest.mark.parametrize("source,target,errors", [
    ("utf-8", "utf-16-le", "replace"), ("utf-16", "utf-8-sig", "ignore"),
    ("utf-32-be", "utf-16", "replace"),
])
def test_bench_passes(tmp_path, source, target, errors):
    assert run(source=source, target=target, errors=errors, build_dir=tmp_path, seed=3) == (1, 0)


@needs_icarus
def test_bench_fails_on_wrong_output(tmp_path):
    """The scoreboard bites: the same Verilog judged as another pipeline fails."""
    assert run(source="utf-8", target="utf-16-le", build_dir=tmp_path,
               judge_as={"UTFHW_TARGET": "utf-16-be"}) == (1, 1)


def test_bad_simulator():
    with pytest.raises(ValueError, match="simulator must be 'icarus', not 'vcs'"):
        run(simulator="vcs")
