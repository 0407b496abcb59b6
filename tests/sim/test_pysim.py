"""Amaranth's simulator of a core, made once and run again for each input: every run starts
from reset, as a fresh simulator of a fresh core would."""

import concurrent.futures

from utfhw.hdl.cores import CoreSpec
from utfhw.sim import simulate
from utfhw.sim.pysim import run_messages


MESSAGES = [b"abc\xff\xe2\x82" * 5, "h\u00e9llo \U0001F600".encode() * 4, b"",
            b"\xed\xa0\x80x" * 6]


def test_each_run_starts_from_reset():
    spec = CoreSpec.of("utf-8", "utf-16-le", width=4)
    core = spec.build()
    # A message cut short leaves the core mid-sequence; the next run must not see it.
    run_messages(core, [b"\xf0\x9f"], stall=0.5, seed=1)
    for message in MESSAGES:
        again = run_messages(core, [message], stall=0.3, seed=2)
        fresh = run_messages(spec.build(), [message], stall=0.3, seed=2)
        assert again == fresh, message.hex()


def test_threads_keep_their_own_simulators():
    def run(message):
        return simulate(message, "utf-8", "utf-16-le", width=4, stall=0.3, seed=len(message))

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(run, MESSAGES * 3))
    assert threaded == [run(message) for message in MESSAGES * 3]
    assert [result.output for result in threaded] == [
        message.decode("utf-8", "replace").encode("utf-16-le") for message in MESSAGES * 3]
