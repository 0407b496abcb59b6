"""The sustained rate of every pipeline: one long malformed-and-well-formed input per pair, the
output always ready, cycles counted by the simulator."""

import itertools

from ..hdl.cores import make_core
from ..hdl.forms import CODECS
from ..model.reference import input_beats, transcode
from ..sim.payload import units_to_bytes
from ..sim.pysim import run_messages
from .stimulus import stress_input


__all__ = ["PairRate", "pair_rates"]


class PairRate:
    """The measured rate of one pipeline and its port shape."""
    def __init__(self, source, target, errors, input_bytes, input_units, cycles, core):
        self.source = source
        self.target = target
        self.errors = errors
        self.input_bytes = input_bytes
        self.input_units = input_units
        self.cycles = cycles
        self.input_bits = core.i.payload.shape().width * 8
        self.output_lanes = core.o.payload.shape().lane_count
        self.output_unit_bits = len(core.o.payload.lanes[0].data)
        self.latency = core.latency

    @property
    def units_per_clock(self):
        return self.input_units / self.cycles


def pair_rates(length=2048, *, errors="replace", pairs=None, seed=0):
    """Simulate :func:`stress_input` through every pair's pipeline (or the given ``pairs``) with
    no stalls; yields a :class:`PairRate` for each.

    Raises :exc:`AssertionError` if a pipeline's output differs from the reference model's, so
    that a rate is never reported for a wrong result."""
    for source, target in pairs or itertools.product(CODECS, CODECS):
        data = stress_input(source, length, seed)
        core = make_core(source, target, errors=errors)
        (beats,), cycles = run_messages(core, [data])
        output = units_to_bytes(beats, target)
        assert output == transcode(data, source, target, errors=errors), (source, target)
        yield PairRate(source, target, errors, len(data), input_beats(data, source), cycles,
                       core)
