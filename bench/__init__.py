"""What drives and checks a core outside utfhw's own tests: stimulus (``stimulus``, the demo's
``sample``), the plain Verilog bench (``verilog``), the cocotb benches (``cocotb``,
``cocotb_axis``), the FuseSoC core with its bench (``fusesoc``), the soak (``soak``) and a
serial line model (``uart``)."""
