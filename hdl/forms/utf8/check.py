"""What a validator decides at each lane of UTF-8 (Unicode ch. 3, Table 3-7; CPython's
maximal subparts, Unicode sec. 3.9, U+FFFD substitution)."""

from amaranth.hdl import Cat, Const

from ...unicode.layout import ErrorKind
from ...unicode.tables import CONTINUATION, TABLE_3_7, byte_matches_range
from ...wide.validate import LaneChecks


__all__ = ["UTF8Checks"]


def _leads(byte, least):
    """``byte`` begins a sequence of at least ``least`` bytes (Table 3-7's lead bytes)."""
    rows = [row for row in TABLE_3_7 if row.needs + 1 >= least]
    return byte_matches_range(byte, rows[0].first, rows[-1].last)


def _continuation(byte):
    return byte_matches_range(byte, *CONTINUATION)


def _second(lead, byte):
    """``byte`` may follow ``lead`` (a lead byte of Table 3-7) as its second byte."""
    fits = Const(0)
    for row in TABLE_3_7:
        fits = fits | (byte_matches_range(lead, row.first, row.last)
                       & byte_matches_range(byte, *row.next_range))
    return fits


class UTF8Checks(LaneChecks):
    """Each lane of UTF-8 decided from the three bytes before it.

    A byte continues a sequence (and so no character begins at it) when a lead byte one, two
    or three bytes before it, and the bytes between, are the sequence so far of Table 3-7:
    whatever came before, a byte that is no continuation byte always begins something. That
    is what ``data.decode("utf-8", "replace")`` counts.

    The first error is the first byte that cannot come where it is, if every byte before it
    is well formed: then the bytes just before it say whether a sequence is open there, and
    CPython's ``start`` is that sequence's lead (an invalid continuation byte; at the message's
    end, unexpected end of data) or the byte itself (an invalid start byte). With
    ``utf-8-sig``, a leading EF BB BF is dropped and CPython counts positions after it.
    """
    behind = 3
    #: By the bytes back to the open sequence's lead (0: none), and the message's end above.
    ERRORS = (
        (ErrorKind.INVALID_START_BYTE, 0, 1),
        *((ErrorKind.INVALID_CONTINUATION_BYTE, back, 0) for back in (1, 2, 3)),
        (ErrorKind.NONE, 0, 0),
        *((ErrorKind.UNEXPECTED_END_OF_DATA, back, 0) for back in (1, 2, 3)),
    )

    @property
    def positions_after_mark(self):
        return self.codec.mark

    def verdicts(self, m, window, present, beat, takes):
        verdicts = []
        mark = Const(0)
        for lane in range(self.width + 1):
            at = self.behind + lane
            before = [window[at - distance] for distance in (1, 2, 3)]
            known = [present[at - distance] for distance in (1, 2, 3)]
            # A sequence is open after one, two or three bytes of it that Table 3-7 allows.
            after_one = known[0] & _leads(before[0], 2)
            after_two = known[1] & _leads(before[1], 3) & _second(before[1], before[0])
            after_three = (known[2] & _leads(before[2], 4) & _second(before[2], before[1])
                           & _continuation(before[0]))
            # The lanes end at ``width``, which only a message's end can be.
            if lane == self.width:
                byte, here = Const(0, 8), Const(0)
            else:
                byte, here = window[at], present[at]
            ends = beat.last & (beat.count == lane)
            second = _second(before[0], byte)
            continues = (after_one & second) | ((after_two | after_three) & _continuation(byte))
            begins = here & ~continues

            # The first error, if every byte before this one is well formed: then the
            # sequence open here (if any) is the one the bytes before it began.
            open_two = known[1] & _leads(before[1], 3) & _continuation(before[0])
            open_three = (known[2] & _leads(before[2], 4) & _continuation(before[1])
                          & _continuation(before[0]))
            is_open = after_one | open_two | open_three
            back = Cat(after_one | open_three, ~after_one & (open_two | open_three))
            # Where a sequence is open, its second byte after one byte, else a continuation.
            fits = (after_one & second) | (~after_one & _continuation(byte))
            valid_start = ~byte[7] | _leads(byte, 2)
            bad_byte = here & ((is_open & ~fits) | (~is_open & ~valid_start))
            verdicts.append({
                "begins": begins,
                "ascii": begins & ~byte[7],
                "two": here & after_one & second & ~_leads(before[0], 3),
                "four": here & after_three & _continuation(byte),
                "bad": bad_byte | (ends & is_open),
                "error": Cat(back, ends),
            })
            if self.codec.mark:
                # EF BB BF as the message's first three bytes.
                mark = mark | (here & known[1] & ~known[2] & (before[1] == 0xEF)
                               & (before[0] == 0xBB) & (byte == 0xBF))
        return verdicts, mark
