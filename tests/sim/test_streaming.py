"""Streamed runs (:mod:`utfhw.sim.streaming`): the same output, cycles and strict errors as a
run held in memory, whatever the chunks."""

import random

import pytest

from utfhw.sim import simulate_messages, simulate_stream, transcode_chunks
from utfhw.toolchain.tools import ToolchainError, find_verilator


@pytest.fixture(autouse=True)
def needs_verilator():
    try:
        find_verilator()
    except ToolchainError as error:
        pytest.skip(str(error))


#: Scalar and wide cores, UTF-8, -16 and -32 sources, marks read and written.
CORES = [("utf-8", "utf-16-le", None), ("utf-16", "utf-8-sig", None), ("utf-32", "utf-16", None),
         ("utf-8-sig", "utf-16", 4), ("utf-32", "utf-8", 4), ("utf-16", "utf-32-be", 8)]

TEXT = "h\u00e9llo \u20ac \U0001F600 \u0430\n"


def malformed(source):
    """Messages in ``source`` with errors of every kind its form has, and good ones."""
    good = TEXT.encode(source)
    if source.startswith("utf-8"):
        bad = [b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xe2\x28"]
    elif source.startswith("utf-16"):
        bad = [b"\x00\xd8", b"\x00\xdc", b"\x00\xd8A\x00", b"A"]
    else:
        bad = [b"\x00\x00\x11\x00", b"\x00\xd8\x00\x00", b"AB", b"ABC"]
    return [good * 3 + piece + good for piece in bad] + [good * 2 + piece for piece in bad]


def chunked(message, rng):
    """``message`` cut at random places, some chunks empty."""
    cuts = sorted(rng.randrange(len(message) + 1) for _ in range(rng.randrange(6)))
    return [message[a:b] for a, b in zip([0, *cuts], [*cuts, len(message)])]


@pytest.mark.parametrize("source,target,width", CORES)
def test_streamed_is_the_in_memory_run(source, target, width):
    rng = random.Random(7)
    messages = [b"", TEXT.encode(source) * 40, *malformed(source), b""]
    whole = simulate_messages(messages, source, target, backend="verilator", width=width,
                              stall=0.3, seed=5)
    streamed = simulate_stream([chunked(message, rng) for message in messages], source, target,
                               width=width, stall=0.3, seed=5, chunk_size=5)
    chunks = list(streamed)
    assert max(map(len, chunks)) <= 5
    assert b"".join(chunks) == whole.output
    assert (streamed.cycles, streamed.input_beats) == (whole.cycles, whole.input_beats)
    assert streamed.input_bytes == sum(map(len, messages))
    assert (streamed.messages, streamed.empty_messages) == (len(messages), 2)
    assert streamed.output_bytes == len(whole.output)


@pytest.mark.parametrize("source,target,width", CORES)
def test_strict_errors_are_cpythons(source, target, width):
    rng = random.Random(3)
    good = TEXT.encode(source)
    for message in malformed(source):
        with pytest.raises(UnicodeDecodeError) as cpython:
            message.decode(source)
        expected = cpython.value
        output = []
        with pytest.raises(UnicodeDecodeError) as streamed:
            for chunk in simulate_stream([good, chunked(message, rng), good], source, target,
                                         errors="strict", width=width, chunk_size=3):
                output.append(chunk)
        error = streamed.value
        assert (error.encoding, error.start, error.end, error.reason) == \
            (expected.encoding, expected.start, expected.end, expected.reason), message
        assert error.message_index == 1
        # The first message's output came before the error.
        assert b"".join(output).startswith(good.decode(source).encode(target))


def test_transcode_chunks_is_cpythons():
    data = TEXT.encode("utf-16") * 300 + b"\x00\xd8"
    chunks = [data[start:start + 97] for start in range(0, len(data), 97)]
    output = b"".join(transcode_chunks(chunks, "utf-16", "utf-8-sig", chunk_size=64))
    assert output == data.decode("utf-16", "replace").encode("utf-8-sig")


def test_amaranth_runs_it_whole():
    stream = simulate_stream([b"ab\xff", [b"c", b"d"]], backend="amaranth", chunk_size=2)
    assert list(stream) == [b"a\x00", b"b\x00", b"\xfd\xff", b"c\x00", b"d\x00"]
    assert stream.messages == 2 and stream.cycles > 0


def test_runs_once():
    stream = simulate_stream([b"a"])
    list(stream)
    with pytest.raises(RuntimeError, match="runs once"):
        list(stream)


@pytest.mark.parametrize("options,message", [
    ({"chunk_size": 0}, "chunk_size must be a positive number of bytes, not 0"),
    ({"chunk_size": 1.5}, "chunk_size must be a positive number of bytes, not 1.5"),
    ({"vcd": "x.vcd"}, "vcd needs backend='amaranth'; the Verilator backend writes no "
                       "waveforms"),
    ({"progress": print}, "progress needs backend='amaranth'; a streamed Verilator run has no "
                          "total to count towards"),
    ({"width": 3}, "width must be a power of two from 1 to 64, not 3"),
    ({"stall": 1}, "stall must be a probability from 0 up to (not including) 1, not 1"),
    ({"backend": "iverilog"}, "backend must be 'amaranth' or 'verilator', not 'iverilog'"),
])
def test_bad_options(options, message):
    with pytest.raises(ValueError) as error:
        simulate_stream([b"a"], **options)
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)


def test_a_str_message_is_refused():
    with pytest.raises(TypeError, match="a message must be bytes-like or an iterable of "
                                        "bytes-like chunks, not str"):
        list(simulate_stream(["abc"]))
    with pytest.raises(TypeError, match="a message's chunks must be bytes-like, not str"):
        list(simulate_stream([["abc"]]))
