"""The check between synthesis and place and route in ``utfhw build``: a design that needs more
cells than its board's device has is refused, with both counts, before nextpnr runs.

Run as ``python -m utfhw.boards.fit STAT FAMILY DEVICE`` by the build's own script, after Yosys
has written ``STAT`` (its ``stat -json``): it exits with status 1 and says what does not fit
when the design needs more LUT4s, flip-flops or block RAMs than ``DEVICE`` has
(:data:`~utfhw.boards.designs.CAPACITY`)."""

import json
import sys

from .designs import CAPACITY, cell_counts, fits


__all__ = ["DoesNotFit", "STAT_SCRIPT", "check_command", "design_counts", "shortfall", "main"]


#: What Yosys runs after synthesis for the check: the design's cells, as ``{name}.stat.json``.
STAT_SCRIPT = "tee -q -o {name}.stat.json stat -json"

_NAMES = (("lut4", "LUT4s"), ("ff", "flip-flops"), ("bram", "block RAMs"))


class DoesNotFit(Exception):
    """A design needs more cells of a kind than its device has."""


def check_command(family, device):
    """The build script's command for the check (a command template of Amaranth's build
    plan, as ``{{name}}`` names its files), run by this Python."""
    return (f'"{sys.executable}" -m {__spec__.name} {{{{name}}}}.stat.json {family} '
            f'"{device}"')


def design_counts(stat_path, family):
    """``{"lut4", "ff", "bram"}`` of the whole design that Yosys's ``stat -json`` at
    ``stat_path`` describes."""
    with open(stat_path) as file:
        stat = json.load(file)
    return cell_counts(stat["design"]["num_cells_by_type"], family)


def shortfall(counts, device):
    """What ``counts`` need of ``device`` beyond what it has, as words (``"9,120 LUT4s; the
    GW1N-9C has 8,640"``), or ``None`` if they fit."""
    if fits(counts, device):
        return None
    return "; ".join(f"{counts[kind]:,} {name} where the {device} has {have:,}"
                     for (kind, name), have in zip(_NAMES, CAPACITY[device])
                     if counts[kind] > have)


def main(arguments=None):
    stat_path, family, device = sys.argv[1:] if arguments is None else arguments
    missing = shortfall(design_counts(stat_path, family), device)
    if missing is not None:
        print(f"the design does not fit: it needs {missing}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
