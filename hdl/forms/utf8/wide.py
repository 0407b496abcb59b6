"""The UTF-8 stages of the wide core: what each byte is, and what each byte position emits.

Two facts let every lane decide alone (``docs/wide-design.md``; the
model is :mod:`utfhw.model.wide`): the decoder's state before byte ``i`` is a function of bytes
``i-3`` to ``i-1`` (Unicode ch. 3, Table 3-7: a sequence is at most four bytes, a lead byte
always starts afresh), and with byte ``i+1`` known every position emits at most one UTF-16
unit, or at most one UTF-32 unit (a scalar value or U+FFFD).
"""

from amaranth.hdl import Cat, Const, Module, Signal
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ...unicode.byteclass import NibbleFlags, range_flag
from ...unicode.layout import ByteLanes, ErrorKind, REPLACEMENT_CHARACTER, UTF16Unit, UTF32Unit
from ...unicode.params import (check_byteorder, check_choice, check_errors, check_flag,
                              check_width)
from ...unicode.tables import (CONTINUATION, NEXT_BYTE_RANGES, TABLE_3_7, high_surrogate, lead_groups,
                      low_surrogate, plane_minus_one, select_unit)
from ...wide.validate import below
from ...lanes.copies import registered_copies
from ...lanes.stage import payload_register
from ...lanes.window import LaneBeat, Slot, ValidCopies, WindowBeat


__all__ = ["ByteClass", "LOOKBEHIND", "LOOKAHEAD", "ClassifyLanes", "UnitSlot", "UTF32Slot",
           "ByteToken", "POSITION_FORMS", "DecodePositions"]


#: Bytes before a position that decide the state it meets.
LOOKBEHIND = 3

#: Bytes after a position that decide what it emits, for each target form: the next byte, or
#: to UTF-8, where a byte is kept when the character it begins is complete, the next three.
LOOKAHEAD = {"utf-16": 1, "utf-32": 1, "utf-8": 3}


def _lead_flag(needs, next_range):
    return f"lead{needs}_{range_flag(*next_range)}"


# Lead bytes grouped by the continuation bytes they need and the range the first of those
# must fall in (Table 3-7), and the ranges themselves.
_LEAD_GROUPS = {_lead_flag(needs, next_range): (needs, next_range, rows)
                for (needs, next_range), rows in lead_groups().items()}
_FLAG_RANGES = {
    **{range_flag(*byte_range): [byte_range] for byte_range in NEXT_BYTE_RANGES},
    **{flag: rows for flag, (_, _, rows) in _LEAD_GROUPS.items()},
    "lead": [(lead.first, lead.last) for lead in TABLE_3_7],
}
_NIBBLE_FLAGS = NibbleFlags(_FLAG_RANGES)
_CONTINUES = range_flag(*CONTINUATION)

#: What a byte is: all flags clear for an absent byte (past ``count``, or outside the message).
ByteClass = data.StructLayout({
    "byte": 8,
    "present": 1,
    "ascii": 1,
    **{flag: 1 for flag in _FLAG_RANGES},
})

_Taken = data.StructLayout({
    "byte": 8,
    "present": 1,
    "decodes": _NIBBLE_FLAGS.layout,
})


class ClassifyLanes(wiring.Component):
    """Stage *classify*: the flags of every byte of a beat (Unicode ch. 3, Table 3-7).

    Two clocks of latency, one beat per clock, no backpressure. The first clock registers
    each byte with decodes of its nibbles (one LUT4 each) and whether it is present; the second
    combines them into flags (an OR of ANDs, one or two LUT4s), all clear for an absent byte.
    ``valid_copies`` are copies of ``o.valid`` for the stage after to fan out to its lanes.

    Parameters
    ----------
    width : :class:`int`
        Bytes per beat.

    Attributes
    ----------
    i : :py:`In(stream.Signature(ByteLanes(width), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(ByteClass, width), always_ready=True))`
    valid_copies : :py:`Out(ValidCopies(width))`
        ``o.valid`` once per group of lanes (:class:`~utfhw.hdl.lanes.window.ValidCopies`).
    """
    latency = 2

    def __init__(self, *, width):
        check_width(width)
        self._width = width
        super().__init__({
            "i": In(stream.Signature(ByteLanes(width), always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(ByteClass, width), always_ready=True)),
            "valid_copies": Out(ValidCopies(width)),
        })

    def elaborate(self, platform):
        m = Module()
        width = self._width
        taken = Signal(data.ArrayLayout(_Taken, width), reset_less=True)
        taken_last = Signal()
        taken_valid = Signal()
        out = payload_register(m, self.o)
        # The payload registers load on every clock, valid or not (no enable to fan out).
        m.d.sync += [taken_valid.eq(self.i.valid), self.o.valid.eq(taken_valid)]
        registered_copies(m, self.valid_copies, taken_valid)
        for lane in range(width):
            byte = self.i.payload.data[8 * lane:8 * lane + 8]
            m.d.sync += [
                taken[lane].byte.eq(byte),
                # A comparison with a constant would be a carry chain a lane.
                taken[lane].present.eq(~below(self.i.payload.count, lane + 1)),
                taken[lane].decodes.eq(_NIBBLE_FLAGS.decode(m, byte)),
            ]
        m.d.sync += taken_last.eq(self.i.payload.last)
        for lane in range(width):
            source, result = taken[lane], out.lanes[lane]
            m.d.sync += [
                result.byte.eq(source.byte),
                result.present.eq(source.present),
                result.ascii.eq(source.present & ~source.byte[7]),
            ]
            for flag in _NIBBLE_FLAGS.flags:
                m.d.sync += getattr(result, flag).eq(
                    source.present & _NIBBLE_FLAGS.flag(source.decodes, flag))
        m.d.sync += out.last.eq(taken_last)
        return m


#: One position's output: a UTF-16 unit in wire order, or nothing.
UnitSlot = Slot(UTF16Unit)

#: One position's output: a UTF-32 unit in wire order, or nothing.
UTF32Slot = Slot(UTF32Unit)

#: One position's output to UTF-8: its byte, ``kept`` when it belongs to a complete character,
#: or with ``replaced`` a U+FFFD for the maximal subpart that ends at it, with its error kind.
ByteToken = data.StructLayout({"byte": 8, "kept": 1, "replaced": 1, "error": ErrorKind})

#: The target forms :class:`DecodePositions` emits, each with the slot of one position.
POSITION_FORMS = {"utf-16": UnitSlot, "utf-32": UTF32Slot, "utf-8": ByteToken}

# Stage 1 of decoding, for every window position from the second on: whether the byte is
# accepted as the second byte of a sequence that needs 1, 2 or 3 continuation bytes.
_Seconds = data.StructLayout({
    "byte": 8, "present": 1, "ascii": 1, "lead": 1, "continues": 1,
    "second": data.ArrayLayout(1, 3),
    "mark": data.ArrayLayout(1, 3),     # the byte is EF, BB or BF (utf-8-sig only)
})

#: The bytes of a byte order mark in UTF-8, U+FEFF.
_MARK = (0xEF, 0xBB, 0xBF)

# Stage 2: how each position of the beat stands in its sequence.
_Roles = data.StructLayout({
    "b0": 8, "b1": 8, "b2": 8,       # bytes i, i-1, i-2
    "b3": 3,                         # a four-byte sequence's bits from its lead byte, i-3
    "ascii": 1,
    "two": 1,            # completes a two-byte sequence
    "three": 1,          # completes a three-byte sequence
    "high": 1,           # third byte of a four-byte sequence whose fourth follows
    "low": 1,            # completes a four-byte sequence
    "breaks": 1,         # leaves a sequence that the next byte does not continue
    "stray": 1,          # present, neither ASCII nor a lead byte
    "accepted": 1,       # continues a pending sequence
    "followed": 1,       # byte i+1 is present
})

# Stage 3: where the unit comes from, one-hot, and its error kind.
# The unit is an AND-OR of pieces on disjoint bits, each with its select: the pieces that
# several sources share are selected once, so that no bit of the unit depends on more than
# seven bits of ``_Chosen`` (two LUT4 levels).
_Pieces = ("low_six", "ascii_top", "continuation", "bit_ten", "three_top", "high", "low_top",
           "replacement")
_Chosen = data.StructLayout({
    "b0": 8, "b1": 8,
    "lead_bits": 4,      # a three-byte sequence's bits from its lead byte, i-2
    "plane_minus_one": 4,
    "select": data.StructLayout({name: 1 for name in _Pieces}),
    "error": ErrorKind,
})

# The same for a UTF-32 unit, the scalar value itself: a four-byte sequence gives it whole at
# its last byte, so there is no high surrogate, and bits 11 and up come from bytes i-2, i-3.
_ScalarPieces = ("low_six", "ascii_top", "continuation", "bit_ten", "bit_eleven", "three_top",
                 "four_top", "replacement")
_ChosenScalar = data.StructLayout({
    "b0": 8, "b1": 8,
    "b2": 6,             # bits 12 to 17 (a three-byte sequence's lead byte gives four of them)
    "b3": 3,             # bits 18 to 20, from a four-byte sequence's lead byte
    "select": data.StructLayout({name: 1 for name in _ScalarPieces}),
    "error": ErrorKind,
})


class DecodePositions(wiring.Component):
    """Stages *decode* and *emit*: the UTF-16 or UTF-32 unit each byte position emits, from the
    flags of bytes ``i-3`` to ``i+1``.

    Four clocks of latency, one beat per clock, no backpressure. Position ``i`` emits (the
    maximal subparts of Unicode ch. 3, "U+FFFD Substitution of Maximal Subparts"):

    - a complete character at its last byte: its unit, its low surrogate, or (UTF-32) its
      scalar value;
    - in UTF-16, a four-byte character's high surrogate at its third byte, when byte ``i+1``
      continues it;
    - a U+FFFD (``INVALID_CONTINUATION_BYTE``, or ``UNEXPECTED_END_OF_DATA`` at the end of the message) at a byte that
      leaves a sequence byte ``i+1`` does not continue;
    - a U+FFFD (``INVALID_START_BYTE``) for a byte that is neither ASCII, a lead byte, nor accepted
      as a continuation;
    - nothing otherwise. With ``errors="ignore"`` the replacements are not emitted. With
      ``strip_mark`` (``utf-8-sig``) a U+FEFF that is a message's first three bytes emits
      nothing.

    To UTF-8 (``form="utf-8"``) a position emits a :data:`ByteToken`: its own byte, kept when
    the character it belongs to is complete (it ends at one of bytes ``i`` to ``i+3``, which
    is why the window looks three bytes ahead), or the U+FFFD above, never both.

    The clocks: which bytes are accepted second bytes (two LUT4 levels); each position's role
    (two or three); where its unit comes from and the surrogate's plane; the unit (RFC 2781,
    section 2.1; for UTF-32 Unicode ch. 3, D90: the scalar value), in wire byte order.

    Parameters
    ----------
    width : :class:`int`
        Positions per beat.
    byteorder : :class:`str`
        ``"little"`` or ``"big"``.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    form : :class:`str`
        The target form: ``"utf-16"``, ``"utf-32"`` or ``"utf-8"`` (:data:`POSITION_FORMS`;
        to UTF-8 ``width`` is at least :data:`LOOKAHEAD`'s 3, so the lanes after a beat are
        the next beat's).
    strip_mark : :class:`bool`
        Drop a byte order mark that begins a message (``utf-8-sig``).

    Attributes
    ----------
    i : :py:`In(stream.Signature(WindowBeat(ByteClass, width, LOOKBEHIND, LOOKAHEAD[form]), always_ready=True))`
    o : :py:`Out(stream.Signature(LaneBeat(POSITION_FORMS[form], width), always_ready=True))`

    Raises
    ------
    :exc:`ValueError`
        If ``width``, ``byteorder``, ``errors`` or ``form`` is not one of the values above.
    """
    latency = 4

    def __init__(self, *, width, byteorder="little", errors="replace", form="utf-16",
                 strip_mark=False):
        check_width(width)
        check_byteorder(byteorder)
        check_errors(errors)
        check_choice("form", form, POSITION_FORMS)
        check_flag("strip_mark", strip_mark)
        if width < LOOKAHEAD[form]:
            raise ValueError(f"width must be at least 4 to {form}, not {width}")
        self._byteorder = byteorder
        self._errors = errors
        self._width = width
        self._form = form
        self._strip_mark = strip_mark
        super().__init__({
            "i": In(stream.Signature(WindowBeat(ByteClass, width, LOOKBEHIND, LOOKAHEAD[form]),
                                     always_ready=True)),
            "o": Out(stream.Signature(LaneBeat(POSITION_FORMS[form], width),
                                      always_ready=True)),
        })

    @property
    def form(self):
        return self._form

    def elaborate(self, platform):
        m = Module()
        width = self._width
        out = payload_register(m, self.o)
        valid = [Signal(name=f"decode{stage}_valid") for stage in range(3)]
        last = [Signal(name=f"decode{stage}_last") for stage in range(3)]
        m.d.sync += [valid[0].eq(self.i.valid), last[0].eq(self.i.payload.last),
                     *(later.eq(earlier) for earlier, later in zip(valid, valid[1:])),
                     *(later.eq(earlier) for earlier, later in zip(last, last[1:])),
                     self.o.valid.eq(valid[-1]), out.last.eq(last[-1])]

        window = self.i.payload.window
        seconds = Signal(data.ArrayLayout(_Seconds, len(window)), reset_less=True)
        for index, byte in enumerate(window):
            m.d.sync += [
                seconds[index].byte.eq(byte.byte),
                seconds[index].present.eq(byte.present),
                seconds[index].ascii.eq(byte.ascii),
                seconds[index].lead.eq(byte.lead),
                seconds[index].continues.eq(getattr(byte, _CONTINUES)),
            ]
            if self._strip_mark:
                m.d.sync += [seconds[index].mark[which].eq(byte.byte == value)
                             for which, value in enumerate(_MARK)]
            if index == 0:
                continue
            before = window[index - 1]
            for needs in (1, 2, 3):
                accepted = Const(0)
                for flag, (group_needs, next_range, _) in _LEAD_GROUPS.items():
                    if group_needs == needs:
                        accepted = accepted | (getattr(before, flag) &
                                               getattr(byte, range_flag(*next_range)))
                m.d.sync += seconds[index].second[needs - 1].eq(accepted)

        roles = Signal(data.ArrayLayout(_Roles, width), reset_less=True)
        for lane in range(width):
            m.d.sync += roles[lane].eq(self._role(m, seconds, LOOKBEHIND + lane))

        if self._form == "utf-8":
            self._tokens(m, seconds, roles, out)
            return m

        scalar = self._form == "utf-32"
        chosen = Signal(data.ArrayLayout(_ChosenScalar if scalar else _Chosen, width),
                        reset_less=True)
        for lane in range(width):
            m.d.sync += chosen[lane].eq(self._choose(m, roles[lane]))

        unit = self._scalar if scalar else self._unit
        for lane in range(width):
            m.d.sync += out.lanes[lane].eq(unit(m, chosen[lane]))
        return m

    def _ends(self, seconds, index):
        """Whether the byte at window ``index`` completes a character of two, three or four
        bytes (a three-byte one that is a stripped mark does not count)."""
        this, before, earlier = seconds[index], seconds[index - 1], seconds[index - 2]
        three = before.second[1] & this.continues
        if self._strip_mark:
            # U+FEFF as the message's first three bytes (nothing before them is present) is
            # taken in and emits nothing.
            three = three & ~(earlier.mark[0] & before.mark[1] & this.mark[2]
                              & ~seconds[index - 3].present)
        low = earlier.second[2] & before.continues & this.continues
        return this.second[0], three, low

    def _tokens(self, m, seconds, roles, out):
        """Stages 3 and 4 to UTF-8: each position's byte, kept when a character that holds
        it ends at it or at one of the three bytes after it, or its U+FFFD."""
        width = self._width
        ends = [self._ends(seconds, LOOKBEHIND + lane) for lane in range(width + 3)]
        kept = Signal(width, reset_less=True)
        for lane in range(width):
            # Byte i is the last, next to last, second or first byte of its character.
            two, three, low = zip(*ends[lane:lane + 4])
            m.d.sync += kept[lane].eq(seconds[LOOKBEHIND + lane].ascii | two[0] | three[0]
                                      | low[0] | two[1] | three[1] | low[1] | three[2]
                                      | low[2] | low[3])
        tokens = Signal(data.ArrayLayout(ByteToken, width), reset_less=True)
        for lane in range(width):
            chosen = self._choose(m, roles[lane])
            m.d.sync += [
                tokens[lane].byte.eq(roles[lane].b0),
                tokens[lane].replaced.eq(chosen.select.replacement),
                tokens[lane].error.eq(chosen.error),
            ]
        kept_late = Signal(width, reset_less=True)
        m.d.sync += kept_late.eq(kept)
        for lane in range(width):
            m.d.sync += [out.lanes[lane].eq(tokens[lane]),
                         out.lanes[lane].kept.eq(kept_late[lane])]

    def _role(self, m, seconds, index):
        """Stage 2: how the byte at window ``index`` stands in its sequence."""
        this, before, following = seconds[index], seconds[index - 1], seconds[index + 1]
        earlier = seconds[index - 2]
        second_any = this.second[0] | this.second[1] | this.second[2]
        three = before.second[1] & this.continues
        _, emits_three, low = self._ends(seconds, index)
        third_of_four = before.second[2] & this.continues
        following_starts = following.second[0] | following.second[1] | following.second[2]
        result = Signal(_Roles)
        m.d.comb += [
            result.b0.eq(this.byte),
            result.b1.eq(before.byte),
            result.b2.eq(earlier.byte),
            result.b3.eq(seconds[index - 3].byte[0:3]),
            result.ascii.eq(this.ascii),
            result.two.eq(this.second[0]),
            result.three.eq(emits_three),
            result.high.eq(third_of_four & following.continues),
            result.low.eq(low),
            result.breaks.eq((this.lead & ~following_starts) |
                             ((this.second[1] | this.second[2] | third_of_four) &
                              ~following.continues)),
            result.stray.eq(this.present & ~this.ascii & ~this.lead),
            result.accepted.eq(second_any | three | third_of_four | low),
            result.followed.eq(following.present),
        ]
        return result

    def _choose(self, m, roles):
        """Stage 3: where the unit comes from, its error kind, and a high surrogate's plane."""
        invalid = roles.stray & ~roles.accepted
        replacement = roles.breaks | invalid
        if self._form == "utf-32":
            result = Signal(_ChosenScalar)
            m.d.comb += [
                result.b2.eq(roles.b2[0:6]),
                result.b3.eq(roles.b3),
                result.select.bit_ten.eq(roles.two | roles.three | roles.low),
                result.select.bit_eleven.eq(roles.three | roles.low),
                result.select.four_top.eq(roles.low),
            ]
        else:
            result = Signal(_Chosen)
            m.d.comb += [
                result.lead_bits.eq(roles.b2[0:4]),
                # The plane of a four-byte sequence, from its lead (b2) and second (b1) bytes.
                result.plane_minus_one.eq(plane_minus_one(Cat(roles.b1[4:6], roles.b2[0:3]))),
                result.select.bit_ten.eq(roles.two | roles.three),
                result.select.high.eq(roles.high),
                result.select.low_top.eq(roles.low),
            ]
        m.d.comb += [
            result.b0.eq(roles.b0),
            result.b1.eq(roles.b1),
            result.select.low_six.eq(roles.ascii | roles.two | roles.three | roles.low),
            result.select.ascii_top.eq(roles.ascii),
            result.select.continuation.eq(roles.two | roles.three | roles.low),
            result.select.three_top.eq(roles.three),
        ]
        if self._errors == "replace":
            m.d.comb += result.select.replacement.eq(replacement)
            with m.If(invalid):
                m.d.comb += result.error.eq(ErrorKind.INVALID_START_BYTE)
            with m.Elif(roles.breaks & roles.followed):
                m.d.comb += result.error.eq(ErrorKind.INVALID_CONTINUATION_BYTE)
            with m.Elif(roles.breaks):
                m.d.comb += result.error.eq(ErrorKind.UNEXPECTED_END_OF_DATA)
        return result

    def _unit(self, m, chosen):
        """Stage 4 (RFC 2781, section 2.1): the unit, in wire byte order."""
        b0, b1 = chosen.b0, chosen.b1
        select = chosen.select
        # ASCII is ``low_six`` and ``ascii_top``; a two-byte character's unit ``low_six``,
        # ``continuation`` and ``bit_ten``; a three-byte one's those and ``three_top``; a low
        # surrogate (its bits 0-9 and 110111) ``low_six``, ``continuation`` and ``low_top``.
        low_surrogate_top = low_surrogate(Const(0, 10))
        pieces = {
            "low_six": Cat(b0[0:6], Const(0, 10)),
            "ascii_top": Cat(Const(0, 6), b0[6:8], Const(0, 8)),
            "continuation": Cat(Const(0, 6), b1[0:4], Const(0, 6)),
            "bit_ten": Cat(Const(0, 10), b1[4], Const(0, 5)),
            "three_top": Cat(Const(0, 11), b1[5], chosen.lead_bits),
            "high": high_surrogate(Cat(b0[4:6], b1[0:4]), chosen.plane_minus_one),
            "low_top": low_surrogate_top,
            "replacement": Const(REPLACEMENT_CHARACTER, 16),
        }
        result = Signal(UnitSlot)
        m.d.comb += [
            result.valid.eq(select.low_six | select.high | select.replacement),
            result.item.data.eq(select_unit(select, pieces, self._byteorder)),
            result.item.error.eq(chosen.error),
        ]
        return result

    def _scalar(self, m, chosen):
        """Stage 4 for UTF-32 (Unicode ch. 3, D90 and Table 3-6): the scalar value, in wire
        byte order."""
        b0, b1 = chosen.b0, chosen.b1
        pieces = {
            "low_six": Cat(b0[0:6], Const(0, 26)),
            "ascii_top": Cat(Const(0, 6), b0[6:8], Const(0, 24)),
            "continuation": Cat(Const(0, 6), b1[0:4], Const(0, 22)),
            "bit_ten": Cat(Const(0, 10), b1[4], Const(0, 21)),
            "bit_eleven": Cat(Const(0, 11), b1[5], Const(0, 20)),
            "three_top": Cat(Const(0, 12), chosen.b2[0:4], Const(0, 16)),
            "four_top": Cat(Const(0, 12), chosen.b2, chosen.b3, Const(0, 11)),
            "replacement": Const(REPLACEMENT_CHARACTER, 32),
        }
        result = Signal(UTF32Slot)
        m.d.comb += [
            result.valid.eq(chosen.select.low_six | chosen.select.replacement),
            result.item.data.eq(select_unit(chosen.select, pieces, self._byteorder, bits=32)),
            result.item.error.eq(chosen.error),
        ]
        return result
