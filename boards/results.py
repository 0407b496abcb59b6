"""The one results page: a report's data (``results.json``), the page made from it
(``results.md``), its chart, and the README's table of figures, made from the same data."""

import dataclasses
import datetime
import json
import re

from ..hdl.cores import CORE_KINDS, CoreSpec
from ..hdl.forms import CODECS
from ..toolchain.tools import find_program, run
from .designs import (CAPACITY, DEVICES, FAMILIES, HANDLER_DEVICES, HEADLINE_SPEC,
                      PIPELINED_SPEC, README_DEVICES, SIZED_ABOVE, SIZED_DEVICES)
from .implement import (DOES_NOT_FIT, NO_TIMING, SYNTHESIS_FAILED, TIMED_OUT, run_key,
                        synthesis_key)
from .runner import FAILED, NOT_RUN


__all__ = ["SCHEMA", "gateware_commit", "results_data", "bytes_per_clock",
           "gigabytes_per_second", "worst_fmax", "markdown", "write_chart", "readme_section",
           "update_readme", "data_text", "recorded_runs", "in_readme", "row_seeds", "cell_seeds",
           "OUTSIDE", "README_BEGIN", "README_END", "README_ROWS"]

#: The version of the data file's layout: 2 gave each row its netlist's digest.
SCHEMA = 2

#: A cell of a device the design is not placed on (see
#: :func:`~utfhw.boards.designs.matrix`).
OUTSIDE = "–"

#: The markers around the README's generated table.
README_BEGIN = "<!-- figures from docs/results.json: made by utfhw report --readme -->"
README_END = "<!-- end of figures -->"

#: The README's rows: the core and what it is.
README_ROWS = (
    (HEADLINE_SPEC, "`Transcoder`", "any of the 100 pairs, one code unit per clock"),
    (PIPELINED_SPEC, "`PipelinedUTF8ToUTF16`", "UTF-8 to UTF-16, one byte per clock"),
    (CoreSpec("utf-8", "utf-16-le", kind="wide", width=16), "`WideTranscoder`, W = 16",
     "UTF-8 to UTF-16, 16 bytes per clock (and all 100 pairs)"),
    (CoreSpec("utf-8", "utf-16-le", kind="wide", width=64), "`WideTranscoder`, W = 64",
     "the same, 64 bytes per clock"),
    (CoreSpec("utf-8", "utf-8", kind="validator", width=16), "`Validator`, W = 16",
     "UTF-8 validation, 16 bytes per clock, its input passed through (every source form)"),
    (CoreSpec("utf-8", "utf-8", kind="validator", width=64), "`Validator`, W = 64",
     "the same, 64 bytes per clock"),
)

def in_readme(design, device=None):
    """Whether ``design`` (a :class:`~utfhw.boards.designs.Design`) is one of the README's rows
    (and ``device``, if given, one of :data:`README_DEVICES`): a report runs those with every
    seed."""
    fields = design.fields()
    return (any(dataclasses.asdict(spec) == fields for spec, _, _ in README_ROWS)
            and (device is None or device in README_DEVICES))


def row_seeds(data, row):
    """The seeds of a row of ``data``: its own, or in a file from before rows had them, the
    file's (every seed)."""
    return row.get("seeds", data["seeds"])


def cell_seeds(data, row, device):
    """The seeds of a row's cell on ``device``: its own where it has fewer than the row, else
    the row's (:func:`row_seeds`)."""
    return row["devices"][device].get("seeds", row_seeds(data, row))


_OUTCOMES = (DOES_NOT_FIT, TIMED_OUT, NO_TIMING, SYNTHESIS_FAILED, FAILED, NOT_RUN)


def _git(folder, *arguments):
    git = find_program("git")
    if git is None:
        return None
    answer = run([git, "-C", folder, *arguments], what="git", check=False)
    return answer.stdout.strip() if answer.returncode == 0 else None


def gateware_commit(folder):
    """The commit of the checkout at ``folder`` that the gateware is of: ``{"head": the
    commit checked out, "gateware": the last commit to change hdl/, "changed": whether hdl/
    has changes not committed}``, or ``None`` outside a git checkout."""
    head = _git(folder, "rev-parse", "HEAD")
    if head is None:
        return None
    return {"head": head, "gateware": _git(folder, "log", "-1", "--format=%H", "--", "hdl"),
            "changed": bool(_git(folder, "status", "--porcelain", "--", "hdl"))}


def results_data(report, *, commit, command, date=None):
    """The data file's contents for a :class:`~utfhw.boards.runner.Report`: where it comes
    from (``commit``, :func:`gateware_commit`'s; the tools' versions; the ``command`` that
    made it) and its rows, Fmax figures to 0.01 MHz."""
    rows = []
    for row in report.rows:
        devices = {}
        for device, cell in row["devices"].items():
            cell = dict(cell)
            if "fmax" in cell:
                cell["fmax"] = [round(figure, 2) for figure in cell["fmax"]]
            if "runs" in cell:
                cell["runs"] = [{**run, "fmax": round(run["fmax"], 2)} if "fmax" in run
                                else run for run in cell["runs"]]
            devices[device] = cell
        rows.append({**row, "devices": devices})
    present = {row["spec"]["kind"] for row in rows if row["spec"]}
    return {
        "schema": SCHEMA,
        "date": (date or datetime.date.today()).isoformat(),
        "command": command,
        "commit": commit,
        "tools": report.versions,
        "seeds": list(report.seeds),
        "devices": {device: {"family": family, "frequency": frequency,
                             "lut4": CAPACITY[device][0], "bram": CAPACITY[device][2]}
                    for device, (family, _, frequency) in DEVICES.items()},
        "kinds_absent": [kind for kind in CORE_KINDS if kind not in present],
        "rows": rows,
    }


def recorded_runs(data):
    """The runs a data file records, as the run cache keeps them: ``(key, value)`` for each
    family's synthesis counts and for each seed of each device that placed and routed.

    They are keyed as a report keys its runs, by the row's netlist digest, its router and
    the file's tools, so only a design whose netlist is the same, under the same tools,
    finds them. Of a device that placed and routed, only the worst seed keeps what limited
    its Fmax, which is all a row needs; a device with another outcome has its seeds' runs
    whole, but for a failed one, which is run again. A file of an older layout, without
    digests, records none."""
    if data.get("schema") != SCHEMA:
        return
    tools = data["tools"]
    for row in data["rows"]:
        netlist = row["netlist"]
        if netlist is None:
            continue
        for family, counts in row["counts"].items():
            if counts is not None:
                yield synthesis_key(netlist, family, tools), {"counts": counts}
        for device, cell in row["devices"].items():
            router = cell.get("router", row["router"])
            for seed, run in zip(cell_seeds(data, row, device), cell.get("runs", ())):
                if run.get("outcome") != FAILED:
                    yield run_key(netlist, device, seed, router, tools), run
            if cell["outcome"] != "ok":
                continue
            worst = cell["fmax"].index(min(cell["fmax"]))
            for index, (seed, fmax) in enumerate(zip(cell_seeds(data, row, device),
                                                     cell["fmax"])):
                yield (run_key(netlist, device, seed, router, tools),
                       {"fmax": fmax, "critical": cell["limit"] if index == worst else None})


def _spec(row):
    if not row["spec"]:
        return None
    fields = dict(row["spec"])
    # JSON has a pair of handlers as a list.
    if not isinstance(fields["errors"], str):
        fields["errors"] = tuple(fields["errors"])
    return CoreSpec(**fields)


def bytes_per_clock(row):
    """Input bytes a core takes per clock at full rate: the wide core's width, the source's
    code unit for the ``Transcoder``, one for the pipelined core; ``None`` for a stage."""
    spec = _spec(row)
    if spec is None:
        return None
    if spec.kind in ("wide", "validator"):
        return spec.width
    if spec.kind == "transcoder":
        return CODECS[spec.source].unit_bytes
    return 1


def worst_fmax(row, device):
    """The worst seed's Fmax on ``device`` in MHz, or ``None`` without one (or without a
    cell there)."""
    cell = row["devices"].get(device)
    return min(cell["fmax"]) if cell is not None and cell["outcome"] == "ok" else None


def gigabytes_per_second(row, device):
    """Input bytes per clock times the worst seed's Fmax, in GB/s, or ``None``."""
    fmax, width = worst_fmax(row, device), bytes_per_clock(row)
    return None if fmax is None or width is None else width * fmax / 1000


def _cell(row, device, rate=True):
    if device not in row["devices"]:
        return OUTSIDE
    fmax = worst_fmax(row, device)
    router = row["devices"][device].get("router")
    said = "" if router is None else f" ({router})"
    if fmax is None:
        return row["devices"][device]["outcome"] + said
    speed = gigabytes_per_second(row, device) if rate else None
    return f"{fmax:.1f}" + ("" if speed is None else f" / {speed:.2f}") + said


def _counts(row, family):
    counts = row["counts"].get(family)
    if counts is None:
        return "–"
    return (f"{counts['lut4']} / {counts['ff']}"
            + (f" / {counts['bram']}" if counts["bram"] else "")
            + (f" ({counts['mapper'].upper()})" if counts.get("mapper") else ""))


def _where(name, start):
    """A critical path's end for people: a register of the design by its name (``o.payload``),
    else the harness's register: an input port at the start, an output port at the end, or the
    harness itself (a design with no logic between its ports has the harness's path)."""
    if name.startswith("core."):
        return f"`{name[len('core.'):].replace('__', '.')}`"
    if start:
        if name in ("output port", "shift"):
            return "harness"
        return "input port" if name == "input port" else f"input port `{name.replace('__', '.')}`"
    return "output port" if name == "output port" else "harness"


def _path(limit):
    """A critical path: ``from → to, N levels, R of T ns routing``."""
    levels = limit["levels"]
    return (f"{_where(limit['from'], True)} → {_where(limit['to'], False)}, "
            f"{levels} level{'' if levels == 1 else 's'}, {limit['routing_ns']:.1f} of "
            f"{limit['logic_ns'] + limit['routing_ns']:.1f} ns routing")


def _limit(row):
    """What limited Fmax on the largest device with a figure: ``device: from → to, N
    levels``. A Gowin device's comes last, as nextpnr's Gowin timing model has gaps."""
    devices = [device for device in DEVICES if device in row["devices"]]
    for device in sorted(reversed(devices), key=lambda device: DEVICES[device][0] == "gowin"):
        if worst_fmax(row, device) is not None and row["devices"][device].get("limit"):
            return f"{device}: {_path(row['devices'][device]['limit'])}"
    return "–"


#: The wide cores' summary on the page: every pair of forms at these widths on this device.
SUMMARY_DEVICE = "ECP5-85F"
SUMMARY_WIDTHS = (16, 32, 64)


def _wide_summary(data):
    """A table of the wide cores at :data:`SUMMARY_WIDTHS` on :data:`SUMMARY_DEVICE`, pair by
    pair: LUT4s, LUT4s a lane, Fmax and GB/s, and what limited Fmax."""
    if SUMMARY_DEVICE not in data["devices"]:
        return []
    family = data["devices"][SUMMARY_DEVICE]["family"]
    pairs = {}
    for row in data["rows"]:
        if (row["spec"] and row["spec"]["kind"] == "wide" and row["width"] in SUMMARY_WIDTHS
                and SUMMARY_DEVICE in row["devices"]):
            pair = f"{row['spec']['source']} → {row['spec']['target']}"
            pairs.setdefault(pair, []).append(row)
    if not pairs:
        return []
    body = []
    for pair, rows in pairs.items():
        for row in sorted(rows, key=lambda row: row["width"]):
            counts, cell = row["counts"].get(family), row["devices"][SUMMARY_DEVICE]
            limit = cell.get("limit") if worst_fmax(row, SUMMARY_DEVICE) is not None else None
            body.append([
                pair, str(row["width"]),
                cell["outcome"] if counts is None else f"{counts['lut4']}",
                "" if counts is None else f"{counts['lut4'] / row['width']:.0f}",
                _cell(row, SUMMARY_DEVICE), "–" if limit is None else _path(limit)])
    widths = ", ".join(map(str, SUMMARY_WIDTHS[:-1])) + f" and {SUMMARY_WIDTHS[-1]}"
    return [f"## `WideTranscoder` at W = {widths} on the {SUMMARY_DEVICE}", "",
            "Every pair of the forms' plain codecs, from the tables below: LUT4s (Yosys's "
            f"count for the {family}), LUT4s per byte lane (LUT4s / W), the worst seed's Fmax "
            "and GB/s of input, and what limited Fmax.", "",
            *_table(["pair", "W", "LUT4", "LUT4 a lane", f"{SUMMARY_DEVICE} MHz / GB/s",
                     "what limited Fmax (worst seed)"], body)]


#: utfhw's targets for its widest cores, each reported on the page against its figure:
#: ``(what, kind, pairs, width, device, measure, goal)``. ``pairs`` are ``(source, target)``,
#: ``None`` for every pair of the data (or every source of the validator); ``measure`` is
#: ``"fmax"`` (the worst seed's, the worst pair's: at least ``goal`` MHz) or ``"lanes"`` (LUT4s
#: a byte lane, the worst pair's: at most ``goal``); ``"unpacked"`` pairs are those whose wide
#: core has no *pack* stage (:attr:`~utfhw.hdl.cores.wide.WideTranscoder.stage_names`).
TARGETS = (
    ("UTF-8 → UTF-16-LE at W = 64", "wide", (("utf-8", "utf-16-le"),), 64, SUMMARY_DEVICE, "fmax",
     150),
    ("UTF-8 → UTF-16-LE at W = 64", "wide", (("utf-8", "utf-16-le"),), 64, SUMMARY_DEVICE, "lanes",
     250),
    ("every pair at W = 64", "wide", None, 64, SUMMARY_DEVICE, "fmax", 150),
    ("every pair at W = 64", "wide", None, 64, SUMMARY_DEVICE, "lanes", 400),
    ("every pair without *pack* at W = 64", "wide", "unpacked", 64, SUMMARY_DEVICE, "lanes", 30),
    ("every validator at W = 64", "validator", None, 64, SUMMARY_DEVICE, "fmax", 150),
    ("`PipelinedUTF8ToUTF16`", "pipelined", None, None, "iCE40 UP5K", "fmax", 100),
)


def _unpacked(spec):
    return "pack" not in spec.build().stage_names


def _target_rows(data, kind, pairs, width, device):
    rows = [row for row in data["rows"]
            if row["spec"] and row["spec"]["kind"] == kind and row["spec"]["width"] == width
            and device in row["devices"]]
    if pairs == "unpacked":
        return [row for row in rows if _unpacked(_spec(row))]
    if pairs is not None:
        return [row for row in rows
                if (row["spec"]["source"], row["spec"]["target"]) in pairs]
    return rows


def _target(data, what, kind, pairs, width, device, measure, goal):
    """A row of the targets' table: what, the goal, the figure (the worst row's, named), and
    whether it is met, or what is missing; where an Fmax goal is missed, its critical path."""
    rows = _target_rows(data, kind, pairs, width, device)
    family = data["devices"][device]["family"]
    if measure == "fmax":
        figures = [(worst_fmax(row, device), row) for row in rows]
        wanted = f"≥ {goal} MHz on the {device}"
    else:
        figures = [((row["counts"].get(family) or {}).get("lut4"), row) for row in rows]
        figures = [(None if lut4 is None else lut4 / width, row) for lut4, row in figures]
        wanted = f"≤ {goal} LUT4s a lane"
    measured = [(figure, row) for figure, row in figures if figure is not None]
    if not rows:
        return [what, wanted, NOT_RUN, "–", "–"]
    if len(measured) < len(rows):
        return [what, wanted, f"{len(measured)} of {len(rows)} measured", "–", "–"]
    if measure == "fmax":
        figure, row = min(measured, key=lambda item: item[0])
        met, text = figure >= goal, f"{figure:.1f} MHz"
        limit = row["devices"][device].get("limit")
        path = "–" if met or not limit else _path(limit)
    else:
        figure, row = max(measured, key=lambda item: item[0])
        met, text, path = figure <= goal, f"{figure:.0f}", "–"
    if len(rows) > 1:
        text += f" ({row['spec']['source']} → {row['spec']['target']})"
    return [what, wanted, text, "yes" if met else "**no**", path]


def _targets(data):
    """The table of :data:`TARGETS`, each with its figure from ``data``."""
    body = [_target(data, *target) for target in TARGETS if target[4] in data["devices"]]
    if not body:
        return []
    return ["## Targets", "",
            "utfhw's targets for its widest cores, each with the worst figure of the cores it "
            "covers (that core named where it covers several), and where an Fmax is short of "
            "its target, its critical path.", "",
            *_table(["target", "goal", "worst figure", "met", "what limited Fmax"], body)]


def _table(header, rows):
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header),
            *("| " + " | ".join(cells) + " |" for cells in rows), ""]


def _families(data):
    return [family for family in FAMILIES
            if any(family in row["counts"] for row in data["rows"])]


def _fallen(rows):
    """The routers cells moved to, with the rows' routers they moved from."""
    return {(cell["router"], row["router"]) for row in rows
            for cell in row["devices"].values() if "router" in cell}


#: The mark of a row run with every seed, where others were not.
_EVERY_SEED = "\\*"


def _fewer_seeds(data):
    """The seeds of the rows run with fewer than every seed, each set once, in order."""
    return sorted({tuple(row_seeds(data, row)) for row in data["rows"]}
                  - {tuple(data["seeds"])})


def _label(data, label, row, marked):
    """A row's label, marked where it was run with every seed and others were not
    (``marked``)."""
    if marked and tuple(row_seeds(data, row)) == tuple(data["seeds"]):
        return f"{label} {_EVERY_SEED}"
    return label


def _section(data, title, rows, first, rate):
    # The devices its rows are placed on, and their families.
    devices = [device for device in data["devices"]
               if any(device in row["devices"] for _, row in rows)]
    families = [family for family in _families(data)
                if any(data["devices"][device]["family"] == family for device in devices)]
    marked = bool(_fewer_seeds(data))
    header = [first, *(f"{family} LUT4 / FF (/ BRAM)" for family in families),
              *(f"{device} MHz" + (" / GB/s" if rate else "") for device in devices),
              "what limited Fmax (worst seed)"]
    return [f"## {title}", "", *_table(header, [
        [_label(data, label, row, marked), *(_counts(row, family) for family in families),
         *(_cell(row, device, rate) for device in devices), _limit(row)]
        for label, row in rows])]


def _short_version(version):
    """``0.70`` of ``Yosys 0.70 (git sha1 ...)``, ``0.11.1`` of ``... (Version nextpnr-0.11.1)``
    (the whole text is in the data)."""
    found = re.search(r"(?:Yosys |nextpnr-)(\d[\w.+-]*)", version)
    return found.group(1) if found else version


def _source(data):
    commit = data["commit"]
    if commit is None:
        where = "a tree outside git"
    else:
        where = (f"the gateware of commit `{commit['gateware'][:12]}` (the last to change "
                 f"`hdl/`; tree at `{commit['head'][:12]}`)"
                 + (", **with changes to `hdl/` not committed**" if commit["changed"] else ""))
    return where


def _missing(data):
    lines = ["## Cells without a figure", ""]
    devices = list(data["devices"])
    total = sum(len(row["devices"]) for row in data["rows"])
    for outcome in _OUTCOMES:
        cells = [(row["design"], device) for row in data["rows"]
                 for device, cell in row["devices"].items() if cell["outcome"] == outcome]
        lines.append(f"- **{outcome}**: {len(cells)} of {total} "
                     f"cells" + ("." if not cells or outcome == NOT_RUN else ":"))
        if cells and outcome != NOT_RUN:
            for device in devices:
                names = [design for design, where in cells if where == device]
                if names:
                    lines.append(f"  - {device}: " + ", ".join(names))
    if data["kinds_absent"]:
        lines.append("- Kinds of core not yet in the report: "
                     + ", ".join(data["kinds_absent"]) + ".")
    return lines + [""]


def _sizing(data):
    """The matrix's rule for the devices a design is placed on, as a sentence's end."""
    handlers = any(row["spec"] and row["spec"]["kind"] == "transcoder"
                   and row["spec"]["errors"] != "replace" for row in data["rows"])
    return (f"the wide core of each pair but {HEADLINE_SPEC.source} → {HEADLINE_SPEC.target}, "
            f"and every core wider than {SIZED_ABOVE} bytes a clock, is placed on the "
            + " and ".join(SIZED_DEVICES) + " alone"
            + (", and the `Transcoder` with another error handler than replace on the "
               + " and ".join(HANDLER_DEVICES) if handlers else "")
            + ", so that the page is made in hours, not days")


def markdown(data, *, chart=None):
    """The results page for ``data`` (:func:`results_data`), linking ``chart`` if given."""
    rows = data["rows"]
    seeds = ", ".join(map(str, data["seeds"]))
    fewer = _fewer_seeds(data)
    elsewhere = ""
    if fewer:
        others = (f"seed{'s' * (len(fewer[0]) > 1)} {', '.join(map(str, fewer[0]))}"
                  if len(fewer) == 1 else "the seeds the data gives each")
        elsewhere = f" for the rows marked {_EVERY_SEED}, and of {others} for the others"
    # The devices where cells of rows of every seed took the first alone.
    fewer_on = [device for device in data["devices"]
                if any("seeds" in row["devices"].get(device, {}) for row in rows
                       if tuple(row_seeds(data, row)) == tuple(data["seeds"]))]
    if fewer_on:
        elsewhere += (f" (and of seed {data['seeds'][0]} alone for "
                      + ("a marked row's cells" if fewer else "the cells")
                      + " on the " + ", ".join(fewer_on) + ")")
    lines = [
        "# Implementation results",
        "",
        f"Made by `{data['command']}` on {data['date']} from {_source(data)}, with "
        + ", ".join(f"{tool} `{_short_version(version)}`"
                    for tool, version in data["tools"].items()) + ". "
        "The data is in [results.json](results.json); this page, its chart and the README's "
        "table are made from it.",
        "",
        "Each design is wrapped so that all its ports are flip-flops (`TimingHarness`, "
        "`boards/harness.py`): Fmax is nextpnr's post-route figure for the design's own "
        f"register-to-register paths, the **worst of seeds {seeds}**{elsewhere}, routed with "
        "nextpnr's "
        + (" and ".join(sorted({row["router"] for row in rows})) or "router1")
        + "".join(f" ({router} in a cell that says so, where {row_router} ran past the time "
                  f"limit)" for router, row_router in sorted(_fallen(rows)))
        + ". nextpnr is asked for "
        + ", ".join(f"{info['frequency']} MHz on the {device}"
                    for device, info in data["devices"].items())
        + ". LUT4s, flip-flops (FF) and block RAMs (BRAM: SB_RAM40_4K on iCE40, DP16KD on "
        "ECP5) are Yosys's counts for the design alone; an ECP5 CCU2C carry cell counts as two "
        "LUT4s; \"(ABC)\" marks a design Yosys mapped with ABC because its ABC9 mapper, the "
        "family's default, stopped on it three times. GB/s is input bytes per clock (the wide "
        "core's width, the source's code unit "
        "for the `Transcoder`, one byte for the pipelined core) times the worst seed's Fmax. "
        "What limited Fmax is nextpnr's critical path of the worst seed on the largest device "
        "the design has a figure on: the register it starts and ends at (\"input port\" and "
        "\"output port\" are the design's own ports), its logic levels, and how much of its "
        "delay is routing.",
        "",
        f"A cell says **{DOES_NOT_FIT}** where the design's LUT4s, flip-flops or block RAMs "
        "exceed the device's, or nextpnr cannot place it; "
        f"**{TIMED_OUT}** where a seed of nextpnr ran past the time limit; "
        f"**{NO_TIMING}** where nextpnr routed the design but its timing model found no "
        "path from one flip-flop to another, so gave no Fmax (nextpnr-himbaechel's Gowin "
        "timing model has gaps); "
        f"**{SYNTHESIS_FAILED}** where Yosys could not synthesise the design for the "
        f"family; **{FAILED}** where a run failed in a way the report does not know (its "
        f"error is in the data); **{NOT_RUN}** where the report has no run yet; "
        f"**{OUTSIDE}** where the design is not placed on the device: " + _sizing(data) + ".",
        "",
    ]
    if chart is not None:
        lines += [f"![GB/s against LUT4s of the wide core]({chart})", ""]
    lines += _missing(data)
    lines += _targets(data)
    lines += _wide_summary(data)
    stages = [(row["design"], row) for row in rows if row["spec"] is None]
    if stages:
        lines += _section(data, "Stages", stages, "stage", rate=False)
    kinds = {}
    for row in rows:
        if row["spec"]:
            kinds.setdefault(row["spec"]["kind"], []).append(row)
    if "transcoder" in kinds:
        handlers = {}
        for row in kinds.pop("transcoder"):
            handlers.setdefault(row["spec"]["errors"] == "replace", []).append(row)
        if True in handlers:
            lines += _section(data, "`Transcoder`: any pair, one code unit per clock",
                              [(f"{row['spec']['source']} → {row['spec']['target']}", row)
                               for row in handlers[True]], "pair", rate=True)
        if False in handlers:
            lines += _section(data, "`Transcoder` with other error handlers",
                              [(f"{row['spec']['source']} → {row['spec']['target']}, "
                                f"{_spec(row).errors_name}", row)
                               for row in handlers[False]], "pair, errors", rate=True)
    if "pipelined" in kinds:
        lines += _section(data, "`PipelinedUTF8ToUTF16`: one byte per clock",
                          [(f"{row['spec']['source']} → {row['spec']['target']}", row)
                           for row in kinds.pop("pipelined")], "pair", rate=True)
    pairs = {}
    for row in kinds.pop("wide", []):
        pairs.setdefault((row["spec"]["source"], row["spec"]["target"]), []).append(row)
    for (source, target), wide in pairs.items():
        lines += _section(data, f"`WideTranscoder` {source} → {target}",
                          [(str(row["width"]), row) for row in wide], "W", rate=True)
    validators = {}
    for row in kinds.pop("validator", []):
        validators.setdefault(row["spec"]["source"], []).append(row)
    for source, rows_of in validators.items():
        lines += _section(data, f"`Validator` of {source}",
                          [(str(row["width"]), row) for row in rows_of], "W", rate=True)
    for kind, others in kinds.items():
        lines += _section(data, f"{others[0]['design'].split('(')[0]}",
                          [(row["design"], row) for row in others], "design", rate=True)
    return "\n".join(lines).rstrip() + "\n"


def write_chart(data, file):
    """Draw GB/s against LUT4s of the wide core, a line per pair on each device, as a PNG
    into ``file`` (a binary file)."""
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib import pyplot

    devices = list(DEVICES)
    figure, grid = pyplot.subplots(2, 2, figsize=(12, 9), sharey=True)
    for axes, device in zip(grid.flat, devices):
        family = DEVICES[device][0]
        pairs = {}
        for row in data["rows"]:
            rate = gigabytes_per_second(row, device)
            if row["spec"] and row["spec"]["kind"] == "wide" and rate is not None:
                pair = f"{row['spec']['source']} → {row['spec']['target']}"
                pairs.setdefault(pair, []).append((row["counts"][family]["lut4"], rate))
        for pair, points in sorted(pairs.items()):
            axes.plot(*zip(*points), "o-", markersize=3, linewidth=1, label=pair)
        if pairs:
            axes.set_xscale("log")
            axes.set_yscale("log")
            axes.legend(fontsize=5, ncol=2, loc="upper left")
        else:
            axes.text(0.5, 0.5, "no figures yet", ha="center", va="center",
                      transform=axes.transAxes)
        axes.set_title(device)
        axes.set_xlabel(f"{family} LUT4s")
        axes.grid(True, which="both", alpha=0.3)
    for axes in grid[:, 0]:
        axes.set_ylabel("GB/s of input (worst seed)")
    figure.suptitle("WideTranscoder, W = 1 to 64: each point one width")
    figure.tight_layout()
    # The PNG's metadata would carry matplotlib's version and the time: left out, so the
    # same data gives the same file.
    figure.savefig(file, format="png", dpi=80, metadata={"Software": None})
    pyplot.close(figure)


def _readme_cell(data, spec, device):
    fields = dataclasses.asdict(spec)
    for row in data["rows"]:
        if row["spec"] == fields:
            if device not in row["devices"]:
                return OUTSIDE
            fmax = worst_fmax(row, device)
            if fmax is None:
                return row["devices"][device]["outcome"]
            return f"{fmax:.0f} MHz, {gigabytes_per_second(row, device):.2f} GB/s"
    return NOT_RUN


def readme_section(data):
    """The README's table of figures for ``data``, between :data:`README_BEGIN` and
    :data:`README_END` (the markers included)."""
    cells = [[name, what, *(_readme_cell(data, spec, device) for device in README_DEVICES)]
             for spec, name, what in README_ROWS]
    outside = (f" {OUTSIDE}: the page does not place that core on that device."
               if any(OUTSIDE in row for row in cells) else "")
    lines = [README_BEGIN, "",
             *_table(["core", "what", *README_DEVICES], cells),
             f"Worst of {len(data['seeds'])} place-and-route seeds with the open yowasp tools "
             f"(GB/s of input), from {_source(data)}, made on {data['date']}; every core, "
             f"pair, width and device is in [docs/results.md](docs/results.md).{outside}",
             "", README_END]
    return "\n".join(lines)


def update_readme(text, data):
    """``text`` (a README) with its table of figures made anew from ``data``.

    Raises
    ------
    :exc:`ValueError`
        If ``text`` does not hold the markers once each, in order.
    """
    pattern = re.compile(re.escape(README_BEGIN) + r".*?" + re.escape(README_END), re.S)
    if len(pattern.findall(text)) != 1:
        raise ValueError(f"the README must hold {README_BEGIN!r} and then {README_END!r} "
                         f"once each")
    return pattern.sub(lambda match: readme_section(data), text)


def data_text(data):
    """The data file's text: JSON, keys in a fixed order, one entry a line where short."""
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
