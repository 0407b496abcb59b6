"""The reference model against CPython's codecs, exhaustively where feasible."""

import itertools
import re
import multiprocessing
import os

import pytest
from hypothesis import given

from conftest import FULL_SWEEP
from utfhw.hdl.unicode.layout import ErrorKind
from utfhw.model import reference
from utfhw.model.reference import decode_utf8, encode, encode_utf16, transcode, utf8_items

from support import byte_soup, cpython_error


SCALAR_VALUES = [*range(0xD800), *range(0xE000, 0x110000)]


def model_error(data):
    try:
        decode_utf8(data, "strict")
    except UnicodeDecodeError as error:
        assert error.encoding == "utf-8" and error.object == data
        return error.start, error.end, error.reason
    return None


def check_against_cpython(data):
    for errors in ("replace", "ignore"):
        text = data.decode("utf-8", errors)
        assert decode_utf8(data, errors) == [ord(char) for char in text], (data.hex(), errors)
        for target in ("utf-16-le", "utf-16-be"):
            assert transcode(data, "utf-8", target, errors=errors) == text.encode(target)
    assert model_error(data) == cpython_error(data), data.hex()


def test_every_scalar_value_decodes():
    text = "".join(map(chr, SCALAR_VALUES))
    assert decode_utf8(text.encode("utf-8"), "strict") == SCALAR_VALUES


@pytest.mark.parametrize("byteorder,codec", [("little", "utf-16-le"), ("big", "utf-16-be")])
def test_every_scalar_value_encodes(byteorder, codec):
    assert encode_utf16(SCALAR_VALUES, byteorder) == "".join(map(chr, SCALAR_VALUES)).encode(codec)


def test_every_one_and_two_byte_input():
    for length in (1, 2):
        for combination in itertools.product(range(256), repeat=length):
            check_against_cpython(bytes(combination))


def _check_three_byte_inputs(first):
    failures = []
    for second, third in itertools.product(range(256), repeat=2):
        data = bytes((first, second, third))
        for errors in ("replace", "ignore"):
            if transcode(data, errors=errors) != data.decode("utf-8", errors).encode("utf-16-le"):
                failures.append((data.hex(), errors))
        if model_error(data) != cpython_error(data):
            failures.append((data.hex(), "strict"))
    return failures


# A first byte of every class of Table 3-7 (the lead bytes whose second byte has its own range
# alone), and both ends of two-byte leads; `UTFHW_SWEEP=full` takes all.
BOUNDED_FIRST_BYTES = [0x00, 0x80, 0xC0, 0xC2, 0xDF, 0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4,
                       0xF5]


@pytest.mark.slow
def test_every_three_byte_input(tally):
    full = FULL_SWEEP
    first_bytes = range(256) if full else BOUNDED_FIRST_BYTES
    tally("three-byte inputs", len(first_bytes) << 16)
    with multiprocessing.Pool(os.cpu_count() or 1) as pool:
        failures = [failure for chunk in pool.map(_check_three_byte_inputs, first_bytes)
                    for failure in chunk]
    assert failures == []


@given(byte_soup())
def test_byte_soup(data):
    check_against_cpython(data)


@given(byte_soup(min_size=1))
def test_items_account_for_every_byte(data):
    items = utf8_items(data)
    assert [item.start for item in items] == [0] + [item.end for item in items[:-1]]
    assert items[-1].end == len(data)
    for item in items:
        # The beat that carries an item is that of the byte that decides it: its last byte,
        # or the byte after it when that byte cuts it short.
        expected_beat = item.end if item.error == ErrorKind.INVALID_CONTINUATION_BYTE else item.end - 1
        assert item.beat == expected_beat


def test_error_reasons_are_cpythons():
    for data, kind in [(b"\x80", ErrorKind.INVALID_START_BYTE), (b"\xe2\x28", ErrorKind.INVALID_CONTINUATION_BYTE),
                       (b"\xe2\x82", ErrorKind.UNEXPECTED_END_OF_DATA)]:
        assert utf8_items(data)[0].error == kind
        assert reference.error_reason(kind, "utf-8") == cpython_error(data)[2]


@pytest.mark.parametrize("call,message", [
    (lambda: decode_utf8(b"", "xmlcharrefreplace"),
     "errors must be 'replace', 'ignore', 'strict', 'backslashreplace', 'surrogateescape' or "
     "'surrogatepass', not 'xmlcharrefreplace'"),
    (lambda: transcode(b"", "cp1252", "utf-16-le"),
     "source codec must be 'utf-8', 'utf-8-sig', 'utf-16', 'utf-16-le', 'utf-16-be', 'utf-32', "
     "'utf-32-le', 'utf-32-be', 'latin-1', 'ascii' or another of CPython's names for them, "
     "not 'cp1252'"),
    (lambda: transcode(b"", "utf-8", "utf-7"),
     "target codec must be 'utf-8', 'utf-8-sig', 'utf-16', 'utf-16-le', 'utf-16-be', 'utf-32', "
     "'utf-32-le', 'utf-32-be', 'latin-1', 'ascii' or another of CPython's names for them, "
     "not 'utf-7'"),
    (lambda: encode([0xE9], "ascii", "namereplace"),
     "errors must be 'replace', 'ignore', 'strict', 'backslashreplace', 'surrogateescape', "
     "'surrogatepass' or 'xmlcharrefreplace', not 'namereplace'"),
    (lambda: transcode(b"", "utf-8", "ascii", errors=["replace", "ignore"]),
     "errors must be a handler's name or a (decoding, encoding) pair of them, not "
     "['replace', 'ignore']"),
    (lambda: transcode(b"", "utf-8", "ascii", errors=("replace", "ignore", "strict")),
     "errors must be a handler's name or a (decoding, encoding) pair of them, not "
     "('replace', 'ignore', 'strict')"),
    (lambda: transcode(b"", "utf-8", "ascii", errors="xmlcharrefreplace"),
     "errors for decoding must be 'replace', 'ignore', 'strict', 'backslashreplace', "
     "'surrogateescape' or 'surrogatepass', not 'xmlcharrefreplace' (CPython: don't know how "
     "to handle UnicodeDecodeError in error callback)"),
    (lambda: transcode(b"", "utf-8", "ascii", errors=("namereplace", "replace")),
     "errors for decoding must be 'replace', 'ignore', 'strict', 'backslashreplace', "
     "'surrogateescape' or 'surrogatepass', not 'namereplace' (CPython: don't know how "
     "to handle UnicodeDecodeError in error callback)"),
    (lambda: transcode(b"", "utf-8", "ascii", errors=("replace", "namereplace")),
     "errors for encoding must be 'replace', 'ignore', 'strict', 'backslashreplace', "
     "'surrogateescape', 'surrogatepass' or 'xmlcharrefreplace', not 'namereplace' (it needs "
     "the Unicode character name table, which utfhw does not carry)"),
    (lambda: transcode(b"", "utf-8", "ascii", errors=("replace", 3)),
     "errors for encoding must be 'replace', 'ignore', 'strict', 'backslashreplace', "
     "'surrogateescape', 'surrogatepass' or 'xmlcharrefreplace', not 3"),
])
def test_model_argument_errors(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


@pytest.mark.parametrize("errors", ["xmlcharrefreplace", "namereplace"])
def test_a_handler_refused_for_decoding_is_one_cpython_refuses(errors):
    with pytest.raises(TypeError) as refused:
        b"\xff".decode("utf-8", errors)
    with pytest.raises(ValueError, match=re.escape(f"(CPython: {refused.value})")):
        transcode(b"\xff", "utf-8", "ascii", errors=(errors, "replace"))
