"""The sustained rate of every pipeline: one long malformed-and-well-formed input per pair, the
output always ready, cycles counted by the simulator."""

import itertools
import random

from ..hdl.cores import make_core
from ..hdl.params import CODECS
from .payload import units_to_bytes
from .pysim import run_messages
from .reference import input_beats, transcode


__all__ = ["stress_input", "PairRate", "pair_rates"]


# Bytes and units that drive decoders into their error paths, mixed with text, so the rate is
# measured on the hard cases and not only on clean input.
_STRESS_BYTES = [0x80, 0xBF, 0xC0, 0xC2, 0xE0, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF, 0xFE, 0xEF,
                 0xBB, 0x00, 0xD8, 0xDC, 0x41]
_STRESS_TEXT = "a\u00e9\u0416\u4e2d\ufeff\U0001F600\U0010FFFF"
_STRESS_POOL = 4096


def stress_input(source, length, seed=0):
    """``length`` bytes for codec ``source``: stretches of encoded text alternating with
    stretches of bytes that are malformed in every encoding, in random order and cut anywhere.

    The stretches are drawn from a pool of a few thousand, so that megabytes (for the Verilator
    backend) take well under a second to make."""
    rng = random.Random(seed)

    def stretch():
        if rng.random() < 0.5:
            return bytes(rng.choices(_STRESS_BYTES, k=rng.randrange(1, 16)))
        return "".join(rng.choices(_STRESS_TEXT, k=rng.randrange(1, 8))).encode(source)

    pool = [stretch() for _ in range(_STRESS_POOL)]
    parts = []
    size = 0
    while size < length:
        # Stretches average about 8 bytes, so this takes a few rounds whatever the length.
        drawn = rng.choices(pool, k=max(16, (length - size) // 8))
        parts.extend(drawn)
        size += sum(map(len, drawn))
    return b"".join(parts)[:length]


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
