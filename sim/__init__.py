"""utfhw simulation: the reference model, Amaranth's simulator, Verilator, Icarus Verilog and
cocotb running the cores, and model checking. Verilog export is :mod:`utfhw.verilog`."""

from .backends import Simulation, simulate, simulate_messages, transcode

__all__ = ["Simulation", "simulate", "simulate_messages", "transcode"]
