"""CPython's ``errors="ignore"`` in hardware: dropping replaced items."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import CodePointLanes, ErrorKind
from .lanes import combinational_handshake, pack_lanes


__all__ = ["ErrorDropper"]


class ErrorDropper(wiring.Component):
    """Drops every code point whose error kind is not ``NONE`` and packs the rest from lane 0.

    Behind a decoder (which always replaces), this gives CPython's ``errors="ignore"``. It goes
    after :class:`~utfhw.hdl.byteorder.ByteOrderMarkStripper`, because CPython strips a mark
    only at the very start of the input, not after an ignored error.

    The stage is combinational: latency zero, ``i.ready`` is ``o.ready``, one output beat per
    input beat (``count`` may drop to 0; ``last`` always passes).

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
        Code points with error kinds.
    o : :py:`Out(stream.Signature(CodePointLanes))`
        The well-formed ones.
    """
    def __init__(self):
        super().__init__({
            "i": In(stream.Signature(CodePointLanes)),
            "o": Out(stream.Signature(CodePointLanes)),
        })

    def elaborate(self, platform):
        m = Module()
        combinational_handshake(m, self.i, self.o)
        count = self.i.payload.count
        pack_lanes(m, self.o.payload, [
            ((count > index) & (lane.error == ErrorKind.NONE), lane)
            for index, lane in enumerate(self.i.payload.lanes)
        ])
        return m
