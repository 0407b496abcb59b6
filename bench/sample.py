"""The sample ``utfhw demo`` transcodes: a line of text in each of nine scripts, then the
malformed sequences of the source's encoding form that a decoder must replace, each its own
message.

The text is in ``data/sample.txt`` (the first words of each UTF-8 text of the unicode_lipsum
collection; ``data/NOTICE.md`` says where from and under which licence). Like
:func:`~utfhw.bench.stimulus.stress_input`, the sample is encoded in the source codec with
CPython's codecs: they make the input, and the simulated gateware is what is checked.
"""

import pathlib

from ..hdl.forms import CODECS, plain_codec


__all__ = ["SAMPLE_TEXT_PATH", "MALFORMED", "sample_text", "sample_messages"]


SAMPLE_TEXT_PATH = pathlib.Path(__file__).with_name("data") / "sample.txt"


#: For each encoding form, malformed sequences as ``(code units, what they are)``. A unit is an
#: integer (a byte, a 16-bit or a 32-bit unit, written in the codec's byte order) or ``bytes``
#: taken as they are (a part of a unit). Each goes through the gateware as a message of its
#: own, between ``[`` and ``]``, except the last, which the end of its message cuts short.
MALFORMED = {
    "utf-8": [
        ([0xC0, 0xAF], "an overlong form of '/'"),
        ([0xE0, 0x80, 0xAF], "an overlong form of '/' in three bytes"),
        ([0xED, 0xA0, 0x80], "UTF-8 for the surrogate U+D800"),
        ([0xF4, 0x90, 0x80, 0x80], "U+110000, above U+10FFFF"),
        ([0xF0, 0x9F, 0x98, 0x41], "a four-byte sequence cut short by 'A'"),
        ([0xFF], "a byte UTF-8 never uses"),
        ([0x80, 0xBF], "two continuation bytes without a lead"),
        ([0xE2, 0x82], "a sequence cut short by the end of the message"),
    ],
    "utf-16": [
        ([0xD83D, 0x0041], "a high surrogate followed by 'A'"),
        ([0xDC00], "a low surrogate alone"),
        ([0xD800, 0xDBFF, 0xDFFF], "two high surrogates, the second paired"),
        ([0x0041, b"\x42"], "an odd byte at the end of the message"),
    ],
    "utf-32": [
        ([0x110000], "U+110000, above U+10FFFF"),
        ([0xD800], "the surrogate U+D800"),
        ([0x0041, b"\x42\x00"], "two bytes of a unit at the end of the message"),
    ],
    # Latin-1 decodes every byte.
    "latin-1": [],
    "ascii": [
        ([0xE9], "'\u00e9' in Latin-1: a byte from 80 up"),
        ([0xC3, 0xA9], "'\u00e9' in UTF-8: two bytes from 80 up"),
    ],
}


def sample_text():
    """The sample's text, nine lines in nine scripts."""
    return SAMPLE_TEXT_PATH.read_text(encoding="utf-8")


def _body_codec(source):
    """The codec that writes ``source``'s units without a mark, in the byte order ``source``
    reads (little-endian for ``utf-16`` and ``utf-32``, which read a message without a mark
    so)."""
    codec = CODECS[source]
    return plain_codec(codec.form, "big" if codec.byteorder == "big" else "little")


def _units(source, units):
    codec = CODECS[source]
    order = "big" if codec.byteorder == "big" else "little"
    return b"".join(unit if isinstance(unit, bytes) else unit.to_bytes(codec.unit_bytes, order)
                    for unit in units)


def sample_messages(source):
    """The sample for codec ``source`` as a list of ``(message, description)``: first the text
    (with a leading mark where ``source`` strips one, and ``?`` for each character Latin-1 or
    ASCII cannot hold), then each of :data:`MALFORMED`'s
    sequences for its form as a message of its own, ``[``, the sequence, ``]`` (the last without
    ``]``, so that the end of the message cuts it short)."""
    body = _body_codec(source)
    mark = "\ufeff".encode(body) if CODECS[source].mark else b""
    messages = [(mark + sample_text().encode(body, "replace"), "text in nine scripts")]
    sequences = MALFORMED[CODECS[source].form.name]
    for index, (units, description) in enumerate(sequences):
        closing = "" if index == len(sequences) - 1 else "]"
        messages.append(("[".encode(body) + _units(source, units) + closing.encode(body),
                         description))
    return messages
