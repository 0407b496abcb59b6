"""CPython's codec names, what each one means to the hardware, and the one style of argument
check every utfhw function and core uses.

Every check raises :exc:`ValueError` with a message of one form, ``"<name> must be <what is
allowed>, not <repr of the value>"``, e.g. ``errors must be 'replace' or 'ignore', not
'strict'``.
"""

import codecs
from dataclasses import dataclass


__all__ = [
    "HARDWARE_ERROR_HANDLERS", "ERROR_HANDLERS", "BYTE_ORDERS", "UNIT_BYTES", "Codec", "CODECS",
    "describe_choices", "check_choice", "check_errors", "check_byteorder", "check_codec",
    "check_pair", "canonical_codec", "check_integer", "check_power_of_two", "check_flag",
    "WIDTHS", "check_width", "CodecPair", "UTF16Options",
]


#: Error handlers the gateware implements. CPython's "strict" is the consumer's business: run the
#: core with "replace" and stop at the first item whose error kind is not NONE.
HARDWARE_ERROR_HANDLERS = ("replace", "ignore")

#: Error handlers of the simulators and the reference model: CPython's three.
ERROR_HANDLERS = (*HARDWARE_ERROR_HANDLERS, "strict")

BYTE_ORDERS = ("little", "big")

#: The three Unicode encoding forms, each with the bytes of its code unit.
UNIT_BYTES = {"utf-8": 1, "utf-16": 2, "utf-32": 4}


@dataclass(frozen=True)
class Codec:
    """What one of CPython's UTF codecs means to the hardware.

    Attributes
    ----------
    name : :class:`str`
        CPython's name, e.g. ``"utf-16-be"``.
    form : :class:`str`
        The encoding form: ``"utf-8"``, ``"utf-16"`` or ``"utf-32"``.
    byteorder : :class:`str` or None
        ``None`` for UTF-8; ``"little"`` or ``"big"``; ``"detect"`` for ``utf-16`` and
        ``utf-32``, which as a source read it from a leading byte order mark (little-endian
        without one) and as a target write little-endian.
    mark : :class:`bool`
        Whether the codec strips one leading byte order mark as a source and writes one as a
        target.
    unit_bytes : :class:`int`
        Bytes of the form's code unit: 1, 2 or 4.
    """
    name: str
    form: str
    byteorder: object
    mark: bool

    @property
    def unit_bytes(self):
        return UNIT_BYTES[self.form]

    @property
    def target_byteorder(self):
        """The byte order the codec writes as a target (``None`` for UTF-8)."""
        return "little" if self.byteorder == "detect" else self.byteorder


#: CPython's names of the codecs utfhw covers, each with its :class:`Codec`.
CODECS = {codec.name: codec for codec in (
    Codec("utf-8",     "utf-8",  None,     False),
    Codec("utf-8-sig", "utf-8",  None,     True),
    Codec("utf-16",    "utf-16", "detect", True),
    Codec("utf-16-le", "utf-16", "little", False),
    Codec("utf-16-be", "utf-16", "big",    False),
    Codec("utf-32",    "utf-32", "detect", True),
    Codec("utf-32-le", "utf-32", "little", False),
    Codec("utf-32-be", "utf-32", "big",    False),
)}


def describe_choices(choices):
    """``'a'``, ``'a' or 'b'``, ``'a', 'b' or 'c'``: the allowed values as a message says them."""
    shown = [repr(choice) for choice in choices]
    if len(shown) == 1:
        return shown[0]
    return f"{', '.join(shown[:-1])} or {shown[-1]}"


def check_choice(name, value, choices):
    """Raise :exc:`ValueError` unless ``value`` is one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be {describe_choices(choices)}, not {value!r}")


def check_errors(errors, *, handlers=HARDWARE_ERROR_HANDLERS):
    check_choice("errors", errors, handlers)


def check_byteorder(byteorder, *, byteorders=BYTE_ORDERS):
    check_choice("byteorder", byteorder, byteorders)


def check_codec(name, codec):
    """Raise unless ``codec`` is one of :data:`CODECS`; ``name`` says which (``"source"``)."""
    check_choice(f"{name} codec", codec, CODECS)


def check_pair(source, target):
    """Raise unless ``source`` and ``target`` are both codecs of :data:`CODECS`."""
    check_codec("source", source)
    check_codec("target", target)


def canonical_codec(name, codec):
    """CPython's own name for ``codec`` if it is one of :data:`CODECS` or an alias CPython's
    :func:`codecs.lookup` takes for one of them (``utf8``, ``UTF-8``, ``U8``, ``utf_16_le``);
    else raise :exc:`ValueError`, ``name`` saying which codec it is (``"source"``)."""
    try:
        found = codecs.lookup(codec).name if isinstance(codec, str) else None
    except LookupError:
        found = None
    if found not in CODECS:
        raise ValueError(f"{name} codec must be {describe_choices(CODECS)} or one of CPython's "
                         f"names for them, not {codec!r}")
    return found


def check_integer(name, value, *, minimum, maximum=None):
    """Raise unless ``value`` is an :class:`int` (not a :class:`bool`) within the bounds."""
    if (not isinstance(value, int) or isinstance(value, bool) or value < minimum
            or (maximum is not None and value > maximum)):
        bounds = f"of at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise ValueError(f"{name} must be an integer {bounds}, not {value!r}")


def check_power_of_two(name, value, *, minimum=1):
    """Raise unless ``value`` is an :class:`int` of at least ``minimum`` and a power of two."""
    check_integer(name, value, minimum=minimum)
    if value & (value - 1):
        raise ValueError(f"{name} must be a power of two, not {value!r}")


def check_flag(name, value):
    """Raise unless ``value`` is ``True`` or ``False``."""
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, not {value!r}")


#: The widths, in bytes per beat, of the wide cores.
WIDTHS = (1, 2, 4, 8, 16, 32, 64)


def check_width(width, *, codec=None):
    """Raise unless ``width`` is one of :data:`WIDTHS` and, if a source ``codec`` is named, at
    least the bytes of its code unit."""
    if isinstance(width, bool) or width not in WIDTHS:
        raise ValueError(f"width must be a power of two from 1 to 64, not {width!r}")
    if codec is not None and width < CODECS[codec].unit_bytes:
        raise ValueError(f"width must be at least {CODECS[codec].unit_bytes} for {codec}, not "
                         f"{width}")


class CodecPair:
    """A base of the cores: the codec pair and the error handler a core was made for, as it
    keeps them in ``_source``, ``_target`` and ``_errors``."""
    @property
    def source(self):
        return self._source

    @property
    def target(self):
        return self._target

    @property
    def errors(self):
        return self._errors


class UTF16Options:
    """A base, before :class:`~amaranth.lib.wiring.Component`, of
    :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16`, which writes UTF-16 from UTF-8: checks their ``byteorder`` and ``errors``, passes the rest of the
    arguments on, and reports the two with the codecs they mean."""
    def __init__(self, *args, byteorder, errors, **kwargs):
        check_byteorder(byteorder)
        check_errors(errors)
        self._byteorder = byteorder
        self._errors = errors
        super().__init__(*args, **kwargs)

    @property
    def byteorder(self):
        return self._byteorder

    @property
    def errors(self):
        return self._errors

    @property
    def source(self):
        """``"utf-8"``, as for a :class:`~utfhw.hdl.cores.transcoder.Transcoder`."""
        return "utf-8"

    @property
    def target(self):
        """``"utf-16-le"`` or ``"utf-16-be"``."""
        return "utf-16-le" if self._byteorder == "little" else "utf-16-be"
