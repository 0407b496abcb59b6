"""Stream drivers for Amaranth's simulator: a producer and a consumer with random stalls.

Both are async testbench bodies meant to run as separate testbenches (``add_testbench``), so the
two sides stall independently. A stall is a clock on which the producer keeps ``valid`` low, or
the consumer keeps ``ready`` low; each clock is a stall with probability ``stall``.
"""

import random

from amaranth.hdl import Value


__all__ = ["check_stall", "stream_put", "stream_get"]


def _bits(payload):
    # Raw bits are several times faster to set and sample than layout views, and the simulator
    # spends most of its time here on long inputs.
    return payload.as_value() if hasattr(payload, "as_value") else Value.cast(payload)


def check_stall(stall):
    if isinstance(stall, bool) or not isinstance(stall, (int, float)) or not 0 <= stall < 1:
        raise ValueError(f"stall must be a probability from 0 up to (not including) 1, "
                         f"not {stall!r}")


async def stream_put(ctx, stream, payloads, *, stall=0.0, rng=None, on_transfer=None):
    """Drive ``payloads`` (raw integers of the payload's width) into ``stream``, one beat each.

    ``on_transfer(index, cycle)`` is called after each beat is taken, with the clock count since
    this testbench started.
    """
    rng = rng or random.Random(0)
    payload_bits = _bits(stream.payload)
    cycle = 0
    for index, payload in enumerate(payloads):
        while stall and rng.random() < stall:
            ctx.set(stream.valid, 0)
            await ctx.tick()
            cycle += 1
        ctx.set(stream.valid, 1)
        ctx.set(payload_bits, payload)
        # Sampled at the clock edge, as the design sees it.
        while True:
            _, _, ready = await ctx.tick().sample(stream.ready)
            cycle += 1
            if ready:
                break
        if on_transfer is not None:
            on_transfer(index, cycle - 1)
    ctx.set(stream.valid, 0)


async def stream_get(ctx, stream, *, until_last=1, stall=0.0, rng=None, on_transfer=None):
    """Take beats from ``stream`` until ``until_last`` beats with ``last`` set have come.

    The payload must have a ``last`` field. Returns the payloads as raw integers;
    ``on_transfer(payload, cycle)`` is called for each beat with the clock count since this
    testbench started.
    """
    rng = rng or random.Random(1)
    payload_bits = _bits(stream.payload)
    last_mask = 1 << stream.payload.shape()["last"].offset
    beats = []
    cycle = 0
    lasts = 0
    while lasts < until_last:
        ready = not (stall and rng.random() < stall)
        ctx.set(stream.ready, ready)
        _, _, valid, payload = await ctx.tick().sample(stream.valid, payload_bits)
        if ready and valid:
            beats.append(payload)
            if on_transfer is not None:
                on_transfer(payload, cycle)
            lasts += bool(payload & last_mask)
        cycle += 1
    ctx.set(stream.ready, 0)
    return beats
