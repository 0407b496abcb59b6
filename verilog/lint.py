"""Verilator lint of the generated Verilog, with the waivers Amaranth's output needs."""

from ..toolchain.tools import find_verilator, run


__all__ = ["LINT_WAIVERS", "lint_verilog"]


#: Warnings the generated Verilog has by construction, not faults of the design.
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
    # Yosys writes a multiplexer with many inputs as a `casez` over its select bits, one
    # pattern a bit, marked parallel_case: the patterns overlap in form, but `proc` makes the
    # selects mutually exclusive, so at most one matches.
    "CASEOVERLAP": "one-hot multiplexer selects written as overlapping casez patterns",
}


def lint_verilog(path, *, top=None):
    """Run ``verilator --lint-only -Wall`` with :data:`LINT_WAIVERS` on ``path``.

    Returns the completed process; its ``returncode`` is 0 when Verilator accepts the file.
    """
    command = [find_verilator(), "--lint-only", "-Wall"]
    command += [f"-Wno-{warning}" for warning in LINT_WAIVERS]
    if top is not None:
        command += ["--top-module", top]
    command.append(str(path))
    return run(command, what="verilator --lint-only", check=False)
