"""The lanes of a beat with the lanes around them: what a wide decoder needs to decide each
position on its own."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.params import check_flag, check_integer
from .copies import LANES_PER_COPY, RegisteredCopy, copied_value, copy_groups, registered_copies
from .stage import payload_register


__all__ = ["Slot", "LaneBeat", "WindowBeat", "ValidCopies", "LaneWindow"]


class Slot(data.StructLayout):
    """An item that may be there or not: ``valid`` and ``item``."""
    def __init__(self, item):
        self.item = item
        super().__init__({"valid": 1, "item": item})


class LaneBeat(data.StructLayout):
    """One beat of ``width`` lanes of ``item``, all present or marked absent by the item
    itself, and ``last``."""
    def __init__(self, item, width):
        self.item = item
        self.width = width
        super().__init__({"lanes": data.ArrayLayout(item, width), "last": 1})


class WindowBeat(data.StructLayout):
    """A beat's ``width`` lanes with ``behind`` lanes before them and ``ahead`` after.

    ``window[behind + j]`` is lane ``j``; ``window[0:behind]`` are the lanes before it in the
    message (absent before the message starts) and ``window[behind + width:]`` the lanes after
    it (absent where the message ends).
    """
    def __init__(self, item, width, behind, ahead=1):
        self.item = item
        self.width = width
        self.behind = behind
        self.ahead = ahead
        super().__init__({"window": data.ArrayLayout(item, behind + width + ahead), "last": 1})


class ValidCopies(data.ArrayLayout):
    """A :data:`~utfhw.hdl.lanes.copies.RegisteredCopy` of a stream's valid bit for each group
    of :data:`~utfhw.hdl.lanes.copies.LANES_PER_COPY` of its ``width`` lanes.

    A stage that registers its ``o.valid`` drives them on the same clock
    (:func:`~utfhw.hdl.lanes.copies.registered_copies`), so that the stage after it can fan the
    bit out to its lanes from one flip-flop pair per group rather than from ``o.valid`` alone,
    whose one net would span every lane.
    """
    def __init__(self, width):
        check_integer("width", width, minimum=1)
        super().__init__(RegisteredCopy, copy_groups(width))


class LaneWindow(wiring.Component):
    """Holds each beat until the first ``ahead`` lanes of the next one are known, and sends it
    on with ``behind`` lanes of the beats before it.

    A beat with ``last`` goes on two clocks after it arrives; any other waits for the next beat
    of its message. The lanes before a message and the lane after it are the all-zero item,
    which the item's layout must read as absent. There is no backpressure: a beat goes on
    exactly two clocks after the beat that completes its window arrives (``latency``, one beat
    per clock), so the stage holds at most two beats.

    The first clock registers each beat as it comes, with no enable; the second holds it until
    its window is complete. Each lane of the held beat loads on its own copy of the first
    register's valid bit (:mod:`utfhw.hdl.lanes.copies`), so that no one signal drives the load
    enables of every lane. With ``valid_copies`` those copies take the valid bit from the
    copies the stage before made (one per group of lanes), so that no one signal drives every
    lane's copy either.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        One lane.
    width : :class:`int`
        Lanes per beat.
    behind : :class:`int`
        Lanes of look-behind, at least 1.
    ahead : :class:`int`
        Lanes of look-ahead, from 1 to ``width``: the next beat's first lanes.
    valid_copies : :class:`bool`
        Whether ``i.valid`` comes with copies, on the port of that name.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(item, width), always_ready=True))`
    o : :py:`Out(stream.Signature(WindowBeat(item, width, behind, ahead), always_ready=True))`
    valid_copies : :py:`In(ValidCopies(width))`
        Copies of ``i.valid`` (:class:`ValidCopies`), driven with it; only with
        ``valid_copies``.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` or ``behind`` is not a positive integer, ``ahead`` not one of at most
        ``width``, or ``valid_copies`` not a :class:`bool`.
    """
    #: Clocks from the beat that completes a window to that window.
    latency = 2

    def __init__(self, *, item, width, behind, ahead=1, valid_copies=False):
        check_integer("width", width, minimum=1)
        check_integer("behind", behind, minimum=1)
        check_integer("ahead", ahead, minimum=1, maximum=width)
        check_flag("valid_copies", valid_copies)
        self._behind = behind
        self._ahead = ahead
        members = {
            "i": In(stream.Signature(LaneBeat(item, width), always_ready=True)),
            "o": Out(stream.Signature(WindowBeat(item, width, behind, ahead),
                                      always_ready=True)),
        }
        if valid_copies:
            members["valid_copies"] = In(ValidCopies(width))
        super().__init__(members)
        # The beat of the first clock and the held beat, made here so that :meth:`waiting`
        # can name them.
        self._arrived = Signal(LaneBeat(item, width), name="arrived", reset_less=True)
        self._arrived_valid = Signal(name="arrived_valid")
        self._pending = Signal(LaneBeat(item, width), name="pending", reset_less=True)
        self._pending_valid = Signal(name="pending_valid")

    def waiting(self):
        """The last beat to come is not a message's last, so it waits for the next beat: it
        is in the first register, or else held. For a formal bench."""
        return Mux(self._arrived_valid, ~self._arrived.last,
                   self._pending_valid & ~self._pending.last)

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        layout = self.i.payload.shape()
        item, width, behind = layout.item, layout.width, self._behind
        arrived, arrived_valid = self._arrived, self._arrived_valid
        m.d.sync += [arrived.eq(self.i.payload), arrived_valid.eq(self.i.valid)]

        pending, pending_valid = self._pending, self._pending_valid
        history = Signal(data.ArrayLayout(item, behind))

        release = pending_valid & (pending.last | arrived_valid)
        following = Signal(data.ArrayLayout(item, self._ahead))
        with m.If(~pending.last):
            m.d.comb += following.eq(Cat(*(arrived.lanes[index].as_value()
                                           for index in range(self._ahead))))

        # The output loads on every clock; ``o.valid`` says when it holds a beat.
        m.d.sync += [
            self.o.valid.eq(release),
            out.window.as_value().eq(
                Cat(history.as_value(), pending.lanes.as_value(), following.as_value())),
            out.last.eq(pending.last),
        ]
        # On a release, a message's last beat clears the lanes before the next message, and
        # any other beat leaves its last lanes. Written as a reset over a load, as the
        # flip-flops of an FPGA have them, each condition is one LUT from flip-flops.
        with m.If(pending_valid & pending.last):
            m.d.sync += history.eq(0)
        with m.Elif(pending_valid & arrived_valid):
            lanes = [history[index] for index in range(behind)] + \
                    [pending.lanes[index] for index in range(width)]
            m.d.sync += [history[index].eq(lane)
                         for index, lane in enumerate(lanes[-behind:])]
        with m.If(arrived_valid):
            m.d.sync += [pending.last.eq(arrived.last), pending_valid.eq(1)]
        with m.Elif(pending.last):
            # The same as clearing on a release without an arrival, without ``release``'s
            # logic in the enable.
            m.d.sync += pending_valid.eq(0)
        for index in range(width):
            if "valid_copies" in self.signature.members:
                arrives = copied_value(self.valid_copies[index // LANES_PER_COPY])
            else:
                arrives = self.i.valid
            arrival = Signal(RegisteredCopy, name=f"arrivals_{index}")
            registered_copies(m, [arrival], arrives)
            with m.If(copied_value(arrival)):
                m.d.sync += pending.lanes[index].eq(arrived.lanes[index])
        return m
