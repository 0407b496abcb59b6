"""The formulas of the encoding forms, written once for every core that needs them.

Unicode ch. 3, Table 3-7 (which UTF-8 byte sequences are well formed), the UTF-16 surrogate
arithmetic of RFC 2781, section 2, and the byte swap between the numeric and the big-endian
wire order of a unit. The composed stages and :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16`
both build on these; the reference model and the formal properties keep their own independent
copies on purpose, as oracles.
"""

from dataclasses import dataclass

from amaranth.hdl import Cat, Const, Mux

from .layout import ENCODE_REPLACEMENT, ErrorKind


__all__ = [
    "replace_unencodable", "CONTINUATION", "LeadBytes", "TABLE_3_7", "NEXT_BYTE_RANGES", "lead_groups",
    "byte_in_range", "range_patterns", "byte_matches_range", "nibble_terms",
    "plane_minus_one", "high_surrogate", "low_surrogate", "surrogate_pair_value",
    "utf16_units", "utf8_bytes", "beyond_scalar_range", "in_surrogate_range", "select_unit", "swap_bytes",
]


#: The range of a continuation byte, 80..BF.
CONTINUATION = (0x80, 0xBF)


@dataclass(frozen=True)
class LeadBytes:
    """One row of Table 3-7: lead bytes ``first`` to ``last``, the continuation bytes they
    need, and the range the first of those must fall in (the later ones: 80..BF)."""
    first: int
    last: int
    needs: int
    next_range: tuple

    @property
    def payload_bits(self):
        """Bits of the lead byte that belong to the scalar value (RFC 3629, section 3)."""
        return 6 - self.needs


#: Unicode ch. 3, Table 3-7, "Well-Formed UTF-8 Byte Sequences", for sequences of two or more
#: bytes (a byte 00..7F is a character on its own). The narrowed second-byte ranges are what
#: leave overlong forms, surrogates and values above U+10FFFF without a well-formed encoding.
TABLE_3_7 = (
    LeadBytes(0xC2, 0xDF, 1, CONTINUATION),
    LeadBytes(0xE0, 0xE0, 2, (0xA0, 0xBF)),
    LeadBytes(0xE1, 0xEC, 2, CONTINUATION),
    LeadBytes(0xED, 0xED, 2, (0x80, 0x9F)),
    LeadBytes(0xEE, 0xEF, 2, CONTINUATION),
    LeadBytes(0xF0, 0xF0, 3, (0x90, 0xBF)),
    LeadBytes(0xF1, 0xF3, 3, CONTINUATION),
    LeadBytes(0xF4, 0xF4, 3, (0x80, 0x8F)),
)

#: Every range a continuation byte may have to fall in, the full one first.
NEXT_BYTE_RANGES = tuple(dict.fromkeys([CONTINUATION, *(lead.next_range for lead in TABLE_3_7)]))


def lead_groups():
    """The rows of :data:`TABLE_3_7` grouped by what a decoder does after them: a dict from
    ``(needs, next_range)`` to the list of ``(first, last)`` lead byte ranges, in table order."""
    groups = {}
    for lead in TABLE_3_7:
        groups.setdefault((lead.needs, lead.next_range), []).append((lead.first, lead.last))
    return groups


def byte_in_range(byte, low, high):
    """Whether the 8-bit value ``byte`` is within ``low``..``high``, as a 1-bit value."""
    if low == 0:
        return byte <= high
    if high == 0xFF:
        return byte >= low
    return (byte >= low) & (byte <= high)


def range_patterns(low, high, bits=8):
    """The values ``low`` to ``high`` of ``bits`` bits as the fewest aligned blocks, each a
    :meth:`~amaranth.hdl.Value.matches` pattern (``"101-----"`` for A0..BF)."""
    patterns = []
    while low <= high:
        size = 1
        # The largest aligned block that starts at ``low`` and ends by ``high``.
        while low % (size * 2) == 0 and low + size * 2 - 1 <= high and size * 2 <= 1 << bits:
            size *= 2
        fixed = bits - (size.bit_length() - 1)
        prefix = format(low >> (bits - fixed), f"0{fixed}b") if fixed else ""
        patterns.append(prefix + "-" * (bits - fixed))
        low += size
    return patterns


def byte_matches_range(byte, low, high):
    """Whether the 8-bit value ``byte`` is within ``low``..``high``, as a match of its bits
    against :func:`range_patterns`: logic of the bits alone, where :func:`byte_in_range`'s
    comparisons become carry chains."""
    return byte.matches(*range_patterns(low, high))


def nibble_terms(ranges):
    """The bytes within any of ``ranges`` (``(low, high)`` pairs), as a sum of products of one
    condition on the high nibble and one on the low nibble.

    Returns a list of ``(highs, lows)``: sets of high-nibble and of low-nibble values; a byte is
    in the ranges when, for some term, its high nibble is in ``highs`` and its low nibble in
    ``lows``. High nibbles whose whole row of 16 bytes is in the ranges share one term with
    every low nibble allowed. Each set is a function of four bits, one LUT4, so a pipeline
    registers the sets and combines them a stage later in one or two levels.
    """
    members = set()
    for low, high in ranges:
        members.update(range(low, high + 1))
    rows = {}
    for high_nibble in range(16):
        lows = frozenset(low for low in range(16) if high_nibble << 4 | low in members)
        if lows:
            rows.setdefault(lows, set()).add(high_nibble)
    full = frozenset(range(16))
    terms = []
    if full in rows:
        terms.append((frozenset(rows.pop(full)), full))
    for lows, highs in rows.items():
        for high_nibble in sorted(highs):
            terms.append((frozenset([high_nibble]), lows))
    return terms


def plane_minus_one(plane):
    """The four bits a high surrogate carries for a supplementary ``plane`` (1 to 16): the plane
    less one (RFC 2781, section 2.1: U' = U - 0x10000)."""
    return (plane - 1)[0:4]


def high_surrogate(bits_10_16, plane_bits):
    """The high surrogate D800..DBFF of a supplementary code point, from its bits 10 to 15 and
    :func:`plane_minus_one` of its plane (RFC 2781, section 2.1)."""
    return Cat(bits_10_16, plane_bits, Const(0b110110, 6))


def low_surrogate(bits_0_10):
    """The low surrogate DC00..DFFF of a supplementary code point, from its bits 0 to 9."""
    return Cat(bits_0_10, Const(0b110111, 6))


def surrogate_pair_value(high_bits, low_bits):
    """The 21-bit code point of a surrogate pair, from the ten low bits of each surrogate (RFC
    2781, section 2.2: U = ((W1 & 0x3FF) << 10 | (W2 & 0x3FF)) + 0x10000; the addition only
    touches the plane bits)."""
    return Cat(low_bits[0:10], high_bits[0:6], high_bits[6:10] + 1)


def utf16_units(value):
    """The UTF-16 units of scalar value ``value`` (21 bits), as ``([first, second], count)``:
    the value itself, or a surrogate pair (RFC 2781, section 2.1); ``second`` counts only when
    ``count`` is 2."""
    supplementary = value[16:21] != 0
    high = high_surrogate(value[10:16], plane_minus_one(value[16:21]))
    return [Mux(supplementary, high, value[0:16]), low_surrogate(value[0:10])], 1 + supplementary


def utf8_bytes(value):
    """The UTF-8 bytes of scalar value ``value`` (21 bits), as ``([first, ..., fourth],
    count)``: one to four bytes, shortest form (RFC 3629, section 3; Unicode ch. 3, Table 3-6);
    a byte counts only when it is before ``count``."""
    def continuation(high):
        return Cat(value[high - 6:high], Const(0b10, 2))
    one = value[7:21] == 0
    two = ~one & (value[11:21] == 0)
    three = ~one & ~two & (value[16:21] == 0)
    first = Mux(one, value[0:8],
            Mux(two, Cat(value[6:11], Const(0b110, 3)),
            Mux(three, Cat(value[12:16], Const(0b1110, 4)),
                Cat(value[18:21], Const(0b11110, 5)))))
    second = Mux(two, continuation(6), Mux(three, continuation(12), continuation(18)))
    third = Mux(three, continuation(6), continuation(12))
    fourth = continuation(6)
    count = Mux(one, 1, Mux(two, 2, Mux(three, 3, 4)))
    return [first, second, third, fourth], count


def beyond_scalar_range(unit):
    """A numeric 32-bit UTF-32 unit is above U+10FFFF (Unicode ch. 3, D90)."""
    return (unit[21:32] != 0) | (unit[16:21] > 0x10)


def in_surrogate_range(value):
    """A value of 21 bits or more, at most U+10FFFF, is in D800..DFFF (D71, D73)."""
    return value[11:21] == 0b11011


def select_unit(select, sources, byteorder, *, bits=16):
    """The UTF-16 (or, with ``bits=32``, UTF-32) unit, in wire order for ``byteorder``, that
    ``select`` (a bit for each name of ``sources``) picks from ``sources`` (values of ``bits``
    bits by name), or 0 when none is selected. An AND-OR of the sources, with no priority
    between them: ``select`` is one-hot, or the sources it may pick together have no bit set in
    common."""
    value = Const(0, bits)
    for name, source in sources.items():
        value = value | (source & getattr(select, name).replicate(bits))
    return swap_bytes(value) if byteorder == "big" else value


def swap_bytes(value):
    """``value`` (a whole number of bytes) with its bytes in the opposite order: a numeric
    16- or 32-bit unit to big-endian wire order (``[7:0]`` first on the wire) and back."""
    return Cat(*reversed([value[offset:offset + 8] for offset in range(0, len(value), 8)]))


def replace_unencodable(code_point, last):
    """``code_point`` (a :data:`~utfhw.hdl.unicode.layout.CodePoint` view) as a form that ends
    at ``last`` holds it: ``(data, error, beyond)``, ``data`` being ``?`` above ``last``,
    ``error`` ``UNENCODABLE_CHARACTER`` there unless the code point already has a kind, and
    ``beyond`` whether it was above ``last``."""
    # ``last`` is 2**k - 1 (0x7F or 0xFF): above it is any bit from k up, with no comparator,
    # which synthesis would make a carry chain (22 LUT4s a lane from UTF-32 on an ECP5).
    beyond = code_point.data[last.bit_length():].any()
    fresh = beyond & (code_point.error == ErrorKind.NONE)
    return (Mux(beyond, ENCODE_REPLACEMENT, code_point.data),
            Mux(fresh, ErrorKind.UNENCODABLE_CHARACTER, code_point.error), beyond)
