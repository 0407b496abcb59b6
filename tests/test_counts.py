"""docs/verification.md's table of test counts is the one tests/counts.py makes from
docs/test-counts.json, and ``--counts`` writes what the run reported."""

import json
import subprocess
import sys

import counts


def test_the_table_is_made_from_the_data():
    data = json.loads(counts.DATA.read_text())
    assert counts.section(counts.DOCUMENT.read_text()) == counts.render(data)
    assert set(data) <= set(counts.SWEEPS) and "bounded" in data


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
                    "-o", "addopts=", "--counts", str(written), "test_one.py"],
                   cwd=tmp_path, capture_output=True, text=True)
    run = json.loads(written.read_text())
    assert run["files"] == {"test_one.py": {"passed": 1, "failed": 1, "skipped": 1,
                                            "tallies": {"messages": 7}}}
    assert "| `test_one.py` | 1 passed, 1 failed, 1 skipped | 7 messages |" in \
        counts.render({"bounded": {"commit": "abc", "files": run["files"]}})
