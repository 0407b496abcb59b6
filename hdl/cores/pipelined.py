"""UTF-8 to UTF-16 in a deep pipeline, for clock speed."""

from amaranth.hdl import Module, Signal, Cat, Const
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..lanes.copies import RegisteredCopy, copied_value, registered_copies
from ..unicode.byteclass import NibbleFlags, range_flag
from ..unicode.layout import UnitBytes, UTF16UnitLanes, ErrorKind, REPLACEMENT_CHARACTER
from ..unicode.params import UTF16Options
from ..unicode.tables import (CONTINUATION, NEXT_BYTE_RANGES, TABLE_3_7, high_surrogate, lead_groups,
                      low_surrogate, plane_minus_one, select_unit)


__all__ = ["PipelinedUTF8ToUTF16"]


def _state_name(needs, next_range, first_lead):
    if next_range == CONTINUATION:
        return f"need{needs}"
    return f"need{needs}_after_{first_lead:02x}"


# The decoder's states while a sequence is pending, one flip-flop each (none set: no sequence
# pending), one for each way the rows of Table 3-7 leave a sequence: the continuation bytes
# still needed and the range the next one must fall in (after E0 it is A0..BF, after ED
# 80..9F, after F0 90..BF, after F4 80..8F, otherwise 80..BF). The flag of a lead byte that
# starts each state; the range each state accepts, as a flag; the state each state moves to on
# a byte in its range (need1 completes the code point).
_LEADS = {}
_STATE_RANGE = {}
_STATE_NEEDS = {}
for (_needs, _range), _rows in lead_groups().items():
    _state = _state_name(_needs, _range, _rows[0][0])
    _LEADS[f"lead_{_state}"] = (_state, _rows)
    _STATE_RANGE[_state] = range_flag(*_range)
    _STATE_NEEDS[_state] = _needs
_STATES = tuple(sorted(_STATE_RANGE))
_STATE_NEXT = {state: _state_name(_STATE_NEEDS[state] - 1, CONTINUATION, None)
               for state in _STATES if _STATE_NEEDS[state] > 1}

#: The flags stage 1 computes from nibble decodes: each a set of byte ranges.
_FLAG_RANGES = {
    **{range_flag(*byte_range): [byte_range] for byte_range in NEXT_BYTE_RANGES},
    **{flag: rows for flag, (_, rows) in _LEADS.items()},
    "lead": [(lead.first, lead.last) for lead in TABLE_3_7],
    "starts": [(0xC0, 0xFF)],        # any byte that is neither ASCII nor a continuation byte
}


# Each flag as a sum of products of a high-nibble and a low-nibble decode.
_NIBBLE_FLAGS = NibbleFlags(_FLAG_RANGES)

#: Stage 0: the byte with decodes of its nibbles, each a function of four bits (one LUT4).
_Nibbles = data.StructLayout({
    "byte": 8,
    "low_bits": 6,
    "last": 1,
    "decodes": _NIBBLE_FLAGS.layout,
})

#: Stage 1: what the byte is. Every flag is low for an absent byte (``count == 0``).
_Classified = data.StructLayout({
    "byte": 8,
    "present": 1,
    "last": 1,
    "ascii": 1,
    "above_7f": 1,
    **{flag: 1 for flag in _FLAG_RANGES},
    # A continuation byte's six payload bits, or a lead byte's own (the rest zero).
    "low_bits": 6,
})

#: Stage 2: the byte with the decoder state it met.
_Decoding = data.StructLayout({
    "byte": _Classified,
    "state": data.StructLayout({name: 1 for name in _STATES}),
    "gathered": 15,
})

#: Stage 3: how the byte met the state.
_Matched = data.StructLayout({
    "byte": 8,
    "present": 1,
    "last": 1,
    "ascii": 1,
    "lead": 1,          # a well-formed lead byte
    "neither": 1,       # present, and neither ASCII nor a lead byte
    "pending": 1,       # a sequence was pending
    "continues": 1,     # and the byte continues it
    "completes": 1,     # and completes it
    "continues_only": 1,  # continues it without completing it
    "absent_pending": 1,  # no byte, and a sequence was pending
    "supplementary": 1, # a completed code point above U+FFFF
    "code_point": 16,
    "plane_minus_one": 4,
})

#: Stage 4: the items the byte emits.
_Items = data.StructLayout({
    "cut_short": 1,          # a U+FFFD (INVALID_CONTINUATION_BYTE) for the sequence the byte cuts short
    "invalid": 1,            # a U+FFFD (INVALID_START_BYTE) of its own
    "unfinished": 1,         # a U+FFFD (UNEXPECTED_END_OF_DATA) of its own
    "ascii": 1,
    "bmp": 1,                # a completed code point below U+10000
    "supplementary": 1,      # a completed code point above U+FFFF
    "last": 1,
    "byte": 8,
    "code_point": 16,
    "plane_minus_one": 4,
})

#: Stage 5: what goes in each of the two output lanes. ``select`` is one-hot over where a
#: lane's unit comes from.
_Lane = data.StructLayout({
    "select": data.StructLayout({"replacement": 1, "ascii": 1, "bmp": 1, "high": 1, "low": 1}),
    "error": ErrorKind,
})
_Decided = data.StructLayout({
    "lanes": data.ArrayLayout(_Lane, 2),
    "last": 1,
    "byte": 8,
    "code_point": 16,         # the low 16 bits of a completed code point
    "plane_minus_one": 4,     # its plane less one, for a high surrogate
})


class PipelinedUTF8ToUTF16(UTF16Options, wiring.Component):
    """UTF-8 to UTF-16-LE or -BE in eight pipeline stages, exact to
    ``bytes.decode("utf-8", errors).encode("utf-16-le")`` (or ``-be``).

    It gives the same output beats as ``Transcoder(source="utf-8", target="utf-16-le",
    errors=errors)``, six clocks later, and is built for clock speed: no stage is more than
    two or three LUT4s deep, and every enable comes straight from a flip-flop. The stages are

    0. *take*: the byte, with a decode of each of its nibbles;
    1. *classify*: flags for what the byte is (ASCII, a continuation byte in each of the ranges
       of Unicode ch. 3, Table 3-7, each kind of lead byte), all clear for an absent byte;
    2. *state*: the decoder's one loop, a one-hot state machine over the seven ways a sequence
       can be pending, and the payload bits gathered so far;
    3. *match*: whether the byte continues the pending sequence, and completes it;
    4. *items*: what the byte emits (Unicode ch. 3, "U+FFFD Substitution of Maximal Subparts":
       a U+FFFD for a sequence it cuts short, then its own item); with ``errors="ignore"``
       replacements are dropped here;
    5. *decide*: where each output unit comes from;
    6. *encode*: the UTF-16 units, a surrogate pair above U+FFFF (RFC 2781, section 2.1), in
       wire byte order;
    7. the output register, with a skid register beside it.

    Latency is eight clocks. Throughput is one byte per clock on any input, malformed input
    included, while ``o.ready`` is high. The stages move together: they advance while the skid
    register is empty (``i.ready``, itself a flip-flop, says so), and when the output is held
    the beat leaving stage 6 waits in the skid register while the stages stop. So under
    backpressure nothing is lost or duplicated, ``o.valid`` does not depend on ``o.ready``,
    and ``i.ready`` depends on nothing combinationally. After reset the pipeline waits one
    clock before it takes a beat.

    Parameters
    ----------
    byteorder : :class:`str`
        ``"little"`` (``utf-16-le``) or ``"big"`` (``utf-16-be``).
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(1)))`
        UTF-8 bytes, as the input of a :class:`~utfhw.hdl.cores.transcoder.Transcoder`.
    o : :py:`Out(stream.Signature(UTF16UnitLanes))`
        UTF-16 units in wire order (``data[0:8]`` first), up to two per beat, one beat per input
        beat.

    Raises
    ------
    :exc:`ValueError`
        If ``byteorder`` or ``errors`` is not one of the values above.
    """
    #: Clocks from an accepted input beat to the output beat it produces.
    latency = 8
    #: The most beats it holds: one in each stage and one in the skid register.
    capacity = 9

    i: In(stream.Signature(UnitBytes(1)))
    o: Out(stream.Signature(UTF16UnitLanes))

    def __init__(self, *, byteorder="little", errors="replace"):
        super().__init__(byteorder=byteorder, errors=errors)

    @classmethod
    def signature_of(cls):
        """Its ports, fixed, without making one."""
        return wiring.Signature({name: cls.__annotations__[name] for name in ("i", "o")})

    def elaborate(self, platform):
        m = Module()
        # The stages advance together while the skid register is empty. ``advance`` is a
        # flip-flop of its own that drives the enable of every stage with no gate in between:
        # its initial value is 0 (an FPGA flip-flop that starts at 1 would need an inverter),
        # so the pipeline waits one clock after reset.
        skid = Signal(UTF16UnitLanes, reset_less=True)
        skid_full = Signal()
        skid_full_next = Signal()
        advance = Signal()
        m.d.comb += self.i.ready.eq(advance)

        # Beats move through the stages with a valid bit each; the decoder state moves only
        # with a valid beat.
        valid = [Signal(name=f"stage{stage}_valid") for stage in range(0, 6)]
        with m.If(advance):
            m.d.sync += [
                valid[0].eq(self.i.valid),
                *(later.eq(earlier) for earlier, later in zip(valid, valid[1:])),
            ]

        def stage(layout, name):
            # Payload registers need no reset: the valid bits say what they hold.
            return Signal(layout, name=name, reset_less=True)

        classified = stage(_Classified, "classified")
        decoding = stage(_Decoding, "decoding")
        matched = stage(_Matched, "matched")
        items = stage(_Items, "items")
        decided = stage(_Decided, "decided")
        # Stage 0 registers decodes of the input byte's nibbles; stage 1 combines them into
        # flags, and clears the flags when the byte is absent (an AND with a flip-flop, or a
        # synchronous reset of the flags).
        taken = stage(_Nibbles, "taken")
        taken_present = Signal()
        with m.If(advance):
            m.d.sync += [
                taken.eq(self._nibbles(m, self.i.payload.data)),
                taken_present.eq(self.i.valid & (self.i.payload.count != 0)),
                taken.last.eq(self.i.valid & self.i.payload.last),
            ]
            with m.If(taken_present):
                m.d.sync += classified.eq(self._classify(m, taken))
            with m.Else():
                m.d.sync += classified.eq(0)
            m.d.sync += [
                classified.last.eq(taken.last),
                matched.eq(self._match(m, decoding)),
                items.eq(self._items(m, matched)),
                decided.eq(self._decide(m, items)),
            ]
        # The gathered bits' enable has a copy of ``advance`` of its own, so that its one LUT
        # level is not behind the route to all the other enables (the worst seed's critical
        # path on the iCE40 UP5K).
        advance_copy = Signal(RegisteredCopy, name="advance_copy")
        registered_copies(m, [advance_copy], ~skid_full_next)
        self._decode_state(m, advance, advance & valid[1], copied_value(advance_copy),
                           classified, decoding)

        # The output register, and the skid register that takes the beat leaving the last
        # stage on a clock when the output is held.
        units = stage(UTF16UnitLanes, "units")
        units_valid = Signal()
        with m.If(advance):
            m.d.sync += [units.eq(self._encode(m, decided)), units_valid.eq(valid[-1])]
        m.d.comb += skid_full_next.eq(skid_full)
        # ``~skid_full`` stands for ``advance`` here (they differ only on the clock after reset,
        # when no beat is valid), so that ``advance`` drives the enables and nothing else.
        with m.If(~self.o.valid | self.o.ready):
            with m.If(skid_full):
                m.d.sync += [self.o.payload.eq(skid), self.o.valid.eq(1)]
                m.d.comb += skid_full_next.eq(0)
            with m.Else():
                m.d.sync += [self.o.payload.eq(units), self.o.valid.eq(units_valid)]
        with m.Elif(~skid_full & units_valid):
            m.d.sync += skid.eq(units)
            m.d.comb += skid_full_next.eq(1)
        m.d.sync += [skid_full.eq(skid_full_next), advance.eq(~skid_full_next)]
        return m

    def _nibbles(self, m, byte):
        """Stage 0: decodes of each nibble of the byte (one LUT4 each), and its payload bits."""
        result = Signal(_Nibbles)
        m.d.comb += [result.byte.eq(byte), result.decodes.eq(_NIBBLE_FLAGS.decode(m, byte))]
        # A continuation byte's six payload bits, or a lead byte's own (the rest zero).
        with m.If(byte.matches("10------")):
            m.d.comb += result.low_bits.eq(byte[0:6])
        with m.Elif(byte.matches("110-----")):
            m.d.comb += result.low_bits.eq(byte[0:5])
        with m.Elif(byte.matches("1110----")):
            m.d.comb += result.low_bits.eq(byte[0:4])
        with m.Else():
            m.d.comb += result.low_bits.eq(byte[0:3])
        return result

    def _classify(self, m, nibbles):
        """Stage 1 (Table 3-7): the flags of a present byte, each an OR of ANDs of a high and a
        low nibble decode."""
        result = Signal(_Classified)
        m.d.comb += [
            result.byte.eq(nibbles.byte),
            result.low_bits.eq(nibbles.low_bits),
            result.present.eq(1),
            result.ascii.eq(~nibbles.byte[7]),
            result.above_7f.eq(nibbles.byte[7]),
        ]
        for flag in _NIBBLE_FLAGS.flags:
            m.d.comb += getattr(result, flag).eq(_NIBBLE_FLAGS.flag(nibbles.decodes, flag))
        return result

    def _decode_state(self, m, advance, moves, gathers, byte, decoding):
        """Stage 2, the one loop: the next state from this state and the byte's flags. A
        message's last byte leaves no sequence pending; an absent byte that is not the last
        leaves everything as it was. ``moves`` enables the state, ``gathers`` (``advance``)
        the payload bits."""
        state = Signal.like(decoding.state)
        gathered = Signal(15, reset_less=True)
        for name in _STATES:
            terms = [getattr(state, name) & ~byte.present]
            terms += [getattr(state, before) & getattr(byte, _STATE_RANGE[before])
                      for before, after in _STATE_NEXT.items() if after == name]
            terms += [getattr(byte, lead) for lead, (started, _) in _LEADS.items()
                      if started == name]
            next_value = terms[0]
            for term in terms[1:]:
                next_value = next_value | term
            # The end of a message clears the state: a synchronous reset, no logic.
            with m.If(moves):
                with m.If(byte.last):
                    m.d.sync += getattr(state, name).eq(0)
                with m.Else():
                    m.d.sync += getattr(state, name).eq(next_value)
        # The payload bits: a byte C0..FF starts afresh, any other present byte shifts its six
        # bits in. Only a continuation byte's bits matter: after an ASCII byte, or one out of
        # range, no sequence is pending, and the next lead byte starts afresh. A present byte
        # is a valid one (or, on the first clock after a reset, a stale one that no sequence
        # follows). So the enable is a copy of `advance` and `present`, and `starts` only
        # selects, one LUT level each.
        with m.If(gathers & byte.present):
            with m.If(byte.starts):
                m.d.sync += gathered.eq(byte.low_bits)
            with m.Else():
                m.d.sync += gathered.eq(Cat(byte.low_bits, gathered[0:9]))
        with m.If(advance):
            m.d.sync += [decoding.byte.eq(byte), decoding.state.eq(state),
                         decoding.gathered.eq(gathered)]

    def _match(self, m, decoding):
        """Stage 3: whether the byte continues the pending sequence and completes it."""
        byte, state, gathered = decoding.byte, decoding.state, decoding.gathered
        pending = Const(0)
        continues = Const(0)
        continues_only = Const(0)
        for name in _STATES:
            pending = pending | getattr(state, name)
            continued = getattr(state, name) & getattr(byte, _STATE_RANGE[name])
            continues = continues | continued
            if name != "need1":
                continues_only = continues_only | continued
        result = Signal(_Matched)
        m.d.comb += [
            result.byte.eq(byte.byte),
            result.present.eq(byte.present),
            result.last.eq(byte.last),
            result.ascii.eq(byte.ascii),
            result.lead.eq(byte.lead),
            result.neither.eq(byte.above_7f & ~byte.lead),
            result.pending.eq(pending),
            result.continues.eq(continues),
            result.continues_only.eq(continues_only),
            result.absent_pending.eq(~byte.present & pending),
            result.completes.eq(state.need1 & byte.in_80_bf),
            result.supplementary.eq(gathered[10:15] != 0),
            result.code_point.eq(Cat(byte.byte[0:6], gathered[0:10])),
            result.plane_minus_one.eq(plane_minus_one(gathered[10:15])),
        ]
        return result

    def _items(self, m, matched):
        """Stage 4 (maximal subparts): the items the byte emits. With ``errors="ignore"``
        replacements are dropped here."""
        result = Signal(_Items)
        if self._errors == "replace":
            m.d.comb += [
                result.cut_short.eq(matched.present & matched.pending & ~matched.continues),
                result.unfinished.eq(matched.last & (matched.continues_only | matched.lead |
                                                     matched.absent_pending)),
                result.invalid.eq(matched.neither & ~matched.continues),
            ]
        m.d.comb += [
            result.ascii.eq(matched.ascii),
            result.bmp.eq(matched.completes & ~matched.supplementary),
            result.supplementary.eq(matched.completes & matched.supplementary),
            result.last.eq(matched.last),
            result.byte.eq(matched.byte),
            result.code_point.eq(matched.code_point),
            result.plane_minus_one.eq(matched.plane_minus_one),
        ]
        return result

    def _decide(self, m, items):
        """Stage 5: where each output unit comes from. A U+FFFD for a cut-short sequence goes
        first; then the byte's own item, which is then a U+FFFD or ASCII (a byte that cuts a
        sequence short cannot complete one)."""
        result = Signal(_Decided)
        first, second = result.lanes
        replacement = items.invalid | items.unfinished
        own_error = Signal(ErrorKind)
        with m.If(items.invalid):
            m.d.comb += own_error.eq(ErrorKind.INVALID_START_BYTE)
        with m.Elif(items.unfinished):
            m.d.comb += own_error.eq(ErrorKind.UNEXPECTED_END_OF_DATA)
        m.d.comb += [
            result.last.eq(items.last),
            result.byte.eq(items.byte),
            result.code_point.eq(items.code_point),
            result.plane_minus_one.eq(items.plane_minus_one),
            first.select.replacement.eq(items.cut_short | replacement),
            first.select.ascii.eq(~items.cut_short & items.ascii),
            first.select.bmp.eq(items.bmp),
            first.select.high.eq(items.supplementary),
            second.select.replacement.eq(items.cut_short & replacement),
            second.select.ascii.eq(items.cut_short & items.ascii),
            second.select.low.eq(items.supplementary),
            second.error.eq(own_error),
        ]
        with m.If(items.cut_short):
            m.d.comb += first.error.eq(ErrorKind.INVALID_CONTINUATION_BYTE)
        with m.Else():
            m.d.comb += first.error.eq(own_error)
        return result

    def _encode(self, m, decided):
        """Stage 6 (RFC 2781, section 2.1): the UTF-16 units, in wire byte order."""
        result = Signal(UTF16UnitLanes)
        sources = {
            "replacement": Const(REPLACEMENT_CHARACTER, 16),
            "ascii": decided.byte,
            "bmp": decided.code_point,
            "high": high_surrogate(decided.code_point[10:16], decided.plane_minus_one),
            "low": low_surrogate(decided.code_point[0:10]),
        }
        for lane, unit in zip(decided.lanes, result.lanes):
            m.d.comb += [unit.data.eq(select_unit(lane.select, sources, self._byteorder)),
                         unit.error.eq(lane.error)]
        # A lane is used when something is selected for it; the second only after the first.
        used = [lane.select.as_value().any() for lane in decided.lanes]
        m.d.comb += [result.count.eq(used[0] + used[1]), result.last.eq(decided.last)]
        return result
