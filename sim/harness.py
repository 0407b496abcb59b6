"""Run the gateware in Amaranth's simulator: ``simulate`` and ``transcode``."""

import random
from dataclasses import dataclass, field

from amaranth.sim import Simulator

from ..hdl.layout import Byte, ErrorKind
from ..hdl.pipeline import UTF8ToUTF16
from .payload import LaneFormat, pack_bytes
from .reference import check_codec, check_errors_argument, error_reason
from .stream import check_stall, stream_get, stream_put


#: Codec pairs the gateware implements so far: UTF-8 to UTF-16 in either byte order.
GATEWARE_SOURCES = ("utf-8",)
GATEWARE_TARGETS = {"utf-16-le": "little", "utf-16-be": "big"}


def check_pair(source, target):
    """Reject unknown codec names, and known ones the gateware cannot transcode yet."""
    check_codec("source", source)
    check_codec("target", target)
    if source not in GATEWARE_SOURCES or target not in GATEWARE_TARGETS:
        raise ValueError(f"the gateware does not transcode {source} to {target} yet; it "
                         f"transcodes {' or '.join(GATEWARE_SOURCES)} to "
                         f"{' or '.join(GATEWARE_TARGETS)}")


__all__ = [
    "GATEWARE_SOURCES", "GATEWARE_TARGETS", "check_pair", "build_pipeline",
    "Simulation", "run_messages", "simulate", "transcode", "units_to_bytes",
]


#: Clock period given to the simulator; only VCD timestamps depend on it.
CLOCK_PERIOD = 1e-8


@dataclass
class Simulation:
    """The outcome of one simulated message.

    Attributes
    ----------
    output : bytes
        What the gateware emitted, in wire order.
    cycles : int
        Clocks from the first accepted input beat to the last output beat, both included.
    input_bytes : int
        Length of the input message.
    beats : list
        Output beats: one ``(units, last)`` tuple per beat, ``units`` a list of
        ``(data, ErrorKind)`` in wire byte order.
    """
    output: bytes
    cycles: int
    input_bytes: int
    beats: list = field(repr=False, default_factory=list)

    @property
    def bytes_per_clock(self):
        return self.input_bytes / self.cycles if self.cycles else 0.0


def build_pipeline(source="utf-8", target="utf-16-le", *, errors="replace"):
    """The gateware for a codec pair. ``errors="strict"`` builds the ``"replace"`` core, whose
    error kinds tell the consumer where to stop."""
    check_pair(source, target)
    check_errors_argument(errors)
    hardware_errors = "replace" if errors == "strict" else errors
    return UTF8ToUTF16(byteorder=GATEWARE_TARGETS[target], errors=hardware_errors)


def _first_error_span(beats, source):
    """CPython's (start, end, reason) for the first error, from ``"replace"`` output beats.

    Every utfhw pipeline emits exactly one output beat per input byte, and a byte that produces
    no item is one that a pending sequence has taken in. So, before the first error, the bytes
    after the last beat that carried items are the pending sequence that an error cuts short.
    """
    sequence_start = 0
    for index, (units, _) in enumerate(beats):
        for _, error in units:
            if error == ErrorKind.INVALID_BYTE:
                return index, index + 1, error_reason(error, source)
            if error == ErrorKind.TRUNCATED:
                return sequence_start, index, error_reason(error, source)
            if error == ErrorKind.UNFINISHED:
                return sequence_start, index + 1, error_reason(error, source)
        if units:
            sequence_start = index + 1
    return None


def run_messages(dut, messages, *, stall=0.0, seed=None, vcd=None, progress=None):
    """Stream byte ``messages`` back to back through ``dut`` in Amaranth's simulator.

    ``dut`` has a :data:`~utfhw.hdl.layout.Byte` input ``i`` and a lane-stream output ``o``.
    Each message is a non-empty bytes-like object, sent with ``last`` on its final byte.

    Returns ``(beats, cycles)``: ``beats`` holds, for each message, its output beats as
    ``(items, last)`` tuples (see :class:`~utfhw.sim.payload.LaneFormat`); ``cycles`` counts the
    clocks from the first accepted input beat to the last output beat, both included.
    """
    check_stall(stall)
    messages = [bytes(message) for message in messages]
    if not all(messages):
        raise ValueError("every message must hold at least one byte")
    payloads = [payload for message in messages for payload in pack_bytes(Byte, message)]
    total = len(payloads)
    output_format = LaneFormat(dut.o.payload.shape())

    rng = random.Random(seed)
    producer_rng = random.Random(rng.getrandbits(64))
    consumer_rng = random.Random(rng.getrandbits(64))
    first_input_cycle = []
    beats = [[]]
    last_output_cycle = []

    def on_input(index, cycle):
        if index == 0:
            first_input_cycle.append(cycle)
        if progress is not None and (index % 1024 == 1023 or index == total - 1):
            progress(index + 1, total)

    def on_output(payload, cycle):
        items, last = output_format.unpack(payload)
        beats[-1].append((items, last))
        if last:
            beats.append([])
        last_output_cycle[:] = [cycle]

    async def producer(ctx):
        await stream_put(ctx, dut.i, payloads, stall=stall, rng=producer_rng,
                         on_transfer=on_input)

    async def consumer(ctx):
        await stream_get(ctx, dut.o, until_last=len(messages), stall=stall, rng=consumer_rng,
                         on_transfer=on_output)

    sim = Simulator(dut)
    sim.add_clock(CLOCK_PERIOD)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    if vcd is not None:
        with sim.write_vcd(str(vcd)):
            sim.run()
    else:
        sim.run()
    beats.pop()
    return beats, last_output_cycle[0] - first_input_cycle[0] + 1


def simulate(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
             seed=None, vcd=None, progress=None):
    """Transcode ``data`` (one message) in Amaranth's simulation of the gateware.

    Parameters
    ----------
    data : bytes-like
        The message.
    source, target : str
        CPython codec names.
    errors : str
        ``"replace"``, ``"ignore"`` or ``"strict"``; strict raises :exc:`UnicodeDecodeError`
        with CPython's ``start``, ``end`` and ``reason``, found from the hardware's error kinds.
    stall : float
        Probability of a stall clock on each side (input ``valid`` low, output ``ready`` low).
    seed : int or None
        Seed of the stall pattern.
    vcd : str or path or None
        Write a waveform file there.
    progress : callable or None
        Called as ``progress(bytes_accepted, total_bytes)`` as input is accepted.

    Returns
    -------
    :class:`Simulation`
    """
    data = bytes(data)
    check_stall(stall)
    check_pair(source, target)
    check_errors_argument(errors)
    if not data:
        # A message has at least one beat; an empty input is no message at all.
        return Simulation(output=b"", cycles=0, input_bytes=0)
    dut = build_pipeline(source, target, errors=errors)

    (beats,), cycles = run_messages(dut, [data], stall=stall, seed=seed, vcd=vcd,
                                    progress=progress)
    if errors == "strict":
        span = _first_error_span(beats, source)
        if span is not None:
            start, end, reason = span
            raise UnicodeDecodeError(source, data, start, end, reason)
    return Simulation(output=units_to_bytes(beats), cycles=cycles, input_bytes=len(data),
                      beats=beats)


def units_to_bytes(beats):
    """The wire bytes of UTF-16 output beats (``data[0:8]`` of each unit goes first)."""
    output = bytearray()
    for units, _ in beats:
        for unit, _ in units:
            output += unit.to_bytes(2, "little")
    return bytes(output)


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
              seed=None, vcd=None, progress=None):
    """``simulate(...).output``: what ``data.decode(source, errors).encode(target)`` gives, as
    computed by the simulated gateware."""
    return simulate(data, source, target, errors=errors, stall=stall, seed=seed, vcd=vcd,
                    progress=progress).output
