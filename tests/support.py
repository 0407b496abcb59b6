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


def error_fields(error):
    """What must match between two UnicodeDecodeErrors (or None for no error)."""
    if error is None:
        return None
    return error.encoding, error.object, error.start, error.end, error.reason


def cpython_strict_error(data, source):
    try:
        data.decode(source)
    except UnicodeDecodeError as error:
        return error_fields(error)
    return None


def check_messages(messages, source="utf-8", target="utf-16-le", *, errors="replace",
                   stall=0.0, seed=0, pipelined=False):
    """Run messages back to back through one Transcoder (or with ``pipelined``, the
    PipelinedUTF8ToUTF16); compare every message's beats with the model, its bytes with CPython
    and, from the "replace" core's beats, the strict error with CPython's. Returns the cycle
    count."""
    from utfhw.sim.harness import build_pipeline, first_error_span, run_messages, units_to_bytes
    from utfhw.sim.reference import decode_error, transcoder_beats

    dut = build_pipeline(source, target, errors=errors, pipelined=pipelined)
    beats, cycles = run_messages(dut, messages, stall=stall, seed=seed)
    assert len(beats) == len(messages)
    for message, message_beats in zip(messages, beats):
        context = (source, target, errors, message.hex())
        assert message_beats == transcoder_beats(message, source, target, errors), context
        assert units_to_bytes(message_beats, target) == \
            message.decode(source, errors).encode(target), context
        if errors == "replace":
            span = first_error_span(message_beats, message, source, target)
            hardware = error_fields(span and decode_error(message, source, span))
            assert hardware == cpython_strict_error(message, source), context
    return cycles
