"""Composed transcoding pipelines."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from .layout import Byte, UTF16UnitLanes
from .params import check_byteorder, check_errors
from .utf8 import UTF8Decoder
from .utf16 import UTF16Encoder, UTF16ByteOrder


__all__ = ["UTF8ToUTF16"]


class UTF8ToUTF16(wiring.Component):
    """UTF-8 to UTF-16LE or UTF-16BE transcoder, exact to CPython's codecs.

    ``UTF8Decoder -> UTF16Encoder -> UTF16ByteOrder``: bytes in, UTF-16 code units in wire byte
    order out, two units (four bytes) wide. The result equals
    ``data.decode("utf-8", errors).encode("utf-16-le" or "utf-16-be")`` (RFC 3629, Unicode ch. 3
    Tables 3-7 to 3-11, RFC 2781).

    Latency is two clocks from an accepted byte to the beat that carries its units. Throughput is
    one byte per clock on any input, malformed input included, while ``o.ready`` is high: every
    input byte yields exactly one output beat of 0 to 2 units, so the output never falls behind.
    ``i.ready`` follows ``o.ready`` through two pipeline registers (``~o.valid | o.ready`` at
    each); under backpressure every stage holds its beat and nothing is lost or duplicated.

    A consumer that wants CPython's ``errors="strict"`` runs the core with ``"replace"`` and stops
    at the first unit whose error kind is not ``NONE``.

    Parameters
    ----------
    byteorder : :class:`str`
        ``"little"`` (UTF-16LE) or ``"big"`` (UTF-16BE). No byte order mark is written.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``, as for :class:`~utfhw.hdl.utf8.UTF8Decoder`.

    Attributes
    ----------
    i : :py:`In(stream.Signature(Byte))`
        UTF-8 bytes; ``last`` ends a message.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        UTF-16 units in wire byte order, one beat per input byte, ``count`` from 0 to 2.

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder`` or ``errors`` is not one of the values above.
    """
    def __init__(self, *, byteorder="little", errors="replace"):
        check_byteorder(byteorder)
        check_errors(errors)
        self._byteorder = byteorder
        self._errors = errors
        super().__init__({
            "i": In(stream.Signature(Byte)),
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
        m.submodules.decoder    = decoder    = UTF8Decoder(errors=self._errors)
        m.submodules.encoder    = encoder    = UTF16Encoder()
        m.submodules.byte_order = byte_order = UTF16ByteOrder(byteorder=self._byteorder)

        wiring.connect(m, wiring.flipped(self.i), decoder.i)
        wiring.connect(m, decoder.o, encoder.i)
        wiring.connect(m, encoder.o, byte_order.i)
        wiring.connect(m, byte_order.o, wiring.flipped(self.o))
        return m
