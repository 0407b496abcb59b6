"""The Verilog of every pipeline passes ``verilator --lint-only -Wall`` with the waivers in
``utfhw.sim.lint``, and compiles with Icarus Verilog where it is installed."""

import itertools
import shutil
import subprocess

import pytest

from utfhw.sim.generate import module_name, pipeline_hdl
from utfhw.sim.lint import lint_verilog
from utfhw.sim.tools import find_verilator
from utfhw.sim.reference import CODECS


@pytest.fixture(scope="module")
def verilator():
    try:
        return find_verilator()
    except FileNotFoundError as error:
        pytest.skip(str(error))


@pytest.mark.parametrize("errors", ["replace", "ignore"])
@pytest.mark.parametrize("source,target", list(itertools.product(CODECS, CODECS)))
def test_every_pipeline(verilator, tmp_path, source, target, errors):
    name = module_name(source, target)
    path = tmp_path / f"{name}.v"
    path.write_text(pipeline_hdl(source, target, errors=errors))
    lint = lint_verilog(path, top=name)
    assert lint.returncode == 0, lint.stderr
    iverilog = shutil.which("iverilog")
    if iverilog:
        compiled = subprocess.run([iverilog, "-o", str(tmp_path / "sim.vvp"), "-s", name,
                                   str(path)], capture_output=True, text=True)
        assert compiled.returncode == 0, compiled.stderr


def test_lint_catches_faults(verilator, tmp_path):
    """The waivers leave real faults visible: a multiply driven signal fails the lint."""
    path = tmp_path / "broken.v"
    path.write_text("module broken(input a, input b, output y);\n"
                    "  assign y = a;\n  assign y = b;\nendmodule\n")
    assert lint_verilog(path, top="broken").returncode != 0
