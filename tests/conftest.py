import os
import pathlib

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
