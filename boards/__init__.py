"""FPGA boards: the UART bridge's pin wiring on the iCEBreaker and the ULX3S (``top``), its
bitstream builds (``build``), nextpnr's reports (``nextpnr``) and the implementation report of
every core (``report``). The gateware itself is in :mod:`utfhw.hdl`; the tools are found by
:mod:`utfhw.toolchain.tools`."""
