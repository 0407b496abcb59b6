"""A wheel of utfhw, installed without extras into a fresh virtual environment, transcodes and
generates Verilog; the commands that need an extra say which."""

import pathlib
import re
import subprocess
import sys
import venv
import zipfile

import pytest

import utfhw

from support import copy_package


REPOSITORY = pathlib.Path(__file__).resolve().parent.parent

def run(command, **kwargs):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          **kwargs)


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The ``bin`` folder of a fresh virtual environment with the wheel installed."""
    folder = tmp_path_factory.mktemp("wheel")
    # pip builds in the source folder: a copy keeps the checkout free of build files.
    source = copy_package(folder / "source") / "utfhw"
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        assert (source / name).is_file(), name
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w",
                 folder / "dist", source])
    assert built.returncode == 0, built.stderr
    wheels = list((folder / "dist").glob("utfhw-*.whl"))
    assert len(wheels) == 1
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
    assert "utfhw/cli/__init__.py" in names and "utfhw/sim/verilator_driver.cpp" in names
    assert "utfhw/sim/bridge_driver.cpp" in names
    assert "utfhw/bench/data/sample.txt" in names and "utfhw/bench/data/NOTICE.md" in names
    assert "utfhw/hdl/forms/utf8/__init__.py" in names
    assert not any(name.startswith(("utfhw/corpus", "utfhw/examples")) for name in names)
    assert any(name.endswith("LICENSE") for name in names)
    assert not any(name.startswith(("utfhw/tests", "tests/")) for name in names)
    venv.create(folder / "env", with_pip=True)
    binaries = folder / "env" / "bin"
    installed = run([binaries / "python", "-m", "pip", "install", "--quiet", wheels[0]])
    assert installed.returncode == 0, installed.stderr
    return binaries


def test_version(installed):
    result = run([installed / "utfhw", "--version"])
    assert result.returncode == 0 and result.stdout == f"utfhw {utfhw.__version__}\n"


def test_generate(installed, tmp_path):
    result = run([installed / "utfhw", "generate", "-o", tmp_path / "core.v", "--from",
                  "utf-16", "--to", "utf-8"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "module utf16_to_utf8(" in (tmp_path / "core.v").read_text()
    assert result.stderr == (f"utfhw: wrote module utf16_to_utf8 to {tmp_path / 'core.v'}, its "
                             f"ports to {tmp_path / 'core.json'}\n")


def test_transcode(installed, tmp_path):
    (tmp_path / "in.txt").write_bytes(b"h\xc3\xa9llo \xff")
    result = run([installed / "utfhw", "transcode", "in.txt", "out.bin"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.bin").read_bytes() == "h\u00e9llo \ufffd".encode("utf-16-le")


def test_demo(installed, tmp_path):
    """The main job from a wheel installed without extras: the sample data is in the wheel."""
    result = run([installed / "utfhw", "demo", "--from", "utf-16", "--to", "utf8"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "matches CPython" in result.stdout


# How each command that needs an extra is started without it.
NEEDING_AN_EXTRA = {
    "build": ["build", "--board", "icebreaker"],
    "board": ["board", "--simulate"],
    "report": ["report"],
    "cocotb": ["cocotb"],
}


def readme_extras():
    """The extra the README's table of commands names for each command, where it names one."""
    text = (REPOSITORY / "README.md").read_text()
    return dict(re.findall(r"^\| `utfhw (\w+)[^`]*` \|.*\| `(\w+)` \|$", text, re.M))


def test_the_readme_names_the_extra_of_each_command_that_needs_one():
    assert set(readme_extras()) == set(NEEDING_AN_EXTRA)


@pytest.mark.parametrize("command", NEEDING_AN_EXTRA)
def test_commands_that_need_an_extra_say_which(installed, tmp_path, command):
    extra = readme_extras()[command]
    result = run([installed / "utfhw", *NEEDING_AN_EXTRA[command]], cwd=tmp_path)
    assert result.returncode == 1
    # As a user of the checkout installs it, and from a wheel.
    assert f"pip install '.[{extra}]'" in result.stderr, result.stderr
    assert f"pip install 'utfhw[{extra}]'" in result.stderr, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_board_extra_is_enough_for_board_simulate(installed, tmp_path):
    """utfhw board --simulate in a fresh virtual environment with the wheel and the extra the
    README names for it, and nothing else."""
    (wheel,) = (installed.parent.parent / "dist").glob("utfhw-*.whl")
    venv.create(tmp_path / "env", with_pip=True)
    binaries = tmp_path / "env" / "bin"
    extra = readme_extras()["board"]
    added = run([binaries / "python", "-m", "pip", "install", "--quiet", f"{wheel}[{extra}]"])
    assert added.returncode == 0, added.stderr
    result = run([binaries / "utfhw", "board", "--simulate"], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "matches CPython" in result.stdout and "differ" not in result.stdout
