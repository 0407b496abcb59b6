"""``utfhw cocotb``: the cocotb bench on the generated Verilog."""

import sys

from ..hdl.unicode.params import HARDWARE_ERROR_HANDLERS
from ..bench.cocotb import SIMULATORS, run as run_cocotb
from ..verilog.generate import INTERFACES
from .options import (add_codec_arguments, add_empty_beats_argument, add_validate_argument,
                      add_width_argument, check_core_options, fail, probability)


def add_parser(commands):
    parser = commands.add_parser(
        "cocotb", help="run the cocotb test bench on the generated Verilog",
        description="Generate the pipeline's Verilog and run utfhw.bench.cocotb on it with "
                    "cocotb's runner: messages stream through with random stalls and every "
                    "output beat is checked against the reference model.")
    add_codec_arguments(parser, HARDWARE_ERROR_HANDLERS, pairs=True)
    add_width_argument(parser)
    parser.add_argument("--interface", choices=INTERFACES, default="stream",
                        help="ports to test: the streams (default) or AXI4-Stream, "
                             "with cocotbext-axi's bus models")
    parser.add_argument("--sim", choices=SIMULATORS, default="icarus",
                        help="simulator (default: icarus)")
    parser.add_argument("--stall", type=probability, default=0.3, metavar="P",
                        help="probability of a stall clock on each side (default: 0.3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--messages", metavar="FILE",
                        help="also send this file as one message")
    parser.add_argument("--build-dir", metavar="DIR",
                        help="where cocotb builds (default: a new temporary folder)")
    parser.add_argument("--verbose", action="store_true",
                        help="also log the bus models' frames and the build's commands")
    add_empty_beats_argument(parser)
    add_validate_argument(parser)
    return parser


def run(subparser, args):
    spec = check_core_options(subparser, args)
    try:
        tests, failures = run_cocotb(source=spec.source, target=spec.target,
                                     errors=args.errors, simulator=args.sim,
                                     interface=args.interface,
                                     build_dir=args.build_dir, stall=args.stall,
                                     seed=args.seed, messages=args.messages, width=args.width,
                                     empty_beats=args.empty_beats, verbose=args.verbose,
                                     validate=args.validate)
    except RuntimeError as error:
        fail(subparser, str(error))
    print(f"utfhw: cocotb ran {tests} test(s), {failures} failed", file=sys.stderr)
    if failures or not tests:
        subparser.exit(1)
