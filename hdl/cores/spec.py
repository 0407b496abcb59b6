"""What every transcoding core offers, and the choice of core for a codec pair.

Every core utfhw builds (:class:`~utfhw.hdl.cores.transcoder.Transcoder`,
:class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16`, :class:`~utfhw.hdl.cores.wide.WideTranscoder`)
is an :class:`amaranth.lib.wiring.Component` that satisfies :class:`Core`. A
:class:`CoreSpec` names one: the codec pair, the error handler, and which core at which width.
It is the one value Verilog generation, the simulators, the port description and the FuseSoC
core pass around, and :meth:`CoreSpec.build` (or :func:`make_core`) the one place that builds
the core it names.
"""

import dataclasses
from typing import Optional, Protocol, runtime_checkable

from ..forms import CODECS, canonical_pair
from ..unicode.params import (ERROR_HANDLERS, HARDWARE_ERROR_HANDLERS, check_choice,
                              check_errors, check_width, handler_pair, handlers_name)
from .pipelined import PipelinedUTF8ToUTF16
from .transcoder import TRANSCODER_ENCODING_HANDLERS, Transcoder
from .validator import Validator, check_validator_width
from .wide import WIDE_PAIRS, WideTranscoder, check_wide_width


__all__ = ["Core", "PIPELINED_PAIRS", "WIDE_PAIRS", "CORE_KINDS", "WIDTH_KINDS",
           "PAIR_DECODING_HANDLERS", "PAIR_ENCODING_HANDLERS", "CoreSpec", "check_core",
           "check_hardware_errors", "make_core"]


@runtime_checkable
class Core(Protocol):
    """The interface of a transcoding core.

    Attributes
    ----------
    i : :py:`In(stream.Signature(UnitBytes(unit_bytes)))`
        Source code units in wire order, one per beat (the wide core: up to ``width`` bytes,
        :class:`~utfhw.hdl.unicode.layout.ByteLanes`); ``count`` bytes present, ``last`` on the
        final beat of a message (an empty message is one beat with ``count == 0`` and
        ``last``).
    o : :py:`Out(stream.Signature(Lanes(unit, lanes)))`
        Target code units in wire order, packed from lane 0, each with its
        :class:`~utfhw.hdl.unicode.layout.ErrorKind`; ``last`` on the beat that answers the input beat
        with ``last``.
    source, target : :class:`str`
        CPython's codec names.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.
    latency : :class:`int`
        Clocks from an accepted input beat to the output beat it produces, with the output
        ready.
    capacity : :class:`int`
        The most beats the core holds at once (input taken, output not yet taken).
    """
    i: object
    o: object
    source: str
    target: str
    errors: str
    latency: int
    capacity: int


#: The pairs :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16` covers, with their byte
#: order.
PIPELINED_PAIRS = {("utf-8", "utf-16-le"): "little", ("utf-8", "utf-16-be"): "big"}

#: The kinds of core: the :class:`~utfhw.hdl.cores.transcoder.Transcoder` (any pair, one code
#: unit per clock), :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16`,
#: :class:`~utfhw.hdl.cores.wide.WideTranscoder` (``width`` bytes per clock) and the
#: :class:`~utfhw.hdl.cores.validator.Validator` (``width`` bytes per clock, passed through
#: with CPython's verdict; its target is its source).
CORE_KINDS = ("transcoder", "pipelined", "wide", "validator")

#: The kinds of core that take ``width`` bytes a beat.
WIDTH_KINDS = ("wide", "validator")


def _pairs(pairs):
    """``utf-8 to utf-16-le or utf-16-be``: the pairs a kind of core covers, the targets with the
    same sources together, as a message says them."""
    def listed(names):
        names = list(dict.fromkeys(names))
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
    sources_of = {}
    for source, target in pairs:
        sources_of.setdefault(target, []).append(source)
    groups = {}
    for target, sources in sources_of.items():
        groups.setdefault(tuple(sources), []).append(target)
    return ", and for ".join(
        f"{'any source codec' if set(sources) == set(CODECS) else listed(sources)} to "
        f"{listed(targets)}" for sources, targets in groups.items())


# How the messages name the arguments that choose a core.
_NAMES = {"width": "width", "pipelined": "pipelined=True", "validate": "validate=True",
          "target": "target"}


#: The handlers of a ``Transcoder``'s pair: the gateware's, and ``"strict"`` on either side,
#: which the consumer raises from the error kinds of the core :attr:`CoreSpec.hardware_errors`
#: names.
PAIR_DECODING_HANDLERS = ERROR_HANDLERS
PAIR_ENCODING_HANDLERS = (*TRANSCODER_ENCODING_HANDLERS, "strict")


def check_hardware_errors(errors):
    """Raise :exc:`ValueError` unless the gateware runs ``errors`` itself: ``"replace"`` or
    ``"ignore"``, or a ``Transcoder``'s pair of them with an escape among those on encoding
    (``"strict"`` is the consumer's)."""
    if isinstance(errors, str):
        check_errors(errors)
    else:
        handler_pair(errors, decoding=HARDWARE_ERROR_HANDLERS,
                     encoding=TRANSCODER_ENCODING_HANDLERS)


def _errors(errors, kind):
    """``errors`` as a :class:`CoreSpec` keeps it: one handler's name, or a pair of two
    different ones (a pair of one handler is its name). Raise unless the core runs it."""
    if isinstance(errors, str):
        check_errors(errors, handlers=ERROR_HANDLERS)
        return errors
    decoding, encoding = handler_pair(errors, decoding=PAIR_DECODING_HANDLERS,
                                      encoding=PAIR_ENCODING_HANDLERS)
    if decoding == encoding:
        return decoding
    if kind != "transcoder":
        raise ValueError(f"errors must be one handler's name for the {kind} core, not "
                         f"{errors!r} (a pair of handlers is for the Transcoder)")
    return (decoding, encoding)


def _check(source, target, errors, kind, width, names):
    """Raise unless the core is one utfhw builds; ``source`` and ``target`` are canonical."""
    check_choice("kind", kind, CORE_KINDS)
    if (_errors(errors, kind) == ("strict", "ignore")
            and not CODECS[target].form.holds_every_code_point):
        # The characters the target cannot hold go without a trace, so nothing in the output
        # says how much of the input came before a decoding error.
        raise ValueError(f"errors must be another pair to {target}, not ('strict', 'ignore') "
                         f"(the characters it drops leave no trace of where a decoding error "
                         f"lies)")
    if kind in WIDTH_KINDS:
        check_width(width, name=names["width"])
    elif width is not None:
        raise ValueError(f"{names['width']} is for the wide core and the validator, not the "
                         f"{kind} core")
    if kind == "pipelined" and (source, target) not in PIPELINED_PAIRS:
        raise ValueError(f"{names['pipelined']} is for {_pairs(PIPELINED_PAIRS)}, not "
                         f"{source} to {target}")
    if kind == "wide":
        # Every pair has a wide core; the widths it takes depend on the pair.
        check_wide_width(width, source=source, target=target, name=names["width"])
    if kind == "validator":
        if target != source:
            raise ValueError(f"a validator passes its source through: {names['target']} must "
                             f"be {source}, not {target}")
        check_validator_width(width, source=source, name=names["width"])


@dataclasses.dataclass(frozen=True)
class CoreSpec:
    """Which core: a codec pair, its error handler, and the kind of core at its width.

    Made directly or, from the keyword form the simulators and the command line take, by
    :meth:`of`. It is checked when it is made.

    Attributes
    ----------
    source, target : :class:`str`
        The codecs: any name CPython's :func:`codecs.lookup` takes for one of the ten
        (``utf8``, ``iso-8859-1``, ``us-ascii``); the attributes hold utfhw's name of each
        (:func:`~utfhw.hdl.forms.canonical_codec`: ``utf-8``, ``latin-1``, ``ascii``).
    errors : :class:`str` or :class:`tuple`
        ``"replace"``, ``"ignore"`` or ``"strict"`` (which the ``"replace"`` core serves:
        :attr:`hardware_errors`); or, for the ``Transcoder``, a pair ``(decoding,
        encoding)``, as ``data.decode(source, decoding).encode(target, encoding)`` takes it:
        decoding one of :data:`PAIR_DECODING_HANDLERS`, encoding one of
        :data:`PAIR_ENCODING_HANDLERS`, but not ``("strict", "ignore")`` to Latin-1 or ASCII.
        A pair of one handler is kept as its name.
    kind : :class:`str`
        One of :data:`CORE_KINDS`.
    width : :class:`int` or None
        Bytes per beat of the wide core or the validator (1, 2, 4, 8, 16, 32 or 64); ``None``
        for the others.

    Raises
    ------
    :exc:`ValueError`
        If a codec, ``errors``, ``kind`` or ``width`` is unknown, ``width`` is missing for the
        wide core or given for another, or the kind does not cover the pair.
    """
    source: str = "utf-8"
    target: str = "utf-16-le"
    errors: str = "replace"
    kind: str = "transcoder"
    width: Optional[int] = None

    def __post_init__(self):
        # Frozen, so the canonical names go in the way dataclasses' own __init__ puts values.
        source, target = canonical_pair(self.source, self.target)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "target", target)
        _check(self.source, self.target, self.errors, self.kind, self.width, _NAMES)
        object.__setattr__(self, "errors", _errors(self.errors, self.kind))

    @classmethod
    def of(cls, source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False,
           width=None, validate=False, names=None):
        """The core :func:`make_core` builds for these arguments: the validator of ``source``
        if ``validate`` (``target`` is then ``None`` or ``source``), the wide core if
        ``width`` is given, the pipelined core if ``pipelined``, else the ``Transcoder``.
        ``names`` says how the caller names ``width``, ``pipelined=True``, ``validate=True``
        and ``target`` in its messages (the command line: ``{"width": "--width", ...}``)."""
        names = {**_NAMES, **(names or {})}
        if validate:
            if pipelined:
                raise ValueError(f"{names['pipelined']} is a transcoder, not a validator "
                                 f"({names['validate']})")
            if width is None:
                raise ValueError(f"{names['width']} must be given for a validator "
                                 f"({names['validate']})")
            source, target = canonical_pair(source, source if target is None else target)
            _check(source, target, errors, "validator", width, names)
            return cls(source, target, errors, "validator", width)
        if width is not None:
            check_width(width, name=names["width"])
            if pipelined:
                raise ValueError(f"{names['pipelined']} and {names['width']} are two different "
                                 f"cores; give one of them")
        kind = "wide" if width is not None else "pipelined" if pipelined else "transcoder"
        source, target = canonical_pair(source, target)
        _check(source, target, errors, kind, width, names)
        return cls(source, target, errors, kind, width)

    @property
    def pipelined(self):
        return self.kind == "pipelined"

    @property
    def hardware_errors(self):
        """The handler the gateware runs: ``"replace"`` for ``"strict"``, on each side of a
        pair."""
        if isinstance(self.errors, str):
            return "replace" if self.errors == "strict" else self.errors
        decoding, encoding = ("replace" if side == "strict" else side for side in self.errors)
        return decoding if decoding == encoding else (decoding, encoding)

    @property
    def raises(self):
        """Whether a side of :attr:`errors` is ``"strict"``: the consumer then raises CPython's
        exception from the error kinds of the :attr:`hardware_errors` core."""
        return "strict" in ((self.errors,) if isinstance(self.errors, str) else self.errors)

    @property
    def errors_name(self):
        """:attr:`errors` as the command line writes it: ``replace``,
        ``replace,xmlcharrefreplace``."""
        return handlers_name(self.errors)

    def with_errors(self, errors):
        """The same core with another error handler."""
        return dataclasses.replace(self, errors=errors)

    @property
    def core_name(self):
        """The class of the core it builds, e.g. ``"WideTranscoder"``."""
        return {"transcoder": Transcoder, "pipelined": PipelinedUTF8ToUTF16,
                "wide": WideTranscoder, "validator": Validator}[self.kind].__name__

    @property
    def signature(self):
        """The ports of the core it names, an :class:`~amaranth.lib.wiring.Signature`, found
        without making the core (so there is no unused core to warn of): ``i`` and ``o``,
        streams of :attr:`input_layout` and :attr:`output_layout`."""
        if self.kind == "wide":
            return WideTranscoder.signature_of(self.source, self.target, self.width)
        if self.kind == "validator":
            return Validator.signature_of(self.source, self.width)
        if self.kind == "pipelined":
            return PipelinedUTF8ToUTF16.signature_of()
        return Transcoder.signature_of(self.source, self.target)

    @property
    def input_layout(self):
        """The payload of the core's input stream ``i``."""
        return self.signature.members["i"].signature.members["payload"].shape

    @property
    def output_layout(self):
        """The payload of the core's output stream ``o``, a
        :class:`~utfhw.hdl.unicode.layout.Lanes` (a validator's: a
        :class:`~utfhw.hdl.unicode.layout.ValidatedBytes`)."""
        return self.signature.members["o"].signature.members["payload"].shape

    def build(self):
        """The core, a new :class:`~amaranth.lib.wiring.Component` (with
        :attr:`hardware_errors`)."""
        if self.kind == "wide":
            return WideTranscoder(source=self.source, target=self.target, width=self.width,
                                  errors=self.hardware_errors)
        if self.kind == "validator":
            return Validator(source=self.source, width=self.width)
        if self.kind == "pipelined":
            return PipelinedUTF8ToUTF16(byteorder=PIPELINED_PAIRS[(self.source, self.target)],
                                        errors=self.hardware_errors)
        return Transcoder(source=self.source, target=self.target, errors=self.hardware_errors)


def check_core(source, target, *, errors="replace", pipelined=False, width=None,
               validate=False):
    """Raise :exc:`ValueError` unless :func:`make_core` can build this core (it builds
    nothing); return its :class:`CoreSpec`."""
    return CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width,
                       validate=validate)


def make_core(source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False,
              width=None, validate=False):
    """The core for a codec pair: a :class:`~utfhw.hdl.cores.transcoder.Transcoder`; with
    ``pipelined=True`` the :class:`~utfhw.hdl.cores.pipelined.PipelinedUTF8ToUTF16`; with
    ``width`` (bytes per clock: 1, 2, 4, 8, 16, 32 or 64) the
    :class:`~utfhw.hdl.cores.wide.WideTranscoder` (:data:`WIDE_PAIRS`: all 100 pairs, at the
    widths :func:`~utfhw.hdl.cores.wide.wide_widths` gives). The pipelined core is UTF-8 to UTF-16-LE or -BE
    only. ``errors="strict"`` makes the ``"replace"`` core, whose error kinds tell the consumer
    where to stop. With ``validate=True`` (and ``width``, ``target`` ``None`` or
    ``source``), the :class:`~utfhw.hdl.cores.validator.Validator` of ``source``.
    ``CoreSpec.of(...).build()`` in one call.

    Raises
    ------
    :exc:`ValueError`
        If a codec, ``errors`` or ``width`` is unknown, ``pipelined`` or ``width`` is asked
        for another pair, or both are given.
    """
    return CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width,
                       validate=validate).build()
