"""What a validator decides at each lane of UTF-32 (Unicode ch. 3, D90; CPython's ``utf-32``
codecs)."""

from types import SimpleNamespace

from amaranth.hdl import Const, Mux

from ...unicode.layout import ErrorKind
from ...unicode.tables import in_surrogate_range, swap_bytes
from ...wide.marks import message_byteorder
from ...wide.validate import LaneChecks


__all__ = ["UTF32Checks"]


class UTF32Checks(LaneChecks):
    """Each unit of UTF-32 decided alone: a surrogate or a unit above 10FFFF is an error of
    its four bytes, and one to three bytes at a message's end truncated data. ``utf-32``
    takes the byte order of a leading mark, which it drops (CPython counts positions from the
    message's first byte)."""
    behind = 0
    ERRORS = (
        (ErrorKind.SURROGATE, 0, 4),
        (ErrorKind.OUT_OF_RANGE, 0, 4),
        *((ErrorKind.TRUNCATED_DATA, back, 0) for back in (1, 2, 3)),
    )

    def verdicts(self, m, window, present, beat, takes, *, ends, flags):
        big, marked = message_byteorder(
            m, SimpleNamespace(valid=takes, payload=beat), self.codec.byteorder,
            {"little": beat.data[0:32] == 0x0000FEFF, "big": beat.data[0:32] == 0xFFFE0000},
            whole=beat.count >= 4)
        verdicts = []
        for lane in range(self.width + 1):
            if lane % 4 == 0 and lane < self.width:
                wire = beat.data[8 * lane:8 * lane + 32]
                value = Mux(big, swap_bytes(wire), wire)
                here = present[lane + 3]
                # Above 10FFFF: a bit from 21 up, or plane 17 to 31.
                beyond = (value[21:] != 0) | (value[20] & (value[16:20] != 0))
                surrogate = in_surrogate_range(value)
                good = here & ~beyond & ~surrogate
                verdicts.append({
                    "bad": here & (beyond | surrogate),
                    "error": beyond,
                    "begins": here,
                    "ascii": good & (value[7:] == 0),
                    "two": good & (value[7:] != 0) & (value[11:] == 0),
                    "four": good & (value[16:] != 0),
                })
            elif lane % 4:
                # One to three bytes that end a message.
                verdicts.append({"bad": ends[lane], "begins": ends[lane],
                                 "error": Const(1 + lane % 4, 3)})
            else:
                verdicts.append({})
        return verdicts, marked
