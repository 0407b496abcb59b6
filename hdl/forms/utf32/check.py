"""What a validator decides at each lane of UTF-32 (Unicode ch. 3, D90; CPython's ``utf-32``
codecs)."""

from types import SimpleNamespace

from amaranth.hdl import Const, Mux

from ...unicode.layout import ErrorKind
from ...unicode.tables import beyond_scalar_range, in_surrogate_range, swap_bytes
from ...wide.marks import message_byteorder
from ...wide.validate import LaneChecks


__all__ = ["UTF32Checks"]


class UTF32Checks(LaneChecks):
    """Each unit of UTF-32 decided alone: a surrogate or a unit above 10FFFF is an error of
    its four bytes, and one to three bytes at a message's end truncated data. ``utf-32``
    takes the byte order of a leading mark, which it drops (CPython counts positions from the
    message's first byte)."""
    behind = 0

    def verdicts(self, m, window, present, beat, first, takes):
        big, marked = message_byteorder(
            m, SimpleNamespace(valid=takes, payload=beat), self.codec.byteorder,
            {"little": beat.data[0:32] == 0x0000FEFF, "big": beat.data[0:32] == 0xFFFE0000},
            whole=beat.count >= 4)
        verdicts = []
        for lane in range(self.width + 1):
            ends = beat.last & (beat.count == lane)
            if lane % 4 == 0 and lane < self.width:
                wire = beat.data[8 * lane:8 * lane + 32]
                value = Mux(big, swap_bytes(wire), wire)
                here = present[lane + 3]
                beyond = beyond_scalar_range(value)
                surrogate = in_surrogate_range(value)
                good = here & ~beyond & ~surrogate
                verdicts.append({
                    "bad": here & (beyond | surrogate),
                    "kind": Mux(beyond, ErrorKind.OUT_OF_RANGE, ErrorKind.SURROGATE),
                    "ahead": Const(4, 3),
                    "begins": here,
                    "ascii": good & (value < 0x80),
                    "two": good & (value >= 0x80) & (value < 0x800),
                    "four": good & (value >= 0x10000),
                })
            elif lane % 4:
                # One to three bytes that end a message.
                verdicts.append({"bad": ends, "begins": ends, "back": Const(lane % 4, 2),
                                 "kind": Const(ErrorKind.TRUNCATED_DATA.value, 4)})
            else:
                verdicts.append({})
        return verdicts, marked
