"""The stages of the wide cores that serve every form: each lane's code point encoded as the
target's units (:mod:`.encode`) and a message's byte order read from its mark (:mod:`.marks`).
Each form's own wide stages are in its folder of :mod:`utfhw.hdl.forms`."""
