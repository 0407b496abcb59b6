"""What a validator decides at each lane of UTF-8 (Unicode ch. 3, Table 3-7; CPython's
maximal subparts, Unicode sec. 3.9, U+FFFD substitution)."""

from amaranth.hdl import Cat, Const

from ...unicode.layout import ErrorKind
from ...unicode.tables import CONTINUATION, NEXT_BYTE_RANGES, TABLE_3_7, byte_matches_range
from ...wide.validate import LaneChecks


__all__ = ["UTF8Checks"]


def _leads(byte, least):
    """``byte`` begins a sequence of at least ``least`` bytes (Table 3-7's lead bytes)."""
    rows = [row for row in TABLE_3_7 if row.needs + 1 >= least]
    return byte_matches_range(byte, rows[0].first, rows[-1].last)


def _second(lead, byte):
    """``byte`` may follow ``lead`` as its second byte, from their flags
    (:meth:`UTF8Checks.classes`): a lead of the rows of Table 3-7 that allow one of
    :data:`~utfhw.hdl.unicode.tables.NEXT_BYTE_RANGES` and a byte in that range."""
    fits = Const(0)
    for index in range(len(NEXT_BYTE_RANGES)):
        fits = fits | (lead[f"before_{index}"] & byte[f"second_{index}"])
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

    def classes(self, byte):
        # Whether a byte may be a lead's second byte depends on the lead's row of Table 3-7
        # only through the range that row allows next: a flag for the leads of each range,
        # and one for the bytes in it.
        flags = {f"leads_{least}": _leads(byte, least) for least in (2, 3, 4)}
        flags["continuation"] = byte_matches_range(byte, *CONTINUATION)
        for index, allowed in enumerate(NEXT_BYTE_RANGES):
            flags[f"before_{index}"] = Const(0)
            for row in TABLE_3_7:
                if row.next_range == allowed:
                    flags[f"before_{index}"] = (flags[f"before_{index}"]
                                                | byte_matches_range(byte, row.first, row.last))
            flags[f"second_{index}"] = byte_matches_range(byte, *allowed)
        if self.codec.mark:
            flags.update(mark_0=byte == 0xEF, mark_1=byte == 0xBB, mark_2=byte == 0xBF)
        return flags

    def verdicts(self, m, window, present, beat, takes, *, ends, flags):
        verdicts = []
        mark = Const(0)
        for lane in range(self.width + 1):
            at = self.behind + lane
            before = [flags[at - distance] for distance in (1, 2, 3)]
            known = [present[at - distance] for distance in (1, 2, 3)]
            # A sequence is open after one, two or three bytes of it that Table 3-7 allows.
            after_one = known[0] & before[0].leads_2
            after_two = known[1] & before[1].leads_3 & _second(before[1], before[0])
            after_three = (known[2] & before[2].leads_4 & _second(before[2], before[1])
                           & before[0].continuation)
            # The lanes end at ``width``, which only a message's end can be.
            if lane == self.width:
                here = Const(0)
                continuation, ascii, leads_2, second = Const(0), Const(0), Const(0), Const(0)
            else:
                byte, here = flags[at], present[at]
                continuation, ascii = byte.continuation, ~window[at][7]
                leads_2, second = byte.leads_2, _second(before[0], byte)
            continues = (after_one & second) | ((after_two | after_three) & continuation)
            begins = here & ~continues

            # The first error, if every byte before this one is well formed: then the
            # sequence open here (if any) is the one the bytes before it began.
            open_two = known[1] & before[1].leads_3 & before[0].continuation
            open_three = (known[2] & before[2].leads_4 & before[1].continuation
                          & before[0].continuation)
            is_open = after_one | open_two | open_three
            back = Cat(after_one | open_three, ~after_one & (open_two | open_three))
            # Where a sequence is open, its second byte after one byte, else a continuation.
            fits = (after_one & second) | (~after_one & continuation)
            valid_start = ascii | leads_2
            bad_byte = here & ((is_open & ~fits) | (~is_open & ~valid_start))
            verdicts.append({
                "begins": begins,
                "ascii": begins & ascii,
                "two": here & after_one & second & ~before[0].leads_3,
                "four": here & after_three & continuation,
                "bad": bad_byte | (ends[lane] & is_open),
                "error": Cat(back, ends[lane]),
            })
            if self.codec.mark and lane < self.width:
                # EF BB BF as the message's first three bytes.
                mark = mark | (here & known[1] & ~known[2] & before[1].mark_0
                               & before[0].mark_1 & byte.mark_2)
        return verdicts, mark
