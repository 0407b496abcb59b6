"""``utfhw validate`` and ``utfhw generate --validate``."""

import json
import subprocess
import sys

import pytest

from utfhw.sim.verilator import verilator_available


def run(*args):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", *map(str, args)],
                          capture_output=True, text=True)


def cpython_line(name, data, source):
    """The line utfhw validate prints for ``data``, from CPython."""
    text = data.decode(source, "replace")
    lengths = [len(text), len(text.encode("utf-16-le")) // 2, len(text.encode("utf-8"))]
    words = ["code point", "UTF-16 unit", "UTF-8 byte"]
    said = ", ".join(f"{count} {word}{'' if count == 1 else 's'}"
                     for count, word in zip(lengths, words))
    try:
        data.decode(source)
    except UnicodeDecodeError as error:
        where = (f"byte {error.start}" if error.end == error.start + 1
                 else f"bytes {error.start}-{error.end - 1}")
        return (f"{name}: not valid {source}: {where}: {error.reason} (start={error.start}, "
                f"end={error.end}); with replace, {said}")
    return f"{name}: valid {source}, {len(data)} bytes: {said}"


@pytest.mark.parametrize("sim,source,width", [
    ("amaranth", "utf-8", 4),
    pytest.param("verilator", "utf-8", 4, marks=pytest.mark.skipif(
        not verilator_available(), reason="Verilator is not installed")),
    pytest.param("verilator", "utf-16", 2, marks=pytest.mark.skipif(
        not verilator_available(), reason="Verilator is not installed")),
])
def test_validate_files(tmp_path, sim, source, width):
    """Each file's verdict and lengths are CPython's; exit 1 when one is not valid."""
    files = {
        "good.txt": "h\u00e9llo \u20ac \U0001F600\n".encode(source),
        "bad.txt": "caf\u00e9".encode(source) + b"\xed\xa0\x80" + b"ok",
        "empty.txt": b"",
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "validate", *files,
                             "--from", source, "--width", str(width), "--sim", sim,
                             "--stall", "0.2"],
                            capture_output=True, text=True, cwd=tmp_path)
    lines = result.stdout.splitlines()
    assert lines == [cpython_line(name, data, source) for name, data in files.items()]
    invalid = sum(line.split(": ")[1].startswith("not valid") for line in lines)
    assert result.returncode == (1 if invalid else 0), result.stderr
    assert f"3 files, {invalid} not valid; Validator, width {width}" in result.stderr


def test_validate_all_valid_exits_0(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"plain ASCII\n")
    result = run("validate", tmp_path / "a.txt", "--sim", "amaranth", "--from", "ascii")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith(": valid ascii, 12 bytes: 12 code points, 12 UTF-16 units, "
                                  "12 UTF-8 bytes\n")


@pytest.mark.parametrize("args,message", [
    (["--width", "3"], "argument --width: width must be a power of two from 1 to 64, not '3'"),
    (["--from", "utf-32", "--width", "2"], "--width must be at least 4 for utf-32, not 2"),
    (["--from", "utf-7"], "argument --from: 'utf-7' is not one of utfhw's codecs"),
])
def test_validate_bad_arguments(tmp_path, args, message):
    (tmp_path / "a.txt").write_bytes(b"x")
    result = run("validate", tmp_path / "a.txt", *args)
    assert result.returncode == 2
    assert message in result.stderr.splitlines()[-1]


def test_validate_missing_file(tmp_path):
    result = run("validate", tmp_path / "none.txt", "--sim", "amaranth")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"utfhw validate: error: cannot read {tmp_path / 'none.txt'}: No such file or directory"]


def test_generate_validate(tmp_path):
    result = run("generate", "--validate", "--from", "utf-16-be", "--width", "8",
                 "-o", tmp_path / "v.v")
    assert result.returncode == 0, result.stderr
    assert "wrote module utf16be_validator_w8" in result.stderr
    ports = json.loads((tmp_path / "v.json").read_text())
    assert (ports["kind"], ports["source"], ports["width"]) == ("validator", "utf-16-be", 8)
    fields = {field["name"] for port in ports["ports"] for field in port.get("fields", [])}
    assert {"result.valid", "result.start", "result.end", "result.kind",
            "result.code_points", "result.utf16_units", "result.utf8_bytes"} <= fields
    assert sorted(kind["name"] for kind in ports["error_kinds"]) == \
        ["NONE", "SURROGATE", "TRUNCATED_DATA", "UNEXPECTED_END_OF_DATA",
         "UNPAIRED_HIGH_SURROGATE"]
    text = (tmp_path / "v.v").read_text()
    assert "utfhw generate --validate --from utf-16-be --width 8" in text.splitlines()[3]


@pytest.mark.parametrize("args,message", [
    (["--to", "utf-16-le", "--width", "4"],
     "a validator passes its source through: --to must be utf-8, not utf-16-le"),
    ([], "--width must be given for a validator (--validate)"),
    (["--width", "4", "--pipelined"],
     "--pipelined is a transcoder, not a validator (--validate)"),
])
def test_generate_validate_bad_arguments(tmp_path, args, message):
    result = run("generate", "--validate", *args, "-o", tmp_path / "v.v")
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(message)
