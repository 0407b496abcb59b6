"""Validation of the keyword parameters the cores share."""

__all__ = ["HARDWARE_ERROR_HANDLERS", "BYTE_ORDERS", "check_errors", "check_byteorder"]


#: Error handlers the gateware implements. CPython's "strict" is the consumer's business: run the
#: core with "replace" and stop at the first item whose error kind is not NONE.
HARDWARE_ERROR_HANDLERS = ("replace", "ignore")

BYTE_ORDERS = ("little", "big")


def _check_choice(name, value, choices):
    if not isinstance(value, str) or value not in choices:
        allowed = " or ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be {allowed}, not {value!r}")


def check_errors(errors):
    _check_choice("errors", errors, HARDWARE_ERROR_HANDLERS)


def check_byteorder(byteorder):
    _check_choice("byteorder", byteorder, BYTE_ORDERS)
