"""The base of a form's wide front end: the stages a source form puts before the lane layer."""

from ..unicode.form import check_form
from ..unicode.params import check_errors, check_width


__all__ = ["WideFront"]


class WideFront:
    """A source form's wide stages for one core: from a beat of input bytes to a beat of slots
    of target units, in message order, for the packer
    (:class:`~utfhw.hdl.lanes.repack.Packer`). Each form's folder has its subclass, which
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
    stage_names : :class:`tuple` of :class:`str`
        The names its stages have in the core, in order.
    packed : :class:`bool`
        Whether the slots of every beat it gives are filled from slot 0 up, with none empty
        between: every source unit present fills all its slots, whatever it is, so the beat
        needs no compaction. It is, where each code point the source gives (U+FFFD included)
        is the same number of target units, no source unit is dropped (a mark read, an error
        ignored) and none is part of a longer sequence (UTF-8, UTF-16); a form's subclass
        says so from the two forms' descriptions.
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
        self.packed = False
        self.stage_names = ()

    def units_of(self, code_point):
        """Target units of ``code_point`` (an :class:`int`): 1 for ``?`` where the target cannot
        hold it."""
        target = self.target.form
        if code_point > target.last_code_point:
            return 1
        return -(-target.code_point_bytes(code_point) // target.unit_bytes)

    def drops(self, *, source_errors):
        """Whether a source unit may give no slot at all: a mark the source reads, or with
        ``ignore`` an error (``source_errors``: the source gives one) or a code point the target
        cannot hold."""
        source, target = self.source.form, self.target.form
        ignores = self.errors == "ignore" and (
            source_errors or source.last_code_point > target.last_code_point)
        return self.source.mark or ignores

    def build(self, m):
        """Add the stages to ``m``; return the first (whose ``i`` takes the input beats) and
        the stream of slots they give."""
        raise NotImplementedError
