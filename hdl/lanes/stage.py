"""The base of the lane layer's stages: a stage of ``width`` lanes whose latency is a function of
its width alone."""

from amaranth.lib import wiring


__all__ = ["WidthStage", "check_lanes"]


def check_lanes(width):
    """Raise unless ``width`` is a power of two: the lanes of a stage. A core's output can have
    more lanes than its input has bytes (from UTF-16 to UTF-8, two bytes out for each byte
    in), so the stages take any power of two, not only a core's widths."""
    if not isinstance(width, int) or isinstance(width, bool) or width < 1 or width & (width - 1):
        raise ValueError(f"width must be a power of two, not {width!r}")


class WidthStage(wiring.Component):
    """Base of the wide stages of ``width`` lanes whose latency depends on nothing else. A
    subclass gives :meth:`latency_of`, so that a core can count its clocks before it builds
    the stage; ``latency`` is the stage's own. The subclass checks ``width`` (with :func:`check_lanes`, or for a stage
    that takes a core's input bytes :func:`~utfhw.hdl.unicode.params.check_width`) before it
    makes the layouts of its ports.
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
