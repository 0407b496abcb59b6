"""ASCII decoding: the decoder every one-byte form shares, told the last code point of ASCII."""

from ...scalar.single_byte import SingleByteDecoder


__all__ = ["LAST_CODE_POINT", "ASCIIDecoder"]


#: The greatest code point of the form.
LAST_CODE_POINT = 0x7F


class ASCIIDecoder(SingleByteDecoder):
    """ASCII decoder: :class:`~utfhw.hdl.scalar.single_byte.SingleByteDecoder` with the last
    code point 0x7F."""
    def __init__(self):
        super().__init__(last=LAST_CODE_POINT)
