"""Any core behind AXI4-Stream ports (ARM IHI 0051), as Verilog flows and Vivado expect them."""

from amaranth.hdl import Module, Shape, Signal
from amaranth.lib import fifo, wiring
from amaranth.lib.wiring import In, Out

from .unicode.layout import ValidatedBytes


__all__ = ["AXIStreamTop", "TUSER_BITS_PER_UNIT", "TUSER_PROTOCOL_ERROR_BIT"]


#: Bits of ``m_axis_tuser`` for each output code unit: its error kind in the low four.
TUSER_BITS_PER_UNIT = 8

#: The bit of each lane's ``m_axis_tuser`` that, on a message's ``m_axis_tlast`` beat, says that
#: the message's input had a beat the core cannot take.
TUSER_PROTOCOL_ERROR_BIT = 7


class AXIStreamTop(wiring.Component):
    """A transcoding core with AXI4-Stream ports named as ARM IHI 0051 names them.

    The wrapper is only wires: latency, throughput, capacity and backpressure are the core's
    (``s_axis_tready`` is the core's ``i.ready``, ``m_axis_tvalid`` its ``o.valid``). Reset is
    the core's ``rst``: synchronous, active high, and optional, since every register starts
    from its initial value. A queue of one bit per message in flight (``capacity`` entries)
    carries each message's protocol error from its input ``s_axis_tlast`` to its output one.

    Input: one source code unit a beat (the wide core: up to its width of bytes), bytes in
    ``s_axis_tdata`` in wire order (byte 0 first on the wire, in ``[7:0]``), ``s_axis_tkeep``
    one bit a byte. The kept bytes must be packed from byte 0, and only the last beat of a
    message (``s_axis_tlast``) may keep fewer than a whole unit (a whole beat); a beat that
    keeps none with ``s_axis_tlast`` ends a message (an empty one, if nothing came before). A
    beat that keeps no byte without ``s_axis_tlast`` (a null beat, ARM IHI 0051 section 2.4.3)
    is taken and dropped. Any other beat the core cannot take, one whose kept bytes have a hole
    or do not start at byte 0, or one short of a whole unit (beat) without ``s_axis_tlast``, is
    a *protocol error*: it goes to the core as if its kept bytes were packed from byte 0, so
    the message's output is not what CPython gives for its bytes, and the core says so:
    ``protocol_error`` is high for the clock after the beat was taken, and the message's
    ``m_axis_tlast`` beat has bit :data:`TUSER_PROTOCOL_ERROR_BIT` set in every lane's
    ``m_axis_tuser``. The messages after it are not affected.

    Output: up to ``lanes`` target code units a beat, packed from lane 0; lane ``k`` is bytes
    ``k * unit_bytes`` up of ``m_axis_tdata``, in wire order. ``m_axis_tkeep`` keeps the bytes
    of the lanes that hold a unit; a beat may keep none (the input unit went into a pending
    sequence, or was a stripped mark or an ignored error), and may still carry
    ``m_axis_tlast``. ``m_axis_tuser`` has :data:`TUSER_BITS_PER_UNIT` bits a lane, the lane's
    :class:`~utfhw.hdl.unicode.layout.ErrorKind` in the low three (0: well formed; else the reason for
    the U+FFFD it is part of), and on the ``m_axis_tlast`` beat the protocol error bit. Bytes
    and user bits of lanes not kept are don't-care, but the protocol error bit, which every
    lane of the ``m_axis_tlast`` beat carries.

    A validator's output beats are its input's bytes, ``m_axis_tkeep`` one bit a byte, and
    ``m_axis_tuser`` on the ``m_axis_tlast`` beat holds the message's
    :class:`~utfhw.hdl.unicode.layout.ValidationResult` from bit 0 and the protocol error in
    its top bit (:attr:`verdict_bits`); it is 0 on the other beats.

    Parameters
    ----------
    core : :class:`~utfhw.hdl.cores.Core`
        The core to wrap; it becomes the submodule ``core``.

    Attributes
    ----------
    s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid : In
        The input stream; ``s_axis_tready`` : Out.
    m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_axis_tuser : Out
        The output stream; ``m_axis_tready`` : In.
    protocol_error : Out(1)
        High for one clock after the core took a beat it cannot take (see above).
    """
    def __init__(self, core):
        self.core = core
        input_layout = core.i.payload.shape()
        output_layout = core.o.payload.shape()
        self.input_bytes = Shape.cast(input_layout["data"].shape).width // 8
        #: A validator's ``m_axis_tuser``: its result's bits, then the protocol error's.
        self.verdict_bits = None
        if isinstance(output_layout, ValidatedBytes):
            self.unit_bytes, self.lanes = 1, output_layout.width
            self.verdict_bits = output_layout["result"].width
            user_bits = self.verdict_bits + 1
        else:
            self.unit_bytes = (Shape.cast(output_layout.item["data"].shape).width + 7) // 8
            self.lanes = output_layout.lane_count
            user_bits = TUSER_BITS_PER_UNIT * self.lanes
        super().__init__({
            "s_axis_tdata":  In(8 * self.input_bytes),
            "s_axis_tkeep":  In(self.input_bytes),
            "s_axis_tlast":  In(1),
            "s_axis_tvalid": In(1),
            "s_axis_tready": Out(1),
            "m_axis_tdata":  Out(8 * self.unit_bytes * self.lanes),
            "m_axis_tkeep":  Out(self.unit_bytes * self.lanes),
            "m_axis_tlast":  Out(1),
            "m_axis_tvalid": Out(1),
            "m_axis_tready": In(1),
            "m_axis_tuser":  Out(user_bits),
            "protocol_error": Out(1),
        })

    def invariants(self):
        """The core's :meth:`invariants`, if it states any, for a formal bench."""
        return getattr(self.core, "invariants", lambda: ())()

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        keep, last = self.s_axis_tkeep, self.s_axis_tlast
        count = 0
        for bit in keep:
            count = count + bit
        # A null beat is taken and dropped; the core takes every other beat.
        null = (keep == 0) & ~last
        # Kept bytes packed from byte 0 make keep + 1 a power of two; a beat that is not a
        # message's last must keep them all.
        broken = ~null & (((keep & (keep + 1)) != 0) | (~last & ~keep.all()))
        # Each message's protocol error waits here from its input last to its output last.
        m.submodules.errors = errors = fifo.SyncFIFO(width=1, depth=self.core.capacity + 2)
        sticky = Signal()
        ready = core.i.ready & errors.w_rdy
        taken = self.s_axis_tvalid & ready
        m.d.comb += [
            core.i.valid.eq(self.s_axis_tvalid & ~null & errors.w_rdy),
            # A null beat waits for the core's ready all the same, so that nothing moves in
            # reset.
            self.s_axis_tready.eq(ready),
            core.i.payload.data.eq(self.s_axis_tdata),
            core.i.payload.count.eq(count),
            core.i.payload.last.eq(last),
            errors.w_en.eq(taken & last),
            errors.w_data.eq(sticky | broken),
        ]
        with m.If(taken):
            m.d.sync += sticky.eq((sticky | broken) & ~last)
        m.d.sync += self.protocol_error.eq(taken & broken)
        given = core.o.valid & self.m_axis_tready
        m.d.comb += [
            self.m_axis_tvalid.eq(core.o.valid),
            core.o.ready.eq(self.m_axis_tready),
            self.m_axis_tlast.eq(core.o.payload.last),
            errors.r_en.eq(given & core.o.payload.last),
        ]
        marked = core.o.payload.last & errors.r_rdy & errors.r_data
        if self.verdict_bits is not None:
            m.d.comb += [
                self.m_axis_tdata.eq(core.o.payload.data),
                self.m_axis_tkeep.eq((1 << core.o.payload.count) - 1),
                self.m_axis_tuser.eq(core.o.payload.result.as_value()),
                self.m_axis_tuser[self.verdict_bits].eq(marked),
            ]
            return m
        unit_bits = 8 * self.unit_bytes
        for index, lane in enumerate(core.o.payload.lanes):
            user = self.m_axis_tuser[index * TUSER_BITS_PER_UNIT:
                                     (index + 1) * TUSER_BITS_PER_UNIT]
            m.d.comb += [
                self.m_axis_tdata[index * unit_bits:(index + 1) * unit_bits].eq(lane.data),
                self.m_axis_tkeep[index * self.unit_bytes:(index + 1) * self.unit_bytes].eq(
                    (core.o.payload.count > index).replicate(self.unit_bytes)),
                user[:len(lane.error.as_value())].eq(lane.error),
                user[TUSER_PROTOCOL_ERROR_BIT].eq(marked),
            ]
        return m
