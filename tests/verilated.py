"""Shared by the Verilator tests: run many messages through a pipeline's generated Verilog and
compare every message with CPython."""

from utfhw.sim.verilator import verilated_pipeline


def split(data, lengths):
    offset = 0
    for length in lengths:
        yield data[offset:offset + length]
        offset += length


def check_verilated(data, lengths, source, target, *, errors="replace", stall=0.0, seed=0,
                    pipelined=False):
    """Stream the messages in ``data`` (the ``n``-th ``lengths[n]`` bytes long) back to back
    through the Verilated pipeline and check each one's output against
    ``message.decode(source, errors).encode(target)``. Without stalls, also check that ``N``
    input units take ``N`` plus the latency clocks. Returns the
    :class:`~utfhw.sim.verilator.VerilatorRun`."""
    pipeline = verilated_pipeline(source, target, errors=errors, pipelined=pipelined)
    run = pipeline.run_joined(data, lengths, stall=stall, seed=seed)
    expected = [message.decode(source, errors).encode(target)
                for message in split(data, lengths)]
    if run.output_lengths != [len(output) for output in expected] or run.output != b"".join(expected):
        for index, (message, got, want) in enumerate(zip(split(data, lengths), run.messages(),
                                                         expected)):
            assert got == want, (source, target, errors, index, message.hex(), got.hex(),
                                 want.hex())
        assert False, "outputs differ in length but no message does"
    if stall == 0.0:
        assert run.cycles == run.input_beats + pipeline.latency, (source, target, errors)
    return run


def joined(messages):
    """``(data, lengths)`` of a list of messages."""
    return b"".join(messages), [len(message) for message in messages]


def every_two_bytes():
    return b"".join(value.to_bytes(2, "big") for value in range(1 << 16))


def every_two_bytes_messages():
    """All 16,843,008 byte strings of 1 to 3 bytes as ``(data, lengths)`` chunks, each string
    its own message: first those of 1 and 2 bytes, then the 3-byte ones in eight slices of 32
    first bytes."""
    pairs = every_two_bytes()
    yield bytes(range(256)) + pairs, [1] * 256 + [2] * (1 << 16)
    for start in range(0, 256, 32):
        data = bytearray(3 << 16)
        data[1::3] = pairs[0::2]
        data[2::3] = pairs[1::2]
        slices = []
        for first in range(start, start + 32):
            data[0::3] = bytes([first]) * (1 << 16)
            slices.append(bytes(data))
        joined_slices = b"".join(slices)
        yield joined_slices, [3] * (len(joined_slices) // 3)
