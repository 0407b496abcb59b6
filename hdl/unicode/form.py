"""What an encoding form is to the gateware: the fields of its one description.

Each form (:mod:`utfhw.hdl.forms`) is one :class:`Form`, written in its own folder beside its
gateware; every stage and core that depends on the form reads it from there and from nowhere
else. This module holds only the shape of a description, so that the stages every form shares
(:mod:`utfhw.hdl.scalar`, :mod:`utfhw.hdl.wide`) can take a form as an argument without
importing any form.
"""

from dataclasses import dataclass
from typing import Callable


__all__ = ["Form", "check_form"]


@dataclass(frozen=True, eq=False)
class Form:
    """An encoding form (Unicode ch. 3, D90 to D92), as the cores use it.

    Attributes
    ----------
    name : :class:`str`
        ``"utf-8"``, ``"utf-16"``, ``"utf-32"``, ``"latin-1"`` or ``"ascii"``.
    unit_bytes : :class:`int`
        Bytes of its code unit. A form of more than one byte has a byte order, so the scalar
        cores put a byte order stage on its wire side.
    codecs : :class:`tuple`
        CPython's codecs of the form, as ``(name, byteorder, mark)``: ``byteorder`` is
        ``None`` for a form of one-byte units, ``"little"``, ``"big"`` or ``"detect"`` (read
        from a leading mark as a source, little-endian as a target); ``mark`` whether the codec
        drops one leading byte order mark as a source and writes one as a target.
    unit : :class:`~amaranth.lib.data.StructLayout`
        One unit with its error kind (``data`` and ``error``).
    encoder_lanes : :class:`~utfhw.hdl.unicode.layout.Lanes`
        The beat its scalar encoder emits.
    most_units : :class:`int`
        The most units one code point becomes.
    encode : callable
        A scalar value (a 21-bit :class:`~amaranth.hdl.Value`) to its units, numeric, as
        ``(units, count)`` (:mod:`utfhw.hdl.unicode.tables`).
    mark : :class:`tuple` of :class:`int`
        U+FEFF as its units, numeric (none in a form that cannot hold it).
    code_point_bytes : callable
        The bytes of a code point (an :class:`int`) in the form.
    shortest_error : :class:`int` or None
        The fewest bytes of one error a decoder replaces, away from a message's end (a byte
        of UTF-8 or ASCII, a lone surrogate of UTF-16, a unit of UTF-32); ``None`` for a form
        that decodes every byte (Latin-1).
    error_kinds : :class:`dict`
        The :class:`~utfhw.hdl.unicode.layout.ErrorKind` members it raises as a source, each
        with CPython's ``reason`` for it from this form.
    decoder, encoder : :class:`type`
        Its scalar stages: a code unit a beat to code points, and code points to units.
    wide : object
        Its wide stages, as the :class:`~utfhw.hdl.cores.wide.WideTranscoder` joins them: the
        front end a source of the form builds (:meth:`slots`, :meth:`latency`, :meth:`build`).
    last_code_point : :class:`int`
        The greatest code point it holds: U+10FFFF, or U+00FF in Latin-1 and U+007F in ASCII.
        As a target, each code point above it is ``?`` (``replace``) or dropped (``ignore``).
    unencodable_reason : :class:`str` or None
        CPython's ``reason`` of the ``UnicodeEncodeError`` for a code point above
        :attr:`last_code_point`, whose kind is ``UNENCODABLE_CHARACTER``.
    check : :class:`type` or None
        Its validator's checks (a :class:`~utfhw.hdl.wide.validate.LaneChecks`): each lane's
        verdict from the bytes before it.
    expansion : :class:`type` or None
        As a target of the wide core, a stage after a queue that writes each source byte's
        token as the byte itself or as U+FFFD's units, over more clocks where a beat holds a
        U+FFFD: for a source whose bytes are one unit each of this form but whose U+FFFD is
        more (UTF-8's :class:`~utfhw.hdl.forms.utf8.front.Expansion`). ``None`` where U+FFFD
        is no longer than a character.
    """
    name: str
    unit_bytes: int
    codecs: tuple
    unit: object
    encoder_lanes: object
    most_units: int
    encode: Callable
    mark: tuple
    code_point_bytes: Callable
    shortest_error: int
    error_kinds: dict
    decoder: type
    encoder: type
    wide: object
    last_code_point: int = 0x10FFFF
    unencodable_reason: object = None
    check: object = None
    expansion: object = None

    @property
    def mark_units(self):
        """Units of U+FEFF in the form."""
        return len(self.mark)

    @property
    def has_byteorder(self):
        """Whether its units have a byte order (more than one byte)."""
        return self.unit_bytes > 1

    @property
    def holds_every_code_point(self):
        """Whether it encodes every scalar value (the UTF forms)."""
        return self.last_code_point == 0x10FFFF

    def __repr__(self):
        return f"<form {self.name}>"


def check_form(form):
    """Raise :exc:`ValueError` unless ``form`` is a :class:`Form`."""
    if not isinstance(form, Form):
        raise ValueError(f"form must be an encoding form of utfhw.hdl.forms, not {form!r}")
