"""Each form's one description (hdl/forms), checked against CPython and the reference model:
its codecs, unit, mark, code point sizes and the error kinds it raises."""

import codecs

import pytest

from utfhw.bench.sample import sample_messages
from utfhw.bench.stimulus import stress_input
from utfhw.hdl.forms import CODECS, FORMS, canonical_codec, plain_codec
from utfhw.hdl.unicode.form import Form
from utfhw.hdl.unicode.layout import ErrorKind
from utfhw.model.reference import decode_items


#: Code points at the edges of each run of lengths, below the surrogates and above them.
CODE_POINTS = [0x00, 0x41, 0x7F, 0x80, 0xFF, 0x100, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF,
               0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF]


def test_the_codec_table_is_built_from_the_forms():
    assert all(isinstance(form, Form) for form in FORMS.values())
    assert list(CODECS) == [name for form in FORMS.values() for name, _, _ in form.codecs]
    for name, codec in CODECS.items():
        # CPython's name, but for latin-1, whose CPython's name is iso8859-1.
        assert canonical_codec("codec", codecs.lookup(name).name) == name
        assert codec.name == name and codec.form is FORMS[codec.form.name]


@pytest.mark.parametrize("name", FORMS)
def test_unit_mark_and_code_point_bytes(name):
    form = FORMS[name]
    codec = plain_codec(form)
    assert len("A".encode(codec)) == form.unit_bytes
    mark = b"".join(unit.to_bytes(form.unit_bytes, "little") for unit in form.mark)
    if form.holds_every_code_point:
        assert mark == "\ufeff".encode(codec)
    else:
        assert mark == b""
    assert form.mark_units == len(form.mark)
    assert form.has_byteorder == (form.unit_bytes > 1)
    for code_point in CODE_POINTS:
        assert form.code_point_bytes(code_point) == \
            len(chr(code_point).encode(codec, "replace")), hex(code_point)
    assert form.most_units * form.unit_bytes == max(
        len(chr(code_point).encode(codec, "replace")) for code_point in CODE_POINTS)


@pytest.mark.parametrize("name", FORMS)
def test_last_code_point_and_unencodable_reason(name):
    """CPython's codec of the form encodes its last code point and no code point after it,
    with the reason the description gives."""
    form = FORMS[name]
    codec = plain_codec(form)
    chr(form.last_code_point).encode(codec)
    if form.holds_every_code_point:
        assert form.last_code_point == 0x10FFFF and form.unencodable_reason is None
        return
    with pytest.raises(UnicodeEncodeError) as raised:
        chr(form.last_code_point + 1).encode(codec)
    assert raised.value.reason == form.unencodable_reason


@pytest.mark.parametrize("source", CODECS)
def test_error_kinds_are_those_the_reference_model_raises(source):
    """The kinds a form's description lists are exactly those the reference model (written
    apart from the gateware) gives its codecs' stress input, cut anywhere, and the demo's
    malformed messages."""
    data = stress_input(source, 20000, seed=3)
    messages = [data[cut:cut + 97] for cut in range(0, len(data), 97)]
    messages += [message for message, _ in sample_messages(source)]
    raised = set()
    for message in messages:
        raised.update(item.error for item in decode_items(message, source))
    raised.discard(ErrorKind.NONE)
    assert raised == set(CODECS[source].form.error_kinds)


@pytest.mark.parametrize("name,error", [("utf-8", b"\x80"), ("utf-16", b"\x00\xdc"),
                                        ("utf-32", b"\x00\xd8\x00\x00")])
def test_shortest_error(name, error):
    """CPython replaces an error of ``shortest_error`` bytes away from a message's end."""
    form = FORMS[name]
    codec = plain_codec(form)
    assert len(error) == form.shortest_error
    with pytest.raises(UnicodeDecodeError) as raised:
        (error + "A".encode(codec)).decode(codec)
    assert (raised.value.start, raised.value.end) == (0, form.shortest_error)


@pytest.mark.parametrize("source", CODECS)
def test_error_reasons_are_cpythons(source):
    """The reason a form's description gives each kind is CPython's: for each message whose
    first error the reference model gives that kind, CPython's strict decoding raises that
    reason."""
    data = stress_input(source, 20000, seed=5)
    messages = [data[cut:cut + 61] for cut in range(0, len(data), 61)]
    messages += [message for message, _ in sample_messages(source)]
    reasons = CODECS[source].form.error_kinds
    seen = set()
    for message in messages:
        errors = [item.error for item in decode_items(message, source)
                  if item.error != ErrorKind.NONE]
        if not errors:
            continue
        with pytest.raises(UnicodeDecodeError) as raised:
            message.decode(source)
        assert raised.value.reason == reasons[errors[0]], message
        seen.add(errors[0])
    assert seen == set(reasons)


def test_the_docs_name_the_error_kinds_as_the_enum_and_the_forms_do():
    """docs/cores.md's table of error kinds, to which the README and docs/verilog.md point,
    says the enum's names and values, and each form's reasons for each kind."""
    import re
    from conftest import REPOSITORY as repository
    table = re.findall(r"^\| (\d+) \| `([A-Z_]+)` \| ([^|]+) \|",
                       (repository / "docs" / "cores.md").read_text(), re.M)
    assert [(int(value), name) for value, name, _ in table] == \
        [(kind.value, kind.name) for kind in ErrorKind]
    for value, _, reasons in table:
        for form in FORMS.values():
            if ErrorKind(int(value)) in form.error_kinds:
                assert form.error_kinds[ErrorKind(int(value))] in reasons
            if ErrorKind(int(value)) == ErrorKind.UNENCODABLE_CHARACTER \
                    and form.unencodable_reason:
                assert form.unencodable_reason in reasons
