"""utfhw gateware: Amaranth components and their payload layouts. Never imports ``utfhw.sim``."""

from .layout import (ErrorKind, REPLACEMENT_CHARACTER, Byte, CodePoint, UTF16Unit, Lanes,
                     CodePointLanes, UTF16UnitLanes)
from .utf8 import UTF8Decoder
from .utf16 import UTF16Encoder, UTF16ByteOrder
from .pipeline import UTF8ToUTF16

__all__ = [
    "ErrorKind", "REPLACEMENT_CHARACTER", "Byte", "CodePoint", "UTF16Unit", "Lanes",
    "CodePointLanes", "UTF16UnitLanes",
    "UTF8Decoder", "UTF16Encoder", "UTF16ByteOrder", "UTF8ToUTF16",
]
