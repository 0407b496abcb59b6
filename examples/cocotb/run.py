"""Builds the core utfhw generated and runs test_transcoder.py on it, in Icarus Verilog:

  $ utfhw generate -o transcoder.v --interface axis --from utf-16-le --to utf-8 --width 4 --name transcoder
  $ python run.py

It prints cocotb's summary and exits 0 if the test passed. Any other core works the same:
generate it as transcoder.v with another --from, --to or --width.
"""

import json
import pathlib
import sys

from cocotb_tools.check_results import get_results
from cocotb_tools.runner import get_runner


here = pathlib.Path(__file__).resolve().parent
top = json.loads((here / "transcoder.json").read_text())["module"]
runner = get_runner("icarus")
runner.build(sources=[here / "transcoder.v"], hdl_toplevel=top, build_dir=here / "build",
             timescale=("1ns", "1ps"), always=True)
results = here / "build" / "results.xml"
try:
    runner.test(test_module="test_transcoder", hdl_toplevel=top, build_dir=here / "build",
                test_dir=here, results_xml=str(results), timescale=("1ns", "1ps"))
except SystemExit:
    pass            # the runner exits when a test fails; the results say which
tests, failures = get_results(results)
sys.exit(1 if failures or not tests else 0)
