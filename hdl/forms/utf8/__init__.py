"""UTF-8 (Unicode ch. 3, D92; RFC 3629): its description, :data:`UTF8`.

Its gateware: the scalar decoder and encoder (:mod:`.scalar`), the wide stages that classify
and decode each lane (:mod:`.wide`) and expand UTF-8 to UTF-8's replacements (:mod:`.expand`),
and the wide front end that joins them (:mod:`.front`).
"""

from ...unicode.form import Form
from ...unicode.layout import ErrorKind, UTF8Unit, UTF8UnitLanes
from ...unicode.tables import utf8_bytes
from .front import UTF8Front
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
    # An ASCII byte becomes two bytes of UTF-16 or four of UTF-32; an invalid byte U+FFFD's
    # three bytes of UTF-8, or with ignore nothing, and everything else keeps its length.
    expansion={"utf-8": (3, 1), "utf-16": (2, 2), "utf-32": (4, 4)},
    error_kinds=(ErrorKind.INVALID_BYTE, ErrorKind.TRUNCATED, ErrorKind.UNFINISHED),
    decoder=UTF8Decoder,
    encoder=UTF8Encoder,
    wide=UTF8Front,
)
