"""The PipelinedUTF8ToUTF16 core: the same beats as the Transcoder for UTF-8 to UTF-16, exact
to CPython, and one byte per clock."""

import gc

import pytest
from hypothesis import given, settings, strategies as st

from conftest import FULL_SWEEP
from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.cores.pipelined import PipelinedUTF8ToUTF16
from utfhw.formal.checker import check, combinational_path
from utfhw.formal.properties import PipelineProperties
from utfhw.verilog.generate import pipeline_hdl
from utfhw.hdl.cores import make_core

from support import SEQUENCES, TRICKY_BYTES, byte_soup, check_messages
from support import SHORT_MESSAGE_SLICES, check_verilated, every_two_bytes_messages


PAIRS = [("utf-16-le", "replace"), ("utf-16-be", "replace"), ("utf-16-le", "ignore"),
         ("utf-16-be", "ignore")]

ADVERSARIAL = [
    b"", b"A", b"\xff", b"\xe2\x82", b"\xe2\x82\xac", b"\xf0\x9f\x98\x80", b"\xf4\x90\x80\x80",
    b"\xed\xa0\x80", b"\xe0\x80\xaf", b"\xc0\xaf", b"\xc2", b"\xf0\x9f\x98", b"a\x80b\xbf",
    "Grüße, 世界! 👋 Привет".encode(), *SEQUENCES,
    bytes(TRICKY_BYTES), bytes(reversed(TRICKY_BYTES)),
]


@pytest.mark.parametrize("target,errors", PAIRS)
@pytest.mark.parametrize("stall", [0.0, 0.5])
def test_adversarial_messages(target, errors, stall):
    cycles = check_messages(ADVERSARIAL, "utf-8", target, errors=errors, stall=stall, seed=3,
                            pipelined=True)
    if stall == 0.0:
        # One byte per clock: N input beats (an empty message is one) take N + latency clocks.
        beats = sum(max(1, len(message)) for message in ADVERSARIAL)
        assert cycles == beats + PipelinedUTF8ToUTF16.latency


@settings(max_examples=40, deadline=None)
@given(st.lists(byte_soup(max_size=12), min_size=1, max_size=12),
       st.sampled_from(PAIRS), st.sampled_from([0.0, 0.3, 0.7]), st.integers(0, 2**32))
def test_random_messages(messages, pair, stall, seed):
    target, errors = pair
    check_messages(messages, "utf-8", target, errors=errors, stall=stall, seed=seed,
                   pipelined=True)


# `ignore` (40 s of CI's 2 cores) and the slices SHORT_MESSAGE_SLICES leaves out in the full
# sweep.
@pytest.mark.parametrize("errors", ["replace", "ignore"] if FULL_SWEEP else ["replace"])
def test_every_short_message_through_verilator(errors):
    """All 16,843,008 UTF-8 messages of 1 to 3 bytes, each its own message, through the
    pipelined core's Verilog, against CPython (in nine runs, to keep memory small)."""
    for index, (data, lengths) in enumerate(every_two_bytes_messages()):
        if index in SHORT_MESSAGE_SLICES:
            run = check_verilated(data, lengths, "utf-8", "utf-16-le", errors=errors,
                                  pipelined=True)
            assert run.input_beats == len(data)


def test_stall_pattern_through_verilator():
    data = b"".join(ADVERSARIAL) * 50
    lengths = [len(message) for message in ADVERSARIAL] * 50
    check_verilated(data, lengths, "utf-8", "utf-16-be", stall=0.4, seed=9, pipelined=True)


@pytest.mark.formal
@pytest.mark.parametrize("byteorder,errors", [("little", "replace"), ("big", "ignore")])
def test_pipeline_properties(tmp_path, byteorder, errors):
    """The stream rules, beat and ``last`` accounting within the latency, and whole,
    well-formed UTF-16 whatever bytes come in (BMC through one whole 4-byte character past the
    latency; two with ``UTFHW_SWEEP=full``, which takes minutes instead of seconds)."""
    core = PipelinedUTF8ToUTF16(byteorder=byteorder, errors=errors)
    past_latency = 9 if FULL_SWEEP else 4
    result = check(PipelineProperties(core), mode="bmc", depth=core.latency + past_latency,
                   directory=tmp_path)
    assert result.passed, result.failures


def test_valid_does_not_depend_on_ready(tmp_path):
    assert not combinational_path(PipelinedUTF8ToUTF16(), source="o__ready", sink="o__valid",
                                  directory=tmp_path)
    assert not combinational_path(PipelinedUTF8ToUTF16(), source="o__ready", sink="i__ready",
                                  directory=tmp_path)


def test_generate_names_the_pipelined_module():
    assert "module utf8_to_utf16be_pipelined" in pipeline_hdl(
        CoreSpec("utf-8", "utf-16-be", kind="pipelined"), name="utf8_to_utf16be_pipelined")


# A core whose arguments are refused is never elaborated.
@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("arguments,message", [
    ({"byteorder": "middle"}, "byteorder must be 'little' or 'big', not 'middle'"),
    ({"errors": "strict"}, "errors must be 'replace' or 'ignore', not 'strict'"),
])
def test_arguments(arguments, message):
    with pytest.raises(ValueError, match=f"^{message}$") as refused:
        PipelinedUTF8ToUTF16(**arguments)
    # Collect the refused core now, while its warning is ignored.
    del refused
    gc.collect()


def test_only_utf8_to_utf16():
    with pytest.raises(ValueError, match=r"^pipelined=True is for utf-8 to utf-16-le or "
                                         r"utf-16-be, not utf-8 to utf-16$"):
        make_core("utf-8", "utf-16", pipelined=True)


def test_generate_command(tmp_path):
    from utfhw.cli import main
    output = tmp_path / "fast.v"
    assert main(["generate", "--pipelined", "-o", str(output)]) == 0
    assert "module utf8_to_utf16le_pipelined" in output.read_text()
    with pytest.raises(SystemExit) as exit:
        main(["generate", "--pipelined", "--to", "utf-32", "-o", str(output)])
    assert exit.value.code == 2
