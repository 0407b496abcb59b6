"""An asynchronous serial port (UART): 8 data bits, no parity, one stop bit (8N1)."""

from amaranth.hdl import Module, Signal, Cat, Const
from amaranth.lib import stream, wiring
from amaranth.lib.cdc import FFSynchronizer
from amaranth.lib.wiring import In, Out

from .unicode.params import check_integer


__all__ = ["UARTReceiver", "UARTTransmitter", "MINIMUM_DIVISOR"]


#: The fewest clocks per bit: the receiver samples each bit in its middle, so it needs a few
#: clocks of margin either side for the synchroniser's delay and the sender's clock error.
MINIMUM_DIVISOR = 4


class _UARTCore(wiring.Component):
    # What the receiver and the transmitter share: their bit timing.
    def __init__(self, *, divisor):
        check_integer("divisor", divisor, minimum=MINIMUM_DIVISOR)
        self._divisor = divisor
        super().__init__()

    @property
    def divisor(self):
        """Clocks per bit."""
        return self._divisor


class UARTReceiver(_UARTCore):
    """Receives 8N1 frames from an asynchronous serial line.

    The line goes through a two-flip-flop synchroniser (it comes from another clock domain).
    A falling edge starts a frame; the start bit is checked half a bit later (a shorter low
    pulse is ignored as a glitch), then each data bit, least significant first, and the stop
    bit are sampled in the middle of their bit times. The receiver is ready for the next start
    bit as soon as it has sampled the stop bit, half a bit early, so a sender whose clock is up
    to about 2 % faster is still received.

    A byte is offered on ``o`` two clocks after the middle of its stop bit and held until taken.
    The line does not wait: if the previous byte has not been taken when the next one is
    complete, the new byte is dropped and ``overflow`` is high for one clock. A frame whose stop
    bit is low is dropped and ``framing_error`` is high for one clock; the receiver then waits
    for the line to return high (a break) before it looks for the next start bit.

    Parameters
    ----------
    divisor : :class:`int`
        Clocks per bit (the clock frequency over the baud rate, rounded), at least
        :data:`MINIMUM_DIVISOR`.

    Attributes
    ----------
    rx : :py:`In(1)`
        The serial line, high when idle; asynchronous to the clock.
    o : :py:`Out(stream.Signature(8))`
        The received bytes.
    overflow : :py:`Out(1)`
        High for one clock when a byte is dropped because ``o`` was still full.
    framing_error : :py:`Out(1)`
        High for one clock when a frame with a low stop bit is dropped.
    busy : :py:`Out(1)`
        High from the start of a frame (or a low line) until the receiver looks for the next
        start bit: the line is not idle.

    Raises
    ------
    :exc:`ValueError`
        If ``divisor`` is not an integer of at least :data:`MINIMUM_DIVISOR`.
    """
    rx: In(1, init=1)
    o: Out(stream.Signature(8))
    overflow: Out(1)
    framing_error: Out(1)
    busy: Out(1)

    def elaborate(self, platform):
        m = Module()

        line = Signal(init=1)
        m.submodules.synchronizer = FFSynchronizer(self.rx, line, init=1)

        timer = Signal(range(self._divisor))
        bits = Signal(range(9))
        shift = Signal(8)
        with m.If(timer != 0):
            m.d.sync += timer.eq(timer - 1)

        with m.If(self.o.ready):
            m.d.sync += self.o.valid.eq(0)

        with m.FSM() as fsm:
            m.d.comb += self.busy.eq(~fsm.ongoing("Idle") | ~line)
            with m.State("Idle"):
                with m.If(~line):
                    m.d.sync += timer.eq(self._divisor // 2 - 1)
                    m.next = "Start"
            with m.State("Start"):
                with m.If(timer == 0):
                    with m.If(line):
                        m.next = "Idle"
                    with m.Else():
                        m.d.sync += [timer.eq(self._divisor - 1), bits.eq(0)]
                        m.next = "Data"
            with m.State("Data"):
                with m.If(timer == 0):
                    m.d.sync += [
                        shift.eq(Cat(shift[1:], line)),
                        bits.eq(bits + 1),
                        timer.eq(self._divisor - 1),
                    ]
                    with m.If(bits == 7):
                        m.next = "Stop"
            with m.State("Stop"):
                with m.If(timer == 0):
                    with m.If(~line):
                        m.d.comb += self.framing_error.eq(1)
                        m.next = "Break"
                    with m.Elif(self.o.valid & ~self.o.ready):
                        m.d.comb += self.overflow.eq(1)
                        m.next = "Idle"
                    with m.Else():
                        m.d.sync += [self.o.payload.eq(shift), self.o.valid.eq(1)]
                        m.next = "Idle"
            with m.State("Break"):
                with m.If(line):
                    m.next = "Idle"
        return m


class UARTTransmitter(_UARTCore):
    """Sends bytes as 8N1 frames on an asynchronous serial line.

    A byte taken from ``i`` starts its frame on the next clock: a low start bit, the data bits
    least significant first, and a high stop bit, each ``divisor`` clocks long. ``i.ready`` is
    high while the line is idle and on the last clock of a stop bit, so waiting bytes are taken
    once every ``10 * divisor`` clocks: back to back at exactly the line rate. ``tx`` comes from a flip-flop.

    Parameters
    ----------
    divisor : :class:`int`
        Clocks per bit, at least :data:`MINIMUM_DIVISOR` (like :class:`UARTReceiver`).

    Attributes
    ----------
    i : :py:`In(stream.Signature(8))`
        The bytes to send.
    tx : :py:`Out(1)`
        The serial line, high when idle.

    Raises
    ------
    :exc:`ValueError`
        If ``divisor`` is not an integer of at least :data:`MINIMUM_DIVISOR`.
    """
    i: In(stream.Signature(8))
    tx: Out(1, init=1)

    def elaborate(self, platform):
        m = Module()
        # Start bit, data and stop bit; the frame is sent from bit 0 while ``remaining`` counts
        # the bits still to go.
        frame = Signal(10, init=1)
        remaining = Signal(range(11))
        timer = Signal(range(self._divisor))

        m.d.comb += self.tx.eq(frame[0])
        # The next frame may start on the clock the stop bit ends, so frames go back to back.
        m.d.comb += self.i.ready.eq((remaining == 0) | ((remaining == 1) & (timer == 0)))
        with m.If(self.i.valid & self.i.ready):
            m.d.sync += [
                frame.eq(Cat(Const(0, 1), self.i.payload, Const(1, 1))),
                remaining.eq(10),
                timer.eq(self._divisor - 1),
            ]
        with m.Elif(remaining != 0):
            with m.If(timer == 0):
                m.d.sync += [
                    frame.eq(Cat(frame[1:], Const(1, 1))),
                    remaining.eq(remaining - 1),
                    timer.eq(self._divisor - 1),
                ]
            with m.Else():
                m.d.sync += timer.eq(timer - 1)
        return m
