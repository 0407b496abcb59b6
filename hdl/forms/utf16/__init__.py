"""UTF-16: its scalar decoder and encoder (:mod:`.scalar`) and its wide stages (:mod:`.wide`)."""
