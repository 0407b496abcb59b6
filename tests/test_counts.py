"""docs/verification.md's tables of test counts are the ones tests/counts.py makes from
docs/test-counts.json, and ``--counts`` and ``--junitxml`` give what the run reported."""

import json
import subprocess
import sys

import counts


def test_the_table_is_made_from_the_data():
    data = json.loads(counts.DATA.read_text())
    text = counts.DOCUMENT.read_text()
    assert counts.section(text) == counts.render(data)
    assert counts.section(text, counts.PARTS_BEGIN, counts.PARTS_END) == \
        counts.render_parts(data["full parts"])
    assert set(data) <= {*counts.SWEEPS, "full parts"} and "bounded" in data


def test_a_run_writes_its_counts(tmp_path):
    (tmp_path / "test_one.py").write_text(
        "import pytest\n"
        "def test_passes(tally):\n    tally('messages', 5)\n    tally('messages', 2)\n"
        "@pytest.mark.skip\ndef test_skipped():\n    pass\n"
        "def test_fails(tally):\n    tally('messages', 100)\n    assert False\n")
    (tmp_path / "conftest.py").write_text(
        (counts.REPOSITORY / "tests" / "conftest.py").read_text())
    written = tmp_path / "run.json"
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                    "-o", "addopts=", "--counts", str(written), "--junitxml", "run.xml",
                    "test_one.py"],
                   cwd=tmp_path, capture_output=True, text=True)
    run = json.loads(written.read_text())
    part = counts.read_part(tmp_path / "run.xml")
    assert {key: part[key] for key in ("passed", "failed", "skipped")} == \
        {"passed": 1, "failed": 1, "skipped": 1}
    assert part["seconds"] >= 0 and len(part["date"]) == 10
    # A part run in pieces adds them up.
    both = counts.read_part(f"{tmp_path / 'run.xml'},{tmp_path / 'run.xml'}")
    assert {key: both[key] for key in ("passed", "failed", "skipped", "date")} == \
        {"passed": 2, "failed": 2, "skipped": 2, "date": part["date"]}
    assert f"| {part['date']} | `abc` | a part | `test_one.py` | 1 passed, 1 failed, 1 skipped |" \
        in counts.render_parts([{**part, "commit": "abc", "what": "a part",
                                 "selection": "test_one.py"}])
    assert run["files"] == {"test_one.py": {"passed": 1, "failed": 1, "skipped": 1,
                                            "tallies": {"messages": 7}}}
    assert "| `test_one.py` | 1 passed, 1 failed, 1 skipped | 7 messages |" in \
        counts.render({"bounded": {"commit": "abc", "files": run["files"]}})
