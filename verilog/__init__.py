"""Verilog export: a core's Verilog (``generate``), the JSON description of its ports
(``ports``), Verilator's lint with utfhw's waivers (``lint``), a FuseSoC core (``fusesoc``),
the finder of the tools they and the layers above run (``tools``), and the folder where
conversions, builds and tool locks are kept between runs (``cache``)."""
