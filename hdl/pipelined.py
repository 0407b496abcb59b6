"""UTF-8 to UTF-16 in a pipeline short enough between registers for 100 MHz on an iCE40 UP5K."""

from amaranth.hdl import Module, Signal, Cat, Const
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import UnitBytes, CodePointLanes, UTF16Unit, UTF16UnitLanes, ErrorKind
from .lanes import pack_lanes
from .params import check_byteorder, check_errors
from .utf8 import ByteClass, UTF8DecoderState, classify_byte, decode_byte


__all__ = ["PipelinedUTF8ToUTF16"]


class PipelinedUTF8ToUTF16(wiring.Component):
    """UTF-8 to UTF-16-LE or -BE in three pipeline stages, exact to
    ``bytes.decode("utf-8", errors).encode("utf-16-le")`` (or ``-be``).

    It gives the same output beats as ``Transcoder(source="utf-8", target="utf-16-le",
    errors=errors)``, one clock later, and is built for clock speed: the stages are

    1. *classify*: what the byte is (ASCII, continuation and its range, lead byte and what it
       needs), from the byte alone (Unicode ch. 3, Table 3-7);
    2. *decode*: the byte's class meets the decoder state (the one loop in the design), giving
       at most a U+FFFD for a sequence it cuts short and one item of its own (maximal subparts,
       Unicode ch. 3, "U+FFFD Substitution of Maximal Subparts");
    3. *encode*: the code points become UTF-16 units, a surrogate pair above U+FFFF
       (RFC 2781, section 2.1), in wire byte order; with ``errors="ignore"`` replacements are
       dropped here.

    Latency is three clocks. Throughput is one byte per clock on any input while ``o.ready`` is
    high. The stages move together: all advance when the output register is empty or taken
    (``i.ready`` is ``~o.valid | o.ready``) and all hold otherwise, so under backpressure
    nothing is lost or duplicated, and the only logic on the ready path is that one gate.

    Parameters
    ----------
    byteorder : :class:`str`
        ``"little"`` (``utf-16-le``) or ``"big"`` (``utf-16-be``).
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(1)))`
        UTF-8 bytes, as the input of a :class:`~utfhw.hdl.transcoder.Transcoder`.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        UTF-16 units in wire order (``data[0:8]`` first), up to two per beat, one beat per input
        beat.

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder`` or ``errors`` is not one of the values above.
    """
    #: Clocks from an accepted input beat to the output beat it produces.
    latency = 3

    def __init__(self, *, byteorder="little", errors="replace"):
        check_byteorder(byteorder)
        check_errors(errors)
        self._byteorder = byteorder
        self._errors = errors
        super().__init__({
            "i": In(stream.Signature(UnitBytes(1))),
            "o": Out(stream.Signature(UTF16UnitLanes)),
        })

    @property
    def byteorder(self):
        return self._byteorder

    @property
    def errors(self):
        return self._errors

    def elaborate(self, platform):
        m = Module()
        advance = ~self.o.valid | self.o.ready
        m.d.comb += self.i.ready.eq(advance)

        # Stage 1: classify.
        classified = Signal(ByteClass)
        classified_valid = Signal()
        classified_present = Signal()
        classified_last = Signal()
        with m.If(advance):
            m.d.sync += [
                classified.eq(classify_byte(m, self.i.payload.data)),
                classified_present.eq(self.i.payload.count != 0),
                classified_last.eq(self.i.payload.last),
                classified_valid.eq(self.i.valid),
            ]

        # Stage 2: decode.
        state = UTF8DecoderState(m)
        decoded = Signal(CodePointLanes)
        decoded_valid = Signal()
        step = decode_byte(m, classified, state, present=classified_present,
                           last=classified_last)
        with m.If(advance):
            m.d.sync += [decoded_valid.eq(classified_valid), decoded.last.eq(classified_last)]
            step.load(m, decoded)
            with m.If(classified_valid):
                state.advance(m, step)

        # Stage 3: encode.
        units = Signal(UTF16UnitLanes)
        lane0, lane1 = decoded.lanes
        supplementary = lane0.data[16:21] != 0

        def keep(index, lane):
            kept = decoded.count > index
            if self._errors == "ignore":
                kept &= lane.error == ErrorKind.NONE
            return kept

        def unit(data, error):
            value = Signal(UTF16Unit)
            wire = data if self._byteorder == "little" else Cat(data[8:16], data[0:8])
            m.d.comb += [value.data.eq(wire), value.error.eq(error)]
            return value

        # Only a lone item can be above U+FFFF: a decoder beat of two items is a U+FFFD and
        # then an ASCII byte or another U+FFFD.
        plane_offset = (lane0.data[16:21] - 1)[0:4]
        high = unit(Cat(lane0.data[10:16], plane_offset, Const(0b110110, 6)), lane0.error)
        low = unit(Cat(lane0.data[0:10], Const(0b110111, 6)), lane0.error)
        with m.If(supplementary & keep(0, lane0)):
            m.d.comb += [units.lanes[0].eq(high), units.lanes[1].eq(low), units.count.eq(2)]
        with m.Else():
            pack_lanes(m, units, [(keep(0, lane0), unit(lane0.data[0:16], lane0.error)),
                                  (keep(1, lane1), unit(lane1.data[0:16], lane1.error))])
        m.d.comb += units.last.eq(decoded.last)
        with m.If(advance):
            m.d.sync += [self.o.payload.eq(units), self.o.valid.eq(decoded_valid)]
        return m
