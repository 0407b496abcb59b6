"""The base of the lane layer's stages: a stage of ``width`` lanes whose latency is a function of
its width alone."""

from amaranth.hdl import Signal
from amaranth.lib import wiring


__all__ = ["WidthStage", "payload_register"]


def payload_register(m, port):
    """A register with no reset that drives ``port.payload`` (a stream's), for a stage to load
    its output beat into with ``m.d.sync``; the stage's ``o.valid`` keeps its reset.

    A port's signals have a reset, as every signal has unless made without one, and a reset
    on every payload bit costs. The ECP5 has no global network for a reset, so nextpnr routes
    it through the fabric to each flip-flop's ``LSR``. On the ECP5-85F the W = 64 ASCII
    validator had its reset on 5,534 of its 8,139 flip-flops, and after 12 minutes router1
    still had about 2,000 of its 31,487 arcs to route, no longer falling; the same netlist with
    those resets taken off routed in 11 s. The wide core from UTF-8 to UTF-8 at W = 32 had a
    reset on 3,504 of its 10,946 flip-flops, most of them its stages' output payloads, and
    router1 had not routed it after 14 minutes; without them it routed in about a minute.
    The next stage reads the payload only while ``o.valid`` is high, which after a reset it
    is not until a beat is loaded, and the register keeps the payload's initial value, so
    that simulators and formal benches start from it rather than from X."""
    register = Signal.like(port.payload, reset_less=True, name="payload")
    m.d.comb += port.payload.eq(register)
    return register


class WidthStage(wiring.Component):
    """Base of the wide stages of ``width`` lanes whose latency depends on nothing else. A
    subclass gives :meth:`latency_of`, so that a core can count its clocks before it builds
    the stage; ``latency`` is the stage's own. The subclass checks ``width`` before it makes
    the layouts of its ports: a stage of a core's input bytes with
    :func:`~utfhw.hdl.unicode.params.check_width`, a stage of items with
    :func:`~utfhw.hdl.unicode.params.check_power_of_two` (a core's output can have more lanes
    than its input has bytes: from UTF-16 to UTF-8, two bytes out for each byte in).
    """
    def __init__(self, signature, *, width):
        self._width = width
        #: Clocks from an input beat to the output beat it produces (or completes).
        self.latency = self.latency_of(width)
        super().__init__(signature)

    @property
    def width(self):
        return self._width

    @staticmethod
    def latency_of(width):
        """The latency of the stage at ``width`` lanes."""
        raise NotImplementedError
