"""Messages of any length through the gateware in bounded memory: :func:`simulate_stream`,
:func:`simulate_pieces` and :func:`transcode_chunks`.

On Verilator the input goes to the simulation as it comes and the output comes back as the
design makes it, so a run holds a few megabytes whatever its length. Amaranth's simulator is
thousands of times slower, so its runs are short: they are gathered in memory and run by
:func:`~utfhw.sim.backends.simulate_messages`, as are strict runs to Latin-1 or ASCII on
either (CPython's encoding error counts characters of the whole message), and runs of a pair
of handlers with ``"strict"`` on a side.
"""

import codecs
import collections
import threading

from ..hdl.cores import CoreSpec
from ..hdl.forms import CODECS
from ..hdl.unicode.layout import REPLACEMENT_CHARACTER
from ..model.reference import Item, decode_error
from ..model.strict import error_end, mark_bytes, source_length
from .backends import ClockRates, check_backend, simulate_messages
from .framing import message_pieces, whole_pieces
from .stream import check_stall
from .verilator import verilated_pipeline


__all__ = ["SimulationStream", "simulate_stream", "simulate_pieces", "transcode_chunks"]


#: The most bytes a streamed run feeds to Verilator or yields at once, unless told.
CHUNK_BYTES = 1 << 16


class SimulationStream(ClockRates):
    """A streamed simulation: iterate over it (once) for the output, chunk by chunk, the
    outputs of all messages back to back in wire order. Once the chunks have all come, it holds
    the counts of the run.

    Attributes
    ----------
    cycles : int
        Clocks from the first accepted input beat to the last output beat, both included.
    input_bytes : int
        Bytes of all messages.
    input_beats : int
        Input beats taken: one per source code unit, or per ``width`` bytes for a wide core
        (one for an empty message).
    output_bytes : int
        Bytes yielded.
    messages, empty_messages : int
        Messages taken, and how many of them were empty.
    """
    def __init__(self, pieces, spec, *, stall, seed, backend, chunk_size, vcd, progress):
        self._pieces = pieces
        self._spec = spec
        self._stall = stall
        self._seed = seed
        self._backend = backend
        self._chunk_size = chunk_size
        self._vcd = vcd
        self._progress = progress
        self._started = False
        self.cycles = self.input_bytes = self.input_beats = self.output_bytes = 0
        self.messages = self.empty_messages = 0

    def __iter__(self):
        if self._started:
            raise RuntimeError("a SimulationStream runs once; make another to run again")
        self._started = True
        pieces = self._counted(self._pieces)
        # Strict to Latin-1 or ASCII waits for a message's end, where a decoding error may come
        # after a character the target cannot hold: such runs are gathered too.
        spec = self._spec
        gathered = self._backend != "verilator" or (spec.raises and (
            spec.errors != "strict" or not CODECS[spec.target].form.holds_every_code_point))
        run = self._gathered(pieces) if gathered else self._verilator(pieces)
        for chunk in run:
            self.output_bytes += len(chunk)
            yield chunk

    def _counted(self, pieces):
        size = 0
        for data, last in pieces:
            size += len(data)
            self.input_bytes += len(data)
            if last:
                self.messages += 1
                self.empty_messages += size == 0
                size = 0
            yield data, last

    def _verilator(self, pieces):
        spec = self._spec
        pipeline = verilated_pipeline(spec.with_errors(spec.hardware_errors))
        strict = _StrictErrors(spec.source, spec.target) if spec.errors == "strict" else None
        if strict is not None:
            pieces = strict.tee(pieces)
        events = pipeline.stream(pieces, stall=self._stall, seed=self._seed,
                                 chunk_size=self._chunk_size)
        try:
            for event in events:
                if event[0] == "data":
                    if strict is not None:
                        strict.output(event[1])
                    yield event[1]
                elif event[0] == "summary":
                    self.cycles, self.input_beats = event[1:]
                elif strict is not None:
                    if event[0] == "error":
                        raise strict.error(event[1])
                    strict.end()
        finally:
            events.close()

    def _gathered(self, pieces):
        messages = []
        parts = []
        for data, last in pieces:
            parts.append(data)
            if last:
                messages.append(b"".join(parts))
                parts = []
        spec = self._spec
        result = simulate_messages(messages, spec.source, spec.target, errors=spec.errors,
                                   stall=self._stall, seed=self._seed, vcd=self._vcd,
                                   progress=self._progress, backend=self._backend,
                                   record_beats=False, width=spec.width,
                                   pipelined=spec.pipelined)
        self.cycles, self.input_beats = result.cycles, result.input_beats
        for start in range(0, len(result.output), self._chunk_size):
            yield result.output[start:start + self._chunk_size]


class _StrictErrors:
    """CPython's strict error from a streamed ``"replace"`` run, in bounded memory.

    As for :func:`~utfhw.model.strict.first_wide_error_span`, the first error of a message
    starts where its good characters end in the source; its end needs the few input bytes from
    there on. So this keeps each message's first four bytes (for its mark) and its input from
    the end of the good output on: the input the design holds or has not yet answered, a few
    megabytes at most. The input side (:meth:`tee`) runs on the feeding thread.
    """
    def __init__(self, source, target):
        self._source = source
        self._target = target
        self._lock = threading.Lock()
        self._window = collections.deque()      # (message, offset, bytes), oldest first
        self._heads = {}
        self._message = 0
        self._good = 0
        self._decoder = codecs.getincrementaldecoder(target)("surrogatepass")

    def tee(self, pieces):
        message = offset = 0
        for data, last in pieces:
            # Kept before the driver has it, so that its answer finds it here.
            with self._lock:
                if data:
                    self._window.append((message, offset, data))
                head = self._heads.get(message, b"")
                if len(head) < 4:
                    self._heads[message] = head + bytes(data[:4 - len(head)])
            offset += len(data)
            yield data, last
            if last:
                message, offset = message + 1, 0

    def output(self, data):
        """Good output of the current message (none of it after its first error)."""
        self._good += source_length(self._decoder.decode(data), self._source)
        self._drop(lambda message, end: message < self._message or
                   message == self._message and end <= self._good)

    def end(self):
        """The current message's output is complete."""
        with self._lock:
            self._heads.pop(self._message, None)
        self._message += 1
        self._good = 0
        self._decoder = codecs.getincrementaldecoder(self._target)("surrogatepass")
        self._drop(lambda message, end: message < self._message)

    def error(self, kind):
        """The :exc:`UnicodeDecodeError` of the current message's first error, of ``kind``.
        Its ``object`` is empty: the message is not kept."""
        with self._lock:
            head = self._heads.get(self._message, b"")
            start = mark_bytes(head, self._source) + self._good
            following = b"".join(data[max(0, start - offset):]
                                 for message, offset, data in self._window
                                 if message == self._message and offset + len(data) > start)
        end = error_end(kind, start, following, self._source)
        found = decode_error(head, self._source, Item(REPLACEMENT_CHARACTER, kind, start, end,
                                                      None))
        error = UnicodeDecodeError(found.encoding, b"", found.start, found.end, found.reason)
        error.message_index = self._message
        return error

    def _drop(self, done):
        with self._lock:
            while self._window and done(self._window[0][0],
                                        self._window[0][1] + len(self._window[0][2])):
                self._window.popleft()


def simulate_pieces(pieces, source="utf-8", target="utf-16-le", *, errors="replace",
                    stall=0.0, seed=None, backend="verilator", width=None, pipelined=False,
                    chunk_size=CHUNK_BYTES, vcd=None, progress=None):
    """:func:`simulate_stream` of messages given as pieces: ``(data, last)`` pairs, the
    messages' bytes in order, ``last`` true on the pair that ends a message (as
    :func:`~utfhw.sim.framing.split_stream` gives them)."""
    spec = CoreSpec.of(source, target, errors=errors, width=width, pipelined=pipelined)
    check_stall(stall)
    check_backend(backend)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive number of bytes, not {chunk_size!r}")
    if backend != "amaranth" and vcd is not None:
        raise ValueError("vcd needs backend='amaranth'; the Verilator backend writes no "
                         "waveforms")
    if backend != "amaranth" and progress is not None:
        raise ValueError("progress needs backend='amaranth'; a streamed Verilator run has no "
                         "total to count towards")
    return SimulationStream(pieces, spec, stall=stall, seed=seed, backend=backend,
                            chunk_size=chunk_size, vcd=vcd, progress=progress)


def simulate_stream(messages, source="utf-8", target="utf-16-le", *, errors="replace",
                    stall=0.0, seed=None, backend="verilator", width=None, pipelined=False,
                    chunk_size=CHUNK_BYTES, vcd=None, progress=None):
    """Transcode ``messages`` back to back in one simulation of the gateware, in bounded
    memory on Verilator: the input is taken and the output given as the simulation goes.

    Parameters
    ----------
    messages : iterable
        Each item one message, as CPython would see one ``bytes`` object: a bytes-like object,
        or an iterable of bytes-like chunks (a message of any length). Read as the simulation
        needs it, on a thread of its own.
    source, target, errors, stall, seed, width, pipelined
        As for :func:`~utfhw.sim.backends.simulate`. With ``errors="strict"`` the output of
        the messages before the first malformed one is yielded, then
        :exc:`UnicodeDecodeError` is raised with CPython's ``encoding``, ``start``, ``end`` and
        ``reason``, the message's index in ``message_index``, and (on Verilator, which keeps no
        message whole) an empty ``object``.
    backend : str
        ``"verilator"`` (the default): streamed, in bounded memory. ``"amaranth"``: the
        messages are gathered in memory and run by
        :func:`~utfhw.sim.backends.simulate_messages` (Amaranth's simulator is for short
        inputs).
    chunk_size : int
        The most bytes fed to the simulation or yielded at once.
    vcd, progress
        As for :func:`~utfhw.sim.backends.simulate`; ``backend="amaranth"`` only.

    Returns
    -------
    :class:`SimulationStream`
        Iterate over it once for the output chunks (:class:`bytes`); then it holds the run's
        cycles and counts. Nothing runs before the iteration, but the options are checked at
        the call: :exc:`ValueError` names a wrong one.
    """
    return simulate_pieces(message_pieces(messages), source, target, errors=errors,
                           stall=stall, seed=seed, backend=backend, width=width,
                           pipelined=pipelined, chunk_size=chunk_size, vcd=vcd,
                           progress=progress)


def transcode_chunks(chunks, source="utf-8", target="utf-16-le", *, errors="replace",
                     stall=0.0, seed=None, backend="verilator", width=None, pipelined=False,
                     chunk_size=CHUNK_BYTES):
    """What ``b"".join(chunks).decode(source, errors).encode(target)`` gives, computed by the
    simulated gateware, with ``chunks`` (an iterable of bytes-like objects) one message: an
    iterator of output chunks, in bounded memory on Verilator. The options are
    :func:`simulate_stream`'s."""
    return iter(simulate_pieces(whole_pieces(chunks), source, target, errors=errors,
                                stall=stall, seed=seed, backend=backend, width=width,
                                pipelined=pipelined, chunk_size=chunk_size))
