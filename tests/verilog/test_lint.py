"""The Verilog of every module ``utfhw generate`` writes (every pair and handler, the
pipelined core, and the wide core at every width) passes ``verilator --lint-only -Wall`` with the waivers in ``utfhw.verilog.lint``,
and compiles with Icarus Verilog as Verilog-2005 and as SystemVerilog where it is installed."""

import itertools
import shutil
import subprocess

import pytest

from conftest import FULL_SWEEP
from utfhw.verilog.generate import INTERFACES, generate_module
from utfhw.verilog.lint import lint_verilog
from utfhw.hdl.cores import CoreSpec, PIPELINED_PAIRS
from utfhw.hdl.forms import CODECS
from utfhw.hdl.unicode.params import WIDTHS
from utfhw.toolchain.tools import ToolchainError, find_verilator
from support import BUILT_PAIRS, WIDE_WIDTH


@pytest.fixture(scope="module")
def verilator():
    try:
        return find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))


HANDLERS = ("replace", "ignore")
# Every pair with both handlers behind both interfaces in the full sweep; in CI every third pair
# of BUILT_PAIRS once, the handler and the interface taking turns (the scalar modules differ by
# pair in their stages, which every pair's Verilator build verilates, and the interfaces and
# handlers are linted with each kind of core below).
MODULES = [(source, target, errors, False, None, interface, True)
           for index, (source, target) in enumerate(BUILT_PAIRS)
           for errors in HANDLERS for interface in INTERFACES
           if FULL_SWEEP or index % 3 == 0 and (errors, interface) == (
               HANDLERS[index // 3 % 2], INTERFACES[index // 6 % 2])]
OTHER_MODULES = [(source, target, errors, True, None) for source, target in PIPELINED_PAIRS
                 for errors in HANDLERS]
# The wide core at every width, and its other targets and handler at some.
OTHER_MODULES += [("utf-8", "utf-16-le", "replace", False, width) for width in WIDTHS]
OTHER_MODULES += [
    ("utf-8", "utf-16-be", "ignore", False, 4), ("utf-8", "utf-16-be", "replace", False, 8),
    ("utf-8", "utf-16-le", "ignore", False, 2), ("utf-8", "utf-32-le", "replace", False, 1),
    ("utf-8", "utf-32-be", "ignore", False, 4), ("utf-8", "utf-32-le", "ignore", False, 8),
    ("utf-32-le", "utf-16-be", "replace", False, 4),
    ("utf-32-be", "utf-32-le", "ignore", False, 64),
    ("utf-16-le", "utf-32-le", "replace", False, 2),
    ("utf-16-be", "utf-16-be", "ignore", False, 32),
    ("utf-32", "utf-16-le", "replace", False, 8), ("utf-8-sig", "utf-32-le", "ignore", False, 4),
    ("utf-16-be", "utf-8", "ignore", False, 16), ("utf-32-le", "utf-8", "replace", False, 4),
    ("utf-8", "utf-8", "replace", False, 8), ("utf-8-sig", "utf-8", "ignore", False, 4),
    ("utf-8", "utf-16", "replace", False, 2), ("utf-16-le", "utf-8-sig", "ignore", False, 8),
    ("utf-8", "utf-8", "ignore", False, 1), ("utf-32-be", "utf-32", "replace", False, 4),
    ("latin-1", "utf-8", "ignore", False, 2), ("ascii", "utf-8", "replace", False, 16),
    ("utf-8", "latin-1", "replace", False, 16), ("utf-16-be", "ascii", "ignore", False, 8),
    ("utf-32-le", "latin-1", "replace", False, 64), ("ascii", "latin-1", "ignore", False, 1)]
# In CI every other one behind one interface, the interfaces taking turns (the AXI4-Stream
# wrapper is the same around every core).
MODULES += [(*module, interface, True) for index, module in enumerate(OTHER_MODULES)
            for interface in INTERFACES
            # From and to UTF-8 at W = 16 and more a module takes 5 to 30 s to convert and lint:
            # the full sweep's (in CI the widest cores are linted from UTF-16 at 32 and UTF-32
            # at 64).
            if FULL_SWEEP or interface == INTERFACES[index // 2 % 2] and (
                index % 2 == 0 and module[4] not in (16, 32, 64)
                or module[:2] in (("utf-16-be", "utf-16-be"), ("utf-32-be", "utf-32-le")))]
# A Transcoder with a pair of handlers, an escape on encoding: in CI two, with the full sweep
# every source to each target whose encoding handler acts, with each escape.
MODULES += ([(source, target, (decoding, encoding), False, None, "stream", True)
             for source in CODECS for target in ("latin-1", "ascii")
             for decoding in HANDLERS for encoding in ("backslashreplace", "xmlcharrefreplace")]
            if FULL_SWEEP else
            [("utf-8", "ascii", ("ignore", "xmlcharrefreplace"), False, None, "axis", True),
             ("utf-32-le", "latin-1", ("replace", "backslashreplace"), False, None, "stream",
              True)])
# Without empty output beats.
MODULES += [("utf-8", "utf-16-le", "replace", False, None, "axis", False),
            ("utf-16-be", "utf-8", "ignore", False, 4, "stream", False)]


# The validators: every source at its unit and at 64 behind both interfaces in the full sweep;
# in CI each source once, the unit and the wide width and the interfaces taking turns.
VALIDATORS = [(source, width, interface) for index, source in enumerate(CODECS)
              for width, interface in (
                  itertools.product((CODECS[source].unit_bytes, 16, 64), INTERFACES) if FULL_SWEEP
                  else [((CODECS[source].unit_bytes, WIDE_WIDTH)[index % 2],
                         INTERFACES[index // 2 % 2])])]


@pytest.mark.parametrize("source,width,interface", VALIDATORS)
def test_every_validator(verilator, tmp_path, source, width, interface):
    spec = CoreSpec.of(source, None, validate=True, width=width)
    module = generate_module(spec, interface=interface, cached=True)
    path = tmp_path / f"{module.name}.v"
    path.write_text(module.text)
    lint = lint_verilog(path, top=module.name)
    assert lint.returncode == 0, lint.stderr
    iverilog = shutil.which("iverilog")
    if iverilog:
        for generation in ("-g2005", "-g2012"):
            compiled = subprocess.run([iverilog, generation, "-Wall", "-o",
                                       str(tmp_path / "sim.vvp"), "-s", module.name, str(path)],
                                      capture_output=True, text=True)
            assert compiled.returncode == 0, compiled.stderr
            assert "sensitivit" not in compiled.stderr, compiled.stderr


@pytest.mark.parametrize("source,target,errors,pipelined,width,interface,empty_beats", MODULES)
def test_every_module(verilator, tmp_path, source, target, errors, pipelined, width, interface,
                      empty_beats):
    spec = CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width)
    module = generate_module(spec, interface=interface, empty_beats=empty_beats, cached=True)
    name = module.name
    path = tmp_path / f"{name}.v"
    path.write_text(module.text)
    lint = lint_verilog(path, top=name)
    assert lint.returncode == 0, lint.stderr
    iverilog = shutil.which("iverilog")
    if iverilog:
        for generation in ("-g2005", "-g2012"):
            compiled = subprocess.run([iverilog, generation, "-Wall", "-o",
                                       str(tmp_path / "sim.vvp"), "-s", name, str(path)],
                                      capture_output=True, text=True)
            assert compiled.returncode == 0, compiled.stderr
            # "@* found no sensitivities": a block Icarus would never run.
            assert "sensitivit" not in compiled.stderr, compiled.stderr


def test_lint_catches_faults(verilator, tmp_path):
    """The waivers leave real faults visible: a multiply driven signal fails the lint."""
    path = tmp_path / "broken.v"
    path.write_text("module broken(input a, input b, output y);\n"
                    "  assign y = a;\n  assign y = b;\nendmodule\n")
    assert lint_verilog(path, top="broken").returncode != 0
