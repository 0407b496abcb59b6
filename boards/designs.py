"""What ``utfhw report`` implements, and on what: the devices, the designs (each core by its
:class:`~utfhw.hdl.cores.CoreSpec`, and the stages of the cores), and the whole matrix of
them."""

import dataclasses
from typing import Optional

from amaranth.hdl import Module
from amaranth.lib import wiring
from amaranth.lib.wiring import Out

from ..hdl.bridge import UARTBridge
from ..hdl.bytestream import LaneSerializer, UnitAssembler
from ..hdl.cores import CORE_KINDS, PIPELINED_PAIRS, CoreSpec
from ..hdl.cores.validator import validator_widths
from ..hdl.cores.wide import wide_widths
from ..hdl.forms import CODECS, FORMS, canonical_pair, plain_codec
from ..hdl.scalar.byteorder import (ByteOrderMarkStripper, ByteOrderMarkWriter,
                                    ByteOrderReader, ByteOrderWriter)
from ..hdl.scalar.error_dropper import ErrorDropper
from ..hdl.uart import UARTReceiver, UARTTransmitter
from ..hdl.unicode.layout import UTF16UnitLanes, UTF32UnitLanes
from ..hdl.unicode.params import WIDTHS, check_choice


__all__ = ["DEVICES", "CAPACITY", "FAMILIES", "SEEDS", "ROUTERS", "ROUTER1_MOST_LUT4S",
           "SIZED_DEVICES", "SIZED_ABOVE", "STAGES", "Beside", "WIDE_WIDTHS",
           "WIDE_REPORT_PAIRS", "HANDLER_ERRORS", "HANDLER_TARGET", "HANDLER_DEVICES",
           "README_DEVICES", "HEADLINE_SPEC", "PIPELINED_SPEC", "PAIRS",
           "Design", "design_name", "designs", "design_names", "matrix", "kinds_in", "fits",
           "cell_counts"]


#: Device name: (family, nextpnr options, the frequency nextpnr is asked for in MHz).
#: The datasheets' LUT4s, flip-flops and block RAMs of each device are in :data:`CAPACITY`.
DEVICES = {
    "iCE40 UP5K": ("ice40", ["--up5k", "--package", "sg48"], 100),
    "iCE40 HX8K": ("ice40", ["--hx8k", "--package", "ct256"], 100),
    "ECP5-25F":   ("ecp5", ["--25k", "--package", "CABGA381", "--speed", "6"], 250),
    "ECP5-85F":   ("ecp5", ["--85k", "--package", "CABGA381", "--speed", "6"], 250),
    # nextpnr-himbaechel's parts and chip databases: the Tang Nano 9K's, the Tang Primer 20K's
    # and the Tang Mega 138K Pro's devices, the harness's pins on them in
    # :data:`~utfhw.boards.implement.GOWIN_PINS`.
    "GW1N-9C":     ("gowin", ["--device", "GW1NR-LV9QN88PC6/I5", "--vopt", "family=GW1N-9C"],
                    150),
    "GW2A-18C":    ("gowin", ["--device", "GW2A-LV18PG256C8/I7", "--vopt", "family=GW2A-18C"],
                    150),
    "GW5AST-138C": ("gowin", ["--device", "GW5AST-LV138FPG676AC1/I0",
                              "--vopt", "family=GW5AST-138C"], 250),
}

#: Device name: (LUT4s, flip-flops, block RAMs) it has (Lattice's iCE40 UltraPlus, iCE40 LP/HX
#: and ECP5 family data sheets; Gowin's GW1N, GW2A and GW5AST data sheets). A design that
#: needs more is not placed on it. The Gowin devices are those of the boards
#: (:data:`~utfhw.boards.top.BOARDS`).
CAPACITY = {
    "iCE40 UP5K":  (5280, 5280, 30),
    "iCE40 HX8K":  (7680, 7680, 32),
    "ECP5-25F":    (24288, 24288, 56),
    "ECP5-85F":    (83640, 83640, 208),
    "GW1N-9C":     (8640, 6480, 26),
    "GW2A-18C":    (20736, 15552, 46),
    "GW5AST-138C": (138240, 138240, 340),
}

#: Family: (the Yosys synthesis command, cell types counted as LUT4s with their weight,
#: flip-flop cell types, block RAM cell types).
FAMILIES = {
    "ice40": ("synth_ice40", {"SB_LUT4": 1}, ("SB_DFF",), ("SB_RAM40_4K",)),
    # A CCU2C carry cell is two LUT4s of a slice.
    "ecp5": ("synth_ecp5", {"LUT4": 1, "CCU2C": 2}, ("TRELLIS_FF",), ("DP16KD",)),
    # An ALU is one LUT4 of a slice in its arithmetic mode.
    "gowin": ("synth_gowin", {"LUT1": 1, "LUT2": 1, "LUT3": 1, "LUT4": 1, "ALU": 1}, ("DFF",),
              ("SP", "SDPB", "DPB", "pROM")),
}

SEEDS = (1, 2, 3)

#: nextpnr's routers: ``router1``, its default, which meets timing best, and ``router2``,
#: which routes a large design faster where ``router1`` struggles (and gives a lower Fmax).
ROUTERS = ("router1", "router2")

#: The most LUT4s of a design that a report routes with ``router1`` when it has a fallback
#: router: a bigger one goes to the fallback at once, rather than after a time limit spent,
#: unless it runs with every seed (a README row), whose figures are worth the wait.
#: On the ECP5-85F, once the stages' payloads had no reset
#: (:func:`~utfhw.hdl.lanes.stage.payload_register`), router1 routed the wide core from UTF-8
#: to UTF-16-LE at width 32 (8,128 LUT4s) in 78 s and at width 64 (17,494) in 7 minutes a
#: seed; with the resets it had not finished width 32 in 55 minutes.
ROUTER1_MOST_LUT4S = 24000

#: The devices of the matrix's wide cores but those from UTF-8 to UTF-16-LE, and of its
#: cores wider than :data:`SIZED_ABOVE` bytes (see :func:`matrix`): the device that holds
#: each of them, so that the whole page is made on two cores in hours rather than days.
SIZED_DEVICES = ("ECP5-85F",)
SIZED_ABOVE = 16

#: The error handlers of the matrix's other rows of the ``Transcoder``, besides ``replace``:
#: ``ignore``, and each escape on encoding (:class:`~utfhw.hdl.scalar.escape.Escaper`), for
#: the pair from each form's plain codec to :data:`HANDLER_TARGET`, on
#: :data:`HANDLER_DEVICES` alone.
HANDLER_ERRORS = ("ignore", ("replace", "backslashreplace"), ("replace", "xmlcharrefreplace"))
HANDLER_TARGET = "ascii"
HANDLER_DEVICES = ("iCE40 UP5K", "ECP5-85F")

#: The README's devices: its table's columns, where a report runs its rows with every seed.
README_DEVICES = ("ECP5-85F", "iCE40 UP5K")

#: The widths of the wide core that ``pairs="wide"`` implements unless asked for others.
WIDE_WIDTHS = (1, 4, 8, 16, 32)

#: The pair of the wide core ``pairs="wide"`` implements unless asked for others.
WIDE_REPORT_PAIRS = (("utf-8", "utf-16-le"),)

#: The cores the clock targets are about: UTF-8 to UTF-16 at one byte per clock, as the
#: general transcoder and as the core built for speed.
HEADLINE_SPEC = CoreSpec("utf-8", "utf-16-le")
PIPELINED_SPEC = CoreSpec("utf-8", "utf-16-le", kind="pipelined")

#: The stages of the cores, and the UART bridge's parts, each implemented on its own: by the
#: name a report gives it. (The cores are named by their :class:`~utfhw.hdl.cores.CoreSpec`.)
STAGES = {
    **{form.decoder.__name__: form.decoder for form in FORMS.values()},
    **{form.encoder.__name__: form.encoder for form in FORMS.values()},
    "ByteOrderReader(2, detect)": lambda: ByteOrderReader(width=2, byteorder="detect"),
    "ByteOrderReader(4, detect)": lambda: ByteOrderReader(width=4, byteorder="detect"),
    "ByteOrderWriter(UTF-16, big)": lambda: ByteOrderWriter(layout=UTF16UnitLanes,
                                                            byteorder="big"),
    "ByteOrderWriter(UTF-32, big)": lambda: ByteOrderWriter(layout=UTF32UnitLanes,
                                                            byteorder="big"),
    "ByteOrderMarkStripper": ByteOrderMarkStripper,
    **{f"ByteOrderMarkWriter({name})": lambda form=form: ByteOrderMarkWriter(form=form)
       for name, form in FORMS.items()},
    "ErrorDropper": ErrorDropper,
    "UnitAssembler(2)": lambda: UnitAssembler(width=2),
    "LaneSerializer(UTF-16)": lambda: LaneSerializer(layout=UTF16UnitLanes),
    "UARTReceiver(104)": lambda: UARTReceiver(divisor=104),
    "UARTTransmitter(104)": lambda: UARTTransmitter(divisor=104),
    "UARTBridge(12 MHz)": lambda: UARTBridge(clk_freq=12e6),
    # Placed together, as a board holds them: does the validator fit beside the bridge, and
    # what does each cost the other's clock.
    "UARTBridge(12 MHz) + Validator(utf-8, 8)": lambda: Beside(
        bridge=STAGES["UARTBridge(12 MHz)"](),
        validator=CoreSpec("utf-8", "utf-8", kind="validator", width=8).build()),
}

#: What ``designs()`` accepts.
PAIRS = ("matrix", "all", "forms", "headline", "wide", "validator")


class Beside(wiring.Component):
    """Components side by side in one design, each with its own ports under its keyword's name
    and nothing between them.

    Parameters
    ----------
    **parts : :class:`~amaranth.lib.wiring.Component`
        The components, by the names of their ports' groups.
    """
    def __init__(self, **parts):
        self._parts = parts
        super().__init__({name: Out(part.signature) for name, part in parts.items()})

    def elaborate(self, platform):
        m = Module()
        for name, part in self._parts.items():
            m.submodules[name] = part
            wiring.connect(m, wiring.flipped(getattr(self, name)), part)
        return m


def design_name(spec):
    """The name a report gives the core ``spec`` (a :class:`~utfhw.hdl.cores.CoreSpec`):
    ``pipeline utf-8 -> utf-16-le`` for a ``Transcoder``, ``PipelinedUTF8ToUTF16(little)``,
    ``WideUTF8ToUTF16(16)`` for the wide core from UTF-8 to UTF-16-LE and
    ``WideTranscoder(utf-32-le -> utf-8, 4)`` for any other pair; another kind by its class,
    pair and width."""
    if spec.kind == "pipelined":
        return f"PipelinedUTF8ToUTF16({PIPELINED_PAIRS[(spec.source, spec.target)]})"
    if spec.kind == "wide":
        if (spec.source, spec.target) == ("utf-8", "utf-16-le"):
            return f"WideUTF8ToUTF16({spec.width})"
        return f"WideTranscoder({spec.source} -> {spec.target}, {spec.width})"
    if spec.kind == "transcoder":
        errors = "" if spec.errors == "replace" else f", errors={spec.errors_name}"
        return f"pipeline {spec.source} -> {spec.target}{errors}"
    width = "" if spec.width is None else f", {spec.width}"
    return f"{spec.core_name}({spec.source} -> {spec.target}{width})"


@dataclasses.dataclass(frozen=True)
class Design:
    """One design of a report: a core, named by its ``spec``, or a stage of :data:`STAGES`
    (``spec`` ``None``, ``name`` its key there)."""
    name: str
    spec: Optional[CoreSpec] = None
    #: The names of the :data:`DEVICES` it is placed on; ``None`` for all of them.
    devices: Optional[tuple] = None

    @classmethod
    def of(cls, spec, *, devices=None):
        """The design of the core ``spec``, placed on ``devices`` (default: all)."""
        return cls(design_name(spec), spec, devices)

    def build(self):
        """The component, new."""
        return self.spec.build() if self.spec is not None else STAGES[self.name]()

    @property
    def width(self):
        """Bytes per clock: the wide core's width, else 1."""
        return self.spec.width if self.spec is not None and self.spec.width else 1

    def fields(self):
        """The spec as a dict (JSON's form of it), or ``None`` for a stage."""
        return None if self.spec is None else dataclasses.asdict(self.spec)


def _sized(spec):
    """The devices the matrix places the core ``spec`` on (:data:`SIZED_DEVICES`)."""
    headline = (spec.source, spec.target) == (HEADLINE_SPEC.source, HEADLINE_SPEC.target)
    if spec.width > SIZED_ABOVE or (spec.kind == "wide" and not headline):
        return SIZED_DEVICES
    return None


def _wide(source, target, widths, sized=False):
    specs = [CoreSpec(source, target, kind="wide", width=width)
             for width in widths if width in wide_widths(source, target)]
    return [Design.of(spec, devices=_sized(spec) if sized else None) for spec in specs]


def _validators(widths, sized=False):
    """The validator of each form's plain codec at each of ``widths`` it takes, narrowest
    first (with ``sized``, on the devices :func:`matrix` gives it)."""
    specs = [CoreSpec(source, source, kind="validator", width=width)
             for source in _form_codecs() for width in widths
             if width in validator_widths(source)]
    return sorted((Design.of(spec, devices=_sized(spec) if sized else None)
                   for spec in specs), key=lambda design: design.spec.width)


def _form_codecs():
    return [plain_codec(form) for form in FORMS.values()]


def matrix(widths=WIDTHS):
    """Every design of the whole report, the smallest first so that a long run fills the most
    cells early: the stages, the ``Transcoder`` of every pair of codecs, the pipelined cores,
    the ``Transcoder`` with each of :data:`HANDLER_ERRORS` (on :data:`HANDLER_DEVICES`),
    then the wide core of every pair of forms (their plain codecs) at each of ``widths`` it
    takes, narrowest first. Kinds of core it has no rule for are left out (see
    :func:`kinds_in`). Each is placed on every device, but the wide core of every pair other
    than UTF-8 to UTF-16-LE, and any core wider than :data:`SIZED_ABOVE` bytes, on
    :data:`SIZED_DEVICES` alone."""
    forms = _form_codecs()
    by_kind = {
        "validator": _validators(widths, sized=True),
        "transcoder": [*(Design.of(CoreSpec(source, target)) for source in CODECS
                         for target in CODECS),
                       *(Design.of(CoreSpec(source, HANDLER_TARGET, errors=errors),
                                   devices=HANDLER_DEVICES)
                         for source in forms for errors in HANDLER_ERRORS)],
        "pipelined": [Design.of(CoreSpec(source, target, kind="pipelined"))
                      for source, target in PIPELINED_PAIRS],
        "wide": sorted((design for source in forms for target in forms
                        for design in _wide(source, target, widths, sized=True)),
                       key=lambda design: design.spec.width),
    }
    # The validators, small and new, before the wide cores, which take days.
    order = [kind for kind in CORE_KINDS if kind != "wide"] + ["wide"]
    return [*(Design(name) for name in STAGES),
            *(design for kind in order for design in by_kind.get(kind, []))]


def kinds_in(chosen):
    """The kinds of core of :data:`~utfhw.hdl.cores.CORE_KINDS` that ``chosen`` designs have
    a core of, and those it has none of: ``(present, absent)``."""
    present = {design.spec.kind for design in chosen if design.spec is not None}
    return ([kind for kind in CORE_KINDS if kind in present],
            [kind for kind in CORE_KINDS if kind not in present])


def designs(pairs="matrix", *, widths=None, wide_pairs=WIDE_REPORT_PAIRS):
    """The :class:`Design` s a report covers.

    Parameters
    ----------
    pairs : :class:`str`
        ``"matrix"``: everything (:func:`matrix`, at ``widths`` or every width); ``"all"``:
        every stage, the pipelined core and the ``Transcoder`` of every pair; ``"forms"``:
        the same for the pairs of the forms' plain codecs only; ``"headline"``: UTF-8 to
        UTF-16-LE only, general and pipelined; ``"wide"``: the pipelined core and the wide
        core for each of ``wide_pairs`` (source, target) at each of ``widths`` it takes
        (default :data:`WIDE_WIDTHS`); ``"validator"``: the validator of each form's plain
        codec at ``widths`` (default: every width).

    Raises
    ------
    :exc:`ValueError`
        If ``pairs`` is none of :data:`PAIRS` or a pair is unknown.
    """
    check_choice("pairs", pairs, PAIRS)
    wide_pairs = [canonical_pair(source, target) for source, target in wide_pairs]
    if pairs == "matrix":
        return matrix(WIDTHS if widths is None else widths)
    if pairs == "wide":
        return [Design.of(PIPELINED_SPEC),
                *(design for source, target in wide_pairs
                  for design in _wide(source, target, WIDE_WIDTHS if widths is None
                                      else widths))]
    if pairs == "headline":
        return [Design.of(HEADLINE_SPEC), Design.of(PIPELINED_SPEC)]
    if pairs == "validator":
        return _validators(WIDTHS if widths is None else widths)
    codecs = list(CODECS) if pairs == "all" else _form_codecs()
    return [*(Design(name) for name in STAGES), Design.of(PIPELINED_SPEC),
            *(Design.of(CoreSpec(source, target)) for source in codecs for target in codecs)]


def design_names(pairs="matrix", **options):
    """The names of :func:`designs`."""
    return [design.name for design in designs(pairs, **options)]


def fits(counts, device):
    """Whether cells of these ``counts`` (``{"lut4", "ff", "bram"}``) fit on ``device``: its
    LUT4s, flip-flops and block RAMs suffice."""
    return all(counts[kind] <= have
               for kind, have in zip(("lut4", "ff", "bram"), CAPACITY[device]))


def cell_counts(cells, family):
    """``{"lut4", "ff", "bram"}`` of Yosys's cells of ``family`` (``{cell type: number}``, as
    ``stat`` gives them), each LUT4 by its weight in :data:`FAMILIES`."""
    _, luts, flip_flops, block_rams = FAMILIES[family]
    return {
        "lut4": sum(count * luts.get(cell, 0) for cell, count in cells.items()),
        "ff": sum(count for cell, count in cells.items() if cell.startswith(flip_flops)),
        "bram": sum(count for cell, count in cells.items() if cell.startswith(block_rams)),
    }
