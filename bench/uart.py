"""A bit-level serial line for test benches: drive a UART's ``rx`` pin and read its ``tx`` pin.

Both follow the line the way a host's UART does: 8N1 frames, ``divisor`` clocks per bit."""

__all__ = ["send_bytes", "receive_bytes"]


async def send_bytes(ctx, line, data, *, divisor, gap_bits=None, rng=None):
    """Send ``data`` on ``line`` (driven by this testbench), one 8N1 frame per byte.

    Frames go back to back, at the full line rate, unless ``gap_bits`` is given: then the line
    stays idle for ``rng.randrange(gap_bits + 1)`` bit times before each frame."""
    for byte in data:
        if gap_bits:
            ctx.set(line, 1)
            await ctx.tick().repeat(divisor * rng.randrange(gap_bits + 1) or 1)
        for bit in [0, *((byte >> index) & 1 for index in range(8)), 1]:
            ctx.set(line, bit)
            await ctx.tick().repeat(divisor)


async def receive_bytes(ctx, line, count, *, divisor, timeout):
    """Receive ``count`` bytes from ``line``, sampling each bit in its middle like a host's
    UART; returns them as :class:`bytes`. With ``count=None``, receive until the line stays
    idle for ``timeout`` clocks.

    Raises :exc:`AssertionError` if a stop bit is low or (with a ``count``) no start bit comes
    within ``timeout`` clocks of the previous frame."""
    received = bytearray()
    while count is None or len(received) < count:
        waited = 0
        while ctx.get(line):
            await ctx.tick()
            waited += 1
            if waited > timeout:
                if count is None:
                    return bytes(received)
                raise AssertionError(f"no start bit for {timeout} clocks after "
                                     f"{len(received)} of {count} bytes: {bytes(received)!r}")
        await ctx.tick().repeat(divisor // 2)
        assert ctx.get(line) == 0, f"start bit too short after {bytes(received)!r}"
        byte = 0
        for index in range(8):
            await ctx.tick().repeat(divisor)
            byte |= ctx.get(line) << index
        await ctx.tick().repeat(divisor)
        assert ctx.get(line) == 1, f"stop bit low after {bytes(received)!r}"
        received.append(byte)
    return bytes(received)
