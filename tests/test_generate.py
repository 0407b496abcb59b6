"""Verilog generation (sim/generate.py): the same design gives the same bytes from any
checkout, environment and hash seed, and names no file of the machine it was made on."""

import os
import pathlib
import subprocess
import sys

import pytest

from utfhw.sim.generate import pipeline_hdl

from support import PACKAGE, copy_package

GENERATE = ("import sys; from utfhw.sim.generate import pipeline_hdl; "
            "sys.stdout.write(pipeline_hdl(sys.argv[1], sys.argv[2], errors=sys.argv[3], "
            "pipelined=sys.argv[4] == '1', language=sys.argv[5]))")


def generate_in(folder, hash_seed, *arguments):
    environment = dict(os.environ, PYTHONPATH=str(folder), PYTHONHASHSEED=str(hash_seed))
    result = subprocess.run([sys.executable, "-c", GENERATE, *arguments], capture_output=True,
                            text=True, env=environment, cwd=folder)
    assert result.returncode == 0, result.stderr
    # The copy, not the installed package, made it.
    return result.stdout


@pytest.mark.parametrize("arguments", [
    ("utf-16", "utf-8-sig", "ignore", "0", "verilog"),
    ("utf-8", "utf-16-le", "replace", "1", "verilog"),
    ("utf-32", "utf-16", "replace", "0", "rtlil"),
])
def test_same_bytes_from_two_checkouts(tmp_path, arguments):
    first = copy_package(tmp_path / "one")
    second = copy_package(tmp_path / "two" / "deeper" / "elsewhere")
    texts = [generate_in(first, 1, *arguments), generate_in(second, 2, *arguments)]
    assert texts[0] == texts[1]
    for folder in (first, second, tmp_path, PACKAGE, pathlib.Path(sys.prefix)):
        assert str(folder) not in texts[0]


def test_copy_is_what_runs(tmp_path):
    """The comparison above is between the copies: a copy whose generator is changed gives
    other text."""
    folder = copy_package(tmp_path / "changed")
    generate = folder / "utfhw" / "sim" / "generate.py"
    generate.write_text(generate.read_text().replace('"write_verilog -norename"',
                                                     '"write_verilog -norename -noattr"'))
    arguments = ("utf-8", "utf-16-le", "replace", "0", "verilog")
    assert generate_in(folder, 0, *arguments) != pipeline_hdl("utf-8", "utf-16-le")


def test_no_source_locations():
    text = pipeline_hdl("utf-8", "utf-16-le")
    assert "src =" not in text and ".py:" not in text
