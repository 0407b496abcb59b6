"""utfhw simulation: a core run in Amaranth's simulator or, from its generated Verilog, in
Verilator, message by message against CPython's codecs. The reference models are
:mod:`utfhw.model`, the benches and their stimulus :mod:`utfhw.bench`."""

from .backends import Simulation, simulate, simulate_messages, transcode

__all__ = ["Simulation", "simulate", "simulate_messages", "transcode"]
