"""What every transcoding core offers, and the choice of core for a codec pair.

Every core utfhw builds (:class:`~utfhw.hdl.scalar.transcoder.Transcoder`,
:class:`~utfhw.hdl.scalar.pipelined.PipelinedUTF8ToUTF16`, :class:`~utfhw.hdl.wide.core.WideUTF8ToUTF16`)
is an
:class:`amaranth.lib.wiring.Component` that satisfies :class:`Core`, and
:func:`make_core` is the one place that picks the core for a pair: Verilog generation, the
simulators, the implementation report and the tests all call it.
"""

from typing import Protocol, runtime_checkable

from .unicode.params import ERROR_HANDLERS, check_errors, check_pair, check_width
from .scalar.pipelined import PipelinedUTF8ToUTF16
from .scalar.transcoder import Transcoder
from .wide.core import WideUTF8ToUTF16


__all__ = ["Core", "PIPELINED_PAIRS", "check_core", "make_core"]


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


#: The pairs :class:`~utfhw.hdl.scalar.pipelined.PipelinedUTF8ToUTF16` and
#: :class:`~utfhw.hdl.wide.core.WideUTF8ToUTF16` cover, with their byte order.
PIPELINED_PAIRS = {("utf-8", "utf-16-le"): "little", ("utf-8", "utf-16-be"): "big"}


def check_core(source, target, *, errors="replace", pipelined=False, width=None):
    """Raise :exc:`ValueError` unless :func:`make_core` can build this core (it builds
    nothing)."""
    check_pair(source, target)
    check_errors(errors, handlers=ERROR_HANDLERS)
    if width is not None:
        check_width(width)
        if pipelined:
            raise ValueError("pipelined=True and width are two different cores; give one of "
                             "them")
    for option, chosen in (("width", width is not None), ("pipelined=True", pipelined)):
        if chosen and (source, target) not in PIPELINED_PAIRS:
            raise ValueError(f"{option} is for utf-8 to utf-16-le or utf-16-be, not {source} "
                             f"to {target}")


def make_core(source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False,
              width=None):
    """The core for a codec pair: a :class:`~utfhw.hdl.scalar.transcoder.Transcoder`; with
    ``pipelined=True`` the :class:`~utfhw.hdl.scalar.pipelined.PipelinedUTF8ToUTF16`; with ``width``
    (bytes per clock: 1, 2, 4, 8, 16, 32 or 64) the :class:`~utfhw.hdl.wide.core.WideUTF8ToUTF16`.
    The last two are UTF-8 to UTF-16-LE or -BE only. ``errors="strict"`` makes the
    ``"replace"`` core, whose error kinds tell the consumer where to stop.

    Raises
    ------
    :exc:`ValueError`
        If a codec, ``errors`` or ``width`` is unknown, ``pipelined`` or ``width`` is asked
        for another pair, or both are given.
    """
    check_core(source, target, errors=errors, pipelined=pipelined, width=width)
    hardware_errors = "replace" if errors == "strict" else errors
    if width is not None:
        return WideUTF8ToUTF16(width=width, byteorder=PIPELINED_PAIRS[(source, target)],
                               errors=hardware_errors)
    if pipelined:
        return PipelinedUTF8ToUTF16(byteorder=PIPELINED_PAIRS[(source, target)],
                                    errors=hardware_errors)
    return Transcoder(source=source, target=target, errors=hardware_errors)
