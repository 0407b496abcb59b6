import json
import os
import pathlib
import subprocess

import pytest
from hypothesis import HealthCheck, settings


settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("UTFHW_HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI")
                                     else "dev"))


REPOSITORY = pathlib.Path(__file__).resolve().parent.parent

#: ``UTFHW_SWEEP=full`` runs every sweep in full (see README.md); read here and nowhere else.
_SWEEP = os.environ.get("UTFHW_SWEEP", "")
if _SWEEP not in ("", "full"):
    raise pytest.UsageError(f"UTFHW_SWEEP must be 'full' or unset, not {_SWEEP!r}")
FULL_SWEEP = _SWEEP == "full"

#: Marks a test or a case that only ``UTFHW_SWEEP=full`` runs.
FULL_SWEEP_ONLY = pytest.mark.skipif(not FULL_SWEEP, reason="UTFHW_SWEEP=full")


def pytest_report_header(config):
    return f"UTFHW_SWEEP: {'full' if FULL_SWEEP else 'bounded (set UTFHW_SWEEP=full for all)'}"


def corpus_path():
    """The third-party corpus: the checkout's ``corpus/``, or ``$UTFHW_CORPUS``."""
    return pathlib.Path(os.environ.get("UTFHW_CORPUS", REPOSITORY / "corpus"))


@pytest.fixture(scope="session")
def corpus():
    path = corpus_path()
    if not (path / "MANIFEST.md").is_file():
        pytest.fail(f"the third-party corpus is not at {path} (it comes with the checkout; "
                    f"UTFHW_CORPUS names another folder)")
    return path


# What a run checked, by test file, for docs/verification.md: ``python -m pytest --counts FILE``
# writes it as JSON (tests/counts.py makes the document's table from it). A test says what it
# checked beyond its own pass with the ``tally`` fixture.

def pytest_addoption(parser):
    parser.addoption("--counts", metavar="FILE",
                     help="write the tests passed, failed and skipped and what they checked "
                          "(their tallies), by test file, as JSON to FILE")


@pytest.fixture
def tally(request):
    """``tally(what, count)``: this test checked ``count`` more ``what`` (``"messages"``), for
    ``--counts``."""
    def add(what, count):
        request.node.user_properties.append((f"tally:{what}", count))
    return add


_COUNTS = {}


def pytest_runtest_logreport(report):
    # On the xdist controller (or a run without it), each test's outcome: that of its call, or
    # of its setup when that skipped or failed.
    if report.when != "call" and not (report.when == "setup" and not report.passed):
        return
    entry = _COUNTS.setdefault(report.nodeid.split("::")[0],
                               {"passed": 0, "failed": 0, "skipped": 0, "tallies": {}})
    entry[report.outcome] += 1
    for name, value in report.user_properties:
        if name.startswith("tally:") and report.passed:
            what = name.split(":", 1)[1]
            entry["tallies"][what] = entry["tallies"].get(what, 0) + value


def pytest_sessionfinish(session):
    path = session.config.getoption("--counts")
    if path is None or hasattr(session.config, "workerinput"):
        return
    described = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPOSITORY,
                                capture_output=True, text=True)
    document = {"sweep": "full" if FULL_SWEEP else "bounded",
                "commit": described.stdout.strip() if described.returncode == 0 else None,
                "files": dict(sorted(_COUNTS.items()))}
    pathlib.Path(path).write_text(json.dumps(document, indent=1) + "\n")
