"""Byte classes from nibble decodes: the two-level logic every pipelined UTF-8 stage uses to say
what a byte is, one LUT4 deep per level."""

from amaranth.hdl import Const, Signal
from amaranth.lib import data

from .tables import nibble_terms


__all__ = ["range_flag", "NibbleFlags"]


def range_flag(low, high):
    """The name of the flag of the bytes ``low`` to ``high``."""
    return f"in_{low:02x}_{high:02x}"


def _decode_name(which, values):
    return f"{which}_{''.join(f'{value:x}' for value in sorted(values))}"


class NibbleFlags:
    """Flags that say whether a byte lies in sets of ranges, split over two pipeline stages.

    The first stage decodes each nibble of the byte against every set of nibble values a flag
    needs (a function of four bits: one LUT4 each); the second ORs, for each flag, ANDs of one
    high and one low decode (see :func:`~utfhw.hdl.unicode.tables.nibble_terms`), one or two LUT4s.

    Parameters
    ----------
    flag_ranges : :class:`dict`
        Each flag's name, with the list of ``(low, high)`` byte ranges it covers.

    Attributes
    ----------
    layout : :class:`~amaranth.lib.data.StructLayout`
        The decodes the first stage registers, one bit each.
    """
    def __init__(self, flag_ranges):
        self._terms = {}
        decodes = {}
        for flag, ranges in flag_ranges.items():
            self._terms[flag] = []
            for highs, lows in nibble_terms(ranges):
                high = _decode_name("high", highs)
                low = None if len(lows) == 16 else _decode_name("low", lows)
                self._terms[flag].append((high, low))
                decodes[high] = ("high", highs)
                if low is not None:
                    decodes[low] = ("low", lows)
        self._decodes = decodes
        self.layout = data.StructLayout({name: 1 for name in decodes})

    @property
    def flags(self):
        """The flags' names."""
        return tuple(self._terms)

    def decode(self, m, byte):
        """The first stage: every nibble decode of ``byte``, as a value of :attr:`layout`."""
        result = Signal(self.layout)
        nibbles = {"high": byte[4:8], "low": byte[0:4]}
        for name, (which, values) in self._decodes.items():
            patterns = [format(value, "04b") for value in sorted(values)]
            m.d.comb += getattr(result, name).eq(nibbles[which].matches(*patterns))
        return result

    def flag(self, decodes, name):
        """The second stage: flag ``name`` from the registered ``decodes``."""
        value = Const(0)
        for high, low in self._terms[name]:
            term = getattr(decodes, high)
            if low is not None:
                term = term & getattr(decodes, low)
            value = value | term
        return value
