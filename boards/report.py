"""``utfhw report``: every core and pipeline synthesised, placed and routed on four FPGAs.

Each design is wrapped in a :class:`TimingHarness`, which drives every input port from a
flip-flop and captures every output port in one, so that nextpnr's Fmax is the design's own
register-to-register figure and the harness adds no logic to its paths. Cell counts are the
design's own (the harness is kept out of them): Yosys keeps the design as one module of the
netlist (``keep_hierarchy``) and ``stat`` counts it alone.

For each design Yosys runs once per family (``synth_ice40``, ``synth_ecp5``) and nextpnr three
times per device (seeds 1, 2, 3); the report gives the lowest of the three Fmax figures."""

import concurrent.futures
import dataclasses
import datetime
import json
import os
import pathlib
import re
import threading
from typing import Optional

from amaranth.back import rtlil
from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..hdl.scalar.byteorder import ByteOrderReader, ByteOrderWriter, ByteOrderMarkStripper
from ..hdl.scalar.byteorder import ByteOrderMarkWriter
from ..hdl.bridge import UARTBridge
from ..hdl.bytestream import UnitAssembler, LaneSerializer
from ..hdl.cores import PIPELINED_PAIRS, CoreSpec
from ..hdl.scalar.error_dropper import ErrorDropper
from ..hdl.unicode.layout import UTF16UnitLanes, UTF32UnitLanes
from ..hdl.forms import CODECS, FORMS, check_pair, plain_codec
from ..hdl.unicode.params import check_choice, check_integer
from ..hdl.uart import UARTReceiver, UARTTransmitter
from ..hdl.cores.wide import wide_widths
from ..toolchain.tools import BuildError, BuildTimeout, run, tool_environment
from .nextpnr import read_report


__all__ = ["TimingHarness", "DEVICES", "CAPACITY", "FAMILIES", "SEEDS", "PAIRS", "WIDE_WIDTHS",
           "ROUTERS", "STAGES", "Design", "design_name", "designs", "design_names", "row_spec",
           "row_width", "gigabytes_per_second", "implement", "seed_jobs_for", "run_report",
           "progress_line", "TIMED_OUT", "SYNTHESIS_FAILED", "write_markdown", "write_chart",
           "write_wide_chart", "SOFTWARE", "HEADLINE", "PIPELINED"]


#: Device name: (family, nextpnr options, the frequency nextpnr is asked for in MHz).
#: The datasheets' LUT4s and block RAMs of each device are in :data:`CAPACITY`.
DEVICES = {
    "iCE40 UP5K": ("ice40", ["--up5k", "--package", "sg48"], 100),
    "iCE40 HX8K": ("ice40", ["--hx8k", "--package", "ct256"], 100),
    "ECP5-25F":   ("ecp5", ["--25k", "--package", "CABGA381", "--speed", "6"], 250),
    "ECP5-85F":   ("ecp5", ["--85k", "--package", "CABGA381", "--speed", "6"], 250),
}

#: Device name: (LUT4s, block RAMs) it has (Lattice's iCE40 UltraPlus, iCE40 LP/HX and ECP5
#: family data sheets). A design that needs more is not placed on it.
CAPACITY = {
    "iCE40 UP5K": (5280, 30),
    "iCE40 HX8K": (7680, 32),
    "ECP5-25F":   (24288, 56),
    "ECP5-85F":   (83640, 208),
}

#: Family: (the Yosys synthesis command, cell types counted as LUT4s with their weight,
#: flip-flop cell types, block RAM cell types).
FAMILIES = {
    "ice40": ("synth_ice40", {"SB_LUT4": 1}, ("SB_DFF",), ("SB_RAM40_4K",)),
    # A CCU2C carry cell is two LUT4s of a slice.
    "ecp5": ("synth_ecp5", {"LUT4": 1, "CCU2C": 2}, ("TRELLIS_FF",), ("DP16KD",)),
}

SEEDS = (1, 2, 3)

#: nextpnr's routers: ``router1``, its default, which meets timing best, and ``router2``,
#: which routes the wide core at width 32 on an ECP5-85F in minutes where ``router1`` takes
#: more than half an hour a seed (and gives a lower Fmax).
ROUTERS = ("router1", "router2")

# Runs of Yosys on one design before its failure is taken as final.
_SYNTHESIS_ATTEMPTS = 3

#: The widths of :class:`~utfhw.hdl.cores.wide.WideTranscoder` that ``pairs="wide"`` implements.
WIDE_WIDTHS = (1, 4, 8, 16, 32)

#: The pair of the wide core a report implements unless asked for others.
WIDE_REPORT_PAIRS = (("utf-8", "utf-16-le"),)

#: The cores the clock targets are about: UTF-8 to UTF-16 at one byte per clock, as the
#: general transcoder and as the core built for speed.
HEADLINE_SPEC = CoreSpec("utf-8", "utf-16-le")
PIPELINED_SPEC = CoreSpec("utf-8", "utf-16-le", kind="pipelined")

#: The stages of the cores, and the UART bridge's parts, each implemented on its own: by the
#: name a report gives it. (The cores are named by their :class:`~utfhw.hdl.cores.CoreSpec`.)
STAGES = {
    **{form.decoder.__name__: form.decoder for form in FORMS.values()},
    **{form.encoder.__name__: form.encoder for form in FORMS.values()},
    "ByteOrderReader(2, detect)": lambda: ByteOrderReader(width=2, byteorder="detect"),
    "ByteOrderReader(4, detect)": lambda: ByteOrderReader(width=4, byteorder="detect"),
    "ByteOrderWriter(UTF-16, big)": lambda: ByteOrderWriter(layout=UTF16UnitLanes,
                                                            byteorder="big"),
    "ByteOrderWriter(UTF-32, big)": lambda: ByteOrderWriter(layout=UTF32UnitLanes,
                                                            byteorder="big"),
    "ByteOrderMarkStripper": ByteOrderMarkStripper,
    **{f"ByteOrderMarkWriter({name})": lambda form=form: ByteOrderMarkWriter(form=form)
       for name, form in FORMS.items()},
    "ErrorDropper": ErrorDropper,
    "UnitAssembler(2)": lambda: UnitAssembler(width=2),
    "LaneSerializer(UTF-16)": lambda: LaneSerializer(layout=UTF16UnitLanes),
    "UARTReceiver(104)": lambda: UARTReceiver(divisor=104),
    "UARTTransmitter(104)": lambda: UARTTransmitter(divisor=104),
    "UARTBridge(12 MHz)": lambda: UARTBridge(clk_freq=12e6),
}


def design_name(spec):
    """The name a report gives the core ``spec`` (a :class:`~utfhw.hdl.cores.CoreSpec`), as
    earlier reports named it: ``pipeline utf-8 -> utf-16-le`` for a ``Transcoder``,
    ``PipelinedUTF8ToUTF16(little)``, ``WideUTF8ToUTF16(16)`` for the wide core from UTF-8 to
    UTF-16-LE and ``WideTranscoder(utf-32-le -> utf-8, 4)`` for any other pair."""
    if spec.kind == "pipelined":
        return f"PipelinedUTF8ToUTF16({PIPELINED_PAIRS[(spec.source, spec.target)]})"
    if spec.kind == "wide":
        if (spec.source, spec.target) == ("utf-8", "utf-16-le"):
            return f"WideUTF8ToUTF16({spec.width})"
        return f"WideTranscoder({spec.source} -> {spec.target}, {spec.width})"
    return f"pipeline {spec.source} -> {spec.target}"


@dataclasses.dataclass(frozen=True)
class Design:
    """One design of a report: a core, named by its ``spec``, or a stage of :data:`STAGES`
    (``spec`` ``None``)."""
    name: str
    spec: Optional[CoreSpec] = None

    @classmethod
    def of(cls, spec):
        return cls(design_name(spec), spec)

    def build(self):
        """The component, new."""
        return self.spec.build() if self.spec is not None else STAGES[self.name]()


#: The designs the clock targets are about.
HEADLINE = design_name(HEADLINE_SPEC)
PIPELINED = design_name(PIPELINED_SPEC)

#: What ``utfhw report --pairs`` accepts.
PAIRS = ("all", "forms", "headline", "wide")


def designs(pairs="all", *, widths=WIDE_WIDTHS, wide_pairs=WIDE_REPORT_PAIRS):
    """The :class:`Design` s a report covers: every stage, then the ``Transcoder`` of each
    pair (``pairs="all"``: all of them; ``"forms"``: those between ``utf-8``, ``utf-16-le``
    and ``utf-32-le``; ``"headline"``: UTF-8 to UTF-16-LE only, general and pipelined;
    ``"wide"``: the pipelined core and the wide core for each of ``wide_pairs`` (source,
    target) at each of ``widths`` it takes)."""
    check_choice("pairs", pairs, PAIRS)
    for source, target in wide_pairs:
        check_pair(source, target)
    if pairs == "wide":
        return [Design.of(PIPELINED_SPEC),
                *(Design.of(CoreSpec(source, target, kind="wide", width=width))
                  for source, target in wide_pairs for width in widths
                  if width in wide_widths(source, target))]
    if pairs == "headline":
        return [Design.of(HEADLINE_SPEC), Design.of(PIPELINED_SPEC)]
    codecs = list(CODECS) if pairs == "all" else [plain_codec(form) for form in FORMS.values()]
    return [*(Design(name) for name in STAGES), Design.of(PIPELINED_SPEC),
            *(Design.of(CoreSpec(source, target)) for source in codecs for target in codecs)]


def design_names(pairs="all", *, widths=WIDE_WIDTHS, wide_pairs=WIDE_REPORT_PAIRS):
    """The names of :func:`designs`."""
    return [design.name for design in designs(pairs, widths=widths, wide_pairs=wide_pairs)]


def row_spec(row):
    """The :class:`~utfhw.hdl.cores.CoreSpec` of a report's row, or ``None`` for a stage."""
    return CoreSpec(**row["spec"]) if row.get("spec") else None


def row_width(row):
    """The bytes per clock of a row's design: its width for a wide core, else 1."""
    spec = row_spec(row)
    return spec.width if spec is not None and spec.kind == "wide" else 1


def _wide_pair(row):
    """The (source, target) of a row of a wide core, else ``None``."""
    spec = row_spec(row)
    return (spec.source, spec.target) if spec is not None and spec.kind == "wide" else None


class TimingHarness(wiring.Component):
    """Wraps ``core`` for implementation alone on a device.

    Every input port of the core is driven from a shift register fed by ``serial_in``, and
    every output port is captured in a register, loaded (``load``) into a shift register that
    drives ``serial_out``. Both sides of the core are flip-flops with no logic between them and
    the core's ports, so the core's own paths set the clock, and three pins suffice whatever the
    core's width."""
    def __init__(self, core):
        self.core = core
        super().__init__({"serial_in": In(1), "load": In(1), "serial_out": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = self.core
        inputs, outputs = [], []
        for _, member, value in self.core.signature.flatten(self.core):
            (inputs if member.flow == wiring.In else outputs).append(Value.cast(value))
        inputs, outputs = Cat(*inputs), Cat(*outputs)

        chain = Signal(len(inputs))
        m.d.sync += chain.eq(Cat(self.serial_in, chain[:-1]))
        m.d.comb += inputs.eq(chain)

        captured = Signal(len(outputs))
        shift = Signal(len(outputs))
        m.d.sync += captured.eq(outputs)
        with m.If(self.load):
            m.d.sync += shift.eq(captured)
        with m.Else():
            m.d.sync += shift.eq(shift >> 1)
        m.d.comb += self.serial_out.eq(shift[0])
        return m


def _run(command, directory, environment, timeout=None):
    run(command, what=f"{os.path.basename(command[0])} in {directory}", cwd=directory,
        env=environment, timeout=timeout)


def _cell_counts(stat_path, family):
    _, luts, flip_flops, block_rams = FAMILIES[family]
    with open(stat_path) as file:
        modules = json.load(file)["modules"]
    cells = modules["\\top.core"]["num_cells_by_type"]
    return {
        "lut4": sum(count * luts.get(cell, 0) for cell, count in cells.items()),
        "ff": sum(count for cell, count in cells.items() if cell.startswith(flip_flops)),
        "bram": sum(count for cell, count in cells.items() if cell.startswith(block_rams)),
    }


#: What a row gives for a device on which nextpnr ran past the time limit.
TIMED_OUT = "timed out"
#: What a row gives for each device of a family whose synthesis failed every attempt.
SYNTHESIS_FAILED = "synthesis failed"
# What a device's entry in a row can say instead of a list of Fmax figures ("does not fit"
# aside, which is None).
_NO_FIGURES = ("not run", TIMED_OUT, SYNTHESIS_FAILED)


def implement(design, directory, *, seeds=SEEDS, devices=tuple(DEVICES), pnr_timeout=None,
              router="router1", seed_jobs=1):
    """Synthesise, place and route ``design`` (a :class:`Design`) on ``devices`` with
    nextpnr's ``router``; returns a row of the report: ``{"design": name, "spec": the core's
    CoreSpec as a dict or None, "router": router, "<family>": cell counts, "<device>": [Fmax
    per seed]}``, with ``None`` for a device the design does not fit,
    :data:`TIMED_OUT` for one where a seed ran past ``pnr_timeout`` seconds (seeds not yet
    started are then not run), and :data:`SYNTHESIS_FAILED` for each device of a family whose
    synthesis failed every attempt (the family's counts are then ``None``). A device's seeds
    run ``seed_jobs`` at a time (each run of nextpnr is one process). The row is kept
    in ``directory`` as ``row.json`` unless a synthesis failed, so that a later run tries
    again."""
    check_choice("router", router, ROUTERS)
    check_integer("seed_jobs", seed_jobs, minimum=1)
    tools = ["yosys"] + sorted({f"nextpnr-{DEVICES[device][0]}" for device in devices})
    environment = tool_environment(tools)
    directory = pathlib.Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "top.il").write_text(rtlil.convert(TimingHarness(design.build()),
                                                    name="top"))
    row = {"design": design.name, "spec": _spec_fields(design), "router": router}
    failed = set()
    for family in sorted({DEVICES[device][0] for device in devices}):
        synth = FAMILIES[family][0]

        command = [environment["YOSYS"], "-q", "-p",
                   f"read_rtlil top.il; hierarchy -top top; "
                   f"setattr -mod -set keep_hierarchy 1 top.core; "
                   f"{synth} -top top -json {family}.json; "
                   f"tee -q -o {family}-stat.json stat -json"]
        for attempt in range(_SYNTHESIS_ATTEMPTS):
            try:
                _run(command, directory, environment)
                break
            except BuildError:
                # YoWASP's Yosys sometimes stops without a message inside its ABC9 mapper on
                # a large design (the wide core at widths 32 and 64), and maps the same design
                # when run again; on some (UTF-16 to UTF-8 at width 8) it stops every time,
                # and the report goes on with the other designs.
                if attempt == _SYNTHESIS_ATTEMPTS - 1:
                    failed.add(family)
        row[family] = (None if family in failed
                       else _cell_counts(directory / f"{family}-stat.json", family))
    for device in devices:
        family, options, frequency = DEVICES[device]
        if family in failed:
            row[device] = SYNTHESIS_FAILED
            continue
        luts, block_rams = CAPACITY[device]
        # Each LUT4 of both families shares its logic cell or slice with one flip-flop, so the
        # flip-flops are bounded by the LUT4s too.
        if (row[family]["lut4"] > luts or row[family]["ff"] > luts
                or row[family]["bram"] > block_rams):
            row[device] = None           # does not fit
            continue
        failed_seed = threading.Event()

        def place_and_route(seed):
            if failed_seed.is_set():
                return None             # not started: the device's figures are not used
            report = f"{device.replace(' ', '-')}-{seed}.json"
            try:
                _run([environment[f"NEXTPNR_{family.upper()}"], "-q", *options,
                      "--json", f"{family}.json", "--freq", str(frequency),
                      "--timing-allow-fail", "--router", router, "--seed", str(seed),
                      "--report", report],
                     directory, environment, timeout=pnr_timeout)
            except BuildError:
                failed_seed.set()
                raise
            return read_report(directory / report).worst_fmax

        figures = []
        with concurrent.futures.ThreadPoolExecutor(max_workers=seed_jobs) as pool:
            for done in [pool.submit(place_and_route, seed) for seed in seeds]:
                try:
                    figures.append(done.result())
                except BuildTimeout:
                    figures = TIMED_OUT
                    break
                except BuildError as error:
                    # Cells that fit the device's count but that nextpnr cannot place (on an
                    # iCE40 a logic cell holds one LUT4 and one flip-flop, which not every
                    # design's pairs allow) do not fit either.
                    if not any(message in str(error) for message in (
                            "Unable to find legal placement", "no BELs remaining")):
                        raise
                    figures = None
                    break
        row[device] = figures
    if not failed:
        (directory / "row.json").write_text(json.dumps(row))
    return row


def _spec_fields(design):
    return None if design.spec is None else dataclasses.asdict(design.spec)


def _folder(name):
    return re.sub(r"\W+", "_", name).strip("_")


def seed_jobs_for(jobs, designs):
    """How many of a design's seeds to route side by side when ``designs`` designs share
    ``jobs`` jobs: the jobs the designs leave spare, up to one per seed."""
    return max(1, min(len(SEEDS), jobs // max(1, designs)))


def run_report(directory, *, pairs="all", widths=WIDE_WIDTHS, wide_pairs=WIDE_REPORT_PAIRS,
               devices=tuple(DEVICES), jobs=None, pnr_timeout=None, router="router1",
               progress=None):
    """Implement every design of ``design_names(pairs, widths=widths, wide_pairs=wide_pairs)``
    on ``devices``, each in a folder of ``directory`` named after it, running the tools
    ``jobs`` at a time: designs side by side, and when fewer designs than ``jobs`` are left to
    implement, each design's seeds side by side too. Returns the rows in design order, a device
    a design was not implemented on as ``"not run"``.
    ``progress(done, total, row)`` is called as each design finishes. ``pnr_timeout``
    (seconds) bounds each run of nextpnr, which routes with ``router`` (see :func:`implement`).

    A design whose folder holds a finished row (``row.json``) from an earlier run into the
    same ``directory`` is not implemented again, so one report can be put together from runs
    over different widths or devices."""
    for device in devices:
        check_choice("device", device, DEVICES)
    chosen = designs(pairs, widths=widths, wide_pairs=wide_pairs)
    names = [design.name for design in chosen]
    directory = pathlib.Path(directory)
    if jobs is None:
        jobs = os.cpu_count() or 1
    check_integer("jobs", jobs, minimum=1)
    check_choice("router", router, ROUTERS)
    if pnr_timeout is not None and (isinstance(pnr_timeout, bool)
                                    or not isinstance(pnr_timeout, (int, float))
                                    or not pnr_timeout > 0):
        raise ValueError(f"pnr_timeout must be a positive number of seconds, not "
                         f"{pnr_timeout!r}")
    rows = {}
    for design in chosen:
        finished = directory / _folder(design.name) / "row.json"
        if finished.exists():
            # Rows of runs before the spec was recorded take it from the design.
            rows[design.name] = {"design": design.name, "spec": _spec_fields(design),
                                 **{device: "not run" for device in DEVICES},
                                 **json.loads(finished.read_text())}
            if progress is not None:
                progress(len(rows), len(names), rows[design.name])
    pending = [design for design in chosen if design.name not in rows]
    seed_jobs = seed_jobs_for(jobs, len(pending))
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(implement, design, directory / _folder(design.name),
                               devices=tuple(devices), pnr_timeout=pnr_timeout,
                               router=router, seed_jobs=seed_jobs): design.name
                   for design in pending}
        for future in concurrent.futures.as_completed(futures):
            row = {**{device: "not run" for device in DEVICES}, **future.result()}
            rows[row["design"]] = row
            if progress is not None:
                progress(len(rows), len(names), row)
    return [rows[name] for name in names]


def _versions():
    environment = tool_environment(["yosys", "nextpnr-ice40", "nextpnr-ecp5"])
    versions = []
    for tool in ("YOSYS", "NEXTPNR_ICE40", "NEXTPNR_ECP5"):
        answer = run([environment[tool], "--version"], what=f"{tool} --version", check=False)
        versions.append((answer.stdout + answer.stderr).strip().splitlines()[-1])
    return versions


def _preamble(command, seconds):
    return [
        "# Implementation report",
        "",
        f"Made by `{command}` on {datetime.date.today().isoformat()}"
        + (f" in {seconds / 60:.0f} min" if seconds else "") + ", with:",
        "",
        *(f"- `{version}`" for version in _versions()),
        "",
        "Each design is wrapped so that all its ports are flip-flops (see `TimingHarness` in "
        "`boards/report.py`): Fmax is nextpnr's post-route figure for the design's own "
        "register-to-register paths, the **worst of seeds "
        + ", ".join(map(str, SEEDS)) + "**. nextpnr is asked for "
        + ", ".join(f"{frequency} MHz on {device}"
                    for device, (_, _, frequency) in DEVICES.items())
        + ". LUT4s, flip-flops (FF) and block RAMs (BRAM: SB_RAM40_4K on iCE40, DP16KD on ECP5) "
        "are Yosys's counts for the design alone; an ECP5 CCU2C carry cell counts as two LUT4s. "
        "UP5K and HX8K share one synthesis, as do the two ECP5s. nextpnr routes with its "
        "default router, router1, except in rows that name another (`--router`).",
        "",
    ]


def _router_note(row):
    # Rows from runs before the router was recorded were routed with router1.
    router = row.get("router", "router1")
    return "" if router == "router1" else f" ({router})"


def _design_cell(row):
    return row["design"] + _router_note(row)


def _columns(rows):
    """The devices and the families the rows were implemented on, in the tables' order."""
    return ([device for device in DEVICES if device in rows[0]],
            [family for family in FAMILIES if family in rows[0]])


def _count_header(family):
    """The headings of the cells :func:`_count_cells` gives."""
    return [f"{family} LUT4", f"{family} FF", f"{family} BRAM"]


def _count_cells(row, family):
    """The LUT4, flip-flop and block RAM cells of a family's counts (dashes where its
    synthesis failed)."""
    counts = row[family]
    if counts is None:
        return ["–"] * 3
    return [str(counts["lut4"]), str(counts["ff"]), str(counts["bram"])]


def _fmax(row, device):
    if row[device] in _NO_FIGURES:
        return row[device]
    return "does not fit" if row[device] is None else f"{min(row[device]):.1f}"


def progress_line(done, total, row):
    """The line ``utfhw report`` prints as each of ``total`` designs is done: each device's
    worst seed, or what kept it from one (devices not run left out)."""
    cells = [f"{device} {_fmax(row, device)}" + (" MHz" if isinstance(value, list) else "")
             for device, value in row.items() if device in DEVICES and value != "not run"]
    return f"[{done}/{total}] {row['design']}: {', '.join(cells)}"


def write_markdown(rows, path, *, chart=None, command="utfhw report", seconds=None):
    """Write the report's Markdown table to ``path`` (and link ``chart``, a PNG, if given)."""
    if any(_wide_pair(row) is not None for row in rows):
        return _write_wide_markdown(rows, path, chart=chart, command=command, seconds=seconds)
    lines = _preamble(command, seconds)
    if chart is not None:
        lines += [f"![Fmax and LUT4s]({chart})", ""]
    devices, families = _columns(rows)
    header = ["design"]
    for family in families:
        header += _count_header(family)
        header += [f"{device} MHz" for device in devices if DEVICES[device][0] == family]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [_design_cell(row)]
        for family in families:
            cells += _count_cells(row, family)
            cells += [_fmax(row, device) for device in devices
                      if DEVICES[device][0] == family]
        lines.append("| " + " | ".join(cells) + " |")
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


#: Software figures the wide report draws for comparison, in GB/s of UTF-8 in, as measured
#: on one x86 core of the development machine (``docs/wide-design.md``): (label, low, high).
SOFTWARE = (
    ("CPython decode().encode()", 0.2, 1.2),
    ("simdutf AVX-512, non-ASCII (no replacement)", 3.7, 7.4),
    ("simdutf AVX-512, ASCII (no replacement)", 12.5, 12.5),
)


def gigabytes_per_second(row, device):
    """Input bytes at the worst seed's Fmax: bytes per clock times clocks per second, in GB/s
    (``None`` where the design does not fit)."""
    if row[device] is None or row[device] in _NO_FIGURES:
        return None
    return row_width(row) * min(row[device]) / 1000


def _write_wide_markdown(rows, path, *, chart, command, seconds):
    lines = _preamble(command, seconds)
    lines += [
        "GB/s is input bytes (UTF-8, or UTF-32 for a UTF-32 source): bytes per clock (the core's width; 1 for `PipelinedUTF8ToUTF16`) "
        "times the worst seed's Fmax. A design whose LUT4s, flip-flops or block RAMs exceed "
        "the device's LUT4s and block RAMs, or that nextpnr cannot place on it, \"does not "
        "fit\"; \"not run\" marks a device a design was not implemented on, \"timed "
        "out\" one where a seed of nextpnr ran past the time limit (`--pnr-timeout`), and "
        "\"synthesis failed\" one whose family Yosys could not synthesise the design for. "
        "For comparison (one x86 core, "
        "[wide-design.md](wide-design.md)): " + "; ".join(f"{label} {low}" + (f"–{high}" if high != low else "") + " GB/s"
                              for label, low, high in SOFTWARE) + ".",
        "",
    ]
    if chart is not None:
        lines += [f"![GB/s against LUT4s]({chart})", ""]
    devices, families = _columns(rows)
    header = ["design", "bytes/clock"]
    for family in families:
        header += _count_header(family)
        for device in devices:
            if DEVICES[device][0] == family:
                header += [f"{device} MHz", f"{device} GB/s"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in rows:
        cells = [_design_cell(row), str(row_width(row))]
        for family in families:
            cells += _count_cells(row, family)
            for device in devices:
                if DEVICES[device][0] == family:
                    rate = gigabytes_per_second(row, device)
                    cells += [_fmax(row, device), "–" if rate is None else f"{rate:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    pathlib.Path(path).write_text("\n".join(lines) + "\n")


def _chart_label(row):
    """``W=4`` for a wide design from UTF-8 to UTF-16-LE, ``UTF-32-LE -> UTF-16-LE W=4`` for
    another pair, else ``pipelined``."""
    pair = _wide_pair(row)
    if pair is None:
        return "pipelined"
    named = "" if pair == ("utf-8", "utf-16-le") else f"{pair[0]} -> {pair[1]} ".upper()
    return f"{named}W={row_width(row)}"


def write_wide_chart(rows, path):
    """Draw GB/s against LUT4s for each design on each device it fits, with the software
    figures of :data:`SOFTWARE` as bands, as a PNG at ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    figure, axes = pyplot.subplots(figsize=(9, 6))
    for device in [device for device in DEVICES if device in rows[0]]:
        family = DEVICES[device][0]
        points = [(row[family]["lut4"], gigabytes_per_second(row, device),
                   _chart_label(row) + _router_note(row)) for row in rows
                  if gigabytes_per_second(row, device) is not None]
        if not points:
            continue
        axes.plot([lut for lut, _, _ in points], [rate for _, rate, _ in points], "o-",
                  label=device)
        for lut, rate, label in points:
            axes.annotate(label, (lut, rate), textcoords="offset points",
                          xytext=(4, 4), fontsize=7)
    colours = ["tab:grey", "tab:red", "tab:purple"]
    for (label, low, high), colour in zip(SOFTWARE, colours):
        if high > low:
            axes.axhspan(low, high, color=colour, alpha=0.15, label=label)
        else:
            axes.axhline(low, color=colour, linestyle="--", label=label)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("LUT4s (Yosys; a CCU2C counts as two)")
    axes.set_ylabel("GB/s of input (bytes per clock × worst-seed Fmax)")
    pairs = sorted({_wide_pair(row) for row in rows} - {None})
    axes.set_title(", ".join(f"{source.upper()} → {target.upper()}" for source, target in pairs)
                   + ", exact U+FFFD replacement")
    axes.legend(fontsize=7, loc="upper left")
    axes.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    pyplot.close(figure)


def write_chart(rows, path):
    """Draw Fmax per device and iCE40 LUT4s for each design as a PNG at ``path``."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    if any(_wide_pair(row) is not None for row in rows):
        return write_wide_chart(rows, path)
    devices = [device for device in DEVICES if device in rows[0]]
    names = [row["design"].replace("pipeline ", "") for row in rows]
    figure, (fmax_axes, lut_axes) = pyplot.subplots(
        1, 2, figsize=(14, 0.22 * len(rows) + 1.5), sharey=True,
        gridspec_kw={"width_ratios": [3, 1]})
    height = 0.8 / len(devices)
    for index, device in enumerate(devices):
        fmax_axes.barh([position + index * height for position in range(len(rows))],
                       [min(row[device]) if isinstance(row[device], list) else 0
                        for row in rows],
                       height=height, label=device)
    for device, (_, _, frequency) in DEVICES.items():
        if device in devices:
            fmax_axes.axvline(frequency, linestyle=":", color="grey")
    fmax_axes.set_xlabel("Fmax, MHz (worst of 3 seeds); dotted: 100 and 250 MHz")
    fmax_axes.legend(loc="lower right")
    lut_axes.barh(range(len(rows)), [row["ice40"]["lut4"] if row["ice40"] else 0
                                     for row in rows], color="grey")
    lut_axes.set_xlabel("iCE40 LUT4s")
    fmax_axes.set_yticks([position + 0.4 - height / 2 for position in range(len(rows))],
                         names, fontsize=7)
    fmax_axes.invert_yaxis()
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    pyplot.close(figure)
