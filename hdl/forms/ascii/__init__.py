"""ASCII (ANSI X3.4): its description, :data:`ASCII`.

A byte below 80 is the code point of its value, U+0000 to U+007F; a byte from 80 up is an
error of its own (CPython's ``ascii`` codec), and as a target a code point above U+007F is
one the form cannot hold. Its gateware is what every one-byte form shares
(:mod:`utfhw.hdl.scalar.single_byte`, :mod:`utfhw.hdl.wide.single_byte`), told its last code
point.
"""

from ...scalar.single_byte import SingleByteEncoder
from ...unicode.form import Form
from ...unicode.layout import ByteUnitLanes, ErrorKind, UTF8Unit
from ...wide.single_byte import SingleByteChecks, SingleByteFront
from .scalar import LAST_CODE_POINT, ASCIIDecoder


__all__ = ["ASCII"]


ASCII = Form(
    name="ascii",
    unit_bytes=1,
    codecs=(("ascii", None, False),),
    unit=UTF8Unit,
    encoder_lanes=ByteUnitLanes,
    most_units=1,
    encode=lambda value: ([value[0:8]], 1),
    mark=(),
    code_point_bytes=lambda code_point: 1,
    shortest_error=1,
    error_kinds={ErrorKind.ORDINAL_NOT_IN_RANGE: "ordinal not in range(128)"},
    decoder=ASCIIDecoder,
    encoder=SingleByteEncoder,
    wide=SingleByteFront,
    check=SingleByteChecks,
    last_code_point=LAST_CODE_POINT,
    unencodable_reason="ordinal not in range(128)",
)
