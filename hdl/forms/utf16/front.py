"""The UTF-16 front end of the wide core: classify, window and decode each unit."""

from amaranth.lib.wiring import connect

from ...lanes.copies import LANES_PER_COPY
from ...lanes.window import LaneWindow
from ...wide.encode import EncodeLanes
from ...wide.front import WideFront
from .wide import ClassifyUTF16Lanes, DecodeUTF16Positions, UnitClass


__all__ = ["UTF16Front"]


#: The target forms whose units :class:`~.wide.DecodeUTF16Positions` writes itself, by name;
#: to any other it gives code points, which *encode* writes as the target's units.
_EMITS = {"utf-16": "utf-16", "utf-32": "utf-32"}


class UTF16Front(WideFront):
    """The UTF-16 stages of the wide core (:class:`~utfhw.hdl.wide.front.WideFront`): *classify*
    (:class:`~.wide.ClassifyUTF16Lanes`, which reads a ``utf-16`` message's mark), *window*
    (one unit either side) and *decode* (:class:`~.wide.DecodeUTF16Positions`), each unit's
    UTF-16 or UTF-32 unit, or its code point for *encode*
    (:class:`~utfhw.hdl.wide.encode.EncodeLanes`) to other targets.
    """
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._emits = _EMITS.get(self.target.form.name)
        lanes = self.width // 2
        self.slots = lanes * (1 if self._emits else self.target.form.most_units)
        self.latency = (ClassifyUTF16Lanes.latency + LaneWindow.latency + 1
                        + DecodeUTF16Positions.latency)
        if not self._emits:
            self.latency += EncodeLanes.latency
        self.stage_names = ("classify", "window", "decode", *(() if self._emits else ("encode",)))

    def build(self, m):
        lanes = self.width // 2
        m.submodules.classify = classify = ClassifyUTF16Lanes(
            width=self.width, byteorder=self.source.byteorder)
        fan_out = lanes > LANES_PER_COPY
        m.submodules.window = window = LaneWindow(item=UnitClass, width=lanes, behind=1,
                                                  valid_copies=fan_out)
        m.submodules.decode = decode = DecodeUTF16Positions(
            width=lanes, byteorder=self.unit_order, errors=self.errors,
            form=self._emits or "code-point")
        connect(m, classify.o, window.i)
        if fan_out:
            m.d.comb += window.valid_copies.eq(classify.valid_copies)
        connect(m, window.o, decode.i)
        if self._emits:
            return classify, decode.o
        m.submodules.encode = encode = EncodeLanes(form=self.target.form,
                                                   byteorder=self.unit_order, lanes=lanes,
                                                   errors=self.errors)
        connect(m, decode.o, encode.i)
        return classify, encode.o
