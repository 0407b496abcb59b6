"""One message through the gateware on either simulator: :func:`simulate` and
:func:`transcode`, the functions most users call."""

from dataclasses import dataclass, field

from ..hdl.cores import CoreSpec
from ..hdl.unicode.params import check_choice
from .payload import pack_units, units_to_bytes
from .pysim import built_core, run_messages
from ..hdl.forms import CODECS
from .stream import check_stall
from ..model.strict import strict_error
from .verilator import verilated_pipeline, verilator_available


__all__ = ["BACKENDS", "check_backend", "fastest_backend", "Simulation", "simulate",
           "simulate_messages", "transcode"]


class ClockRates:
    """The rates of a run that counts ``cycles``, ``input_bytes`` and ``input_beats``."""
    @property
    def bytes_per_clock(self):
        return self.input_bytes / self.cycles if self.cycles else 0.0

    @property
    def units_per_clock(self):
        return self.input_beats / self.cycles if self.cycles else 0.0


@dataclass
class Simulation(ClockRates):
    """The outcome of one simulated message.

    Attributes
    ----------
    output : bytes
        What the gateware emitted, in wire order (for several messages, their outputs back to
        back).
    outputs : list of bytes
        The output of each message.
    cycles : int
        Clocks from the first accepted input beat to the last output beat, both included.
    input_bytes : int
        Length of the input (all messages).
    input_beats : int
        Input beats it took: one per source code unit, or per ``width`` bytes for a wide core
        (one for an empty message).
    beats : list
        Output beats: one ``(units, last)`` tuple per beat, ``units`` a list of
        ``(data, ErrorKind)`` with ``data`` in wire order (little-endian bytes of the integer);
        from :func:`simulate_messages`, one such list per message. Empty unless beats were
        recorded (see :func:`simulate`'s ``record_beats``).
    """
    output: bytes
    cycles: int
    input_bytes: int
    input_beats: int = 0
    beats: list = field(repr=False, default_factory=list)
    outputs: list = field(repr=False, default_factory=list)

#: Where :func:`simulate` can run the gateware.
BACKENDS = ("amaranth", "verilator")


def check_backend(backend):
    check_choice("backend", backend, BACKENDS)


def fastest_backend():
    """``"verilator"`` where Verilator, perl and a C++ compiler are found, else
    ``"amaranth"``."""
    return "verilator" if verilator_available() else "amaranth"


def simulate(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
             seed=None, vcd=None, progress=None, backend="amaranth", record_beats=None,
             width=None, pipelined=False):
    """Transcode ``data`` (one message) in a simulation of the gateware.

    Parameters
    ----------
    data : bytes-like
        The message (may be empty: it then goes in as one empty beat with ``last``).
    source, target : str
        CPython codec names: ``utf-8``, ``utf-8-sig``, ``utf-16``, ``utf-16-le``,
        ``utf-16-be``, ``utf-32``, ``utf-32-le``, ``utf-32-be``, ``latin-1``, ``ascii``, or
        any of CPython's aliases of them.
    errors : str or tuple
        ``"replace"``, ``"ignore"`` or ``"strict"``; strict raises :exc:`UnicodeDecodeError`
        (or, to Latin-1 or ASCII, :exc:`UnicodeEncodeError`, whose positions count
        characters) with CPython's ``start``, ``end`` and ``reason``, found from the
        hardware's error kinds. For the ``Transcoder``, also a ``(decoding, encoding)`` pair
        (:class:`~utfhw.hdl.cores.CoreSpec`), ``"strict"`` on either side.
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
    width : int or None
        Run the wide core (:class:`~utfhw.hdl.cores.wide.WideTranscoder`) at this many bytes per
        clock: 1, 2, 4, 8, 16, 32 or 64, at least the source's code unit; every pair
        (:data:`~utfhw.hdl.cores.WIDE_PAIRS`).
    pipelined : bool
        Run :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16` (UTF-8 to UTF-16-LE or -BE
        only) instead of the :class:`~utfhw.hdl.cores.transcoder.Transcoder`.

    Returns
    -------
    :class:`Simulation`
    """
    result = simulate_messages([data], source, target, errors=errors, stall=stall, seed=seed,
                               vcd=vcd, progress=progress, backend=backend,
                               record_beats=record_beats, width=width, pipelined=pipelined)
    result.beats = result.beats[0] if result.beats else []
    return result


def simulate_messages(messages, source="utf-8", target="utf-16-le", *, errors="replace",
                      stall=0.0, seed=None, vcd=None, progress=None, backend="amaranth",
                      record_beats=None, width=None, pipelined=False):
    """Transcode ``messages`` (a list of byte strings, each a message as CPython would see one
    ``bytes`` object) back to back in one simulation of the gateware.

    The parameters are :func:`simulate`'s. With ``errors="strict"`` the first malformed
    message raises :exc:`UnicodeDecodeError` (or :exc:`UnicodeEncodeError`) as CPython would
    for it alone, with its index in
    ``messages`` as the exception's ``message_index``. Returns a :class:`Simulation` whose
    :attr:`~Simulation.outputs` are the messages' outputs and whose
    :attr:`~Simulation.beats`, if recorded, hold one list of beats per message.
    """
    messages = [bytes(message) for message in messages]
    check_stall(stall)
    spec = CoreSpec.of(source, target, errors=errors, width=width, pipelined=pipelined)
    source, target = spec.source, spec.target   # utfhw's names for CPython's aliases
    check_backend(backend)
    if record_beats is None:
        record_beats = backend == "amaranth"

    if backend == "verilator":
        if vcd is not None:
            raise ValueError("vcd needs backend='amaranth'; the Verilator backend writes no "
                             "waveforms")
        pipeline = verilated_pipeline(spec.with_errors(spec.hardware_errors))
        # To a target that cannot hold every character, a decoding error after the first
        # character it cannot hold still comes first: strict needs every beat, as it does
        # for a pair of handlers, where an error that does not raise may come first.
        whole = record_beats or (spec.raises and (
            spec.errors != "strict" or not CODECS[target].form.holds_every_code_point))
        wanted = "all" if whole else "until-error" if spec.raises else None
        run = pipeline.run(messages, stall=stall, seed=seed, beats=wanted, progress=progress)
        beats = run.beats or [[] for _ in messages]
        outputs, cycles, input_beats = list(run.messages()), run.cycles, run.input_beats
    else:
        dut = built_core(spec)
        beats, cycles = run_messages(dut, messages, stall=stall, seed=seed, vcd=vcd,
                                     progress=progress)
        outputs = [units_to_bytes(message_beats, target) for message_beats in beats]
        input_beats = sum(len(pack_units(dut.i.payload.shape(), message))
                          for message in messages)
    if spec.raises:
        for index, (message, message_beats) in enumerate(zip(messages, beats)):
            exception = strict_error(message_beats, message, source, target,
                                     errors=spec.errors, wide=spec.kind == "wide")
            if exception is not None:
                exception.message_index = index
                raise exception
    return Simulation(output=b"".join(outputs), outputs=outputs, cycles=cycles,
                      input_bytes=sum(map(len, messages)), input_beats=input_beats,
                      beats=beats if record_beats else [])


def transcode(data, source="utf-8", target="utf-16-le", *, errors="replace", stall=0.0,
              seed=None, vcd=None, progress=None, backend="amaranth", width=None,
              pipelined=False):
    """``simulate(...).output``: what ``data.decode(source, errors).encode(target, errors)``
    gives, as computed by the simulated gateware (``backend="verilator"`` for long inputs)."""
    return simulate(data, source, target, errors=errors, stall=stall, seed=seed, vcd=vcd,
                    progress=progress, backend=backend, record_beats=False,
                    width=width, pipelined=pipelined).output
