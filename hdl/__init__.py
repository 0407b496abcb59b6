"""utfhw gateware: Amaranth components and their payload layouts. Never imports ``utfhw.sim``."""

from .layout import *
from .utf8 import UTF8Decoder
from .utf16 import UTF16Encoder, UTF16ByteOrder
from .pipeline import UTF8ToUTF16
