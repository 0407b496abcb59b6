"""The wrapper that lets a design be placed and routed alone and timed on its own paths."""

from amaranth.hdl import Cat, Module, Signal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


__all__ = ["TimingHarness"]


class TimingHarness(wiring.Component):
    """Wraps ``core`` for implementation alone on a device.

    Every input port of the core is driven from a shift register fed by ``serial_in``, and
    every output port is captured in a register, loaded (``load``) into a shift register that
    drives ``serial_out``. Both sides of the core are flip-flops with no logic between them and
    the core's ports, so the core's own paths set the clock, and three pins suffice whatever the
    core's width."""
    def __init__(self, core):
        self.core = core
        super().__init__({"serial_in": In(1), "load": In(1), "serial_out": Out(1)})

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = self.core
        inputs, outputs = [], []
        for _, member, value in self.core.signature.flatten(self.core):
            (inputs if member.flow == wiring.In else outputs).append(Value.cast(value))
        inputs, outputs = Cat(*inputs), Cat(*outputs)

        chain = Signal(len(inputs))
        m.d.sync += chain.eq(Cat(self.serial_in, chain[:-1]))
        m.d.comb += inputs.eq(chain)

        captured = Signal(len(outputs))
        shift = Signal(len(outputs))
        m.d.sync += captured.eq(outputs)
        with m.If(self.load):
            m.d.sync += shift.eq(captured)
        with m.Else():
            m.d.sync += shift.eq(shift >> 1)
        m.d.comb += self.serial_out.eq(shift[0])
        return m
