"""utfhw simulation: a core run in Amaranth's simulator or, from its generated Verilog, in
Verilator, message by message against CPython's codecs, or streamed in bounded memory
(:mod:`utfhw.sim.streaming`). The reference models are :mod:`utfhw.model`, the benches and
their stimulus :mod:`utfhw.bench`."""

from .backends import Simulation, simulate, simulate_messages, transcode
from .streaming import SimulationStream, simulate_pieces, simulate_stream, transcode_chunks
from .validation import Validation, Validations, validate, validate_chunks, validate_messages

__all__ = ["Simulation", "simulate", "simulate_messages", "transcode", "SimulationStream",
           "simulate_stream", "simulate_pieces", "transcode_chunks", "Validation", "Validations",
           "validate", "validate_messages", "validate_chunks"]
