"""Model checking of the cores: the bench and the run of Yosys and SMT-BMC (``checker``), and
the properties each kind of stage and core must keep (``properties``), written apart from the
gateware's rules."""
