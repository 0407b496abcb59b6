"""Messages through a validator on either simulator: :func:`validate` and
:func:`validate_messages`."""

import hashlib
from dataclasses import dataclass, field

from ..hdl.cores import CoreSpec
from ..hdl.forms import CODECS, canonical_codec
from ..hdl.unicode.layout import ErrorKind
from .backends import ClockRates, check_backend
from .framing import whole_pieces
from .payload import pack_units
from .pysim import run_payloads
from .stream import check_stall
from .verilator import verilated_pipeline


__all__ = ["Validation", "Validations", "validate", "validate_messages", "validate_chunks",
           "read_verdict", "read_result"]


@dataclass
class Validation:
    """What a validator said of one message.

    Attributes
    ----------
    valid : bool
        ``data.decode(source)`` raises nothing.
    start, end : int or None
        CPython's ``start`` and ``end`` of the first error (``None`` if valid).
    reason : str or None
        CPython's ``reason`` for it.
    kind : :class:`~utfhw.hdl.unicode.layout.ErrorKind`
        The first error's kind (``NONE`` if valid; every member is truthy, test ``valid``).
    code_points, utf16_units, utf8_bytes : int
        ``len(text)``, ``len(text.encode("utf-16-le")) // 2`` and ``len(text.encode("utf-8"))``
        for ``text = data.decode(source, "replace")``.
    overflow : bool
        The message was longer than the counters hold (8 GiB): the figures are not its.
    output : bytes or None
        The bytes that came out: the message, unchanged (``None`` from
        :func:`validate_chunks`, which holds no message whole but checks that they were).
    cycles : int
        Clocks from the first accepted input beat to the last output beat of the run, both
        included (for several messages, the whole run's).
    """
    valid: bool
    start: object
    end: object
    reason: object
    kind: ErrorKind
    code_points: int
    utf16_units: int
    utf8_bytes: int
    overflow: bool
    output: object = field(repr=False)
    cycles: int = 0


@dataclass
class Validations(ClockRates):
    """What a validator said of several messages run back to back: :attr:`results`, one
    :class:`Validation` each, and the run's ``cycles``, ``input_bytes`` and
    ``input_beats``."""
    results: list
    cycles: int
    input_bytes: int
    input_beats: int


def read_verdict(layout, payload, source):
    """The verdict of a validator's last output beat, ``payload`` (an :class:`int`) of
    ``layout`` (a :class:`~utfhw.hdl.unicode.layout.ValidatedBytes`), as the keyword arguments
    of a :class:`Validation` but ``output`` and ``cycles``."""
    result = layout["result"]
    return read_result(result.shape, payload >> result.offset, source)


def read_result(layout, bits, source):
    """:func:`read_verdict` of a :class:`~utfhw.hdl.unicode.layout.ValidationResult` alone:
    ``bits`` (an :class:`int`) of ``layout``, such as an AXI4-Stream validator's
    ``m_axis_tuser`` on a ``m_axis_tlast`` beat."""
    fields = {name: (bits >> member.offset) & ((1 << member.width) - 1)
              for name, member in layout}
    kind = ErrorKind(fields["kind"])
    valid = bool(fields["valid"])
    return {
        "valid": valid,
        "start": None if valid else fields["start"],
        "end": None if valid else fields["end"],
        "reason": None if valid else CODECS[source].form.error_kinds.get(kind, kind.name),
        "kind": kind,
        "code_points": fields["code_points"],
        "utf16_units": fields["utf16_units"],
        "utf8_bytes": fields["utf8_bytes"],
        "overflow": bool(fields["overflow"]),
    }


def _beat_bytes(layout, payload):
    data = payload & ((1 << layout["data"].width) - 1)
    count = (payload >> layout["count"].offset) & ((1 << layout["count"].width) - 1)
    last = (payload >> layout["last"].offset) & 1
    return data.to_bytes(layout.width, "little")[:count], bool(last)


def _spec(source, width):
    if width is None:
        # The default width is the source's unit, so the codec's name must be known first.
        width = CODECS[canonical_codec("source", source)].unit_bytes
    return CoreSpec.of(source, None, validate=True, width=width)


def validate_messages(messages, source="utf-8", *, width=None, backend="amaranth", stall=0.0,
                      seed=None, vcd=None, progress=None):
    """Validate ``messages`` (byte strings) back to back in one simulation of the
    :class:`~utfhw.hdl.cores.validator.Validator` of ``source`` at ``width`` bytes a clock
    (default: the source's unit), on ``backend`` (``"amaranth"`` or ``"verilator"``), with
    random stalls on both sides (``stall``, ``seed``; see :func:`~utfhw.sim.simulate`).
    Returns a :class:`Validations`.

    Raises
    ------
    :exc:`ValueError`
        If ``source``, ``width``, ``backend`` or ``stall`` is not one the validator takes.
    """
    messages = [bytes(message) for message in messages]
    check_stall(stall)
    check_backend(backend)
    spec = _spec(source, width)
    layout = spec.output_layout
    if backend == "verilator":
        if vcd is not None:
            raise ValueError("vcd needs backend='amaranth'; the Verilator backend writes no "
                             "waveforms")
        run = verilated_pipeline(spec).run(messages, stall=stall, seed=seed, progress=progress)
        outputs, lasts = list(run.messages()), run.lasts
        cycles, input_beats = run.cycles, run.input_beats
    else:
        dut = spec.build()
        payloads = [payload for message in messages
                    for payload in pack_units(dut.i.payload.shape(), message)]
        outputs, lasts, current = [], [], []

        def on_output(payload):
            data, last = _beat_bytes(layout, payload)
            current.append(data)
            if last:
                outputs.append(b"".join(current))
                current.clear()
                lasts.append(payload)

        cycles = run_payloads(dut, payloads, messages=len(messages), stall=stall, seed=seed,
                              vcd=vcd, progress=progress, on_output=on_output)
        input_beats = len(payloads)
    results = [Validation(**read_verdict(layout, last, spec.source), output=output,
                          cycles=cycles)
               for output, last in zip(outputs, lasts)]
    return Validations(results=results, cycles=cycles,
                       input_bytes=sum(map(len, messages)), input_beats=input_beats)


def validate(data, source="utf-8", *, width=None, backend="amaranth", stall=0.0, seed=None,
             vcd=None, progress=None):
    """Validate ``data`` (one message) in a simulation of the validator of ``source``: what
    ``data.decode(source)`` says of it and the lengths of ``data.decode(source, "replace")``,
    from the gateware. The arguments are :func:`validate_messages`'. Returns a
    :class:`Validation`."""
    return validate_messages([data], source, width=width, backend=backend, stall=stall,
                             seed=seed, vcd=vcd, progress=progress).results[0]


def validate_chunks(chunks, source="utf-8", *, width=None, stall=0.0, seed=None,
                    progress=None):
    """Validate one message of any length, given as ``chunks`` (an iterable of bytes-like
    objects), through the Verilated validator in bounded memory: the chunks go in as they
    come, and the bytes that come out are checked against them by a running hash rather than
    kept. ``progress(done_bytes)`` is called as chunks go in. Returns a :class:`Validation`
    whose ``output`` is ``None``.

    Raises
    ------
    :exc:`RuntimeError`
        If the bytes out are not the bytes in.
    """
    check_stall(stall)
    spec = _spec(source, width)
    layout = spec.output_layout
    sent, received = hashlib.sha256(), hashlib.sha256()
    done = [0]

    def pieces():
        for data, last in whole_pieces(chunks):
            sent.update(data)
            done[0] += len(data)
            if progress is not None:
                progress(done[0])
            yield data, last

    verdict = cycles = None
    for event in verilated_pipeline(spec).stream(pieces(), stall=stall, seed=seed):
        if event[0] == "data":
            received.update(event[1])
        elif event[0] == "last":
            verdict = read_verdict(layout, event[1], spec.source)
        elif event[0] == "summary":
            cycles = event[1]
    if verdict is None or sent.digest() != received.digest():
        raise RuntimeError(f"the validator of {spec.source} did not give its input back")
    return Validation(**verdict, output=None, cycles=cycles)
