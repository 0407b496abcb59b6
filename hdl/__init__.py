"""utfhw gateware: Amaranth components and their payload layouts.

Imports nothing of ``utfhw.sim``, ``utfhw.boards`` or the command line: everything else is
built on this package, never the other way round.
"""

from .unicode.layout import (ErrorKind, REPLACEMENT_CHARACTER, ENCODE_REPLACEMENT,
                             BYTE_ORDER_MARK, UnitBytes, ByteLanes, CodePoint, UTF8Unit,
                             UTF16Unit, UTF32Unit, Lanes, CodePointLanes, UTF8UnitLanes,
                             UTF16UnitLanes, UTF32UnitLanes, ByteUnitLanes, FramedByte,
                             ValidationResult, ValidatedBytes)
from .unicode.form import Form
from .forms import FORMS, CODECS, Codec, ENCODER_LANES
from .forms.utf8.scalar import UTF8Decoder, UTF8Encoder
from .forms.utf16.scalar import UTF16Decoder, UTF16Encoder
from .forms.utf32.scalar import UTF32Decoder, UTF32Encoder
from .forms.latin1.scalar import Latin1Decoder
from .forms.ascii.scalar import ASCIIDecoder
from .scalar.single_byte import SingleByteDecoder, SingleByteEncoder, ReplaceUnencodable
from .scalar.byteorder import (ByteOrderReader, ByteOrderWriter, ByteOrderMarkStripper,
                        ByteOrderMarkWriter)
from .scalar.error_dropper import ErrorDropper
from .cores.transcoder import Transcoder
from .cores.pipelined import PipelinedUTF8ToUTF16
from .cores.wide import WideTranscoder, WideUTF8ToUTF16, output_lanes, wide_widths
from .cores.validator import Validator, validator_widths
from .cores import (Core, CORE_KINDS, CoreSpec, PIPELINED_PAIRS, WIDE_PAIRS, check_core,
                    make_core)
from .axis import AXIStreamTop
from .reset import ResetGuard
from .empty_beats import WithoutEmptyBeats
from .uart import UARTReceiver, UARTTransmitter
from .bytestream import UnitAssembler, LaneSerializer
from .bridge import UARTBridge

__all__ = [
    "ErrorKind", "REPLACEMENT_CHARACTER", "ENCODE_REPLACEMENT", "BYTE_ORDER_MARK", "UnitBytes",
    "ByteLanes", "CodePoint", "UTF8Unit", "UTF16Unit", "UTF32Unit", "Lanes", "CodePointLanes",
    "UTF8UnitLanes", "UTF16UnitLanes", "UTF32UnitLanes", "ByteUnitLanes", "ENCODER_LANES",
    "FramedByte", "Form", "FORMS", "CODECS", "Codec", "UTF8Decoder", "UTF8Encoder",
    "UTF16Decoder", "UTF16Encoder", "UTF32Decoder", "UTF32Encoder", "Latin1Decoder",
    "ASCIIDecoder", "SingleByteDecoder", "SingleByteEncoder", "ReplaceUnencodable",
    "ByteOrderReader", "ByteOrderWriter",
    "ByteOrderMarkStripper", "ByteOrderMarkWriter", "ErrorDropper", "Transcoder",
    "PipelinedUTF8ToUTF16", "WideTranscoder", "WideUTF8ToUTF16", "output_lanes", "wide_widths",
    "Validator", "validator_widths", "ValidationResult", "ValidatedBytes",
    "Core", "CORE_KINDS", "CoreSpec", "PIPELINED_PAIRS", "WIDE_PAIRS", "check_core",
    "make_core", "AXIStreamTop", "ResetGuard", "WithoutEmptyBeats", "UARTReceiver",
    "UARTTransmitter", "UnitAssembler", "LaneSerializer", "UARTBridge",
]
