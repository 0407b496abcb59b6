"""CPython's ``errors="ignore"`` in hardware: dropping replaced items."""

from ..unicode.layout import ErrorKind
from .lanes import CodePointFilter


__all__ = ["ErrorDropper"]


class ErrorDropper(CodePointFilter):
    """Drops every code point whose error kind is not ``NONE`` and packs the rest from lane 0.

    Behind a decoder (which always replaces), this gives CPython's ``errors="ignore"``. It goes
    after :class:`~utfhw.hdl.scalar.byteorder.ByteOrderMarkStripper`, because CPython strips a mark
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
    def keep(self, m, moves):
        count = self.i.payload.count
        return [(count > index) & (lane.error == ErrorKind.NONE)
                for index, lane in enumerate(self.i.payload.lanes)]
