"""The UTF-32 front end of the wide core: decode each unit, encode its code point."""

from amaranth.lib.wiring import connect

from ...wide.encode import EncodeLanes
from ...wide.front import WideFront
from .wide import DecodeUTF32Lanes


__all__ = ["UTF32Front"]


class UTF32Front(WideFront):
    """The UTF-32 stages of the wide core (:class:`~utfhw.hdl.wide.front.WideFront`): *decode*
    (:class:`~.wide.DecodeUTF32Lanes`: each unit's code point, alone, after a ``utf-32``
    message's mark) and *encode* (:class:`~utfhw.hdl.wide.encode.EncodeLanes`: its units of
    the target).
    """
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.slots = self.target.form.most_units * (self.width // 4)
        # Every scalar value and U+FFFD the same number of units: to UTF-32, Latin-1, ASCII.
        self.packed = (self.units_of(0) == self.target.form.most_units
                       and not self.drops(source_errors=True))
        self.latency = DecodeUTF32Lanes.latency + EncodeLanes.latency
        self.stage_names = ("decode", "encode")

    def build(self, m):
        m.submodules.decode = decode = DecodeUTF32Lanes(
            width=self.width, byteorder=self.source.byteorder, errors=self.errors)
        m.submodules.encode = encode = EncodeLanes(
            form=self.target.form, byteorder=self.unit_order, lanes=self.width // 4,
            errors=self.errors)
        connect(m, decode.o, encode.i)
        return decode, encode.o
