"""docs/verification.md's tables of what the test suite checks, from what its runs reported.

Run the suite with ``--counts`` and give this script the file it wrote::

    python -m pytest --counts run.json
    python tests/counts.py run.json

The run's counts go into ``docs/test-counts.json`` under its sweep (``bounded``, the README's
test command, or ``full``, with ``UTFHW_SWEEP=full``), with the commit it ran at (``git
describe`` in the run, or the second argument for a run that could not tell), and the table
between the markers in ``docs/verification.md`` is made again from that file
(``tests/test_counts.py`` holds the two equal).

The full sweep takes days on two cores, so it is run in parts, each a selection of tests. A
part's JUnit file (``--junitxml``) is added to the file's list of parts, with what it ran::

    UTFHW_SWEEP=full python -m pytest --junitxml part.xml SELECTION
    python tests/counts.py --part part.xml COMMIT "what the part ran" "the selection"

A part run in pieces (each its own ``--junitxml``, so that a stopped run keeps what finished)
is given as its files joined by commas: their counts and times are added, and the day is the
first one's.
"""

import json
import pathlib
import sys
import xml.etree.ElementTree


REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
DATA = REPOSITORY / "docs" / "test-counts.json"
DOCUMENT = REPOSITORY / "docs" / "verification.md"
BEGIN = "<!-- test counts: made by tests/counts.py from docs/test-counts.json -->"
END = "<!-- end of test counts -->"
PARTS_BEGIN = "<!-- full sweep parts: made by tests/counts.py from docs/test-counts.json -->"
PARTS_END = "<!-- end of full sweep parts -->"
SWEEPS = ("bounded", "full")


def _tested(entry):
    if entry is None:
        return "not run"
    text = f"{entry['passed']:,} passed"
    if entry["failed"]:
        text += f", {entry['failed']:,} failed"
    if entry["skipped"]:
        text += f", {entry['skipped']:,} skipped"
    return text


def _checked(entry):
    if entry is None or not entry["tallies"]:
        return ""
    return ", ".join(f"{count:,} {what}" for what, count in sorted(entry["tallies"].items()))


def render(data):
    """The table's Markdown for ``data`` (``docs/test-counts.json``'s contents)."""
    runs = {sweep: data.get(sweep) for sweep in SWEEPS}
    lines = ["What the last run of each sweep reported: "
             + "; ".join(f"`{sweep}` at `{run['commit']}`" if run else f"`{sweep}` not run yet"
                         for sweep, run in runs.items()) + ".", "",
             "| test file | CI (bounded) | checked | `UTFHW_SWEEP=full` | checked |",
             "|---|---|---|---|---|"]
    files = sorted({name for run in runs.values() if run for name in run["files"]})
    for name in files:
        entries = [run["files"].get(name) if run else None for run in runs.values()]
        lines.append(f"| `{name}` | " + " | ".join(
            f"{_tested(entry)} | {_checked(entry)}" for entry in entries) + " |")
    totals = [run and {key: sum(entry[key] for entry in run["files"].values())
                       for key in ("passed", "failed", "skipped")}
              for run in runs.values()]
    lines.append("| all | " + " | ".join(f"{_tested(total)} | " for total in totals) + " |")
    return "\n".join(lines) + "\n"


def read_part(paths):
    """A part of the full sweep from its JUnit files (one, or the pieces it was run in, joined
    by commas): its tests passed, failed and skipped, its time in seconds and the day it
    started."""
    outcomes = {"passed": 0, "failed": 0, "skipped": 0}
    seconds, days = 0.0, []
    for path in str(paths).split(","):
        suite = xml.etree.ElementTree.parse(path).getroot()
        suite = suite.find("testsuite") if suite.tag == "testsuites" else suite
        for case in suite.iter("testcase"):
            tags = {child.tag for child in case}
            outcomes["failed" if tags & {"failure", "error"} else
                     "skipped" if "skipped" in tags else "passed"] += 1
        seconds += float(suite.get("time"))
        days.append(suite.get("timestamp", "")[:10])
    return {**outcomes, "seconds": round(seconds), "date": min(days)}


def _duration(seconds):
    if seconds is None:
        return ""
    hours, minutes = divmod(round(seconds / 60), 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def render_parts(parts):
    """The table of the full sweep's parts."""
    lines = ["| day | commit | what it ran | how | tests | time |", "|---|---|---|---|---|---|"]
    for part in parts:
        lines.append(f"| {part['date']} | `{part['commit']}` | {part['what']} | "
                     f"`{part['selection']}` | {_tested(part)} | {_duration(part['seconds'])} |")
    return "\n".join(lines) + "\n"


def section(text, begin=BEGIN, end=END):
    """The table as it stands in the document ``text``."""
    start, end = text.index(begin) + len(begin) + 1, text.index(end)
    return text[start:end]


def _write(data, begin, end, table):
    DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    text = DOCUMENT.read_text()
    table_now = begin + "\n" + section(text, begin, end)
    DOCUMENT.write_text(text.replace(table_now, begin + "\n" + table))


def main(arguments):
    data = json.loads(DATA.read_text()) if DATA.exists() else {}
    if arguments[:1] == ["--part"]:
        if len(arguments) != 5:
            sys.exit("usage: python tests/counts.py --part PART.xml[,PIECE.xml...] COMMIT WHAT "
                     "SELECTION")
        path, commit, what, selection = arguments[1:]
        data.setdefault("full parts", []).append(
            {**read_part(path), "commit": commit, "what": what, "selection": selection})
        _write(data, PARTS_BEGIN, PARTS_END, render_parts(data["full parts"]))
        print(f"counts.py: the part at {commit} is in {DATA.name} and {DOCUMENT.name}",
              file=sys.stderr)
        return
    if len(arguments) not in (1, 2):
        sys.exit("usage: python tests/counts.py RUN.json [COMMIT] (RUN.json written by "
                 "python -m pytest --counts, which names the commit it ran at)")
    run = json.loads(pathlib.Path(arguments[0]).read_text())
    commit = run.get("commit") or (arguments[1] if len(arguments) == 2 else None)
    if not commit:
        sys.exit("counts.py: the run names no commit; give it")
    data[run["sweep"]] = {"commit": commit, "files": run["files"]}
    _write(data, BEGIN, END, render(data))
    print(f"counts.py: the {run['sweep']} run at {commit} is in {DATA.name} and "
          f"{DOCUMENT.name}", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
