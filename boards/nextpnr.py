"""What nextpnr says about a placed and routed design: its ``--report`` file, and a missed
clock as an error. (The tools themselves are found by :mod:`utfhw.toolchain.tools`.)"""

import json


__all__ = ["TimingError", "read_report", "PnrReport"]


class TimingError(RuntimeError):
    """nextpnr could not meet the clock constraint."""


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
