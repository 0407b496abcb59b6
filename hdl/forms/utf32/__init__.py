"""UTF-32 (Unicode ch. 3, D90): its description, :data:`UTF32`.

Its gateware: the scalar decoder and encoder (:mod:`.scalar`), the wide stage that decodes
each unit (:mod:`.wide`), and the wide front end (:mod:`.front`).
"""

from ...unicode.form import Form
from ...unicode.layout import BYTE_ORDER_MARK, ErrorKind, UTF32Unit, UTF32UnitLanes
from .check import UTF32Checks
from .front import UTF32Front
from .scalar import UTF32Decoder, UTF32Encoder


__all__ = ["UTF32"]


def _units(value):
    """A scalar value is its own UTF-32 unit."""
    return [value], 1


UTF32 = Form(
    name="utf-32",
    unit_bytes=4,
    codecs=(("utf-32", "detect", True), ("utf-32-le", "little", False),
            ("utf-32-be", "big", False)),
    unit=UTF32Unit,
    encoder_lanes=UTF32UnitLanes,
    most_units=1,
    encode=_units,
    mark=(BYTE_ORDER_MARK,),
    code_point_bytes=lambda code_point: 4,
    shortest_error=4,
    error_kinds={
        ErrorKind.TRUNCATED_DATA: "truncated data",
        ErrorKind.SURROGATE: "code point in surrogate code point range(0xd800, 0xe000)",
        ErrorKind.OUT_OF_RANGE: "code point not in range(0x110000)",
    },
    decoder=UTF32Decoder,
    encoder=UTF32Encoder,
    wide=UTF32Front,
    check=UTF32Checks,
)
