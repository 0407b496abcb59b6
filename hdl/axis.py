"""Any core behind AXI4-Stream ports (ARM IHI 0051), as Verilog flows and Vivado expect them."""

from amaranth.hdl import Module, Shape
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out


__all__ = ["AXIStreamTop", "TUSER_BITS_PER_UNIT"]


#: Bits of ``m_axis_tuser`` for each output code unit: its error kind in the low three.
TUSER_BITS_PER_UNIT = 8


class AXIStreamTop(wiring.Component):
    """A transcoding core with AXI4-Stream ports named as ARM IHI 0051 names them.

    The wrapper is only wires: latency, throughput, capacity and backpressure are the core's
    (``s_axis_tready`` is the core's ``i.ready``, ``m_axis_tvalid`` its ``o.valid``). Reset is
    the core's ``rst``: synchronous, active high, and optional, since every register starts
    from its initial value.

    Input: one source code unit a beat (the wide core: up to its width of bytes), bytes in
    ``s_axis_tdata`` in wire order (byte 0 first on the wire, in ``[7:0]``), ``s_axis_tkeep``
    one bit a byte. The kept bytes must be packed from byte 0, and only the last beat of a
    message (``s_axis_tlast``) may keep fewer than a whole unit (a whole beat); a beat that keeps none with ``s_axis_tlast`` ends a message (an empty one, if
    nothing came before).

    Output: up to ``lanes`` target code units a beat, packed from lane 0; lane ``k`` is bytes
    ``k * unit_bytes`` up of ``m_axis_tdata``, in wire order. ``m_axis_tkeep`` keeps the bytes
    of the lanes that hold a unit; a beat may keep none (the input unit went into a pending
    sequence, or was a stripped mark or an ignored error), and may still carry
    ``m_axis_tlast``. ``m_axis_tuser`` has :data:`TUSER_BITS_PER_UNIT` bits a lane, the lane's
    :class:`~utfhw.hdl.unicode.layout.ErrorKind` in the low three (0: well formed; else the reason for
    the U+FFFD it is part of). Bytes and user bits of lanes not kept are don't-care.

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
    """
    def __init__(self, core):
        self.core = core
        input_layout = core.i.payload.shape()
        output_layout = core.o.payload.shape()
        self.input_bytes = Shape.cast(input_layout["data"].shape).width // 8
        self.unit_bytes = (Shape.cast(output_layout.item["data"].shape).width + 7) // 8
        self.lanes = output_layout.lane_count
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
            "m_axis_tuser":  Out(TUSER_BITS_PER_UNIT * self.lanes),
        })

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        count = 0
        for bit in self.s_axis_tkeep:
            count = count + bit
        m.d.comb += [
            core.i.valid.eq(self.s_axis_tvalid),
            self.s_axis_tready.eq(core.i.ready),
            core.i.payload.data.eq(self.s_axis_tdata),
            core.i.payload.count.eq(count),
            core.i.payload.last.eq(self.s_axis_tlast),
            self.m_axis_tvalid.eq(core.o.valid),
            core.o.ready.eq(self.m_axis_tready),
            self.m_axis_tlast.eq(core.o.payload.last),
        ]
        unit_bits = 8 * self.unit_bytes
        for index, lane in enumerate(core.o.payload.lanes):
            m.d.comb += [
                self.m_axis_tdata[index * unit_bits:(index + 1) * unit_bits].eq(lane.data),
                self.m_axis_tkeep[index * self.unit_bytes:(index + 1) * self.unit_bytes].eq(
                    (core.o.payload.count > index).replicate(self.unit_bytes)),
                self.m_axis_tuser[index * TUSER_BITS_PER_UNIT:
                                  (index + 1) * TUSER_BITS_PER_UNIT].eq(lane.error),
            ]
        return m
