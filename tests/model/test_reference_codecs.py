"""The reference model for every codec and every pair, against CPython."""

import itertools

import pytest
from hypothesis import given, strategies as st

from utfhw.model.reference import CODECS, decode, encode, transcode, error_reason, decode_items
from utfhw.hdl.forms import CODECS as CODECS_TABLE
from utfhw.hdl.unicode.params import DECODING_HANDLERS, ENCODING_HANDLERS

from conftest import FULL_SWEEP
from support import SWEPT_CODECS, byte_soup


SCALAR_VALUES = [*range(0xD800), *range(0xE000, 0x110000)]
UNIT_CODECS = [codec for codec in CODECS if codec.startswith(("utf-16", "utf-32"))]


def error_fields(error):
    return (error.encoding, error.object, error.start, error.end, error.reason)


def cpython_outcome(data, source):
    try:
        return data.decode(source)
    except UnicodeDecodeError as error:
        return error_fields(error)


def model_outcome(data, source):
    try:
        return "".join(map(chr, decode(data, source, "strict")))
    except UnicodeDecodeError as error:
        return error_fields(error)


def check_decode(data, source, handlers=("replace", "ignore")):
    for errors in handlers:
        assert outcome(lambda: decode(data, source, errors)) == \
            outcome(lambda: [ord(c) for c in data.decode(source, errors)]), \
            (source, errors, data.hex())
    assert model_outcome(data, source) == cpython_outcome(data, source), (source, data.hex())


def outcome(transcode_with):
    """What a transcoding gives: its bytes, or its exception's class and fields."""
    try:
        return transcode_with()
    except (UnicodeDecodeError, UnicodeEncodeError) as error:
        return type(error), *error_fields(error)


@pytest.mark.parametrize("target", SWEPT_CODECS)
def test_every_scalar_value_encodes(target):
    for errors in ("replace", "ignore"):
        assert encode(SCALAR_VALUES, target, errors) == \
            "".join(map(chr, SCALAR_VALUES)).encode(target, errors)
    last = CODECS_TABLE[target].form.last_code_point
    held = [value for value in SCALAR_VALUES if value <= last]
    assert encode(held, target, "strict") == "".join(map(chr, held)).encode(target)


@pytest.mark.parametrize("target", ["latin-1", "ascii"])
@pytest.mark.parametrize("text", ["\u20ac", "a\u20ac\xe9\U0001F600b", "\x7f\x80\xff\u0100",
                                  "ab\u0394"])
def test_encoding_what_a_target_cannot_hold_raises_as_cpython(target, text):
    with pytest.raises(UnicodeEncodeError) as expected:
        text.encode(target)
    with pytest.raises(UnicodeEncodeError) as got:
        encode(list(map(ord, text)), target, "strict")
    fields = ("encoding", "object", "start", "end", "reason")
    assert [getattr(got.value, name) for name in fields] == \
        [getattr(expected.value, name) for name in fields]


# Text whose characters each target writes, cannot write, or writes only with some handlers.
ENCODED_TEXTS = ["", "a", "\ud800", "\udc80", "\udcff\udc80", "a\udc41b", "\ud83d\ude00",
                 "\U0001F600", "\xe9\u20ac", "\x7f\x80\xff\u0100\ud800\udc80x",
                 "\udc80\u0100\udcff", "\ufffd", "\ud800\U0001F600\udfff", "\U0010ffff\x00"]


@pytest.mark.parametrize("target", CODECS)
@pytest.mark.parametrize("errors", ENCODING_HANDLERS)
def test_every_handler_encodes_as_cpython(target, errors):
    for text in ENCODED_TEXTS:
        assert outcome(lambda: encode(list(map(ord, text)), target, errors)) == \
            outcome(lambda: text.encode(target, errors)), text


@pytest.mark.parametrize("target", CODECS)
def test_empty_input_encodes(target):
    assert encode([], target) == "".encode(target)


@pytest.mark.parametrize("source", SWEPT_CODECS)
def test_every_scalar_value_decodes(source):
    held = [value for value in SCALAR_VALUES
            if value <= CODECS_TABLE[source].form.last_code_point]
    text = "".join(map(chr, held))
    assert decode(text.encode(source), source, "strict") == held


@pytest.mark.parametrize("source", SWEPT_CODECS)
def test_every_short_input(source):
    for length in (0, 1, 2):
        for combination in itertools.product(range(256), repeat=length):
            check_decode(bytes(combination), source)


@pytest.mark.parametrize("source", SWEPT_CODECS)
@pytest.mark.parametrize("errors", ["backslashreplace", "surrogateescape", "surrogatepass"])
def test_every_short_input_with_the_other_handlers(source, errors):
    # Every input of one or two bytes, and of three where a surrogate fits (UTF-8's ED xx xx).
    inputs = [bytes(combination) for length in (1, 2)
              for combination in itertools.product(range(256), repeat=length)]
    inputs += [bytes((0xED, second, third)) for second in range(0x80, 0xC0, 7)
               for third in range(0x70, 0xC0, 5)]
    for data in inputs:
        check_decode(data, source, (errors,))


@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be", "utf-16"] if FULL_SWEEP
                         else ["utf-16-be"])
def test_every_16_bit_unit_alone_and_before_a_surrogate(source):
    order = "big" if source.endswith("be") else "little"
    for unit in range(0x10000):
        data = unit.to_bytes(2, order)
        check_decode(data, source)
        for follower in (0xD800, 0xDBFF, 0xDC00, 0xDFFF):
            check_decode(data + follower.to_bytes(2, order), source)
        check_decode(data + b"\x41", source)


@pytest.mark.parametrize("source", ["utf-16-le", "utf-16-be"] if FULL_SWEEP else ["utf-16-le"])
def test_every_surrogate_pair(source):
    order = "big" if source.endswith("be") else "little"
    data = b"".join(high.to_bytes(2, order) + low.to_bytes(2, order)
                    for high in range(0xD800, 0xDC00) for low in range(0xDC00, 0xE000))
    assert decode(data, source, "strict") == [ord(c) for c in data.decode(source)]


@pytest.mark.parametrize("source", ["utf-32-le", "utf-32-be"])
def test_utf32_units_around_the_edges(source):
    order = "big" if source.endswith("be") else "little"
    units = [*range(0xD7F0, 0xE010), *range(0x10FFF0, 0x110010), 0x7FFFFFFF, 0x80000000,
             0xFFFFFFFF, 0x00FFFFFF, 0x01000000]
    for unit in units:
        check_decode(unit.to_bytes(4, order), source, DECODING_HANDLERS)
        check_decode(unit.to_bytes(4, order) + b"\x41\x00", source, DECODING_HANDLERS)
        # A handler that goes on within the unit puts the next one out of step.
        check_decode(unit.to_bytes(4, order) + (0x41).to_bytes(4, order), source,
                     DECODING_HANDLERS)


BOM_CASES = ["", "FFFE", "FEFF", "FFFE FFFE", "FEFF FEFF", "FFFE 4100", "FEFF 0041", "FFFE 41",
             "FF", "FFFE0000", "0000FEFF", "FFFE0000 FFFE0000", "0000FEFF 00000041", "FFFE00",
             "EFBBBF", "EFBBBF EFBBBF", "EFBB", "EF", "EFBBBF 41", "80 EFBBBF", "41 EFBBBF",
             # An error right after a mark: CPython's positions and codec name depend on it.
             "EFBBBF FF", "EFBBBF E282", "EFBBBF 41 C0", "FFFE 00D8", "FEFF D800 41",
             "FFFE0000 00D80000", "0000FEFF 0000D800", "0000FEFF 41", "FEFF 41"]


@pytest.mark.parametrize("source", CODECS)
@pytest.mark.parametrize("case", BOM_CASES)
def test_byte_order_marks(source, case):
    check_decode(bytes.fromhex(case), source, DECODING_HANDLERS)


def _unit_fragment(width):
    values = [0x41, 0xE9, 0xFEFF, 0xFFFE, 0xFFFD, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x10FFFF,
              0x110000, 0xFFFFFFFF, 0x1F600]
    orders = st.sampled_from(["little", "big"])
    unit = st.builds(lambda value, order: (value % (1 << 8 * width)).to_bytes(width, order),
                     st.one_of(st.sampled_from(values), st.integers(0, (1 << 8 * width) - 1)),
                     orders)
    return st.one_of(unit, st.binary(min_size=1, max_size=3))


def unit_soup(width):
    return st.lists(_unit_fragment(width), max_size=16).map(b"".join)


@given(data=st.one_of(byte_soup(), unit_soup(2), unit_soup(4)), source=st.sampled_from(CODECS))
def test_soup_decodes(data, source):
    check_decode(data, source)


@given(data=st.one_of(byte_soup(), unit_soup(2), unit_soup(4)), source=st.sampled_from(CODECS),
       target=st.sampled_from(CODECS), errors=st.sampled_from(["replace", "ignore"]))
def test_every_pair(data, source, target, errors):
    assert transcode(data, source, target, errors=errors) == \
        data.decode(source, errors).encode(target, errors)


@given(data=st.one_of(byte_soup(), unit_soup(2), unit_soup(4)), source=st.sampled_from(CODECS),
       target=st.sampled_from(CODECS), decoding=st.sampled_from(DECODING_HANDLERS),
       encoding=st.sampled_from(ENCODING_HANDLERS))
def test_every_pair_of_handlers(data, source, target, decoding, encoding):
    assert outcome(lambda: transcode(data, source, target, errors=(decoding, encoding))) == \
        outcome(lambda: data.decode(source, decoding).encode(target, encoding))


@pytest.mark.parametrize("errors", DECODING_HANDLERS)
def test_one_handler_is_both_sides(errors):
    # U+FFFD, an escape or a surrogate from decoding, then the same handler encoding it.
    for data in (b"a\xffb", b"\xed\xa0\x80\xc3\xa9", b"\xf0\x9f\x98\x80\x80"):
        for target in ("latin-1", "ascii", "utf-16-le", "utf-8"):
            assert outcome(lambda: transcode(data, "utf-8", target, errors=errors)) == \
                outcome(lambda: data.decode("utf-8", errors).encode(target, errors))


@given(data=st.one_of(byte_soup(min_size=1), unit_soup(2), unit_soup(4)),
       source=st.sampled_from(CODECS))
def test_items_account_for_every_byte(data, source):
    items = decode_items(data, source)
    if not items:
        return
    # Items tile the input, except a stripped byte order mark at its start.
    assert [item.start for item in items[1:]] == [item.end for item in items[:-1]]
    assert items[-1].end == len(data)
    assert items[0].start in (0, 2, 3, 4)
    assert [item.beat for item in items] == sorted(item.beat for item in items)


def test_reasons():
    assert error_reason(6, "utf-32-le") == cpython_outcome(b"\x00\xd8\x00\x00", "utf-32-le")[-1]
    assert error_reason(6, "utf-16-le") == cpython_outcome(b"\x00\xdc", "utf-16-le")[-1]
