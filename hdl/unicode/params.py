"""The error handlers, byte orders and widths, and the one style of argument check every utfhw
function and core uses (the codecs are in :mod:`utfhw.hdl.forms`).

Every check raises :exc:`ValueError` with a message of one form, ``"<name> must be <what is
allowed>, not <repr of the value>"``, e.g. ``errors must be 'replace' or 'ignore', not
'strict'``.
"""


__all__ = [
    "HARDWARE_ERROR_HANDLERS", "ERROR_HANDLERS", "DECODING_HANDLERS", "ENCODING_HANDLERS",
    "BYTE_ORDERS", "describe_choices", "check_choice", "check_errors", "handler_pair",
    "handlers_name", "check_byteorder", "check_integer", "check_power_of_two",
    "check_flag", "WIDTHS", "check_width", "check_last_code_point", "CodecPair", "UTF16Options",
]


#: Error handlers the gateware implements. CPython's "strict" is the consumer's business: run the
#: core with "replace" and stop at the first item whose error kind is not NONE.
HARDWARE_ERROR_HANDLERS = ("replace", "ignore")

#: Error handlers of the simulators: CPython's three.
ERROR_HANDLERS = (*HARDWARE_ERROR_HANDLERS, "strict")

#: CPython's error handlers for decoding these codecs, as the reference model has them.
DECODING_HANDLERS = (*ERROR_HANDLERS, "backslashreplace", "surrogateescape", "surrogatepass")

#: CPython's error handlers for encoding these codecs, as the reference model has them.
ENCODING_HANDLERS = (*DECODING_HANDLERS, "xmlcharrefreplace")

# Why a handler CPython has is not one of a side's: CPython's own reason where it refuses it.
_NOT_HANDLED = {
    ("decoding", "xmlcharrefreplace"):
        "CPython: don't know how to handle UnicodeDecodeError in error callback",
    ("decoding", "namereplace"):
        "CPython: don't know how to handle UnicodeDecodeError in error callback",
    ("encoding", "namereplace"):
        "it needs the Unicode character name table, which utfhw does not carry",
}

BYTE_ORDERS = ("little", "big")


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


def handler_pair(errors, *, decoding=DECODING_HANDLERS, encoding=ENCODING_HANDLERS):
    """``(decoding, encoding)``, the handlers ``errors`` names: one handler's name for both
    sides, as CPython's ``data.decode(source, errors).encode(target, errors)`` takes it, or a
    pair of names, ``data.decode(source, errors[0]).encode(target, errors[1])``. Raise
    :exc:`ValueError` unless each is one of its side's handlers, ``decoding`` and
    ``encoding``."""
    if isinstance(errors, str):
        pair = (errors, errors)
    elif isinstance(errors, tuple) and len(errors) == 2:
        pair = errors
    else:
        raise ValueError(f"errors must be a handler's name or a (decoding, encoding) pair of "
                         f"them, not {errors!r}")
    for side, handler, handlers in zip(("decoding", "encoding"), pair, (decoding, encoding)):
        if not isinstance(handler, str) or handler not in handlers:
            why = _NOT_HANDLED.get((side, handler))
            raise ValueError(f"errors for {side} must be {describe_choices(handlers)}, not "
                             f"{handler!r}" + (f" ({why})" if why else ""))
    return pair


def handlers_name(errors):
    """How the command line writes ``errors``, one handler or a ``(decoding, encoding)`` pair:
    ``replace``, ``replace,xmlcharrefreplace``."""
    return errors if isinstance(errors, str) else ",".join(errors)


def check_byteorder(byteorder, *, byteorders=BYTE_ORDERS):
    check_choice("byteorder", byteorder, byteorders)


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


def check_width(width, *, minimum=1, of=None, name="width"):
    """Raise unless ``width`` is one of :data:`WIDTHS` and at least ``minimum``, the bytes of
    the code unit of the source codec ``of`` names; ``name`` is the width's name in the
    message (``--width`` on the command line)."""
    if isinstance(width, bool) or width not in WIDTHS:
        raise ValueError(f"{name} must be a power of two from 1 to 64, not {width!r}")
    if width < minimum:
        raise ValueError(f"{name} must be at least {minimum} for {of}, not {width}")


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


def check_last_code_point(last):
    """Raise unless ``last`` is the greatest code point of a one-byte form: 0x7F (ASCII) or
    0xFF (Latin-1)."""
    if isinstance(last, bool) or last not in (0x7F, 0xFF):
        raise ValueError(f"last must be 0x7F or 0xFF, not {last!r}")
