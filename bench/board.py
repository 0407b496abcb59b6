"""The host's side of the board in the loop: messages sent through a serial port to the UART
bridge (:class:`~utfhw.hdl.bridge.UARTBridge`) under its rules, and each answer compared with
CPython's, ``message.decode(source, errors).encode(target, errors)``.

The same code talks to a board's USB serial port or to the simulated bridge behind a
pseudo-terminal (:class:`~utfhw.sim.bridge.SimulatedBoard`). The rules it keeps:

- **A message ends when the line has been idle** for the bridge's ``idle_bits``. A message is
  written in one piece, or paced in chunks with gaps far shorter than that; the next one goes
  once the answer to this one has come, which the bridge sends only after the idle time. So
  each message meets the bridge idle.
- **The burst rule.** A message up to the bridge's burst limit goes back to back. A longer one
  is paced so that the bridge's FIFO never holds more than three quarters of its room (the
  rest is slack for the host's timing): byte ``k`` goes no earlier than ``rho * (k - room)``
  frame times after the first, ``rho`` the pair's expansion with the 1 % the bridge's baud
  rate may be slow.

Errors that stop the run (a port that cannot be opened, a board that does not answer or does
not answer as the bridge would) are a :exc:`BoardError`, one line.
"""

import dataclasses
import os
import pathlib
import threading
import time

from ..hdl.bridge import (BAUD_TOLERANCE, BITS_PER_FRAME, FIFO_MARGIN, VERDICT_BYTES, burst_limit,
                          expansion)
from ..hdl.cores import CoreSpec
from ..hdl.forms import CODECS, plain_codec
from ..hdl.unicode.params import check_flag, check_integer, handler_pair
from .golden import (_cpython as cpython_verdict, _describe_result as describe_result,
                     _input_span as input_span, cpython_result)
from .sample import sample_messages


__all__ = ["BoardError", "Message", "BoardRun", "Host", "open_port", "builtin_messages",
           "burst_message", "read_messages", "PROBE"]


#: The text of the message that checks the board answers as the bridge does, before any other
#: (the characters of it the source can encode).
PROBE = "utfhw probe: \u00e9\u20ac\U0001F600"

#: Seconds a read of the port waits, so that the reader notices it is to stop.
_READ_SECONDS = 0.05

#: After a message's answer is whole, the seconds (besides five frames) to wait for any byte
#: more: a USB serial adapter may hold received bytes for its latency timer (16 ms by default).
_SETTLE_SECONDS = 0.03

#: The part of the FIFO's room the pacing of a long message uses; the rest is for the host's
#: timing (a write late after one on time).
_ROOM_USED = 3 / 4

#: A message the host left the line idle within for more than this part of the bridge's idle
#: time, and whose answer differs, is sent again, up to :data:`_TRIES` times in all.
_LATE_PART = 1 / 2
_TRIES = 3


class BoardError(Exception):
    """The run cannot go on: the port cannot be opened, or the board does not answer, or not
    as the bridge does. The text is one line."""


@dataclasses.dataclass(frozen=True)
class Message:
    """A message to send: its bytes and what it is (a file's path, a sample's description)."""
    data: bytes
    description: str


@dataclasses.dataclass
class BoardRun:
    """What a run through the board gave.

    Attributes
    ----------
    messages : :class:`int`
        Messages sent.
    input_bytes, output_bytes : :class:`int`
        Bytes sent, and bytes received.
    seconds : :class:`float`
        From the first message's first byte written to its last answer's last byte read.
    mismatches : :class:`list` of :class:`str`
        A report of each message whose answer is not CPython's.
    tries : :class:`int`
        Times a message was sent again because the host left a gap in it near the idle time
        (its bytes are counted once, its time in full).
    """
    messages: int
    input_bytes: int
    output_bytes: int
    seconds: float
    mismatches: list
    tries: int = 0

    @property
    def input_rate(self):
        """Input bytes a second."""
        return self.input_bytes / self.seconds if self.seconds else 0.0

    @property
    def output_rate(self):
        """Output bytes a second."""
        return self.output_bytes / self.seconds if self.seconds else 0.0


def open_port(path, baud):
    """The serial port ``path`` at ``baud``, 8N1, as a :class:`serial.Serial`; a
    :exc:`BoardError` if it cannot be opened."""
    import serial   # pyserial: the board extra

    try:
        return serial.Serial(path, baud, timeout=_READ_SECONDS)
    except (serial.SerialException, ValueError) as error:
        reason = os.strerror(error.errno) if getattr(error, "errno", None) else str(error)
        raise BoardError(f"cannot open {path}: {reason}") from None


class _Reader(threading.Thread):
    """Reads the port into a buffer while the host writes, so that a long answer never fills
    the port's buffer and holds the board up."""
    def __init__(self, port):
        super().__init__(daemon=True)
        self._port = port
        self._data = bytearray()
        self._changed = threading.Condition()
        self._stopping = False
        self.last_arrival = 0.0
        self.error = None

    def run(self):
        while not self._stopping:
            try:
                chunk = self._port.read(max(1, self._port.in_waiting))
            except Exception as error:   # the port went away: the host says so
                with self._changed:
                    self.error = error
                    self._changed.notify_all()
                return
            if chunk:
                with self._changed:
                    self._data += chunk
                    self.last_arrival = time.monotonic()
                    self._changed.notify_all()

    def stop(self):
        self._stopping = True
        self.join()

    def wait(self, count, deadline):
        """Wait until ``count`` bytes are held or ``deadline()`` (a monotonic time, read again
        after each arrival) has passed."""
        with self._changed:
            while len(self._data) < count and self.error is None:
                left = deadline() - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(left)
            if self.error is not None:
                raise BoardError(f"the serial port failed: {self.error}")

    def take(self):
        with self._changed:
            data = bytes(self._data)
            self._data.clear()
            return data

    def held(self):
        with self._changed:
            return len(self._data)


class Host:
    """Sends messages to the bridge on ``port`` (an open :class:`serial.Serial`, or anything
    with its ``read``, ``write``, ``in_waiting`` and ``close``) and checks each answer against
    ``message.decode(source, errors).encode(target, errors)``, or from a validating bridge
    against CPython's verdict on ``message.decode(source)`` (as
    :data:`~utfhw.hdl.bridge.VERDICT_BYTES` bytes of its
    :class:`~utfhw.hdl.unicode.layout.ValidationResult`).

    Parameters
    ----------
    port : :class:`serial.Serial`
        The open port. The host closes it (:meth:`close`, or leaving ``with``).
    baud : :class:`int`
        The port's baud rate, which the bridge must run at.
    source, target, errors, width, fifo_depth, idle_bits, validate
        The bridge's, as it was built (``width`` ``None`` for the scalar core; with
        ``validate``, ``target`` ``None`` or ``source``).
    timeout : :class:`float`
        Seconds without a byte, once a message has ended, after which its answer is taken as
        it stands (and the first message's, the probe's, as no answer).
    name : :class:`str`
        The port's name, for messages.

    Raises
    ------
    :exc:`ValueError`
        If a setting is not one the bridge takes, or ``timeout`` is not a positive number.
    """
    def __init__(self, port, *, baud=115200, source="utf-8", target="utf-16-le",
                 errors="replace", width=None, fifo_depth=2048, idle_bits=1000, timeout=2.0,
                 name=None, validate=False):
        check_integer("baud", baud, minimum=1)
        check_integer("fifo_depth", fifo_depth, minimum=2 * FIFO_MARGIN)
        check_integer("idle_bits", idle_bits, minimum=2 * BITS_PER_FRAME)
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
        check_flag("validate", validate)
        self.spec = spec = CoreSpec.of(source, target, errors=errors, width=width,
                                       validate=validate)
        self.baud, self.fifo_depth, self.idle_bits, self.timeout = \
            baud, fifo_depth, idle_bits, timeout
        self.name = name or getattr(port, "name", "the port")
        if spec.kind == "validator":
            # The validator takes a byte a clock: the FIFO fills only while an answer of a
            # few bytes goes out.
            self.burst_limit, self._expansion = None, 1
        else:
            self.burst_limit = burst_limit(spec.source, spec.target, errors,
                                           fifo_depth=fifo_depth)
            self._expansion = expansion(spec.source, spec.target, errors)
        self._port = port
        self._reader = _Reader(port)
        self._reader.start()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()

    def close(self):
        self._reader.stop()
        self._port.close()

    @property
    def frame_seconds(self):
        return BITS_PER_FRAME / self.baud

    def expected(self, message):
        """CPython's answer to ``message``."""
        spec = self.spec
        if spec.kind == "validator":
            return cpython_result(message, spec).to_bytes(VERDICT_BYTES, "little")
        decoding, encoding = handler_pair(spec.errors)
        return bytes(message).decode(spec.source, decoding).encode(spec.target, encoding)

    def _send(self, data):
        """Write ``data`` under the burst rule. Returns when its last byte will have left the
        host (a monotonic time), as far as the host can tell, and the longest the line was
        left idle within it (seconds): longer than planned when the host was late."""
        frame = self.frame_seconds
        start = time.monotonic()
        if self.burst_limit is not None and len(data) <= self.burst_limit:
            self._port.write(data)
            return start + len(data) * frame, 0.0
        rho = max(self._expansion, 1) * (1 + BAUD_TOLERANCE)
        room = (self.fifo_depth - FIFO_MARGIN) * _ROOM_USED
        # Chunks small enough that the line's gaps between them stay far under the idle time
        # that would end the message, and their overshoot within the slack.
        idle_frames = self.idle_bits / BITS_PER_FRAME
        chunk = int(max(1, min(64, room / 8, idle_frames / (8 * (rho - 1)))))
        sent = 0
        line_free = start   # when the line will have sent what was written so far
        idle = 0.0
        while sent < len(data):
            due = start + max(0.0, rho * (sent - room)) * frame
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            written = time.monotonic()
            self._port.write(data[sent:sent + chunk])
            idle = max(idle, written - line_free)
            line_free = max(line_free, written) + len(data[sent:sent + chunk]) * frame
            sent += chunk
        return line_free, idle

    def _exchange(self, data):
        """Send one message and return its answer, the bytes that come until CPython's
        answer's length has come and the line has settled, or until :attr:`timeout` seconds
        pass without a byte after the message has ended; and the longest idle gap the host
        left in it (see :meth:`_send`)."""
        expected_length = len(self.expected(data))
        line_done, idle = self._send(data)
        ended = line_done + (self.idle_bits + 2 * BITS_PER_FRAME) / self.baud
        reader = self._reader

        def deadline():
            return max(ended, reader.last_arrival) + self.timeout

        if expected_length:
            reader.wait(expected_length, deadline)
        else:
            reader.wait(1, lambda: ended + _SETTLE_SECONDS)
        # Anything more (an answer too long) comes at once, at the line's rate.
        while True:
            held = reader.held()
            until = time.monotonic() + 5 * self.frame_seconds + _SETTLE_SECONDS
            reader.wait(held + 1, lambda: until)
            if reader.held() == held:
                return reader.take(), idle

    def _settle(self):
        """End any message the board was left in and drop what it answers to it."""
        time.sleep((self.idle_bits + 2 * BITS_PER_FRAME) / self.baud + _SETTLE_SECONDS)
        self._reader.take()

    def probe(self):
        """Check that the board answers as the bridge would, at this baud rate and for this
        pair; raise :exc:`BoardError` if not."""
        self._settle()
        last = CODECS[self.spec.source].form.last_code_point
        message = "".join(character for character in PROBE if ord(character) <= last) \
            .encode(_plain(self.spec.source))
        expected = self.expected(message)
        got, _ = self._exchange(message)
        settings = (f"--baud {self.baud}, --from {self.spec.source}, "
                    + ("--validate" if self.spec.kind == "validator" else
                       f"--to {self.spec.target}, --errors {self.spec.errors_name}"))
        if not got:
            raise BoardError(f"no answer from {self.name} within {self.timeout:g} s: is the "
                             f"board programmed with the bridge, at {self.baud} baud?")
        if got != expected:
            raise BoardError(f"{self.name} answered the probe with {len(got)} "
                             f"byte{'s' * (len(got) != 1)} ({_shown(got)}), not the bridge's "
                             f"answer of {len(expected)}: a wrong baud rate? (check "
                             f"{settings} against utfhw build's)")

    def run(self, messages, *, on_message=None):
        """:meth:`probe`, then send each of ``messages`` (:class:`Message`) and compare its
        answer with CPython's; return a :class:`BoardRun`. ``on_message(index, report)`` is
        called after each, ``report`` ``None`` when it matched."""
        self.probe()
        mismatches = []
        input_bytes = output_bytes = tries = 0
        start = time.monotonic()
        for index, message in enumerate(messages):
            expected = self.expected(message.data)
            for attempt in range(_TRIES):
                tries += attempt > 0
                got, idle = self._exchange(message.data)
                # A gap near the idle time may have ended the message early: the host's
                # fault, not the board's, so the message goes again.
                late = idle > _LATE_PART * self.idle_bits / self.baud
                if got == expected or not late:
                    break
            input_bytes += len(message.data)
            output_bytes += len(got)
            report = None
            if got != expected:
                report = self.describe(index, len(messages), message, expected, got)
                if late:
                    report += (f"\n  (the host left the line idle {idle * 1000:.1f} ms within "
                               f"the message on each of {_TRIES} tries, near the bridge's "
                               f"{self.idle_bits} bit times that end one: a busy host; a "
                               f"bridge built with a longer --idle-bits allows for it)")
                mismatches.append(report)
            if on_message is not None:
                on_message(index, report)
        seconds = (self._reader.last_arrival or time.monotonic()) - start
        return BoardRun(len(messages), input_bytes, output_bytes, max(seconds, 1e-9),
                        mismatches, tries)

    def describe(self, index, count, message, expected, got):
        """A mismatch as :func:`~utfhw.bench.golden.check_beats` names one: the message, the
        first output byte that differs, expected against got around it, the input bytes that
        make it, and CPython's strict verdict on the message; for a validator, the verdict
        expected and the one the answer gives."""
        data = message.data
        if self.spec.kind == "validator":
            return (f"message {index} of {count} ({message.description}, {len(data)} bytes): "
                    f"the verdict differs\n"
                    f"  expected {describe_result(int.from_bytes(expected, 'little'), self.spec)}"
                    f"\n  got      " + (
                        describe_result(int.from_bytes(got, "little"), self.spec)
                        if len(got) == len(expected) else
                        f"{len(got)} bytes ({_shown(got)}), not {len(expected)}")
                    + f"\n  {cpython_verdict(data, self.spec.source)}")
        at = next((offset for offset, (one, other) in enumerate(zip(expected, got))
                   if one != other), min(len(expected), len(got)))
        unit_bytes = CODECS[self.spec.target].unit_bytes
        start, end = input_span(data, self.spec, at // unit_bytes)
        first = max(0, at - 16)
        around = data[max(0, start - 8):end + 8]
        if at < len(expected) and at < len(got):
            what = f"expected {expected[at]:02x}, got {got[at]:02x}"
        elif at < len(expected):
            what = f"expected {expected[at]:02x}, but the answer ended"
        else:
            what = f"expected the end, got {got[at]:02x}"
        return (f"message {index} of {count} ({message.description}, {len(data)} bytes), "
                f"output byte {at}: {what}\n"
                f"  expected {_shown(expected[first:at + 16])} ({len(expected)} bytes)\n"
                f"  got      {_shown(got[first:at + 16])} ({len(got)} bytes)"
                f"{' from byte ' + str(first) if first else ''}\n"
                f"  input bytes {max(0, start - 8)}..{min(len(data), end + 8)} of the message: "
                f"{around.hex(' ')} (that unit from bytes {start}..{end})\n"
                f"  {cpython_verdict(data, self.spec.source)}")


def _shown(data):
    return data.hex(" ") if len(data) <= 32 else data[:32].hex(" ") + " ..."


def _plain(codec):
    """The codec that writes ``codec``'s units in the byte order it reads without a mark."""
    return plain_codec(CODECS[codec].form, CODECS[codec].target_byteorder or "little")


def _witness(source, target, errors):
    """The input unit (a character, or with ``replace`` decoding from UTF-8 or ASCII an
    invalid byte) whose answer is the longest for its length: the pair's worst case for the
    burst rule. An escape is longest at the end of a run of code points of one length."""
    plain = _plain(source)
    form = CODECS[source].form
    decoding, encoding = handler_pair(errors)
    candidates = [(character.encode(plain), f"U+{ord(character):04X}")
                  for character in ("a", "\u00e9", "\u00ff", "\u07ff", "\u0800", "\uffff",
                                    "\U0001F600", "\U0010ffff")
                  if ord(character) <= form.last_code_point]
    if form.unit_bytes == 1 and form.shortest_error is not None and decoding == "replace":
        candidates.append((b"\xff", "the invalid byte ff"))
    target_plain = _plain(target)
    return max(candidates, key=lambda candidate: len(
        candidate[0].decode(plain, decoding).encode(target_plain, encoding)) / len(candidate[0]))


def burst_message(source, target, errors="replace", *, fifo_depth=2048):
    """A :class:`Message` that tests the burst rule: the bridge's burst limit of bytes (twice
    the FIFO's depth when the pair has none) of the pair's worst case, to go back to back."""
    limit = burst_limit(source, target, errors, fifo_depth=fifo_depth)
    length = 2 * fifo_depth if limit is None else limit
    unit, what = _witness(source, target, errors)
    data = (unit * (length // len(unit) + 1))[:length]
    rule = ("twice the FIFO, this pair having no limit" if limit is None
            else "the burst limit")
    return Message(data, f"a burst of {length} bytes, {rule}, of {what}")


def builtin_messages(source, target, errors="replace", *, fifo_depth=2048):
    """The built-in messages: the sample text, the malformed sequences of the source's form
    (:func:`~utfhw.bench.sample.sample_messages`), and :func:`burst_message`."""
    return ([Message(data, description) for data, description in sample_messages(source)]
            + [burst_message(source, target, errors, fifo_depth=fifo_depth)])


def read_messages(paths):
    """A :class:`Message` for each file of ``paths``, a folder giving each of its files
    (sorted, hidden ones left out, its subfolders' too). An empty file is left out: a serial
    line has no empty message. Raises :exc:`OSError` naming a path that cannot be read."""
    messages = []
    for path in map(pathlib.Path, paths):
        if path.is_dir():
            files = sorted(file for file in path.rglob("*") if file.is_file() and not any(
                part.startswith(".") for part in file.relative_to(path).parts))
        else:
            files = [path]
        messages += [Message(data, str(file)) for file in files
                     for data in [file.read_bytes()] if data]
    return messages
