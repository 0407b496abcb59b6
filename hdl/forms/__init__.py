"""The encoding forms, each described once in a folder of its own, and CPython's codecs of them.

Each folder holds a form's gateware (``scalar``: its decoder and encoder; ``wide``: its wide
stages; ``front``: how a wide core joins them) and, in its ``__init__``, its
:class:`~utfhw.hdl.unicode.form.Form`: the unit, byte orders and mark, CPython's codecs of it,
the stages, its expansion to each other form and the error kinds it raises. Everything that
chooses by form reads that description through :data:`FORMS` and :data:`CODECS`; nothing else
tests a form or a codec by its name.
"""

import codecs
from dataclasses import dataclass

from ..scalar.escape import ESCAPES, escape_length
from ..unicode.form import Form
from ..unicode.params import handler_pair
from ..unicode.layout import REPLACEMENT_CHARACTER
from .ascii import ASCII
from .latin1 import LATIN1
from .utf8 import UTF8
from .utf16 import UTF16
from .utf32 import UTF32


__all__ = ["Form", "FORMS", "Codec", "CODECS", "ENCODER_LANES", "canonical_codec",
           "canonical_pair", "expansion", "plain_codec"]


#: The forms, by name.
FORMS = {form.name: form for form in (UTF8, UTF16, UTF32, LATIN1, ASCII)}


@dataclass(frozen=True)
class Codec:
    """What one of CPython's codecs means to the hardware.

    Attributes
    ----------
    name : :class:`str`
        CPython's name, e.g. ``"utf-16-be"``.
    form : :class:`~utfhw.hdl.unicode.form.Form`
        Its encoding form.
    byteorder : :class:`str` or None
        ``None`` for a form of one-byte units; ``"little"`` or ``"big"``; ``"detect"`` for
        ``utf-16`` and ``utf-32``, which as a source read it from a leading byte order mark
        (little-endian without one) and as a target write little-endian.
    mark : :class:`bool`
        Whether the codec strips one leading byte order mark as a source and writes one as a
        target.
    """
    name: str
    form: Form
    byteorder: object
    mark: bool

    @property
    def unit_bytes(self):
        """Bytes of the form's code unit."""
        return self.form.unit_bytes

    @property
    def target_byteorder(self):
        """The byte order the codec writes as a target (``None`` for a form of one-byte
        units)."""
        return "little" if self.byteorder == "detect" else self.byteorder


#: CPython's names of the codecs utfhw covers, each with its :class:`Codec`, form by form.
CODECS = {name: Codec(name, form, byteorder, mark)
          for form in FORMS.values() for name, byteorder, mark in form.codecs}

# Each codec by the name :func:`codecs.lookup` gives it (``iso8859-1`` for ``latin-1``).
_LOOKUP_NAMES = {codecs.lookup(name).name: name for name in CODECS}

#: Each form's name with the lane layout its scalar encoder emits.
ENCODER_LANES = {name: form.encoder_lanes for name, form in FORMS.items()}


# The last code point of each run in which every form's code points have the same length:
# below U+0080, U+0800, U+10000 and U+110000.
_LENGTH_RUN_ENDS = (0x7F, 0x7FF, 0xFFFF, 0x10FFFF)


def expansion(source, target, errors="replace"):
    """The most output bytes one input byte can give, over long input, from codec ``source``
    to codec ``target``: the most any code point grows by (an ASCII byte of UTF-8 is two bytes
    of UTF-16), or with ``"replace"`` decoding the most a replaced error does (an invalid byte
    of UTF-8 is U+FFFD's three bytes), from the two forms' descriptions. ``errors`` is one
    handler or a ``(decoding, encoding)`` pair; with an escape on encoding, a character the
    target cannot hold is its escape (:func:`~utfhw.hdl.scalar.escape.escape_length`), which
    is longest at the end of each run of code points of one length."""
    decoding, encoding = handler_pair(errors)
    source, target = CODECS[source].form, CODECS[target].form

    def written(code_point):
        if (encoding in ESCAPES and not target.holds_every_code_point
                and code_point > target.last_code_point):
            return escape_length(encoding, code_point) * target.code_point_bytes(ord("\\"))
        return target.code_point_bytes(code_point)
    ends = sorted({min(end, source.last_code_point) for end in _LENGTH_RUN_ENDS})
    ratios = [written(code_point) / source.code_point_bytes(code_point) for code_point in ends]
    if decoding == "replace" and source.shortest_error is not None:
        ratios.append(written(REPLACEMENT_CHARACTER) / source.shortest_error)
    return max(ratios)


def plain_codec(form, byteorder="little"):
    """The name of ``form``'s codec that reads and writes no mark, in ``byteorder`` (any, for
    a form of one-byte units): ``utf-8``, ``utf-16-le``, ``utf-32-be``."""
    return next(codec.name for codec in CODECS.values()
                if codec.form is form and not codec.mark
                and codec.byteorder in (None, byteorder))


def canonical_codec(name, codec):
    """utfhw's name for ``codec`` if it is one of :data:`CODECS` or a name CPython's
    :func:`codecs.lookup` takes for one of them (``utf8``, ``UTF-8``, ``U8``, ``utf_16_le``,
    ``iso-8859-1``, ``l1``, ``us-ascii``): CPython's own name, but ``latin-1`` for its
    ``iso8859-1``. Every public entry point takes its codecs through this, so that it takes
    what :meth:`bytes.decode` takes.

    Raises
    ------
    :exc:`ValueError`
        If ``codec`` names no codec, or one utfhw does not cover; ``name`` says which codec it
        is (``"source"``).
    """
    try:
        found = _LOOKUP_NAMES.get(codecs.lookup(codec).name) if isinstance(codec, str) else None
    except LookupError:
        found = None
    if found not in CODECS:
        listed = ", ".join(map(repr, CODECS))
        raise ValueError(f"{name} codec must be {listed} or another of CPython's names for "
                         f"them, not {codec!r}")
    return found


def canonical_pair(source, target):
    """:func:`canonical_codec` of both codecs of a pair: ``(source, target)``."""
    return canonical_codec("source", source), canonical_codec("target", target)
