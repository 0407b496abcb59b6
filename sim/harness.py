"""Run the gateware in Amaranth's simulator: ``simulate`` and ``transcode``."""

import random
from dataclasses import dataclass, field

from amaranth.sim import Simulator

from ..hdl.layout import ErrorKind
from ..hdl.transcoder import Transcoder
from ..hdl.pipelined import PipelinedUTF8ToUTF16
from .payload import LaneFormat, pack_units
from ..hdl.layout import REPLACEMENT_CHARACTER
from ..hdl.layout import BYTE_ORDER_MARK
from .reference import (UNIT_BYTES, Item, check_codec, check_errors_argument, codec_form,
                        decode_error, target_units)
from .stream import check_stall, stream_get, stream_put


__all__ = [
    "BACKENDS", "check_backend", "check_pair", "build_pipeline", "PIPELINED_PAIRS", "Simulation", "run_payloads", "run_messages", "simulate",
    "transcode",
    "units_to_bytes", "first_error_span",
]


#: Clock period given to the simulator; only VCD timestamps depend on it.
CLOCK_PERIOD = 1e-8


def check_pair(source, target):
    """Reject unknown codec names."""
    check_codec("source", source)
    check_codec("target", target)


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
    input_beats : int
        Input beats it took: one per source code unit (one for an empty message).
    beats : list
        Output beats: one ``(units, last)`` tuple per beat, ``units`` a list of
        ``(data, ErrorKind)`` with ``data`` in wire order (little-endian bytes of the integer).
        Empty unless beats were recorded (see :func:`simulate`'s ``record_beats``).
    """
    output: bytes
    cycles: int
    input_bytes: int
    input_beats: int = 0
    beats: list = field(repr=False, default_factory=list)

    @property
    def bytes_per_clock(self):
        return self.input_bytes / self.cycles if self.cycles else 0.0

    @property
    def units_per_clock(self):
        return self.input_beats / self.cycles if self.cycles else 0.0


#: The pairs :class:`~utfhw.hdl.pipelined.PipelinedUTF8ToUTF16` covers, with its byte order.
PIPELINED_PAIRS = {("utf-8", "utf-16-le"): "little", ("utf-8", "utf-16-be"): "big"}


def build_pipeline(source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False):
    """The gateware for a codec pair: a :class:`~utfhw.hdl.transcoder.Transcoder`, or with
    ``pipelined=True`` the :class:`~utfhw.hdl.pipelined.PipelinedUTF8ToUTF16` (UTF-8 to
    UTF-16-LE or -BE only). ``errors="strict"`` builds the ``"replace"`` core, whose error kinds
    tell the consumer where to stop."""
    check_pair(source, target)
    check_errors_argument(errors)
    hardware_errors = "replace" if errors == "strict" else errors
    if pipelined:
        if (source, target) not in PIPELINED_PAIRS:
            raise ValueError(f"pipelined=True is for utf-8 to utf-16-le or utf-16-be, not "
                             f"{source} to {target}")
        return PipelinedUTF8ToUTF16(byteorder=PIPELINED_PAIRS[(source, target)],
                                    errors=hardware_errors)
    return Transcoder(source=source, target=target, errors=hardware_errors)


def first_error_span(beats, data, source, target):
    """The first error in the ``"replace"`` output beats of one message, as an
    :class:`~utfhw.sim.reference.Item` whose ``start`` and ``end`` are CPython's, or ``None``.

    Every pipeline emits exactly one output beat per input beat, so the beat an error comes out
    on is the input unit that decided it; its kind says how far back the ill-formed part began.
    For UTF-8, a byte whose beat carries no item is one a pending sequence took in, so before the
    first error the bytes after the last beat that carried items are the pending sequence.
    """
    form, _, _ = codec_form(source)
    width = UNIT_BYTES[form]
    mark_units = len(target_units(BYTE_ORDER_MARK, target)) if codec_form(target)[2] else 0
    # A leading EF BB BF that utf-8-sig strips is taken in without an item of its own.
    sequence_start = 3 if source == "utf-8-sig" and data.startswith(b"\xef\xbb\xbf") else 0
    for index, (units, _) in enumerate(beats):
        if index == 0:
            units = units[mark_units:]
        for _, error in units:
            if error == ErrorKind.NONE:
                continue
            def span(start, end):
                return Item(REPLACEMENT_CHARACTER, error, start, end, index)
            if form == "utf-8":
                if error == ErrorKind.INVALID_BYTE:
                    return span(index, index + 1)
                if error == ErrorKind.TRUNCATED:
                    return span(sequence_start, index)
                return span(sequence_start, index + 1)            # UNFINISHED
            start = width * index
            if error == ErrorKind.UNPAIRED_HIGH_SURROGATE:
                return span(start - 2, start)
            if error == ErrorKind.UNFINISHED and len(data) % 2:
                return span(start - 2, len(data))                 # high surrogate, odd byte
            return span(start, min(start + width, len(data)))
        if units:
            sequence_start = index + 1
    return None


def run_payloads(dut, payloads, *, messages=None, stall=0.0, seed=None, vcd=None,
                 progress=None, on_output=None):
    """Stream raw input ``payloads`` through ``dut`` (streams ``i`` and ``o``) in Amaranth's
    simulator, with independent random stalls on both sides.

    The run ends after ``messages`` output beats with ``last`` (default: as many as the input
    has). ``on_output(payload)`` is called with each raw output payload; ``progress(done,
    total)`` as input beats are taken. Returns the clocks from the first accepted input beat to
    the last output beat, both included.
    """
    check_stall(stall)
    total = len(payloads)
    if messages is None:
        last_mask = 1 << dut.i.payload.shape()["last"].offset
        messages = sum(1 for payload in payloads if payload & last_mask)

    rng = random.Random(seed)
    producer_rng = random.Random(rng.getrandbits(64))
    consumer_rng = random.Random(rng.getrandbits(64))
    first_input_cycle = []
    last_output_cycle = []

    def on_input(index, cycle):
        if index == 0:
            first_input_cycle.append(cycle)
        if progress is not None and (index % 1024 == 1023 or index == total - 1):
            progress(index + 1, total)

    def on_transfer(payload, cycle):
        if on_output is not None:
            on_output(payload)
        last_output_cycle[:] = [cycle]

    async def producer(ctx):
        await stream_put(ctx, dut.i, payloads, stall=stall, rng=producer_rng,
                         on_transfer=on_input)

    async def consumer(ctx):
        await stream_get(ctx, dut.o, until_last=messages, stall=stall, rng=consumer_rng,
                         on_transfer=on_transfer)

    sim = Simulator(dut)
    sim.add_clock(CLOCK_PERIOD)
    sim.add_testbench(producer)
    sim.add_testbench(consumer)
    if vcd is not None:
        with sim.write_vcd(str(vcd)):
            sim.run()
    else:
        sim.run()
    return last_output_cycle[0] - first_input_cycle[0] + 1


def run_messages(dut, messages, *, stall=0.0, seed=None, vcd=None, progress=None):
    """Stream byte ``messages`` back to back through ``dut`` in Amaranth's simulator.

    ``dut`` has a :class:`~utfhw.hdl.layout.UnitBytes` input ``i`` and a lane-stream output
    ``o``. Each message goes in one beat per code unit, with ``last`` on its final beat; an empty
    message is one empty beat.

    Returns ``(beats, cycles)``: ``beats`` holds, for each message, its output beats as
    ``(items, last)`` tuples (see :class:`~utfhw.sim.payload.LaneFormat`); ``cycles`` counts the
    clocks from the first accepted input beat to the last output beat, both included.
    """
    input_layout = dut.i.payload.shape()
    payloads = [payload for message in messages
                for payload in pack_units(input_layout, bytes(message))]
    output_format = LaneFormat(dut.o.payload.shape())
    beats = [[]]

    def on_output(payload):
        items, last = output_format.unpack(payload)
        beats[-1].append((items, last))
        if last:
            beats.append([])

    cycles = run_payloads(dut, payloads, messages=len(messages), stall=stall, seed=seed,
                          vcd=vcd, progress=progress, on_output=on_output)
    beats.pop()
    return beats, cycles


#: Where :func:`simulate` can run the gateware.
BACKENDS = ("amaranth", "verilator")


def check_backend(backend):
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend must be 'amaranth' or 'verilator', not {backend!r}")


def simulate(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
             seed=None, vcd=None, progress=None, backend="amaranth", record_beats=None):
    """Transcode ``data`` (one message) in a simulation of the gateware.

    Parameters
    ----------
    data : bytes-like
        The message (may be empty: it then goes in as one empty beat with ``last``).
    source, target : str
        CPython codec names: ``utf-8``, ``utf-8-sig``, ``utf-16``, ``utf-16-le``,
        ``utf-16-be``, ``utf-32``, ``utf-32-le``, ``utf-32-be``.
    errors : str
        ``"replace"``, ``"ignore"`` or ``"strict"``; strict raises :exc:`UnicodeDecodeError`
        with CPython's ``start``, ``end`` and ``reason``, found from the hardware's error kinds.
    stall : float
        Probability of a stall clock on each side (input ``valid`` low, output ``ready`` low).
    seed : int or None
        Seed of the stall pattern. The two backends draw stalls from different generators, so
        one seed gives different (equally random) patterns on each.
    vcd : str or path or None
        Write a waveform file there (Amaranth backend only).
    progress : callable or None
        Called as ``progress(beats_accepted, total_beats)`` as input is accepted.
    backend : str
        ``"amaranth"``: Amaranth's simulator runs the design (about 8k clocks per second).
        ``"verilator"``: the Verilog ``utfhw generate`` writes runs in Verilator (several
        million clocks per second; see :mod:`utfhw.sim.verilator`, which builds and caches it).
    record_beats : bool or None
        Fill :attr:`Simulation.beats`. The default, ``None``, records them on the Amaranth
        backend only: the Verilator backend hands them over through a file, which is slow for
        long inputs.

    Returns
    -------
    :class:`Simulation`
    """
    data = bytes(data)
    check_stall(stall)
    check_pair(source, target)
    check_errors_argument(errors)
    check_backend(backend)
    if record_beats is None:
        record_beats = backend == "amaranth"

    if backend == "verilator":
        if vcd is not None:
            raise ValueError("vcd needs backend='amaranth'; the Verilator backend writes no "
                             "waveforms")
        from .verilator import verilated_pipeline

        pipeline = verilated_pipeline(source, target,
                                      errors="replace" if errors == "strict" else errors)
        wanted = "all" if record_beats else "until-error" if errors == "strict" else None
        run = pipeline.run([data], stall=stall, seed=seed, beats=wanted, progress=progress)
        beats = run.beats[0] if run.beats else []
        output, cycles, input_beats = run.output, run.cycles, run.input_beats
    else:
        dut = build_pipeline(source, target, errors=errors)
        (beats,), cycles = run_messages(dut, [data], stall=stall, seed=seed, vcd=vcd,
                                        progress=progress)
        output, input_beats = units_to_bytes(beats, target), len(beats)
    if errors == "strict":
        error = first_error_span(beats, data, source, target)
        if error is not None:
            raise decode_error(data, source, error)
    return Simulation(output=output, cycles=cycles, input_bytes=len(data),
                      input_beats=input_beats, beats=beats if record_beats else [])


def units_to_bytes(beats, target):
    """The wire bytes of output beats of codec ``target`` (``data[0:8]`` of each unit goes
    first)."""
    unit_bytes = UNIT_BYTES[codec_form(target)[0]]
    output = bytearray()
    for units, _ in beats:
        for unit, _ in units:
            output += unit.to_bytes(unit_bytes, "little")
    return bytes(output)


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
              seed=None, vcd=None, progress=None, backend="amaranth"):
    """``simulate(...).output``: what ``data.decode(source, errors).encode(target)`` gives, as
    computed by the simulated gateware (``backend="verilator"`` for long inputs)."""
    return simulate(data, source, target, errors=errors, stall=stall, seed=seed, vcd=vcd,
                    progress=progress, backend=backend, record_beats=False).output
