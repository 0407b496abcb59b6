"""The stages of the scalar cores that serve every form: the handshakes (:mod:`.handshake`),
byte order and marks (:mod:`.byteorder`), the encoder base (:mod:`.encoder`), lane helpers
(:mod:`.lanes`) and the error dropper (:mod:`.error_dropper`). Each form's decoder and
encoder are in its folder of :mod:`utfhw.hdl.forms`."""
