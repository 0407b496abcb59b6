"""The base of a form's wide front end: the stages a source form puts before the lane layer."""

from ..unicode.form import check_form
from ..unicode.params import check_errors, check_width


__all__ = ["WideFront"]


class WideFront:
    """A source form's wide stages for one core: from a beat of input bytes to a beat of slots
    of target units, in message order, for the compactor
    (:class:`~utfhw.hdl.lanes.compact.Compactor`). Each form's folder has its subclass, which
    its :class:`~utfhw.hdl.unicode.form.Form` names as ``wide``; the
    :class:`~utfhw.hdl.cores.wide.WideTranscoder` builds one and joins it with the lane layer.

    The stages never stop: a beat goes in on every clock its ``valid`` is high. Their clocks
    are :attr:`latency`, counted before they are built.

    Parameters
    ----------
    source, target : :class:`~utfhw.hdl.forms.Codec`
        The codecs of the core.
    width : :class:`int`
        Bytes per input beat.
    errors : :class:`str`
        ``"replace"`` or ``"ignore"``.

    Attributes
    ----------
    positions : :class:`int`
        Bytes a beat of the stages holds: ``width``, or more when narrow beats are gathered
        first.
    slots : :class:`int`
        Slots of the beat the stages give.
    latency : :class:`int`
        Clocks from the input to that beat.
    expansion : object or None
        A stage after a queue that rewrites the beats the front gives over more than a clock
        (from UTF-8 to UTF-8: U+FFFD is three bytes), or ``None``.
    """
    def __init__(self, *, source, target, width, errors):
        check_form(source.form)
        check_form(target.form)
        check_width(width, minimum=source.form.unit_bytes, of=source.name)
        check_errors(errors)
        self.source, self.target, self.width, self.errors = source, target, width, errors
        #: The order the stages write target units in: UTF-8's bytes have one.
        self.unit_order = target.target_byteorder or "little"
        self.positions = width
        self.expansion = None

    def build(self, m):
        """Add the stages to ``m``; return the first (whose ``i`` takes the input beats) and
        the stream of slots they give."""
        raise NotImplementedError
