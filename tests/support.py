"""Shared by the tests: input generators biased toward the bytes that matter, and the oracle."""

from hypothesis import strategies as st


# Bytes at the edges of Unicode Table 3-7, where decoders go wrong.
TRICKY_BYTES = [
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFE, 0xFF,
]

# Whole well-formed sequences of every length and their truncations, to splice into the soup.
SEQUENCES = [
    chr(code_point).encode("utf-8")
    for code_point in (0x41, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                       0x10000, 0x1F600, 0x10FFFF)
]
FRAGMENTS = SEQUENCES + [sequence[:cut] for sequence in SEQUENCES
                         for cut in range(1, len(sequence))]

tricky_byte = st.one_of(st.sampled_from(TRICKY_BYTES), st.integers(0, 255)).map(lambda b: bytes([b]))
fragment = st.one_of(tricky_byte, st.sampled_from(FRAGMENTS))


def byte_soup(min_size=0, max_size=40):
    """Messages made of tricky bytes and (possibly truncated) well-formed sequences."""
    return st.lists(fragment, min_size=min_size, max_size=max_size).map(b"".join)


def cpython_error(data):
    """CPython's (start, end, reason) for malformed UTF-8, or None."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start, error.end, error.reason
    return None
