"""The composed transcoder: any of the ten codecs (CPython's eight UTF codecs, Latin-1 and
ASCII) to any other."""

from amaranth.hdl import Module
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out

from ..scalar.byteorder import ByteOrderReader, ByteOrderWriter, ByteOrderMarkStripper
from ..scalar.byteorder import ByteOrderMarkWriter
from ..scalar.error_dropper import ErrorDropper
from ..scalar.escape import ESCAPES, Escaper
from ..scalar.single_byte import ReplaceUnencodable
from ..forms import CODECS, canonical_pair
from ..unicode.layout import Lanes, UnitBytes
from ..unicode.params import HARDWARE_ERROR_HANDLERS, CodecPair, check_errors, handler_pair


__all__ = ["Transcoder", "TRANSCODER_ENCODING_HANDLERS"]


#: The handlers the ``Transcoder`` runs on encoding: CPython's ``replace`` and ``ignore``, and
#: the escapes (:class:`~utfhw.hdl.scalar.escape.Escaper`).
TRANSCODER_ENCODING_HANDLERS = (*HARDWARE_ERROR_HANDLERS, *ESCAPES)


class Transcoder(CodecPair, wiring.Component):
    """Transcoder between two of the ten codecs, exact to ``bytes.decode(source,
    errors).encode(target, errors)``.

    The pipeline is built from the codec names::

        [ByteOrderReader] -> <form>Decoder -> [ByteOrderMarkStripper] -> [ErrorDropper]
            -> [ReplaceUnencodable or Escaper] -> [ErrorDropper] -> <form>Encoder
            -> [ByteOrderMarkWriter] -> [ByteOrderWriter]

    where each form's decoder and encoder are those its description names
    (:mod:`utfhw.hdl.forms`), and the bracketed stages are present when the codecs need them:
    a byte order stage for a form of units wider than a byte (UTF-16 and UTF-32; ``"detect"``
    for ``utf-16``/``utf-32`` sources, little-endian for those targets), a mark stripper for
    ``utf-8-sig``, ``utf-16`` and ``utf-32`` sources, a mark writer for those targets, ``?`` or
    an escape for what a target of fewer code points (Latin-1, ASCII) cannot hold, and the
    error dropper for ``"ignore"``: before that stage where only decoding ignores, after it
    where encoding does (a U+FFFD the target cannot hold is then dropped too, as CPython
    does). Same-codec pairs validate:
    UTF-8 to UTF-8 is a sanitizer that replaces every maximal ill-formed subpart with EF BF BD.
    The specifications: RFC 3629 and Unicode ch. 3 Tables 3-7 to 3-11 (UTF-8), RFC 2781 (UTF-16),
    Unicode ch. 3 D90 (UTF-32), Unicode sec. 23.8 (byte order mark).

    Latency is two clocks (the decoder's and the encoder's output registers; every other stage
    is combinational), and three with an escaping handler on encoding, whose
    :class:`~utfhw.hdl.scalar.escape.Escaper` holds each beat in a register (and another beat
    while one waits: capacity two beats more). Throughput is one input code unit per clock on
    any input, malformed input included, while ``o.ready`` is high: every stage turns one input
    beat into one output beat, and the output lanes are wide enough for the most any one input
    unit can produce, byte order mark included. ``i.ready`` follows ``o.ready`` through the two
    registers (``~o.valid | o.ready`` at each; with an escaping handler it stops at the
    Escaper, whose ``i.ready`` is a flip-flop); under backpressure every stage holds its beat
    and nothing is lost or duplicated. With an escaping handler on encoding, a beat that holds
    a character the target cannot write goes out in several beats, one a character of the
    escapes, over the clocks :class:`~utfhw.hdl.scalar.escape.Escaper` bounds; every other beat
    as above.

    A consumer that wants CPython's ``errors="strict"`` runs the core with ``"replace"`` and stops
    at the first unit whose error kind is not ``NONE``.

    Parameters
    ----------
    source, target : :class:`str`
        ``"utf-8"``, ``"utf-8-sig"``, ``"utf-16"``, ``"utf-16-le"``, ``"utf-16-be"``,
        ``"utf-32"``, ``"utf-32-le"``, ``"utf-32-be"``, ``"latin-1"`` or ``"ascii"``, or any
        other name CPython's :func:`codecs.lookup` takes for one of them.
    errors : :class:`str` or :class:`tuple`
        ``"replace"`` (U+FFFD, with its :class:`~utfhw.hdl.unicode.layout.ErrorKind`, for each error) or
        ``"ignore"`` (errors dropped), for decoding and encoding; or a pair of handlers,
        ``(decoding, encoding)``, as ``data.decode(source, decoding).encode(target,
        encoding)`` takes them: decoding ``"replace"`` or ``"ignore"``, encoding one of
        :data:`TRANSCODER_ENCODING_HANDLERS`.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(width)))`
        One source code unit per beat in wire order: 1 byte for UTF-8, 2 for UTF-16, 4 for
        UTF-32. The last beat of a message may hold fewer bytes (``count``), or none: an empty
        message is one beat with ``count == 0`` and ``last``.
    o : :py:`Out(stream.Signature(Lanes(unit, lanes)))`
        Target code units in wire order, packed from lane 0, one beat per input beat: up to 6
        bytes for UTF-8 (9 with ``utf-8-sig``), 2 units for UTF-16 and UTF-32 (3 with
        ``utf-16``/``utf-32``). Each unit carries the error kind of its code point.

    Raises
    ------
    :exc:`ValueError`
        If a codec name or ``errors`` is not one of the values above.
    """
    #: Clocks from an accepted input beat to the output beat it produces, without an escaping
    #: handler (each instance has its own :attr:`latency`).
    latency = 2
    #: The most beats it holds: the decoder's and the encoder's output registers.
    capacity = 2

    def __init__(self, *, source="utf-8", target="utf-16-le", errors="replace"):
        source, target = canonical_pair(source, target)
        if isinstance(errors, str):
            check_errors(errors)
            self._decoding = self._encoding = errors
        else:
            self._decoding, self._encoding = handler_pair(
                errors, decoding=HARDWARE_ERROR_HANDLERS, encoding=TRANSCODER_ENCODING_HANDLERS)
            if self._decoding == self._encoding:
                errors = self._decoding
        self._source = source
        self._target = target
        self._errors = errors
        self._stages = self._build_stages()
        # An Escaper holds a beat in a register of its own, and one more while it waits.
        escapers = sum(isinstance(stage, Escaper) for _, stage in self._stages)
        self.latency = type(self).latency + escapers
        self.capacity = type(self).capacity + 2 * escapers
        super().__init__(self.signature_of(source, target))

    @staticmethod
    def signature_of(source, target):
        """The ports of the ``Transcoder`` from ``source`` to ``target``, without making one:
        a unit of the source in, and out the target encoder's lanes, with room for a mark
        where the target writes one."""
        source, target = CODECS[source], CODECS[target]
        lanes = target.form.encoder_lanes
        if target.mark:
            lanes = Lanes(lanes.item, lanes.lane_count + target.form.mark_units)
        return wiring.Signature({
            "i": In(stream.Signature(UnitBytes(source.unit_bytes))),
            "o": Out(stream.Signature(lanes)),
        })

    @property
    def most_clocks_per_beat(self):
        """The most clocks one input beat takes with the output ready: one, or with an escape
        on encoding what :class:`~utfhw.hdl.scalar.escape.Escaper` bounds for a beat of a
        character the target cannot write (each clock of it gives an output beat)."""
        return max([1, *(stage.most_clocks_per_beat for _, stage in self._stages
                         if isinstance(stage, Escaper))])

    @property
    def stages(self):
        """The pipeline's stages in order, as ``(name, component)`` pairs."""
        return list(self._stages)

    @property
    def stage_names(self):
        """The names of the pipeline's stages, in order."""
        return [name for name, _ in self._stages]

    def _build_stages(self):
        source, target = CODECS[self._source], CODECS[self._target]
        stages = []
        if source.form.has_byteorder:
            stages.append(("source_byte_order", ByteOrderReader(
                width=source.unit_bytes, byteorder=source.byteorder)))
        stages.append(("decoder", source.form.decoder()))
        if source.mark:
            stages.append(("mark_stripper", ByteOrderMarkStripper()))
        unencodable = not target.form.holds_every_code_point
        if self._decoding == "ignore" and self._encoding != "ignore":
            stages.append(("decoding_dropper", ErrorDropper()))
        if unencodable and self._encoding in ESCAPES:
            stages.append(("unencodable", Escaper(errors=self._encoding,
                                                  last=target.form.last_code_point)))
        elif unencodable:
            stages.append(("unencodable", ReplaceUnencodable(
                last=target.form.last_code_point)))
        if self._encoding == "ignore" and (self._decoding == "ignore" or unencodable):
            stages.append(("error_dropper", ErrorDropper()))
        stages.append(("encoder", target.form.encoder()))
        if target.mark:
            stages.append(("mark_writer", ByteOrderMarkWriter(form=target.form)))
        if target.form.has_byteorder:
            stages.append(("target_byte_order", ByteOrderWriter(
                layout=stages[-1][1].o.payload.shape(), byteorder=target.target_byteorder)))
        return stages

    def elaborate(self, platform):
        m = Module()
        upstream = wiring.flipped(self.i)
        for name, stage in self._stages:
            m.submodules[name] = stage
            wiring.connect(m, upstream, stage.i)
            upstream = stage.o
        wiring.connect(m, upstream, wiring.flipped(self.o))
        return m
