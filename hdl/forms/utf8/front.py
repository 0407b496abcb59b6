"""The UTF-8 front end of the wide core: classify, window and decode each byte position."""

from amaranth.hdl import Cat
from amaranth.lib.wiring import connect

from ...lanes.copies import LANES_PER_COPY
from ...lanes.repack import Repacker
from ...lanes.window import LaneWindow
from ...wide.encode import EncodeLanes
from ...wide.front import WideFront
from .expand import CHUNKS, ExpandReplacements, TokenBeat
from .wide import ByteClass, ByteToken, ClassifyLanes, DecodePositions, LOOKAHEAD, LOOKBEHIND


__all__ = ["UTF8Front", "Expansion"]


#: The target forms whose units :class:`~.wide.DecodePositions` writes itself, by name: each
#: position emits at most one UTF-16 or UTF-32 unit, or to UTF-8 its own byte. To any other
#: it gives scalar values, as UTF-32 units, which *encode* writes as the target's units.
_EMITS = {"utf-16": "utf-16", "utf-32": "utf-32", "utf-8": "utf-8"}


class Expansion:
    """To UTF-8 from UTF-8 or ASCII: the byte tokens wait in a queue for *expand*
    (:class:`~.expand.ExpandReplacements`), which writes each as its byte or U+FFFD's three,
    ``positions`` slots a clock, :data:`~.expand.CHUNKS` clocks for a beat with a U+FFFD."""
    latency = ExpandReplacements.latency
    #: The most clocks a beat takes.
    most_clocks = CHUNKS
    #: What the stages before the queue give for each position.
    token = ByteToken

    @staticmethod
    def fits(positions):
        """Whether *expand* takes beats of ``positions`` bytes: a multiple of
        :data:`~.expand.CHUNKS`, so that each of its clocks takes a whole part of a beat."""
        return positions % CHUNKS == 0

    def __init__(self, positions):
        self.positions = positions
        #: The beats the queue before *expand* holds.
        self.queue_shape = TokenBeat(positions)

    def stage(self, *, rests):
        return ExpandReplacements(width=self.positions, rests=rests)

    def replaces(self, tokens):
        """Whether any token of a beat is a U+FFFD."""
        return Cat(tokens[lane].replaced for lane in range(self.positions)).any()


class UTF8Front(WideFront):
    """The UTF-8 stages of the wide core (:class:`~utfhw.hdl.wide.front.WideFront`): *classify*
    (:class:`~.wide.ClassifyLanes`), *window* (:class:`~utfhw.hdl.lanes.window.LaneWindow`,
    three bytes before each beat and one after it, or to UTF-8 three) and *decode*
    (:class:`~.wide.DecodePositions`), which gives each position's UTF-16 or UTF-32 unit, or
    to UTF-8 its byte token for :class:`Expansion`, or to another form its scalar value for
    *encode* (:class:`~utfhw.hdl.wide.encode.EncodeLanes`). To UTF-8 below four bytes a beat, beats are
    gathered into beats of four first (*gather*), since the window looks three bytes ahead.
    ``utf-8-sig`` drops a leading mark in *decode*.
    """
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._encodes = self.target.form.name not in _EMITS
        self._emits = _EMITS.get(self.target.form.name, "utf-32")
        if self._emits == "utf-8":
            self.positions = max(self.width, CHUNKS)
            self.expansion = self.target.form.expansion(self.positions)
        self.slots = self.positions * (self.target.form.most_units if self._encodes else 1)
        self.latency = (ClassifyLanes.latency + LaneWindow.latency + 1
                        + DecodePositions.latency)
        if self._encodes:
            self.latency += EncodeLanes.latency
        self.stage_names = ("classify", "window", "decode", *(("encode",) if self._encodes
                                                              else ()))
        if self.positions > self.width:
            self.latency += Repacker.latency_of(CHUNKS)        # *gather*

    def build(self, m):
        width = self.positions
        m.submodules.classify = classify = ClassifyLanes(width=width)
        # One group of lanes would have only one copy of the valid bit: the bit itself.
        fan_out = width > LANES_PER_COPY
        m.submodules.window = window = LaneWindow(item=ByteClass, width=width,
                                                  behind=LOOKBEHIND,
                                                  ahead=LOOKAHEAD[self._emits],
                                                  valid_copies=fan_out)
        m.submodules.decode = decode = DecodePositions(width=width, byteorder=self.unit_order,
                                                       errors=self.errors, form=self._emits,
                                                       strip_mark=self.source.mark)
        connect(m, classify.o, window.i)
        if fan_out:
            m.d.comb += window.valid_copies.eq(classify.valid_copies)
        connect(m, window.o, decode.i)
        if not self._encodes:
            return classify, decode.o
        m.submodules.encode = encode = EncodeLanes(form=self.target.form,
                                                   byteorder=self.unit_order, lanes=width,
                                                   errors=self.errors)
        m.d.comb += [encode.i.valid.eq(decode.o.valid),
                     encode.i.payload.last.eq(decode.o.payload.last)]
        for scalar, code_point in zip(decode.o.payload.lanes, encode.i.payload.lanes):
            m.d.comb += [code_point.valid.eq(scalar.valid),
                         code_point.item.data.eq(scalar.item.data[0:21]),
                         code_point.item.error.eq(scalar.item.error)]
        return classify, encode.o
