"""utfhw simulation: the reference model, stream drivers, the simulation harness and the CLI."""

from .harness import Simulation, simulate, transcode

__all__ = ["Simulation", "simulate", "transcode"]
