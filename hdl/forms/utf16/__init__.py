"""UTF-16 (Unicode ch. 3, D91; RFC 2781): its description, :data:`UTF16`.

Its gateware: the scalar decoder and encoder (:mod:`.scalar`), the wide stages that classify
and decode each unit (:mod:`.wide`), and the wide front end that joins them (:mod:`.front`).
"""

from ...unicode.form import Form
from ...unicode.layout import BYTE_ORDER_MARK, ErrorKind, UTF16Unit, UTF16UnitLanes
from ...unicode.tables import utf16_units
from .check import UTF16Checks
from .front import UTF16Front
from .scalar import UTF16Decoder, UTF16Encoder


__all__ = ["UTF16"]


UTF16 = Form(
    name="utf-16",
    unit_bytes=2,
    codecs=(("utf-16", "detect", True), ("utf-16-le", "little", False),
            ("utf-16-be", "big", False)),
    unit=UTF16Unit,
    encoder_lanes=UTF16UnitLanes,
    most_units=2,
    encode=utf16_units,
    mark=(BYTE_ORDER_MARK,),
    code_point_bytes=lambda code_point: 2 if code_point < 0x10000 else 4,
    shortest_error=2,
    error_kinds={
        ErrorKind.UNEXPECTED_END_OF_DATA: "unexpected end of data",
        ErrorKind.TRUNCATED_DATA: "truncated data",
        ErrorKind.UNPAIRED_HIGH_SURROGATE: "illegal UTF-16 surrogate",
        ErrorKind.SURROGATE: "illegal encoding",
    },
    decoder=UTF16Decoder,
    encoder=UTF16Encoder,
    wide=UTF16Front,
    check=UTF16Checks,
)
