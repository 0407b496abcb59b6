"""The two handshakes the stages share.

A *registered* stage holds its output beat in a register: latency one clock, and ``i.ready`` is
``~o.valid | o.ready``, so it takes a beat on every clock while its output is ready and stalls
in the same clock when it is not. A *combinational* stage passes ``valid`` and ``ready``
straight through and rewrites the payload on the way. Both move exactly one output beat per
input beat.
"""

from amaranth.hdl import Signal


__all__ = ["registered_handshake", "combinational_handshake", "message_start"]


def registered_handshake(m, i, o, *, keep_input=None):
    """Handshake of a registered stage. Returns the condition under which an output beat is
    loaded; the caller loads the output payload (``m.d.sync``) under it.

    The input beat is taken with it, unless ``keep_input`` (a 1-bit value) is high: then the
    input beat stays for another clock, for a stage that needs two output beats for it.
    """
    can_load = ~o.valid | o.ready
    if keep_input is None:
        m.d.comb += i.ready.eq(can_load)
    else:
        m.d.comb += i.ready.eq(can_load & ~keep_input)
    load = i.valid & can_load
    with m.If(load):
        m.d.sync += o.valid.eq(1)
    with m.Elif(o.ready):
        m.d.sync += o.valid.eq(0)
    return load


def message_start(m, moves, payload):
    """A register that is high until the first beat of a message with ``count != 0`` has
    moved, and high again after the beat with ``last``: whether nothing of the current message
    has passed yet."""
    at_start = Signal(init=1)
    with m.If(moves):
        with m.If(payload.last):
            m.d.sync += at_start.eq(1)
        with m.Elif(payload.count != 0):
            m.d.sync += at_start.eq(0)
    return at_start


def combinational_handshake(m, i, o):
    """Handshake of a combinational stage, which also forwards ``last``. Returns the condition
    under which a beat moves through (the caller updates its state under it)."""
    m.d.comb += [
        o.valid.eq(i.valid),
        i.ready.eq(o.ready),
        o.payload.last.eq(i.payload.last),
    ]
    return i.valid & o.ready
