"""Shared by the Verilator tests: run many messages through a pipeline's generated Verilog and
compare every message with CPython."""

from utfhw.sim.verilator import verilated_pipeline


def split(data, lengths):
    offset = 0
    for length in lengths:
        yield data[offset:offset + length]
        offset += length


def check_verilated(data, lengths, source, target, *, errors="replace", stall=0.0, seed=0):
    """Stream the messages in ``data`` (the ``n``-th ``lengths[n]`` bytes long) back to back
    through the Verilated pipeline and check each one's output against
    ``message.decode(source, errors).encode(target)``. Without stalls, also check that ``N``
    input units take ``N + 2`` clocks. Returns the :class:`~utfhw.sim.verilator.VerilatorRun`."""
    pipeline = verilated_pipeline(source, target, errors=errors)
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
        assert run.cycles == run.input_beats + 2, (source, target, errors)
    return run


def joined(messages):
    """``(data, lengths)`` of a list of messages."""
    return b"".join(messages), [len(message) for message in messages]
