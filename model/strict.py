"""CPython's ``errors="strict"`` from the hardware: where the first error of a message lies,
read from a ``"replace"`` core's output beats."""

from ..hdl.unicode.layout import BYTE_ORDER_MARK, REPLACEMENT_CHARACTER, ErrorKind
from ..hdl.forms import CODECS
from ..hdl.scalar.escape import ESCAPES
from ..hdl.unicode.params import handler_pair
from .reference import (Item, decode, decode_error, decode_items, encode_error,
                        following_ranges, target_units)


__all__ = ["strict_error", "first_error_span", "first_wide_error_span",
           "first_escaped_error_span", "first_encode_error_span", "error_end", "mark_bytes",
           "source_length"]


# Kinds that are no decoding error: data, and a character the target cannot hold.
_NOT_DECODING = (ErrorKind.NONE, ErrorKind.UNENCODABLE_CHARACTER)


def strict_error(beats, data, source, target, *, errors="strict", wide=False):
    """The exception CPython's strict raises for one message, from the output beats of the
    core that serves ``errors`` (a wide core's with ``wide``), or ``None``.

    ``errors`` is ``"strict"`` or a Transcoder's ``(decoding, encoding)`` pair of handlers
    with ``"strict"`` on a side, whose core runs ``"replace"`` there. Strict decoding raises
    the first decoding error's :exc:`UnicodeDecodeError`; strict encoding the first run of
    characters the target cannot hold as :exc:`UnicodeEncodeError`, its positions counted in
    the characters decoding gave.
    """
    decoding, encoding = handler_pair(errors)
    if decoding == "strict":
        if wide:
            span = first_wide_error_span(beats, data, target, source)
        elif encoding in ESCAPES and not CODECS[target].form.holds_every_code_point:
            span = first_escaped_error_span(beats, data, source)
        else:
            span = first_error_span(beats, data, source, target)
        if span is not None:
            return decode_error(data, source, span)
    if encoding == "strict" and not CODECS[target].form.holds_every_code_point:
        characters = first_encode_error_span(beats)
        if characters is not None:
            return encode_error(decode(data, source, decoding), target, *characters)
    return None


def first_error_span(beats, data, source, target):
    """The first error in the ``"replace"`` output beats of one message, as an
    :class:`~utfhw.model.reference.Item` whose ``start`` and ``end`` are CPython's, or ``None``.

    Every pipeline emits exactly one output beat per input beat, so the beat an error comes out
    on is the input unit that decided it; its kind says how far back the ill-formed part began.
    For UTF-8, a byte whose beat carries no item is one a pending sequence took in, so before the
    first error the bytes after the last beat that carried items are the pending sequence.
    """
    form, width = CODECS[source].form.name, CODECS[source].unit_bytes
    mark_units = len(target_units(BYTE_ORDER_MARK, target)) if CODECS[target].mark else 0
    # A leading EF BB BF that utf-8-sig strips is taken in without an item of its own.
    sequence_start = 3 if source == "utf-8-sig" and data.startswith(b"\xef\xbb\xbf") else 0
    for index, (units, _) in enumerate(beats):
        if index == 0:
            units = units[mark_units:]
        for _, error in units:
            if error in _NOT_DECODING:
                continue
            def span(start, end):
                return Item(REPLACEMENT_CHARACTER, error, start, end, index)
            if form == "utf-8":
                if error == ErrorKind.INVALID_START_BYTE:
                    return span(index, index + 1)
                if error == ErrorKind.INVALID_CONTINUATION_BYTE:
                    return span(sequence_start, index)
                return span(sequence_start, index + 1)            # UNEXPECTED_END_OF_DATA
            start = width * index
            if error == ErrorKind.UNPAIRED_HIGH_SURROGATE:
                return span(start - 2, start)
            if error == ErrorKind.UNEXPECTED_END_OF_DATA and len(data) % 2:
                return span(start - 2, len(data))                 # high surrogate, odd byte
            return span(start, min(start + width, len(data)))
        if units:
            sequence_start = index + 1
    return None


def first_wide_error_span(beats, data, target, source="utf-8"):
    """:func:`first_error_span` for the output beats of a wide core, whose beats do not follow
    the input's.

    The units before the first error are the characters before it, so their length in the
    source is where the error starts; its end follows from its kind (:func:`error_end`).
    """
    good = bytearray()
    unit_bytes = CODECS[target].unit_bytes
    for units, _ in beats:
        for unit, error in units:
            if error in _NOT_DECODING:
                good += unit.to_bytes(unit_bytes, "little")
                continue
            if not CODECS[target].form.holds_every_code_point:
                # A one-byte form's unit is a character, but maybe a ``?`` for another one:
                # the source's own characters say where the error starts.
                start = _character_start(data, source, len(good))
            else:
                characters = good.decode(target, "surrogatepass")
                start = mark_bytes(data, source) + source_length(characters, source)
            return Item(REPLACEMENT_CHARACTER, error, start,
                        error_end(error, start, data[start:], source), None)
    return None


def first_escaped_error_span(beats, data, source):
    """:func:`first_error_span` for the output beats of a Transcoder that escapes what a
    one-byte target cannot hold, whose beats do not follow the input's.

    Before the first decoding error each character is a unit of its own, or an escape whose
    units carry ``UNENCODABLE_CHARACTER`` and whose first unit alone is a backslash or an
    ampersand: their count says where in the source the error starts.
    """
    count = 0
    for units, _ in beats:
        for unit, error in units:
            if error == ErrorKind.NONE or (error == ErrorKind.UNENCODABLE_CHARACTER
                                           and unit in _ESCAPE_STARTS):
                count += 1
            elif error != ErrorKind.UNENCODABLE_CHARACTER:
                start = _character_start(data, source, count)
                return Item(REPLACEMENT_CHARACTER, error, start,
                            error_end(error, start, data[start:], source), None)
    return None


# The first character of each escape: ``\xNN``, ``\uNNNN``, ``\UNNNNNNNN`` and ``&#N;``.
_ESCAPE_STARTS = (ord("\\"), ord("&"))


def _character_start(data, source, count):
    """Where the character after the first ``count`` well-formed ones of ``data`` starts."""
    items = decode_items(data, source)
    return items[count].start if count < len(items) else len(data)


def first_encode_error_span(beats):
    """The first run of characters a one-byte target cannot hold, in the output beats of one
    message without a decoding error that strict raises, from a core that replaces on
    encoding, as ``(start, end)`` in characters (each unit of a one-byte form is one), or
    ``None``: where CPython's ``UnicodeEncodeError`` lies. Each unit with an error kind is
    one: a character the target cannot hold, or the U+FFFD that replaced a decoding error,
    which it cannot hold either."""
    kinds = [error for units, _ in beats for _, error in units]
    errors = [kind != ErrorKind.NONE for kind in kinds]
    if True not in errors:
        return None
    start = end = errors.index(True)
    while end < len(errors) and errors[end]:
        end += 1
    return start, end


def source_length(characters, source):
    """The bytes ``characters`` (a :class:`str`, surrogates allowed) take in ``source``'s form,
    without a byte order mark."""
    form = CODECS[source].form.name
    if form == "utf-32":
        return 4 * len(characters)
    return len(characters.encode(f"{form}-le" if form == "utf-16" else form, "surrogatepass"))


def error_end(error, start, following, source):
    """Where CPython's strict error of kind ``error`` that starts at byte ``start`` of a message
    in ``source`` ends. ``following`` holds the message's bytes from ``start`` on: all of them
    (the whole rest of the message may be needed for an error at its end), or at least four.

    From UTF-32 the error is that one unit, or the 1 to 3 bytes that end the message; from
    UTF-16 that one unit, or the rest of the message for a high surrogate at its end or an odd
    final byte. From UTF-8 it is one byte for an invalid byte, the rest of the message for an
    unfinished sequence, and for a truncated one the bytes its lead byte accepted before the
    byte that cut it short (Table 3-7).
    """
    form = CODECS[source].form.name
    if form in ("latin-1", "ascii"):
        return start + 1
    if form == "utf-32":
        return start + min(4, len(following))
    if form == "utf-16":
        at_end = error in (ErrorKind.UNEXPECTED_END_OF_DATA, ErrorKind.TRUNCATED_DATA)
        return start + (len(following) if at_end else 2)
    if error == ErrorKind.INVALID_START_BYTE:
        return start + 1
    if error == ErrorKind.UNEXPECTED_END_OF_DATA:
        return start + len(following)
    end = 1
    for low, high in following_ranges(following[0]):
        if not low <= following[end] <= high:
            break
        end += 1
    return start + end


def mark_bytes(data, source):
    """The bytes of the byte order mark the codec ``source`` takes from the start of ``data``
    (CPython's ``utf-8-sig``, ``utf-16`` and ``utf-32``), else 0."""
    marks = {"utf-8-sig": [b"\xef\xbb\xbf"], "utf-16": [b"\xff\xfe", b"\xfe\xff"],
             "utf-32": [b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"]}
    return next((len(mark) for mark in marks.get(source, []) if data.startswith(mark)), 0)
