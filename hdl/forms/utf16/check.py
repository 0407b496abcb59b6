"""What a validator decides at each lane of UTF-16 (RFC 2781, section 2.2; CPython's
``utf-16`` codecs)."""

from types import SimpleNamespace

from amaranth.hdl import Cat, Mux

from ...unicode.layout import ErrorKind
from ...unicode.tables import swap_bytes
from ...wide.marks import message_byteorder
from ...wide.validate import LaneChecks


__all__ = ["UTF16Checks"]


def _high(unit):
    return unit[10:16] == 0b110110


def _low(unit):
    return unit[10:16] == 0b110111


class UTF16Checks(LaneChecks):
    """Each unit of UTF-16 decided from the unit before it.

    A low surrogate after a high one ends a character of two units; every other unit begins
    one (or a U+FFFD), which is what ``data.decode(source, "replace")`` counts. The first error
    is a low surrogate after anything but a high one ("illegal encoding"), or a high one
    followed by anything but a low one ("illegal UTF-16 surrogate", from the high one). At
    the message's end, a high surrogate (with or without an odd byte after it) is unexpected
    end of data, an odd byte alone truncated data. ``utf-16`` takes the byte order of a
    leading mark, which it drops (CPython counts positions from the message's first byte).
    """
    behind = 2
    ERRORS = (
        (ErrorKind.SURROGATE, 0, 2),
        (ErrorKind.UNPAIRED_HIGH_SURROGATE, 2, 0),
        (ErrorKind.UNEXPECTED_END_OF_DATA, 2, 0),
        (ErrorKind.UNEXPECTED_END_OF_DATA, 3, 0),
        (ErrorKind.TRUNCATED_DATA, 1, 0),
    )

    def verdicts(self, m, window, present, beat, takes, *, ends, flags):
        big, marked = message_byteorder(
            m, SimpleNamespace(valid=takes, payload=beat), self.codec.byteorder,
            {"little": beat.data[0:16] == 0xFEFF, "big": beat.data[0:16] == 0xFFFE},
            whole=beat.count >= 2)

        def unit(at):
            wire = Cat(window[at], window[at + 1])
            return Mux(big, swap_bytes(wire), wire)

        verdicts = []
        for lane in range(self.width + 1):
            at = self.behind + lane
            if lane % 2 == 0:
                # The unit before this lane, whole if its second byte is there.
                open_high = present[at - 1] & _high(unit(at - 2))
                verdict = {"bad": ends[lane] & open_high, "error": Mux(ends[lane], 2, 1)}
                if lane < self.width:
                    here = present[at + 1]
                    value = unit(at)
                    pairs = open_high & _low(value)
                    begins = here & ~pairs
                    verdict.update(
                        begins=begins, ascii=begins & (value[7:] == 0),
                        two=begins & (value[7:] != 0) & (value[11:] == 0), four=here & pairs,
                        bad=verdict["bad"] | (here & Mux(open_high, ~_low(value), _low(value))),
                        error=Mux(ends[lane], 2, Mux(open_high, 1, 0)))
            else:
                # Only a message's end: an odd byte, after a high surrogate or not.
                open_high = present[at - 2] & _high(unit(at - 3))
                verdict = {"bad": ends[lane], "begins": ends[lane] & ~open_high,
                           "error": Mux(open_high, 3, 4)}
            verdicts.append(verdict)
        return verdicts, marked
