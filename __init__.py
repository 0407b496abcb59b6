"""utfhw: streaming Unicode transcoding gateware in Amaranth HDL.

``utfhw.hdl`` holds the gateware, ``utfhw.sim`` the reference model, the simulation harness and
the command line, ``utfhw.boards`` the FPGA board tops.
"""

__version__ = "0.2.0"
