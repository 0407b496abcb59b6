"""UTF-8 (Unicode ch. 3, D92; RFC 3629): its description, :data:`UTF8`.

Its gateware: the scalar decoder and encoder (:mod:`.scalar`), the wide stages that classify
and decode each lane (:mod:`.wide`) and expand UTF-8 to UTF-8's replacements (:mod:`.expand`),
and the wide front end that joins them (:mod:`.front`).
"""

from ...unicode.form import Form
from ...unicode.layout import ErrorKind, UTF8Unit, UTF8UnitLanes
from ...unicode.tables import utf8_bytes
from .check import UTF8Checks
from .front import Expansion, UTF8Front
from .scalar import UTF8Decoder, UTF8Encoder


__all__ = ["UTF8"]


UTF8 = Form(
    name="utf-8",
    unit_bytes=1,
    codecs=(("utf-8", None, False), ("utf-8-sig", None, True)),
    unit=UTF8Unit,
    encoder_lanes=UTF8UnitLanes,
    most_units=4,
    encode=utf8_bytes,
    mark=(0xEF, 0xBB, 0xBF),
    code_point_bytes=lambda code_point: 1 + (code_point >= 0x80) + (code_point >= 0x800)
    + (code_point >= 0x10000),
    shortest_error=1,
    error_kinds={
        ErrorKind.INVALID_START_BYTE: "invalid start byte",
        ErrorKind.INVALID_CONTINUATION_BYTE: "invalid continuation byte",
        ErrorKind.UNEXPECTED_END_OF_DATA: "unexpected end of data",
    },
    decoder=UTF8Decoder,
    encoder=UTF8Encoder,
    wide=UTF8Front,
    check=UTF8Checks,
    expansion=Expansion,
)
