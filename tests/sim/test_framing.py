"""Input cut into messages: whole (:func:`split_messages`) or as it comes
(:func:`split_stream`)."""

import random

import pytest

from utfhw.hdl.forms import CODECS
from utfhw.sim.framing import message_pieces, split_messages, split_stream


def joined(pieces):
    messages, parts = [], []
    for data, last in pieces:
        parts.append(data)
        if last:
            messages.append(b"".join(parts))
            parts = []
    assert not parts
    return messages


@pytest.mark.parametrize("source", list(CODECS))
def test_split_stream_is_split_messages(source):
    """Cut into chunks anywhere, even inside a mark or a unit, the same messages."""
    rng = random.Random(source)
    alphabet = [b"\n", b"\0", b"a", b"\xff", b"\xfe", b"\x00\n", b"\n\x00", b"\xff\xfe",
                b"\xfe\xff", b"\x00\x00\xfe\xff", b"\n\x00\x00\x00"]
    for _ in range(2000):
        data = b"".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        separator = rng.choice(["lines", "nul"])
        cuts = sorted(rng.randrange(len(data) + 1) for _ in range(rng.randrange(5)))
        chunks = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)])]
        assert joined(split_stream(chunks, source, separator)) == \
            split_messages(data, source, separator), (chunks, separator)


def test_split_stream_holds_back_only_a_unit():
    pieces = split_stream(iter([b"a\x00\x00\x00b", b"\x00\x00\x00\n\x00\x00\x00"]), "utf-32",
                          "lines")
    assert next(pieces) == (b"a\x00\x00\x00", False)


def test_message_pieces():
    assert list(message_pieces([b"ab", [b"c", bytearray(b"d")], memoryview(b""), []])) == [
        (b"ab", True), (b"c", False), (b"d", False), (b"", True), (b"", True), (b"", True)]
