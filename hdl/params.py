"""Validation of the keyword parameters the cores share, and CPython's codec names."""

__all__ = [
    "HARDWARE_ERROR_HANDLERS", "BYTE_ORDERS", "CODECS",
    "check_choice", "check_errors", "check_byteorder", "check_codec", "check_integer",
]


#: Error handlers the gateware implements. CPython's "strict" is the consumer's business: run the
#: core with "replace" and stop at the first item whose error kind is not NONE.
HARDWARE_ERROR_HANDLERS = ("replace", "ignore")

BYTE_ORDERS = ("little", "big")

#: CPython's names of the codecs utfhw covers, each with its encoding form, its byte order
#: (None for UTF-8; "detect" for a source that reads it from a byte order mark, which as a
#: target writes little-endian) and whether it strips (as source) and writes (as target) a
#: byte order mark.
CODECS = {
    "utf-8":     ("utf-8",  None,     False),
    "utf-8-sig": ("utf-8",  None,     True),
    "utf-16":    ("utf-16", "detect", True),
    "utf-16-le": ("utf-16", "little", False),
    "utf-16-be": ("utf-16", "big",    False),
    "utf-32":    ("utf-32", "detect", True),
    "utf-32-le": ("utf-32", "little", False),
    "utf-32-be": ("utf-32", "big",    False),
}


def check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        allowed = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be {allowed}, not {value!r}")


def check_errors(errors):
    check_choice("errors", errors, HARDWARE_ERROR_HANDLERS)


def check_byteorder(byteorder):
    check_choice("byteorder", byteorder, BYTE_ORDERS)


def check_codec(name, codec):
    if not isinstance(codec, str) or codec not in CODECS:
        raise ValueError(f"{name} codec must be one of {', '.join(CODECS)}, not {codec!r}")


def check_integer(name, value, *, minimum, maximum=None):
    """Raise unless ``value`` is an :class:`int` (not a :class:`bool`) within the bounds."""
    if (not isinstance(value, int) or isinstance(value, bool) or value < minimum
            or (maximum is not None and value > maximum)):
        bounds = f"of at least {minimum}" if maximum is None else f"from {minimum} to {maximum}"
        raise ValueError(f"{name} must be an integer {bounds}, not {value!r}")
