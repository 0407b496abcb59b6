"""``--check`` in bounded memory: CPython's incremental codecs against its one-shot ones, and
the comparison of two streams."""

import random

import pytest

from utfhw.cli.check import IncrementalTranscoder, StreamCheck
from utfhw.hdl.forms import CODECS


def pieces_of(messages, rng):
    for message in messages:
        cuts = sorted(rng.randrange(len(message) + 1) for _ in range(rng.randrange(5)))
        bounds = list(zip([0, *cuts], [*cuts, len(message)]))
        for index, (start, end) in enumerate(bounds):
            yield message[start:end], index == len(bounds) - 1


def messages_in(source, rng):
    """Messages with marks of both orders at the start and inside, and malformed bytes."""
    text = "a\u00e9\u20ac\U0001F600\ufeff"
    alphabet = [text.encode(source), "\ufeff".encode(source + "-be" if source in (
        "utf-16", "utf-32") else source), b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff",
        b"\xef\xbb\xbf", b"\xff", b"\x00\xd8", b"\xe2\x82", b"A"]
    return [b"".join(rng.choice(alphabet) for _ in range(rng.randrange(6)))
            for _ in range(rng.randrange(1, 5))]


@pytest.mark.parametrize("source", list(CODECS))
@pytest.mark.parametrize("errors", ["replace", "ignore", "strict"])
def test_incremental_is_one_shot(source, errors):
    """Cut anywhere, marks and malformed data included: the same output as one bytes object
    per message, and a strict error exactly where the one-shot codec has one."""
    rng = random.Random(f"{source} {errors}")
    for _ in range(300):
        target = rng.choice(list(CODECS))
        messages = messages_in(source, rng)
        expected = []
        for message in messages:
            try:
                expected.append(message.decode(source, errors).encode(target))
            except UnicodeDecodeError:
                expected.append(None)
                break
        transcoder = IncrementalTranscoder(source, target, errors)
        got, parts = [], []
        try:
            for data, last in pieces_of(messages[:len(expected)], rng):
                parts.append(transcoder.feed(data, last))
                if last:
                    got.append(b"".join(parts))
                    parts = []
        except UnicodeDecodeError:
            got.append(None)
        assert got == expected, (messages, source, target)


def test_stream_check_finds_the_first_difference():
    check = StreamCheck("utf-8", "utf-16-le", "replace")
    list(check.tee([(b"ab", False), (b"c", True)]))
    check.output(b"a\x00b")
    check.output(b"\x00d\x00")
    assert check.finish() == 4


@pytest.mark.parametrize("output,difference", [
    ([b"a\x00b\x00c\x00"], None), ([b"a\x00", b"", b"b\x00c\x00"], None),
    ([b"a\x00b\x00"], 4), ([b"a\x00b\x00c\x00!"], 6)])
def test_stream_check_lengths(output, difference):
    check = StreamCheck("utf-8", "utf-16-le", "replace")
    list(check.tee([(b"a", False), (b"", False), (b"bc", True)]))
    for chunk in output:
        check.output(chunk)
    assert check.finish() == difference


def test_stream_check_after_a_strict_error():
    """CPython stops at the error; the run raises its own, so only what came before counts."""
    check = StreamCheck("utf-8", "utf-16-le", "strict")
    assert list(check.tee([(b"a", True), (b"\xff", True), (b"b", True)])) == \
        [(b"a", True), (b"\xff", True), (b"b", True)]
    check.output(b"a\x00")
    assert check.finish() is None
