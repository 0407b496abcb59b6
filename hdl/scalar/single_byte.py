"""The scalar stages of a form whose unit is one byte and whose byte is its code point, up to
a last one: ISO/IEC 8859-1 (Latin-1, every byte) and ASCII (bytes below 80)."""

from amaranth.hdl import Module, Mux, Signal
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..unicode.layout import (ByteUnitLanes, CodePointLanes, ErrorKind, REPLACEMENT_CHARACTER,
                              UnitBytes)
from ..unicode.params import check_last_code_point
from ..unicode.tables import replace_unencodable
from .encoder import LaneEncoder
from .handshake import combinational_handshake, registered_handshake
from .lanes import load_decoded


__all__ = ["SingleByteDecoder", "SingleByteEncoder", "ReplaceUnencodable"]


class SingleByteDecoder(wiring.Component):
    """Decoder of a one-byte form: each byte up to ``last`` is its code point, and each byte
    above it one U+FFFD of kind ``ORDINAL_NOT_IN_RANGE`` (CPython's ``ascii`` codec). With
    ``last=0xFF`` (Latin-1) every byte decodes.

    Latency is one clock. Throughput is one byte per clock on any input while the output is
    ready: each input beat gives one output beat of 0 or 1 code points. Under backpressure the
    output beat is held and ``i.ready`` (``~o.valid | o.ready``) deasserts in the same clock.

    Parameters
    ----------
    last : :class:`int`
        The greatest code point of the form: 0x7F or 0xFF.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(1)))`
        One byte a beat; ``count == 0`` with ``last`` carries nothing.
    o : :py:`Out(stream.Signature(CodePointLanes))`
        Code points in lane 0, one beat per input beat.

    Raises
    ------
    :exc:`ValueError`
        If ``last`` is not 0x7F or 0xFF.
    """
    i: In(stream.Signature(UnitBytes(1)))
    o: Out(stream.Signature(CodePointLanes))

    def __init__(self, *, last):
        check_last_code_point(last)
        self._last = last
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        byte = self.i.payload.data
        beyond = Signal()
        if self._last < 0xFF:
            m.d.comb += beyond.eq(byte > self._last)
        with m.If(registered_handshake(m, self.i, self.o)):
            m.d.sync += self.o.payload.last.eq(self.i.payload.last)
            load_decoded(m, self.o.payload, cut_short=0, cut_short_kind=ErrorKind.NONE,
                         own_valid=self.i.payload.count != 0,
                         own_data=Mux(beyond, REPLACEMENT_CHARACTER, byte),
                         own_error=Mux(beyond, ErrorKind.ORDINAL_NOT_IN_RANGE, ErrorKind.NONE))
        return m


class SingleByteEncoder(LaneEncoder):
    """Encoder of a one-byte form: each code point as its low byte. Code points the form
    cannot hold must have been replaced before it (:class:`ReplaceUnencodable`).

    Latency is one clock; the output is as wide as the input, so it takes one beat per clock
    while the output is ready. Under backpressure the output beat is held and ``i.ready``
    deasserts in the same clock.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
    o : :py:`Out(stream.Signature(ByteUnitLanes))`
    """
    max_units = 1

    def __init__(self):
        super().__init__(ByteUnitLanes)

    def encode(self, m, code_point):
        return [code_point.data[0:8]], 1


class ReplaceUnencodable(wiring.Component):
    """CPython's ``replace`` on encoding to a form that ends at code point ``last``: each code
    point above it becomes ``?`` (:data:`~utfhw.hdl.unicode.layout.ENCODE_REPLACEMENT`), of
    kind ``UNENCODABLE_CHARACTER`` unless it already has one (a U+FFFD the decoder wrote keeps
    its own). Before :class:`~utfhw.hdl.scalar.error_dropper.ErrorDropper`, it makes
    ``ignore`` drop them too.

    Combinational: latency zero, ``i.ready`` is ``o.ready``, one output beat per input beat.

    Parameters
    ----------
    last : :class:`int`
        The target form's greatest code point: 0x7F or 0xFF.

    Attributes
    ----------
    i : :py:`In(stream.Signature(CodePointLanes))`
    o : :py:`Out(stream.Signature(CodePointLanes))`

    Raises
    ------
    :exc:`ValueError`
        If ``last`` is not 0x7F or 0xFF.
    """
    i: In(stream.Signature(CodePointLanes))
    o: Out(stream.Signature(CodePointLanes))

    def __init__(self, *, last):
        check_last_code_point(last)
        self._last = last
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        combinational_handshake(m, self.i, self.o)
        m.d.comb += self.o.payload.count.eq(self.i.payload.count)
        for source, result in zip(self.i.payload.lanes, self.o.payload.lanes):
            data, error, _ = replace_unencodable(source, self._last)
            m.d.comb += [result.data.eq(data), result.error.eq(error)]
        return m
