"""What utfhw knows of Unicode, written once for the gateware: Table 3-7 and the surrogate
arithmetic (:mod:`.tables`), the byte classes derived from it (:mod:`.byteclass`), the stream
payload layouts and error kinds (:mod:`.layout`), the fields of a form's description
(:mod:`.form`; the forms themselves are in :mod:`utfhw.hdl.forms`) and the argument checks
every core uses (:mod:`.params`). Imports nothing else of utfhw."""
