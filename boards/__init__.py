"""FPGA boards: the UART bridge's pin wiring on each board (``top``; a Gowin board's tools in
``gowin``), its bitstream builds (``build``, which checks with ``fit`` that the design fits the
board), nextpnr's reports (``nextpnr``) and the implementation report of every core
(``report``). The gateware itself is in :mod:`utfhw.hdl`; the tools are found by
:mod:`utfhw.toolchain.tools`."""
