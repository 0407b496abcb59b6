"""The lanes of a beat with the lanes around them: what a wide decoder needs to decide each
position on its own."""

from amaranth.hdl import Cat, Module, Mux, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.params import check_flag, check_integer


__all__ = ["LaneBeat", "WindowBeat", "ValidCopy", "drive_valid_copy", "copied_valid",
           "COPY_LANES", "ValidCopies", "drive_valid_copies", "LaneWindow"]


class LaneBeat(data.StructLayout):
    """One beat of ``width`` lanes of ``item``, all present or marked absent by the item
    itself, and ``last``."""
    def __init__(self, item, width):
        self.item = item
        self.width = width
        super().__init__({"lanes": data.ArrayLayout(item, width), "last": 1})


class WindowBeat(data.StructLayout):
    """A beat's ``width`` lanes with ``behind`` lanes before them and one after.

    ``window[behind + j]`` is lane ``j``; ``window[0:behind]`` are the lanes before it in the
    message (absent before the message starts) and ``window[behind + width]`` the lane after
    it (absent where the message ends).
    """
    def __init__(self, item, width, behind):
        self.item = item
        self.width = width
        self.behind = behind
        super().__init__({"window": data.ArrayLayout(item, behind + width + 1), "last": 1})


#: One copy of a stream's valid bit: a toggle and its delayed copy, whose exclusive OR is the
#: bit (:func:`copied_valid`). It is state of its own, which no synthesis tool merges with the
#: other copies, as it would flip-flops that register the same value.
ValidCopy = data.StructLayout({"toggle": 1, "before": 1})


def drive_valid_copy(m, copy, valid):
    """Make ``copy`` (a value of :data:`ValidCopy`) show, on the next clock, the value
    ``valid`` has now: the same clock as ``o.valid.eq(valid)`` in ``m.d.sync``."""
    m.d.sync += [copy.toggle.eq(copy.toggle ^ valid), copy.before.eq(copy.toggle)]


def copied_valid(copy):
    """The valid bit that ``copy`` (a value of :data:`ValidCopy`) carries."""
    return copy.toggle ^ copy.before


#: Lanes that share one copy of a stream's valid bit (:class:`ValidCopies`).
COPY_LANES = 4


class ValidCopies(data.ArrayLayout):
    """A :data:`ValidCopy` of a stream's valid bit for each group of :data:`COPY_LANES` of its
    ``width`` lanes.

    A stage that registers its ``o.valid`` drives them on the same clock
    (:func:`drive_valid_copies`), so that the stage after it can fan the bit out to its lanes
    from one flip-flop pair per group rather than from ``o.valid`` alone, whose one net would
    span every lane.
    """
    def __init__(self, width):
        check_integer("width", width, minimum=1)
        super().__init__(ValidCopy, -(-width // COPY_LANES))


def drive_valid_copies(m, copies, valid):
    """:func:`drive_valid_copy` for each of ``copies`` (a value of :class:`ValidCopies`)."""
    for copy in copies:
        drive_valid_copy(m, copy, valid)


class LaneWindow(wiring.Component):
    """Holds each beat until the first lane of the next one is known, and sends it on with
    ``behind`` lanes of the beats before it.

    A beat with ``last`` goes on two clocks after it arrives; any other waits for the next beat
    of its message. The lanes before a message and the lane after it are the all-zero item,
    which the item's layout must read as absent. There is no backpressure: a beat goes on
    exactly two clocks after the beat that completes its window arrives (``latency``, one beat
    per clock), so the stage holds at most two beats.

    The first clock registers each beat as it comes, with no enable; the second holds it until
    its window is complete. Each lane of the held beat loads on its own copy of the first
    register's valid bit (a :data:`ValidCopy`), so that no one signal drives the load enables
    of every lane. With ``valid_copies`` those toggles take the valid
    bit from the copies the stage before made (one per group of :data:`COPY_LANES` lanes), so
    that no one signal drives the toggles of every lane either.

    Parameters
    ----------
    item : :class:`~amaranth.lib.data.Layout`
        One lane.
    width : :class:`int`
        Lanes per beat.
    behind : :class:`int`
        Lanes of look-behind, at least 1.
    valid_copies : :class:`bool`
        Whether ``i.valid`` comes with copies, on the port of that name.

    Attributes
    ----------
    i : :py:`In(stream.Signature(LaneBeat(item, width), always_ready=True))`
    o : :py:`Out(stream.Signature(WindowBeat(item, width, behind), always_ready=True))`
    valid_copies : :py:`In(ValidCopies(width))`
        Copies of ``i.valid`` (:class:`ValidCopies`), driven with it; only with
        ``valid_copies``.

    Raises
    ------
    :exc:`ValueError`
        If ``width`` or ``behind`` is not a positive integer, or ``valid_copies`` not a
        :class:`bool`.
    """
    #: Clocks from the beat that completes a window to that window.
    latency = 2

    def __init__(self, *, item, width, behind, valid_copies=False):
        check_integer("width", width, minimum=1)
        check_integer("behind", behind, minimum=1)
        check_flag("valid_copies", valid_copies)
        self._behind = behind
        members = {
            "i": In(stream.Signature(LaneBeat(item, width), always_ready=True)),
            "o": Out(stream.Signature(WindowBeat(item, width, behind), always_ready=True)),
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
        layout = self.i.payload.shape()
        item, width, behind = layout.item, layout.width, self._behind
        arrived, arrived_valid = self._arrived, self._arrived_valid
        m.d.sync += [arrived.eq(self.i.payload), arrived_valid.eq(self.i.valid)]

        pending, pending_valid = self._pending, self._pending_valid
        history = Signal(data.ArrayLayout(item, behind))

        release = pending_valid & (pending.last | arrived_valid)
        following = Signal(item)
        with m.If(~pending.last):
            m.d.comb += following.eq(arrived.lanes[0])

        # The output loads on every clock; ``o.valid`` says when it holds a beat.
        m.d.sync += [
            self.o.valid.eq(release),
            self.o.payload.window.as_value().eq(
                Cat(history.as_value(), pending.lanes.as_value(), following.as_value())),
            self.o.payload.last.eq(pending.last),
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
                arrives = copied_valid(self.valid_copies[index // COPY_LANES])
            else:
                arrives = self.i.valid
            arrival = Signal(ValidCopy, name=f"arrivals_{index}")
            drive_valid_copy(m, arrival, arrives)
            with m.If(copied_valid(arrival)):
                m.d.sync += pending.lanes[index].eq(arrived.lanes[index])
        return m
