"""ISO/IEC 8859-1 (Latin-1): its description, :data:`LATIN1`.

A byte is the code point of its value, U+0000 to U+00FF, so every byte decodes; as a target,
a code point above U+00FF is one the form cannot hold. Its gateware is what every one-byte
form shares (:mod:`utfhw.hdl.scalar.single_byte`, :mod:`utfhw.hdl.wide.single_byte`), told
its last code point.
"""

from ...scalar.single_byte import SingleByteEncoder
from ...unicode.form import Form
from ...unicode.layout import ByteUnitLanes, UTF8Unit
from ...wide.single_byte import SingleByteChecks, SingleByteFront
from .scalar import LAST_CODE_POINT, Latin1Decoder


__all__ = ["LATIN1"]


LATIN1 = Form(
    name="latin-1",
    unit_bytes=1,
    codecs=(("latin-1", None, False),),
    unit=UTF8Unit,
    encoder_lanes=ByteUnitLanes,
    most_units=1,
    encode=lambda value: ([value[0:8]], 1),
    mark=(),
    code_point_bytes=lambda code_point: 1,
    shortest_error=None,
    error_kinds={},
    decoder=Latin1Decoder,
    encoder=SingleByteEncoder,
    wide=SingleByteFront,
    check=SingleByteChecks,
    last_code_point=LAST_CODE_POINT,
    unencodable_reason="ordinal not in range(256)",
)
