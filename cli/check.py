"""``--check`` in bounded memory: CPython's incremental codecs on the pieces a streamed run
takes, compared with the run's output as both come."""

import codecs
import collections
import threading

from ..hdl.forms import CODECS
from ..hdl.unicode.params import handler_pair
from .running import first_difference


__all__ = ["IncrementalTranscoder", "StreamCheck"]


class IncrementalTranscoder:
    """CPython's ``data.decode(source, errors).encode(target, errors)`` of messages that come
    in pieces, a new pair of incremental codecs for each message; ``errors`` may be a pair,
    ``(decoding, encoding)``, one for each codec.

    They give what the one-shot codecs give on the pieces joined, marks included, but for one
    thing: CPython's incremental ``utf-16`` and ``utf-32`` decoders raise "stream does not
    start with BOM" where the one-shot ones read a message without a mark as little-endian. So
    for those two the mark is read here, and the message decoded in the byte order it gives.
    """
    def __init__(self, source, target, errors):
        self._source = source
        self._target = target
        self._decoding, self._encoding = handler_pair(errors)
        codec = CODECS[source]
        self._mark_bytes = codec.unit_bytes if codec.byteorder == "detect" else 0
        self._start()

    def _start(self):
        self._decoder = (None if self._mark_bytes else
                         codecs.getincrementaldecoder(self._source)(self._decoding))
        self._held = b""
        self._encoder = codecs.getincrementalencoder(self._target)(self._encoding)

    def feed(self, data, last):
        """The output of the next piece ``data`` of a message, ``last`` if it ends it. With
        ``errors="strict"`` a malformed message raises :exc:`UnicodeDecodeError` (its
        positions are the piece's, not the message's), or one Latin-1 or ASCII cannot hold
        :exc:`UnicodeEncodeError`."""
        if self._decoder is None:
            self._held += bytes(data)
            if len(self._held) < self._mark_bytes and not last:
                return b""
            data, self._held = self._held, b""
            order = "le"
            for name in ("le", "be"):
                mark = "\ufeff".encode(f"{self._source}-{name}")
                if data.startswith(mark):
                    data, order = data[len(mark):], name
                    break
            self._decoder = codecs.getincrementaldecoder(f"{self._source}-{order}")(
                self._decoding)
        output = self._encoder.encode(self._decoder.decode(data, last), last)
        if last:
            self._start()
        return output


class StreamCheck:
    """A streamed run's output against CPython's, in bounded memory.

    :meth:`tee` passes the run's pieces on (on the thread that feeds the simulation) and
    queues CPython's output for each before the simulation has it, so the simulation's output
    (:meth:`output`) never waits for it; only what lies between the two is held. After a
    strict error CPython has nothing more to say: the run raises its own."""
    def __init__(self, source, target, errors):
        self._cpython = IncrementalTranscoder(source, target, errors)
        self._lock = threading.Lock()
        self._expected = collections.deque()
        self._got = bytearray()
        self._matched = 0
        self.difference = None

    def tee(self, pieces):
        failed = False
        for data, last in pieces:
            if not failed:
                try:
                    expected = self._cpython.feed(data, last)
                except UnicodeError:          # decoding, or encoding to Latin-1 or ASCII
                    failed = True
                else:
                    with self._lock:
                        self._expected.append(expected)
            yield data, last

    def output(self, data):
        """The run's next output bytes."""
        if self.difference is None:
            self._got += data
            self._match()

    def finish(self):
        """The offset of the first byte where the whole output differs from CPython's, or
        ``None`` if they are the same."""
        self._match()
        if self.difference is None:
            with self._lock:
                rest = b"".join(self._expected)
            if self._got != rest:
                self.difference = self._matched + first_difference(bytes(self._got), rest)
        return self.difference

    def _match(self):
        with self._lock:
            while self._got and self._expected and self.difference is None:
                expected = self._expected[0]
                count = min(len(expected), len(self._got))
                if self._got[:count] != expected[:count]:
                    self.difference = self._matched + first_difference(self._got[:count],
                                                                       expected[:count])
                    self._got.clear()
                    return
                del self._got[:count]
                self._matched += count
                if count == len(expected):
                    self._expected.popleft()
                else:
                    self._expected[0] = expected[count:]
