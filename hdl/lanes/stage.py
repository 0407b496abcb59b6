"""The base of the lane layer's stages: a stage of ``width`` lanes whose latency is a function of
its width alone, and the register without a reset that each stage loads its output into."""

from amaranth.hdl import Signal
from amaranth.lib import wiring


__all__ = ["WidthStage", "payload_register"]


def payload_register(m, port, *, name=None):
    """A register without a reset that drives ``port.payload`` (a stream's), for a stage to load
    its output beat into with ``m.d.sync``; returned as the payload's view.

    Only a stage's control needs a reset: its ``valid``, counters and pointers. A payload is
    read only while its ``valid`` is high, and after a reset ``valid`` is low until a beat is
    loaded, so a reset of the payload changes nothing the next stage sees. It does cost: the
    reset net then reaches every bit of every beat in the core, and the ECP5 has no global
    network for a reset, so nextpnr routes it through the fabric to each flip-flop's ``LSR``.
    On the ECP5-85F, the W = 64 ASCII validator had its reset on 5,534 of its 8,139
    flip-flops: after 12 minutes router1 still had about 2,000 of its 31,487 arcs to route,
    and the number had stopped falling. The same netlist with those resets taken out routed
    in 11 s, at 173.6 MHz. The register still has the payload's initial
    value, so simulators and formal benches start from it rather than from X."""
    register = Signal.like(port.payload, reset_less=True, name=name or "payload")
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
