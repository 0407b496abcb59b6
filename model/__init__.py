"""The reference models, pure Python written from the specifications and checked against
CPython: a message's items and beats through the scalar cores (``reference``), what each byte
position of a wide core emits and the beats it gives (``wide``), and where a ``"replace"``
core's output says CPython's ``strict`` error lies (``strict``). They keep their own copy of
the Unicode rules, apart from the gateware's."""
