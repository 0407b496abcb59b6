"""The encoding forms, each in a folder of its own: its scalar decoder and encoder
(``scalar``) and its wide stages (``wide``)."""
