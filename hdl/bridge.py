"""The UART transcoder bridge: bytes in on a serial line, transcoded, out on the same port."""

import math

from amaranth.hdl import Module, Signal
from amaranth.lib import fifo, wiring
from amaranth.lib.wiring import In, Out

from .bytestream import BeatAssembler, UnitAssembler, LaneSerializer
from .unicode.layout import FramedByte, ValidationResult
from .forms import CODECS, expansion
from .unicode.params import check_flag, check_integer
from .cores.spec import CoreSpec, check_hardware_errors
from .uart import UARTReceiver, UARTTransmitter, MINIMUM_DIVISOR


__all__ = ["UARTBridge", "expansion", "burst_limit", "BITS_PER_FRAME", "BAUD_TOLERANCE",
           "FIFO_MARGIN", "VERDICT_BYTES"]


#: A frame is a start bit, 8 data bits and a stop bit.
BITS_PER_FRAME = 10

#: How far the bridge's baud rate may be from the one asked for, as a fraction.
BAUD_TOLERANCE = 0.01

#: FIFO entries the burst rule keeps free for what a message adds beyond its steady-state
#: ratio (a byte order mark, the replacement of a part unit at its end, its end marker) and for
#: the units held between the FIFO and the line.
FIFO_MARGIN = 8


#: Bytes of a validating bridge's answer to a message: the validator's
#: :class:`~utfhw.hdl.unicode.layout.ValidationResult`, least significant byte first.
VERDICT_BYTES = (ValidationResult().size + 7) // 8


def burst_limit(source, target, errors="replace", *, fifo_depth=2048):
    """The most bytes a host may send back to back to an idle :class:`UARTBridge` of this
    pair and FIFO depth before it must pause (its :attr:`~UARTBridge.burst_limit`), without
    making one; ``None`` when there is no limit."""
    ratio = expansion(source, target, errors)
    if ratio <= 1:
        return None
    return math.floor((fifo_depth - FIFO_MARGIN) * ratio / (ratio - 1))


class UARTBridge(wiring.Component):
    """A transcoder between two serial lines: what arrives on ``rx`` leaves on ``tx``,
    transcoded message by message exactly as ``message.decode(source, errors).encode(target, errors)``.

    The datapath::

        rx -> UARTReceiver -> (end markers) -> SyncFIFOBuffered -> UnitAssembler
           -> Transcoder -> LaneSerializer -> UARTTransmitter -> tx

    With ``width``, a :class:`~utfhw.hdl.bytestream.BeatAssembler` and the
    :class:`~utfhw.hdl.cores.wide.WideTranscoder` at that width stand in for the
    ``UnitAssembler`` and the ``Transcoder``: the same bridge around a wide core, so that a
    board checks it. Its output waits for the next beat of its message (the core looks one beat
    ahead), which the FIFO does not feel: those bytes have left it.

    With ``validate`` (and ``width``) the core is the source's
    :class:`~utfhw.hdl.cores.validator.Validator`, and the bridge answers each message with its
    verdict alone: :data:`VERDICT_BYTES` bytes, the
    :class:`~utfhw.hdl.unicode.layout.ValidationResult`'s bits least significant byte first
    (whether ``data.decode(source)`` raises, the first error's kind, ``start`` and ``end``, and
    the lengths of ``data.decode(source, "replace")``). The bytes passed through are dropped.
    While an answer goes out the validator's output waits, and the FIFO with it.

    **Messages.** A serial line has no message boundaries, so a message ends when ``rx`` has been
    idle (high, no frame) for ``idle_bits`` bit times. The bytes up to then are one message: a
    truncated sequence at its end is replaced, and a ``utf-16`` or ``utf-32`` target starts each
    message with a byte order mark, as CPython does for each ``encode`` call.

    **No byte lost.** The line cannot be held off, so bytes wait in the FIFO while the output,
    which may be longer than the input, goes out at the same baud rate. With ``r`` the pair's
    :func:`expansion`, a host may send a burst of :attr:`burst_limit` bytes back to back, that
    is ``(fifo_depth - FIFO_MARGIN) * r / (r - 1)``, and must then let the output catch up. When
    ``r`` is 1 there is no limit, as long as the host's baud rate is not faster than the
    bridge's (:attr:`actual_baud`). If a byte arrives to a full FIFO it is dropped and
    ``overflow`` goes high and stays high until reset: nothing is dropped silently.

    Latency from the middle of a unit's last stop bit to its first output start bit is a few
    clocks when the FIFO is empty; the final unit of a message waits for the idle time. The
    transcoder runs at one unit per clock, far faster than the line.

    Parameters
    ----------
    source, target : :class:`str`
        Codec names, as for :class:`~utfhw.hdl.cores.transcoder.Transcoder`.
    errors : :class:`str` or :class:`tuple`
        ``"replace"`` or ``"ignore"``; or, for the ``Transcoder``, a ``(decoding, encoding)``
        pair of handlers as it takes them, an escape on encoding among them.
    clk_freq : :class:`int` or :class:`float`
        The clock frequency in Hz.
    baud : :class:`int`
        The baud rate of both lines; ``clk_freq / baud`` is rounded to whole clocks per bit,
        which must be at least 4 and within 1 % of the rate asked for.
    fifo_depth : :class:`int`
        Entries of the receive FIFO (bytes and end markers), at least ``2 * FIFO_MARGIN``.
    idle_bits : :class:`int`
        Bit times of idle line that end a message, at least 2 * 10 (two frames).
    width : :class:`int` or ``None``
        ``None`` for the ``Transcoder``, one code unit a clock; else the wide core's bytes a
        beat (see :func:`~utfhw.hdl.cores.wide.check_wide_width`), or the validator's.
    validate : :class:`bool`
        The validator of ``source`` in place of a transcoder (``target`` then ``None`` or
        ``source``, and ``width`` given).

    Attributes
    ----------
    rx : :py:`In(1)`
        The serial line in (asynchronous; synchronised inside).
    tx : :py:`Out(1)`
        The serial line out.
    overflow : :py:`Out(1)`
        Goes high when a received byte is dropped, and stays high.
    framing_error : :py:`Out(1)`
        Goes high when a frame with a low stop bit is dropped (a wrong baud rate), and stays
        high.
    transcoder : :class:`~utfhw.hdl.cores.transcoder.Transcoder`,
            :class:`~utfhw.hdl.cores.wide.WideTranscoder` or
            :class:`~utfhw.hdl.cores.validator.Validator`
        The core.
    spec : :class:`~utfhw.hdl.cores.CoreSpec`
        Its name.

    Raises
    ------
    :exc:`ValueError`
        If a codec, ``errors``, the baud rate, a size, ``width`` or ``validate`` is not as
        above.
    """
    rx: In(1, init=1)
    tx: Out(1, init=1)
    overflow: Out(1)
    framing_error: Out(1)

    def __init__(self, *, source="utf-8", target="utf-16-le", errors="replace",
                 clk_freq, baud=115200, fifo_depth=2048, idle_bits=1000, width=None,
                 validate=False):
        if not isinstance(clk_freq, (int, float)) or isinstance(clk_freq, bool) or clk_freq <= 0:
            raise ValueError(f"clk_freq must be a positive number of Hz, not {clk_freq!r}")
        check_integer("baud", baud, minimum=1)
        divisor = round(clk_freq / baud)
        if divisor < MINIMUM_DIVISOR:
            raise ValueError(f"baud must be at most clk_freq / {MINIMUM_DIVISOR} = "
                             f"{clk_freq / MINIMUM_DIVISOR:.0f}, not {baud}")
        actual = clk_freq / divisor
        if abs(actual - baud) > BAUD_TOLERANCE * baud:
            raise ValueError(f"baud {baud} is {abs(actual - baud) / baud:.1%} off at "
                             f"{clk_freq:.0f} Hz ({divisor} clocks per bit give {actual:.0f}); "
                             f"choose one within {BAUD_TOLERANCE:.0%}")
        check_integer("fifo_depth", fifo_depth, minimum=2 * FIFO_MARGIN)
        check_integer("idle_bits", idle_bits, minimum=2 * BITS_PER_FRAME)
        check_hardware_errors(errors)    # CoreSpec takes "strict" too
        check_flag("validate", validate)
        self.spec = CoreSpec.of(source, target, errors=errors, width=width,
                                validate=validate)
        self.transcoder = self.spec.build()
        self._width = width
        self._divisor = divisor
        self._clk_freq = clk_freq
        self._fifo_depth = fifo_depth
        self._idle_bits = idle_bits
        super().__init__()

    @property
    def divisor(self):
        """Clocks per bit."""
        return self._divisor

    @property
    def actual_baud(self):
        """The baud rate the bridge runs at: ``clk_freq / divisor``."""
        return self._clk_freq / self._divisor

    @property
    def width(self):
        """The wide core's bytes a beat; ``None`` for the ``Transcoder``."""
        return self._width

    @property
    def fifo_depth(self):
        return self._fifo_depth

    @property
    def idle_bits(self):
        return self._idle_bits

    @property
    def validates(self):
        """Whether the core is a validator, whose answer is a verdict."""
        return self.spec.kind == "validator"

    @property
    def expansion(self):
        """See :func:`expansion`; ``None`` for a validator, whose answer to a message is
        :data:`VERDICT_BYTES` long whatever its length."""
        spec = self.spec
        return None if self.validates else expansion(spec.source, spec.target, spec.errors)

    @property
    def burst_limit(self):
        """The most bytes a host may send back to back at the full line rate, starting from an
        idle bridge, before it must pause; ``None`` when there is no limit (as for a
        validator, which takes a byte a clock but while an answer goes out)."""
        spec = self.spec
        if self.validates:
            return None
        return burst_limit(spec.source, spec.target, spec.errors, fifo_depth=self._fifo_depth)

    def elaborate(self, platform):
        m = Module()
        receiver = m.submodules.receiver = UARTReceiver(divisor=self._divisor)
        buffer = m.submodules.buffer = fifo.SyncFIFOBuffered(
            width=FramedByte.size, depth=self._fifo_depth)
        if self._width is None:
            assembler = UnitAssembler(width=CODECS[self.transcoder.source].unit_bytes)
        else:
            assembler = BeatAssembler(width=self._width)
        m.submodules.assembler = assembler
        m.submodules.transcoder = self.transcoder
        if not self.validates:
            serializer = m.submodules.serializer = LaneSerializer(
                layout=self.transcoder.o.payload.shape())
        transmitter = m.submodules.transmitter = UARTTransmitter(divisor=self._divisor)

        m.d.comb += receiver.rx.eq(self.rx)

        # Clocks the line has been idle; a message is open from its first byte to its end
        # marker.
        idle_clocks = self._idle_bits * self._divisor
        idle = Signal(range(idle_clocks + 1))
        message_open = Signal()
        entry = Signal(FramedByte)
        m.d.comb += [
            buffer.w_data.eq(entry),
            receiver.o.ready.eq(1),
        ]
        with m.If(receiver.busy | receiver.o.valid):
            m.d.sync += idle.eq(0)
        with m.Elif(idle != idle_clocks):
            m.d.sync += idle.eq(idle + 1)

        with m.If(receiver.o.valid):
            m.d.comb += [entry.data.eq(receiver.o.payload), buffer.w_en.eq(1)]
            with m.If(buffer.w_rdy):
                m.d.sync += message_open.eq(1)
            with m.Else():
                m.d.sync += self.overflow.eq(1)
        with m.Elif(message_open & (idle == idle_clocks)):
            # The FIFO keeps FIFO_MARGIN entries' room for this marker (see the burst rule).
            m.d.comb += [entry.end.eq(1), buffer.w_en.eq(1)]
            with m.If(buffer.w_rdy):
                m.d.sync += message_open.eq(0)
        with m.If(receiver.overflow):
            m.d.sync += self.overflow.eq(1)
        with m.If(receiver.framing_error):
            m.d.sync += self.framing_error.eq(1)

        m.d.comb += [
            assembler.i.payload.eq(buffer.r_data),
            assembler.i.valid.eq(buffer.r_rdy),
            buffer.r_en.eq(assembler.i.ready),
        ]
        wiring.connect(m, assembler.o, self.transcoder.i)
        if self.validates:
            self._answer_verdicts(m, self.transcoder.o, transmitter.i)
        else:
            wiring.connect(m, self.transcoder.o, serializer.i)
            wiring.connect(m, serializer.o, transmitter.i)
        m.d.comb += self.tx.eq(transmitter.tx)
        return m

    @staticmethod
    def _answer_verdicts(m, beats, line):
        """Each message's result from the validator's ``beats`` out on ``line`` (the
        transmitter's input), a byte at a time; the beats wait while one goes out."""
        record = Signal(8 * VERDICT_BYTES)
        left = Signal(range(VERDICT_BYTES + 1))
        m.d.comb += [
            beats.ready.eq(left == 0),
            line.valid.eq(left != 0),
            line.payload.eq(record[:8]),
        ]
        with m.If(beats.valid & beats.ready & beats.payload.last):
            m.d.sync += [record.eq(beats.payload.result.as_value()), left.eq(VERDICT_BYTES)]
        with m.If(line.valid & line.ready):
            m.d.sync += [record.eq(record >> 8), left.eq(left - 1)]
