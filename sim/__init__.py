"""utfhw simulation: the reference model, Amaranth's simulator and Verilator running the cores,
Verilog generation, lint and model checking."""

from .backends import Simulation, simulate, simulate_messages, transcode

__all__ = ["Simulation", "simulate", "simulate_messages", "transcode"]
