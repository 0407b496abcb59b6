"""Verilog export: a core's Verilog (``generate``), the JSON description of its ports
(``ports``) and Verilator's lint with utfhw's waivers (``lint``). The tools it runs are found
by :mod:`utfhw.toolchain`."""
