"""The wide stages of a form whose unit is one byte and whose byte is its code point, up to a
last one (Latin-1, ASCII): each byte decides alone what it is, so no lane looks at another."""

from amaranth.hdl import Const, Module, Mux
from amaranth.lib import stream, wiring
from amaranth.lib.wiring import In, Out, connect

from ..lanes.stage import payload_register
from ..lanes.window import LaneBeat
from ..unicode.layout import ByteLanes, ErrorKind, REPLACEMENT_CHARACTER
from ..unicode.params import check_errors, check_last_code_point, check_width
from .encode import CodePointSlot, EncodeLanes
from .front import WideFront
from .validate import LaneChecks, below


__all__ = ["DecodeSingleByteLanes", "SingleByteFront", "SingleByteChecks"]


class DecodeSingleByteLanes(wiring.Component):
    """Stage *decode* for a one-byte form: the code point of each byte of a beat, the byte
    itself up to ``last``, above it U+FFFD of kind ``ORDINAL_NOT_IN_RANGE`` (CPython's
    ``ascii``), or with ``errors="ignore"`` an empty slot.

    One clock of latency, one beat per clock, no backpressure.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat, a power of two from 1 to 64.
    last : :class:`int`
        The form's greatest code point: 0x7F or 0xFF.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    token : :class:`~amaranth.lib.data.StructLayout` or None
        The token of a byte (``byte``, ``kept``, ``replaced`` and ``error``), or ``None`` for
        code points.

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(CodePointSlot, width), always_ready=True))`
        Or of ``token`` instead of :data:`~.encode.CodePointSlot`.

    Raises
    ------
    :exc:`ValueError`
        If ``width``, ``last`` or ``errors`` is not one of the values above.
    """
    latency = 1

    def __init__(self, *, width, last, errors="replace", token=None):
        check_width(width)
        check_last_code_point(last)
        check_errors(errors)
        self._width, self._last, self._errors = width, last, errors
        self._token = token
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(CodePointSlot if token is None else token,
                                               width), always_ready=True)),
        })

    def elaborate(self, platform):
        m = Module()
        out = payload_register(m, self.o)
        m.d.sync += [self.o.valid.eq(self.i.valid), out.last.eq(self.i.payload.last)]
        for lane in range(self._width):
            byte = self.i.payload.data[8 * lane:8 * lane + 8]
            slot = out.lanes[lane]
            # A comparison of ``count`` with each lane would be a carry chain a lane.
            present = ~below(self.i.payload.count, lane + 1)
            # Latin-1 holds every byte: no comparison that is always false; ASCII's last is
            # 2**7 - 1, so above it is bit 7 (a comparator would be a carry chain).
            beyond = byte[self._last.bit_length():].any() if self._last < 0xFF else Const(0)
            error = Mux(beyond, ErrorKind.ORDINAL_NOT_IN_RANGE, ErrorKind.NONE)
            if self._token is not None:
                m.d.sync += [
                    slot.byte.eq(byte),
                    slot.kept.eq(present & ~beyond),
                    slot.replaced.eq(present & beyond if self._errors == "replace" else 0),
                    slot.error.eq(error),
                ]
                continue
            if self._errors == "ignore":
                present = present & ~beyond
            m.d.sync += [
                slot.valid.eq(present),
                slot.item.data.eq(Mux(beyond, REPLACEMENT_CHARACTER, byte)),
                slot.item.error.eq(error),
            ]
        return m


class SingleByteFront(WideFront):
    """The stages of the wide core from a one-byte form (:class:`~.front.WideFront`): *decode*
    (:class:`DecodeSingleByteLanes`) and *encode* (:class:`~.encode.EncodeLanes`), with as
    many slots a byte as the target takes for the greatest code point the source gives, in a
    power of two (a byte of Latin-1 is at most two of UTF-8; a byte of ASCII three, U+FFFD's,
    so four slots).
    """
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        source = self.source.form
        given = [source.last_code_point]
        if source.error_kinds:
            given.append(REPLACEMENT_CHARACTER)
        most = max(self.units_of(code_point) for code_point in given)
        # A U+FFFD longer than any character (ASCII to UTF-8: three bytes for one) would
        # give every byte its slots: rather, where the target has a stage for it, each byte
        # is a token that *expand* writes after a queue, a beat with a U+FFFD over more
        # clocks, and the lane layer packs a slot a byte (with ``ignore`` too, so that the
        # ports do not depend on it).
        expansion = self.target.form.expansion
        self._tokens = (expansion is not None and bool(source.error_kinds)
                        and self.units_of(REPLACEMENT_CHARACTER)
                        > self.units_of(source.last_code_point)
                        and expansion.fits(self.width))
        if self._tokens:
            self.expansion = expansion(self.width)
            most = 1
        # The packer takes a power of two of slots.
        self._most = 1 << (most - 1).bit_length()
        self.slots = self._most * self.width
        # The fewest units of a code point are those of U+0000 (a form's lengths only grow
        # with the code point): the slots are packed where they are the most too.
        # (Not so after *expand*, which gives each position of a beat with a U+FFFD four.)
        self.packed = (self.units_of(0) == self._most and not self._tokens
                       and not self.drops(source_errors=bool(source.error_kinds)))
        self.latency = DecodeSingleByteLanes.latency
        self.stage_names = ("decode",)
        if not self._tokens:
            self.latency += EncodeLanes.latency
            self.stage_names += ("encode",)

    def build(self, m):
        m.submodules.decode = decode = DecodeSingleByteLanes(
            width=self.width, last=self.source.form.last_code_point, errors=self.errors,
            token=self.expansion.token if self._tokens else None)
        if self._tokens:
            return decode, decode.o
        m.submodules.encode = encode = EncodeLanes(
            form=self.target.form, byteorder=self.unit_order, lanes=self.width,
            errors=self.errors, most_units=self._most)
        connect(m, decode.o, encode.i)
        return decode, encode.o


class SingleByteChecks(LaneChecks):
    """Each byte of a one-byte form decided alone: above the form's last code point (ASCII:
    from 80 up) it is an error of its own ("ordinal not in range(128)"), and U+FFFD in the
    replaced text; Latin-1 has no errors."""
    ERRORS = ((ErrorKind.ORDINAL_NOT_IN_RANGE, 0, 1),)

    def verdicts(self, m, window, present, beat, takes, *, ends, flags):
        last = self.codec.form.last_code_point
        verdicts = []
        for lane in range(self.width):
            byte, here = window[lane], present[lane]
            # The one-byte forms end at U+007F or U+00FF.
            beyond = byte[7] if last == 0x7F else Const(0)
            verdicts.append({
                "bad": here & beyond,
                "begins": here,
                "ascii": here & ~byte[7],
                "two": here & ~beyond & byte[7],
            })
        return verdicts + [{}], Const(0)
