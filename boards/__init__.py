"""FPGA board tops built with amaranth-boards.

No board top exists yet; the UART transcoder bridge is tracked as a separate issue.
"""
