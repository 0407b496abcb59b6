"""The report's tool runs, each a pure function of its inputs so that a cluster may run it on
any machine, run it again when a machine is lost, and keep its result under a key.

A design's netlist (:func:`netlist`) is the RTLIL of the design in a
:class:`~utfhw.boards.harness.TimingHarness`, without source locations, so that it names the
gateware and nothing else: its digest keys every later run. Yosys synthesises it once per
family (:func:`synthesise`), keeping the design as one module (``keep_hierarchy``) so that
``stat`` counts the design's own cells; nextpnr places and routes it once per device and seed
(:func:`place_and_route`)."""

import functools
import json
import os
import pathlib
import re
import tempfile
import zlib

from amaranth.back import rtlil

from ..toolchain.cache import cached_conversion, digest
from ..toolchain.tools import BuildError, BuildTimeout, run, tool_environment, tool_variable
from .designs import DEVICES, FAMILIES, cell_counts
from .harness import TimingHarness
from .nextpnr import read_report


__all__ = ["FORMAT", "DOES_NOT_FIT", "TIMED_OUT", "SYNTHESIS_FAILED", "NO_TIMING", "Netlist",
           "netlist",
           "tool_versions", "synthesis_key", "run_key", "synthesise", "fallback_script",
           "failure_stands", "place_and_route", "critical_path", "ToolVersionError"]

#: The version of what a run records; a change makes every cached run stale.
FORMAT = "1"

#: What a run of nextpnr or a device's cell says when the design cannot be placed on it.
DOES_NOT_FIT = "does not fit"
#: What a run says when nextpnr ran past the time limit.
TIMED_OUT = "timed out"
#: What a device's cell says when Yosys could not synthesise the design for its family.
SYNTHESIS_FAILED = "synthesis failed"
#: What a run says when nextpnr routed the design but its timing model found no path between
#: two flip-flops, so gave no Fmax ("No Fmax available; no interior timing paths found in
#: design"): nextpnr-himbaechel's Gowin timing model has gaps, and with ``--pairs all`` 14 of
#: the 127 designs, small stages such as the Latin-1, ASCII and UTF-32 decoders, have no Fmax
#: on each Gowin device (at 242cd5a).
NO_TIMING = "no timing"

# Runs of Yosys on one design before its failure is taken as final.
_SYNTHESIS_ATTEMPTS = 3

#: Where a family's synthesis maps with ABC9 by default, the commands that map with ABC instead
#: (in place of the synthesis script's ``map_luts`` step) and the name the counts then carry
#: (``counts["mapper"]``): the last try for a design on which YoWASP's Yosys stops in ABC9 every
#: time (the validator from UTF-16-LE at width 32 on the ECP5-85F, at c732cd3: "Running ABC
#: command", then exit status 1 with no message, three times). Yosys 0.70's ``synth_ecp5`` has
#: no option for ABC: it takes ``-noabc9`` without a word and runs ABC9 all the same.
ABC_FALLBACK = {"ecp5": ("check -latchonly -assert; techmap -map +/lattice/latches_map.v; "
                         "abc -lut 4 -dress; clean", "abc")}

#: The constraints file a family's runs with router2 take, as ``(name, text)``: router2 cannot
#: route the ECP5's clock from a pin of nextpnr's choosing to the global clock network ("Failed
#: to route arc 0.0 of net 'clk$TRELLIS_IO_IN' ... to X0/Y0/G_CLKI_TDCC0", the wide core from
#: UTF-8 to UTF-16-LE at W = 64 after 12 minutes of placement), so the harness's clock goes in
#: on G2, a primary clock pin of the CABGA381 (the ULX3S's 25 MHz clock). router1 routes it from
#: any pin, and its runs keep the keys they had.
ROUTER2_CONSTRAINTS = {"ecp5": ("clock.lpf", 'LOCATE COMP "clk" SITE "G2";\n'
                                             'IOBUF PORT "clk" IO_TYPE=LVCMOS33;\n')}

#: The pins of the harness's ports on each Gowin device, as nextpnr-himbaechel's constraints
#: file takes them: nextpnr places no port of its own choosing there ("Unconstrained IO"), and
#: the clock must come in on a clock pin (on the GW5AST-138C router2 "failed to route arc 0.0
#: of net 'core.clk'" from another). The pins are those of the device's board in
#: ``amaranth-boards``: its oscillator's for the clock, its serial port's for the serial input
#: and output, and two buttons' (on the Tang Primer 20K, SD card pins) for ``rst`` and
#: ``load``.
GOWIN_PINS = {
    "GW1N-9C":     {"clk": "52", "serial_in": "18", "serial_out": "17", "rst": "4",
                    "load": "3"},
    "GW2A-18C":    {"clk": "H11", "serial_in": "T13", "serial_out": "M11", "rst": "N10",
                    "load": "R14"},
    "GW5AST-138C": {"clk": "P16", "serial_in": "P15", "serial_out": "N16", "rst": "K16",
                    "load": "G15"},
}

#: Each family's place and route tool.
PLACERS = {"ice40": "nextpnr-ice40", "ecp5": "nextpnr-ecp5", "gowin": "nextpnr-himbaechel"}

#: Where a family's synthesis script differs from ``synth_FAMILY -top top -json FAMILY.json``:
#: ``synth_gowin`` puts I/O buffers on every module's ports, the core's too once it keeps its
#: hierarchy, so here they go on the harness's ports alone.
_SYNTHESIS = {"gowin": "synth_gowin -top top -noiopads; "
                       "iopadmap -bits -inpad IBUF O:I -outpad OBUF I:O top; "
                       "write_json gowin.json"}

#: What nextpnr says of cells that fit the device's count but that it cannot place (on an
#: iCE40 a logic cell holds one LUT4 and one flip-flop, which not every design's pairs allow).
#: HeAP's legaliser says the third when the packed cells outnumber the device's: the wide core
#: from UTF-8 to UTF-16-LE at W = 8 packs into 5293 ICESTORM_LCs for the UP5K's 5280, on every
#: seed, though Yosys counts fewer LUT4s than that.
PLACEMENT_FAILURES = ("Unable to find legal placement", "no BELs remaining",
                      "Failed to expand region")


class ToolVersionError(RuntimeError):
    """A machine of the cluster has other tools than the machine that keys the runs."""


class Netlist:
    """A design's netlist: its RTLIL ``text`` and the ``digest`` of it."""
    def __init__(self, text):
        self.text = text
        self.digest = digest(text)


def netlist(design):
    """The :class:`Netlist` of ``design`` (a :class:`~utfhw.boards.designs.Design`) in its
    :class:`~utfhw.boards.harness.TimingHarness`, top module ``top``. Converted once per
    source of the gateware, then read from utfhw's cache."""
    def convert():
        return rtlil.convert(TimingHarness(design.build()), name="top", emit_src=False)
    arguments = f"report netlist {design.name} {json.dumps(design.fields(), sort_keys=True)}"
    return Netlist(cached_conversion(arguments, convert, found=lambda: None))


def _tools(family):
    return ["yosys", PLACERS[family]]


@functools.lru_cache(maxsize=None)
def _version(tool):
    environment = tool_environment([tool])
    answer = run([environment[tool_variable(tool)], "--version"], what=f"{tool} --version",
                 check=False)
    return (answer.stdout + answer.stderr).strip().splitlines()[-1]


def tool_versions(families=tuple(FAMILIES)):
    """What ``--version`` says of Yosys and of nextpnr for each of ``families``, by tool
    name (``"yosys"``, ``"nextpnr-ecp5"``)."""
    return {tool: _version(tool) for family in families for tool in _tools(family)}


def _check_versions(versions, family):
    for tool in _tools(family):
        if versions.get(tool) != _version(tool):
            raise ToolVersionError(f"this machine's {tool} is {_version(tool)!r}, not "
                                   f"{versions.get(tool)!r} as the report's")


def _script(family, synthesis):
    """A Yosys script around ``synthesis``: read the netlist, keep the core's hierarchy, and
    write the cells' counts."""
    return (f"read_rtlil top.il; hierarchy -top top; "
            f"setattr -mod -set keep_hierarchy 1 top.core; "
            f"{synthesis}; "
            f"tee -q -o {family}-stat.json stat -json")


def _synthesis_script(family):
    return _script(family, _SYNTHESIS.get(family,
                                          f"{FAMILIES[family][0]} -top top -json {family}.json"))


def fallback_script(family):
    """The synthesis script that maps with ABC (:data:`ABC_FALLBACK`), or ``None`` where the
    family has none: the family's script up to its LUT mapping, ABC, then the rest."""
    if family not in ABC_FALLBACK:
        return None
    synth, mapping = FAMILIES[family][0], ABC_FALLBACK[family][0]
    return _script(family, f"{synth} -top top -run :map_luts; {mapping}; "
                           f"{synth} -top top -run map_cells: -json {family}.json")


def failure_stands(kept, family):
    """Whether a synthesis the cache ``kept`` as failed stays failed: it had the tries this
    family has now. One kept before the family had its ABC fallback (or another one) is run
    again."""
    return kept.get("fallback") == fallback_script(family)


def _constraints(device, router):
    """The constraints file of a run, as ``(name, text)``, or ``None``."""
    family = DEVICES[device][0]
    if device in GOWIN_PINS:
        return ("harness.cst", "".join(f'IO_LOC "{port}" {pin};\n'
                                       for port, pin in GOWIN_PINS[device].items()))
    return ROUTER2_CONSTRAINTS.get(family) if router == "router2" else None


def _pnr_options(device, seed, router):
    family, options, frequency = DEVICES[device]
    constraints = _constraints(device, router)
    if constraints is None:
        given = []
    elif family == "gowin":
        given = ["--vopt", f"cst={constraints[0]}"]
    else:
        given = ["--lpf", constraints[0], "--lpf-allow-unconstrained"]
    return [*options, "--json", f"{family}.json", "--freq", str(frequency),
            "--timing-allow-fail", "--router", router, "--seed", str(seed), *given]


def synthesis_key(netlist_digest, family, versions):
    """The key of the synthesis of a netlist (by its digest) for ``family``."""
    return digest(FORMAT, "synthesis", netlist_digest, family, _synthesis_script(family),
                  versions["yosys"])


def run_key(netlist_digest, device, seed, router, versions):
    """The key of one run of nextpnr: the netlist's digest, the synthesis, the device, its
    options, the seed, the router and the tools' versions."""
    family = DEVICES[device][0]
    constraints = _constraints(device, router)
    return digest(FORMAT, "run", synthesis_key(netlist_digest, family, versions), device,
                  json.dumps(_pnr_options(device, seed, router)),
                  *([constraints[1]] if constraints else []),
                  versions[PLACERS[family]])


def _cell_counts(stat_path, family):
    with open(stat_path) as file:
        modules = json.load(file)["modules"]
    return cell_counts(modules["\\top.core"]["num_cells_by_type"], family)


def _run(command, directory, environment, timeout=None):
    run(command, what=f"{os.path.basename(command[0])} in {directory}", cwd=directory,
        env=environment, timeout=timeout)


def synthesise(netlist, family, versions):
    """Synthesise ``netlist`` (a :class:`Netlist`) for ``family`` with Yosys.

    Returns ``{"counts": {"lut4", "ff", "bram"}, "json": the netlist for nextpnr, compressed}``,
    or ``{"failed": Yosys's message}`` when it failed every attempt (with ``"fallback"``, the
    :func:`fallback_script` that failed too, where the family has one). After three failed
    attempts it maps with ABC where the family has :data:`ABC_FALLBACK`, and the counts say
    so (``"mapper": "abc"``).

    Raises
    ------
    :exc:`ToolVersionError`
        If this machine's Yosys is not ``versions["yosys"]``.
    """
    _check_versions(versions, family)
    environment = tool_environment(_tools(family))
    with tempfile.TemporaryDirectory(prefix="utfhw-synthesis-") as directory:
        directory = pathlib.Path(directory)
        (directory / "top.il").write_text(netlist.text)
        command = [environment["YOSYS"], "-q", "-p", _synthesis_script(family)]
        mapper = None
        for attempt in range(_SYNTHESIS_ATTEMPTS):
            try:
                _run(command, directory, environment)
                break
            except BuildError as error:
                # YoWASP's Yosys sometimes stops without a message inside its ABC9 mapper on
                # a large design, and maps the same design when run again.
                if attempt < _SYNTHESIS_ATTEMPTS - 1:
                    continue
                fallback = fallback_script(family)
                if fallback is None:
                    return {"failed": str(error)[-2000:]}
                mapper = ABC_FALLBACK[family][1]
                try:
                    _run([environment["YOSYS"], "-q", "-p", fallback], directory, environment)
                except BuildError as error:
                    return {"failed": str(error)[-2000:], "fallback": fallback}
        counts = _cell_counts(directory / f"{family}-stat.json", family)
        if mapper is not None:
            counts["mapper"] = mapper
        return {"counts": counts,
                "json": zlib.compress((directory / f"{family}.json").read_bytes(), 6)}


def place_and_route(synthesis, device, seed, router, versions, timeout=None):
    """Place and route a :func:`synthesise` result on ``device`` with nextpnr's ``router``
    and ``seed``, stopping after ``timeout`` seconds if given.

    Returns ``{"fmax": MHz, "critical": critical_path(...)}``, ``{"outcome": DOES_NOT_FIT}``,
    ``{"outcome": NO_TIMING}`` or ``{"outcome": TIMED_OUT, "after": timeout}``.

    Raises
    ------
    :exc:`ToolVersionError`
        If this machine's nextpnr is not the one ``versions`` names.
    """
    family = DEVICES[device][0]
    _check_versions(versions, family)
    environment = tool_environment(_tools(family))
    with tempfile.TemporaryDirectory(prefix="utfhw-pnr-") as directory:
        directory = pathlib.Path(directory)
        (directory / f"{family}.json").write_bytes(zlib.decompress(synthesis["json"]))
        constraints = _constraints(device, router)
        if constraints:
            (directory / constraints[0]).write_text(constraints[1])
        command = [environment[tool_variable(PLACERS[family])], "-q",
                   *_pnr_options(device, seed, router), "--report", "report.json"]
        try:
            _run(command, directory, environment, timeout=timeout)
        except BuildTimeout:
            return {"outcome": TIMED_OUT, "after": timeout}
        except BuildError as error:
            if any(message in str(error) for message in PLACEMENT_FAILURES):
                return {"outcome": DOES_NOT_FIT}
            raise
        with open(directory / "report.json") as file:
            paths = json.load(file).get("critical_paths", [])
        report = read_report(directory / "report.json")
        if not report.fmax:
            return {"outcome": NO_TIMING}
        return {"fmax": report.worst_fmax, "critical": critical_path(paths)}


# Yosys and nextpnr name a cell after the net it drives, then its type and port.
_CELL_SUFFIX = re.compile(r"_(?:SB_|TRELLIS_|DP16KD|LUT4|CCU2C|PFUMX|L6MUX|LUT[1-3]|ALU|DFF|"
                          r"MUX2_LUT).*$")


def _endpoint(name):
    name = _CELL_SUFFIX.sub("", name)
    # The harness's registers: a path from its input chain starts at a port of the design,
    # one into its capture register ends at one.
    if re.match(r"chain\b|chain\[", name):
        return "input port"
    if re.match(r"captured\b|captured\[", name):
        return "output port"
    return name


def critical_path(paths):
    """What limited Fmax, from nextpnr's ``critical_paths`` report: of the clocked paths
    (those of the ``<async>`` reset left out), the longest, as ``{"from", "to", "levels",
    "logic_ns", "routing_ns"}``: the register (or port of the design) it starts at and ends
    at, its logic levels, and its delay in logic and in routing. ``None`` without one."""
    clocked = [path for path in paths
               if "<async>" not in (path.get("from"), path.get("to")) and path.get("path")]
    if not clocked:
        return None
    longest = max(clocked, key=lambda path: sum(step["delay"] for step in path["path"]))
    steps = longest["path"]
    routed = [step for step in steps if step["type"] == "routing"]
    return {
        "from": _endpoint(steps[0]["from"]["cell"]),
        "to": _endpoint(steps[-1]["to"]["cell"]),
        "levels": sum(step["type"] == "logic" for step in steps),
        "logic_ns": round(sum(step["delay"] for step in steps if step["type"] != "routing"), 3),
        "routing_ns": round(sum(step["delay"] for step in routed), 3),
    }
