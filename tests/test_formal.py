"""Model checking of the UTF-8 decoder with Yosys and SMT-BMC (``pytest -m formal``): the
properties of :class:`~utfhw.sim.properties.UTF8DecoderProperties` hold, every cover is
reached, and for each family of properties a deliberately broken decoder fails its check."""

import pytest
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring

from utfhw.hdl import UTF8Decoder
from utfhw.hdl.layout import ErrorKind
from utfhw.sim.formal import check
from utfhw.sim.properties import UTF8DecoderProperties


pytestmark = pytest.mark.formal

# Two complete 4-byte characters take 8 input beats and their output one more; k-induction
# does not close (the bench's byte history is not tied to the decoder's state by an
# invariant), so the assertions are checked by BMC to this depth.
BMC_DEPTH = 12
COVER_DEPTH = 14


def test_properties_hold(tmp_path):
    result = check(UTF8DecoderProperties(UTF8Decoder()), mode="bmc", depth=BMC_DEPTH,
                   directory=tmp_path)
    assert result.passed, result.failures


def test_covers_are_reached(tmp_path):
    result = check(UTF8DecoderProperties(UTF8Decoder()), mode="cover", depth=COVER_DEPTH,
                   directory=tmp_path)
    assert result.passed, result.failures


class Tampered(wiring.Component):
    """The decoder with its output changed by ``tamper(m, core_output, output)``: a broken
    variant, built only here, that a property must catch."""
    def __init__(self, tamper):
        self.core = UTF8Decoder()
        self._tamper = tamper
        super().__init__(self.core.signature)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = core = self.core
        wiring.connect(m, wiring.flipped(self.i), core.i)
        m.d.comb += core.o.ready.eq(self.o.ready)
        self._tamper(m, core.o, self.o)
        return m


def passes_through(m, inner, outer, *, valid=None, payload=None):
    m.d.comb += [
        outer.valid.eq(inner.valid if valid is None else valid),
        outer.payload.eq(inner.payload if payload is None else payload),
    ]


def changes_while_stalled(m, inner, outer):
    # Flips a bit of an unused lane every clock: nothing but the stream rule looks there.
    toggle = Signal()
    m.d.sync += toggle.eq(~toggle)
    payload = Signal.like(inner.payload)
    m.d.comb += payload.eq(inner.payload)
    with m.If(inner.payload.count < 2):
        m.d.comb += payload.lanes[1].data[0].eq(inner.payload.lanes[1].data[0] ^ toggle)
    passes_through(m, inner, outer, payload=payload)


def repeats_a_beat(m, inner, outer):
    again = Signal()
    m.d.sync += again.eq(inner.valid & outer.ready)
    passes_through(m, inner, outer, valid=inner.valid | again)


def loses_last(m, inner, outer):
    payload = Signal.like(inner.payload)
    m.d.comb += [payload.eq(inner.payload), payload.last.eq(0)]
    passes_through(m, inner, outer, payload=payload)


def makes_surrogates(m, inner, outer):
    payload = Signal.like(inner.payload)
    m.d.comb += [payload.eq(inner.payload),
                 payload.lanes[0].data.eq(inner.payload.lanes[0].data | 0xD800)]
    passes_through(m, inner, outer, payload=payload)


def accepts_overlong(m, inner, outer):
    # Reports a code point one higher than the bytes encode, which is how an overlong form
    # looks to the property: valid, but not the shortest form of what was taken.
    payload = Signal.like(inner.payload)
    lane = inner.payload.lanes[0]
    m.d.comb += payload.eq(inner.payload)
    with m.If((lane.error == ErrorKind.NONE) & (lane.data == 0x41)):
        m.d.comb += payload.lanes[0].data.eq(0x01)
    passes_through(m, inner, outer, payload=payload)


@pytest.mark.parametrize("tamper,expected", [
    (changes_while_stalled, "beat held until taken"),
    (repeats_a_beat, "one output beat per input beat"),
    (loses_last, "last on exactly the beat of an input last"),
    (makes_surrogates, "no surrogate"),
    (accepts_overlong, "shortest form of the"),
], ids=lambda value: getattr(value, "__name__", ""))
def test_broken_variant_fails(tmp_path, tamper, expected):
    result = check(UTF8DecoderProperties(Tampered(tamper)), mode="bmc", depth=BMC_DEPTH,
                   directory=tmp_path)
    assert not result.passed
    assert result.vcd is not None and result.vcd.exists()
    assert any(expected in failure for failure in result.failures), result.failures


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
def test_bad_mode(tmp_path):
    with pytest.raises(ValueError, match="mode must be 'bmc', 'prove' or 'cover', not 'sat'"):
        check(UTF8DecoderProperties(UTF8Decoder()), mode="sat", depth=4, directory=tmp_path)
    with pytest.raises(ValueError, match="depth must be a positive integer, not 0"):
        check(UTF8DecoderProperties(UTF8Decoder()), mode="bmc", depth=0, directory=tmp_path)
