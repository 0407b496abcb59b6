"""Latin-1 decoding: the decoder every one-byte form shares, told the last code point of Latin-1."""

from ...scalar.single_byte import SingleByteDecoder


__all__ = ["LAST_CODE_POINT", "Latin1Decoder"]


#: The greatest code point of the form.
LAST_CODE_POINT = 0xFF


class Latin1Decoder(SingleByteDecoder):
    """Latin-1 decoder: :class:`~utfhw.hdl.scalar.single_byte.SingleByteDecoder` with the last
    code point 0xFF."""
    def __init__(self):
        super().__init__(last=LAST_CODE_POINT)
