"""``utfhw demo`` and its sample (bench/sample.py): every source form's sample goes through the
gateware and comes out as CPython's; the malformed sequences are malformed."""

import subprocess
import sys

import pytest

from utfhw.hdl.forms import CODECS
from utfhw.bench.sample import MALFORMED, sample_messages, sample_text


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def test_sample_text_is_nine_scripts():
    lines = sample_text().splitlines()
    assert len(lines) == 9
    assert lines[0].startswith("Lorem ipsum") and lines[1].startswith("\u041b\u043e\u0440")
    # Han, Hangul and emoji (beyond the BMP) are there.
    text = sample_text()
    assert any("\u4e00" <= c <= "\u9fff" for c in text)
    assert any("\uac00" <= c <= "\ud7a3" for c in text)
    assert any(ord(c) > 0xFFFF for c in text)


@pytest.mark.parametrize("source", list(CODECS))
def test_sample_messages(source):
    messages = sample_messages(source)
    text, _ = messages[0]
    # Latin-1 and ASCII hold the text's characters they can, "?" for the others.
    assert text.decode(source) == sample_text().encode(source, "replace").decode(source)
    assert len(messages) == 1 + len(MALFORMED[CODECS[source].form.name])
    for message, description in messages[1:]:
        with pytest.raises(UnicodeDecodeError):
            message.decode(source)
    if CODECS[source].form.holds_every_code_point:
        # The last one is cut short by the end of its message (a UTF has sequences to cut).
        with pytest.raises(UnicodeDecodeError) as error:
            messages[-1][0].decode(source)
        assert error.value.end == len(messages[-1][0])


@pytest.mark.parametrize("arguments", [
    ["--from", "utf-8", "--to", "utf-16-le"],
    ["--from", "utf8", "--to", "UTF-32", "--errors", "ignore"],
    ["--from", "utf-16", "--to", "utf-8-sig", "--errors", "strict"],
    ["--from", "utf-32-be", "--to", "utf-16-be"],
    ["--from", "utf-8-sig", "--to", "utf-8", "--sim", "amaranth"],
    ["--width", "4", "--to", "utf-16-be"],
    ["--pipelined"],
    ["--from", "latin-1", "--to", "ascii", "--errors", "strict"],
])
def test_demo_matches_cpython(arguments):
    result = run("demo", *arguments)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "  matches CPython: every message's output is decode(" in result.stdout
    if "strict" in arguments:
        raised = "UnicodeEncodeError" if "latin-1" in arguments else "UnicodeDecodeError"
        assert f"strict: each message raises what CPython raises ({raised}: start, end, " \
            "reason)" in result.stdout


def test_demo_shows_what_each_malformed_sequence_became():
    result = run("demo", "--to", "utf-16-le")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    surrogate = next(line for line in lines if "UTF-8 for the surrogate U+D800" in line)
    assert surrogate.split()[:5] == ["5B", "ED", "A0", "80", "5D"]
    assert surrogate.endswith("-> 005B FFFD FFFD FFFD 005D")


def test_demo_saves_its_text(tmp_path):
    result = run("demo", "--from", "utf-16-be", "--save", "sample.txt", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "sample.txt").read_bytes() == sample_text().encode("utf-16-be")
    assert "wrote the text to sample.txt" in result.stdout


def test_demo_fails_when_the_output_differs(monkeypatch, capsys):
    """The comparison can fail: a simulation that drops a byte is caught."""
    from utfhw import cli
    from utfhw.cli import running
    real = running.simulate_messages

    def wrong(*args, **kwargs):
        result = real(*args, **kwargs)
        result.outputs[3] = result.outputs[3][1:]
        return result
    monkeypatch.setattr(running, "simulate_messages", wrong)
    with pytest.raises(SystemExit) as exit:
        cli.main(["demo", "--sim", "amaranth"])
    assert exit.value.code == 1
    assert "messages [3] differ from CPython's decode('utf-8', 'replace')" in \
        capsys.readouterr().err
