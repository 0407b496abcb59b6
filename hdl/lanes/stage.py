"""The base of the lane layer's stages: a stage of ``width`` lanes whose latency is a function of
its width alone."""

from amaranth.lib import wiring


__all__ = ["WidthStage"]


class WidthStage(wiring.Component):
    """Base of the wide stages of ``width`` lanes whose latency depends on nothing else. A
    subclass gives :meth:`latency_of`, so that a core can count its clocks before it builds
    the stage; ``latency`` is the stage's own. The subclass checks ``width`` before it makes
    the layouts of its ports: a stage of a core's input bytes with
    :func:`~utfhw.hdl.unicode.params.check_width`, a stage of items with
    :func:`~utfhw.hdl.unicode.params.check_power_of_two` (a core's output can have more lanes
    than its input has bytes: from UTF-16 to UTF-8, two bytes out for each byte in).
    """
    def __init__(self, signature, *, width):
        self._width = width
        #: Clocks from an input beat to the output beat it produces (or completes).
        self.latency = self.latency_of(width)
        super().__init__(signature)

    @property
    def width(self):
        return self._width

    @staticmethod
    def latency_of(width):
        """The latency of the stage at ``width`` lanes."""
        raise NotImplementedError
