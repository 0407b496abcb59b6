"""Run cores in Amaranth's simulator, with a producer and a consumer that stall at random."""

import collections
import functools
import random
import threading

from amaranth.sim import Simulator

from .payload import LaneFormat, pack_units
from .stream import check_stall, stream_get, stream_put


__all__ = ["CLOCK_PERIOD", "run_payloads", "run_messages", "built_core"]


#: Clock period given to the simulator; only VCD timestamps depend on it.
CLOCK_PERIOD = 1e-8


def run_payloads(dut, payloads, *, messages=None, stall=0.0, seed=None, vcd=None,
                 progress=None, on_output=None):
    """Stream raw input ``payloads`` through ``dut`` (streams ``i`` and ``o``) in Amaranth's
    simulator, with independent random stalls on both sides.

    The run ends after ``messages`` output beats with ``last`` (default: as many as the input
    has). ``on_output(payload)`` is called with each raw output payload; ``progress(done,
    total)`` as input beats are taken. Returns the clocks from the first accepted input beat to
    the last output beat, both included.
    """
    check_stall(stall)
    total = len(payloads)
    if messages is None:
        last_mask = 1 << dut.i.payload.shape()["last"].offset
        messages = sum(1 for payload in payloads if payload & last_mask)

    rng = random.Random(seed)
    producer_rng = random.Random(rng.getrandbits(64))
    consumer_rng = random.Random(rng.getrandbits(64))
    first_input_cycle = []
    last_output_cycle = []

    def on_input(index, cycle):
        if index == 0:
            first_input_cycle.append(cycle)
        if progress is not None and (index % 1024 == 1023 or index == total - 1):
            progress(index + 1, total)

    def on_transfer(payload, cycle):
        if on_output is not None:
            on_output(payload)
        last_output_cycle[:] = [cycle]

    async def producer(ctx):
        await stream_put(ctx, dut.i, payloads, stall=stall, rng=producer_rng,
                         on_transfer=on_input)

    async def consumer(ctx):
        await stream_get(ctx, dut.o, until_last=messages, stall=stall, rng=consumer_rng,
                         on_transfer=on_transfer)

    if vcd is not None:
        sim, job = _new_simulator(dut)
        job.update(producer=producer, consumer=consumer)
        with sim.write_vcd(str(vcd)):
            sim.run()
    else:
        sim, job = _simulator(dut)
        if job:
            sim.reset()     # back to the initial state, its testbenches to run anew
        job.update(producer=producer, consumer=consumer)
        sim.run()
    return last_output_cycle[0] - first_input_cycle[0] + 1


# The simulators of the cores each thread ran last, by the core's identity. Making one
# elaborates the core and compiles it to Python, which took most of a short run's time (a wide
# core at W = 8: about half a second), and tests run one core with many inputs one after
# another. A simulator runs one input at a time: threads keep their own.
_recent = threading.local()
_RECENT_CORES = 4


@functools.lru_cache(maxsize=_RECENT_CORES)
def built_core(spec):
    """``spec.build()`` (a :class:`~utfhw.hdl.cores.CoreSpec`), one object while the spec is
    among the last ones asked for: :func:`run_payloads` then makes its simulator once."""
    return spec.build()


def _simulator(dut):
    """A simulator of ``dut`` and its job, reused while ``dut`` is among the last cores this
    thread ran."""
    recent = getattr(_recent, "simulators", None)
    if recent is None:
        recent = _recent.simulators = collections.OrderedDict()
    key = id(dut)
    if key in recent and recent[key][0] is dut:
        recent.move_to_end(key)
        return recent[key][1:]
    sim, job = _new_simulator(dut)
    recent[key] = (dut, sim, job)
    while len(recent) > _RECENT_CORES:
        recent.popitem(last=False)
    return sim, job


def _new_simulator(dut):
    """A simulator of ``dut`` whose producer and consumer run those of ``job`` (a dict),
    which each run sets before it starts."""
    job = {}

    async def producer(ctx):
        await job["producer"](ctx)

    async def consumer(ctx):
        await job["consumer"](ctx)

    sim = Simulator(dut)
    sim.add_clock(CLOCK_PERIOD)
    # The run ends when the consumer has its messages. A core answers a message only after its
    # last input beat, so by then the producer is done; one that ends a message early leaves
    # input unsent, and its run ends with outputs missing instead of waiting for ever.
    sim.add_testbench(producer, background=True)
    sim.add_testbench(consumer)
    return sim, job


def run_messages(dut, messages, *, stall=0.0, seed=None, vcd=None, progress=None):
    """Stream byte ``messages`` back to back through ``dut`` in Amaranth's simulator.

    ``dut`` has a :class:`~utfhw.hdl.unicode.layout.UnitBytes` input ``i`` and a lane-stream output
    ``o``. Each message goes in one beat per code unit, with ``last`` on its final beat; an empty
    message is one empty beat.

    Returns ``(beats, cycles)``: ``beats`` holds, for each message, its output beats as
    ``(items, last)`` tuples (see :class:`~utfhw.sim.payload.LaneFormat`); ``cycles`` counts the
    clocks from the first accepted input beat to the last output beat, both included.
    """
    input_layout = dut.i.payload.shape()
    payloads = [payload for message in messages
                for payload in pack_units(input_layout, bytes(message))]
    output_format = LaneFormat(dut.o.payload.shape())
    beats = [[]]

    def on_output(payload):
        items, last = output_format.unpack(payload)
        beats[-1].append((items, last))
        if last:
            beats.append([])

    cycles = run_payloads(dut, payloads, messages=len(messages), stall=stall, seed=seed,
                          vcd=vcd, progress=progress, on_output=on_output)
    beats.pop()
    return beats, cycles
