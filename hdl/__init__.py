"""utfhw gateware: Amaranth components and their payload layouts. Never imports ``utfhw.sim``."""

from .layout import (ErrorKind, REPLACEMENT_CHARACTER, BYTE_ORDER_MARK, UnitBytes, CodePoint,
                     UTF8Unit, UTF16Unit, UTF32Unit, Lanes, CodePointLanes, UTF8UnitLanes,
                     UTF16UnitLanes, UTF32UnitLanes, ENCODING_FORMS)
from .utf8 import UTF8Decoder, UTF8Encoder
from .utf16 import UTF16Decoder, UTF16Encoder
from .utf32 import UTF32Decoder, UTF32Encoder
from .byteorder import (ByteOrderReader, ByteOrderWriter, ByteOrderMarkStripper,
                        ByteOrderMarkWriter)
from .errors import ErrorDropper
from .transcoder import Transcoder

__all__ = [
    "ErrorKind", "REPLACEMENT_CHARACTER", "BYTE_ORDER_MARK", "UnitBytes", "CodePoint",
    "UTF8Unit", "UTF16Unit", "UTF32Unit", "Lanes", "CodePointLanes", "UTF8UnitLanes",
    "UTF16UnitLanes", "UTF32UnitLanes", "ENCODING_FORMS",
    "UTF8Decoder", "UTF8Encoder", "UTF16Decoder", "UTF16Encoder", "UTF32Decoder",
    "UTF32Encoder", "ByteOrderReader", "ByteOrderWriter", "ByteOrderMarkStripper",
    "ByteOrderMarkWriter", "ErrorDropper", "Transcoder",
]
