"""What utfhw knows of Unicode and of CPython's codecs, written once for the gateware: Table 3-7
and the surrogate arithmetic (:mod:`.tables`), the byte classes derived from it
(:mod:`.byteclass`), the stream payload layouts and error kinds (:mod:`.layout`), and the codec
names with the argument checks every core uses (:mod:`.params`). Imports nothing else of
utfhw."""
