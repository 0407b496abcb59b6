"""The handshake of a core held low while its reset is high."""

from amaranth.hdl import Module, ResetSignal
from amaranth.lib import wiring


__all__ = ["ResetGuard"]


class ResetGuard(wiring.Component):
    """A core whose ``i.ready`` and ``o.valid`` are low on every clock its ``rst`` is high, as
    ARM IHI 0051 (section 2.7.2) asks of an AXI4-Stream interface during reset.

    The core's reset is synchronous: its registers take their initial values at the first
    clock edge with ``rst`` high, so until that edge its ``o.valid`` and ``i.ready`` would still
    show the state before the reset. The guard clears both while ``rst`` is high, and keeps the
    core from taking or giving a beat then, so that a neighbour that ignores reset cannot hand
    it a beat that it then forgets. After reset the core starts from its initial state, as after
    power-up: the message it was in is lost, whatever it had taken and not yet given is never
    given, and the next beat it takes begins a message.

    Latency, throughput, capacity and backpressure are the core's; the guard is two AND gates
    on each side, and adds no register.

    Parameters
    ----------
    core : :class:`~utfhw.hdl.cores.Core`
        The core to guard, with streams ``i`` and ``o``; it becomes the submodule ``core``.

    Attributes
    ----------
    i : the core's ``i``
    o : the core's ``o``
    latency, capacity : :class:`int`
        The core's.
    """
    def __init__(self, core):
        self.core = core
        self.latency, self.capacity = core.latency, core.capacity
        super().__init__(core.signature)

    def invariants(self):
        """The core's :meth:`invariants`, if it states any, for a formal bench."""
        return getattr(self.core, "invariants", lambda: ())()

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        running = ~ResetSignal()
        m.d.comb += [
            core.i.valid.eq(self.i.valid & running),
            core.i.payload.eq(self.i.payload),
            self.i.ready.eq(core.i.ready & running),
            self.o.valid.eq(core.o.valid & running),
            self.o.payload.eq(core.o.payload),
            core.o.ready.eq(self.o.ready & running),
        ]
        return m
