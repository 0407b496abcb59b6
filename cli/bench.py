"""``utfhw bench``: input units per clock and simulator speed."""

import os
import pathlib
import time

from ..hdl.forms import CODECS
from ..hdl.unicode.params import HARDWARE_ERROR_HANDLERS
from ..sim.backends import BACKENDS
from ..bench.stimulus import stress_input
from .files import read_input
from .options import (add_codec_arguments, add_core_arguments, add_sim_argument,
                      check_core_options, fail)
from .running import build_verilated, choose_backend, note_slow_input, simulate


def add_parser(commands):
    # --every-pair runs every source to every target (bench.rates.pair_rates): counted from the
    # codecs, so that the help stays true when one is added.
    pairs = len(CODECS) ** 2
    parser = commands.add_parser(
        "bench", help="measure input units per clock and simulator speed",
        description="Run each FILE through the simulated gateware with the output always "
                    "ready and print input bytes, input code units, cycles, units per clock "
                    "and the simulator's clocks per second of wall time. With --every-pair, "
                    "run a generated stress input (malformed in every encoding, mixed with "
                    f"text) through all {pairs} pipelines instead and print each one's "
                    "ports, latency and rate. With --sim both, run each FILE on both "
                    "simulators and print how many times faster Verilator is, in input bytes "
                    "per second of wall time (the Verilator build is done before the clock "
                    "starts).")
    parser.add_argument("files", nargs="*", metavar="FILE")
    parser.add_argument("--every-pair", action="store_true",
                        help=f"measure all {pairs} pipelines on a generated stress "
                             "input (in Amaranth's simulator)")
    parser.add_argument("--bytes", type=int, default=2048, metavar="N",
                        help="length of the generated stress input (default: 2048)")
    add_codec_arguments(parser, HARDWARE_ERROR_HANDLERS)
    parser.add_argument("--limit", type=int, default=None, metavar="BYTES",
                        help="use at most the first BYTES bytes of each file")
    add_sim_argument(parser, both=True)
    add_core_arguments(parser)
    parser.add_argument("--stress", type=int, default=None, metavar="BYTES",
                        help="also measure a generated adversarial input of BYTES bytes "
                             "(malformed UTF-8 of every kind mixed with text)")
    return parser


def _bench_pairs(args):
    from ..bench.rates import pair_rates

    print(f"{'source':10} {'target':10} {'in bits':>7} {'out lanes':>12} {'latency':>7} "
          f"{'units':>6} {'cycles':>6} {'units/clock':>11}")
    for rate in pair_rates(args.bytes, errors=args.errors):
        lanes = f"{rate.output_lanes} x {rate.output_unit_bits}"
        print(f"{rate.source:10} {rate.target:10} {rate.input_bits:7} {lanes:>12} "
              f"{rate.latency:7} {rate.input_units:6} {rate.cycles:6} "
              f"{rate.units_per_clock:11.4f}", flush=True)


def run(subparser, args):
    if args.every_pair:
        if args.files:
            subparser.error("give FILE arguments or --every-pair, not both")
        return _bench_pairs(args)
    if not args.files and args.stress is None:
        subparser.error("give at least one FILE, --stress BYTES or --every-pair")
    backends = BACKENDS if args.sim == "both" else [choose_backend(args.sim)]
    check_core_options(subparser, args)
    inputs = [(path, None) for path in args.files]
    if args.stress is not None:
        inputs.append((f"stress input, {args.stress} bytes",
                       stress_input(args.source, args.stress)))
    loaded = []
    for path, data in inputs:
        if data is None:
            try:
                data = read_input(path)
            except OSError as error:
                fail(subparser, f"cannot read {path}: {error.strerror}")
            path = os.path.join(*pathlib.Path(path).parts[-2:])
        loaded.append((path, data[:args.limit]))
    for backend in backends:
        note_slow_input(args, backend, sum(len(data) for _, data in loaded))
    beats = "units" if args.width is None else "beats"
    print(f"{'file':40} {'sim':9} {'bytes':>9} {beats:>9} {'cycles':>9} {beats + '/clock':>11} "
          f"{'bytes/clock':>11} {'clocks/s':>10} {'bytes/s':>10}", flush=True)
    for shown, data in loaded:
        speeds = []
        for backend in backends:
            build_verilated(args, backend)
            started = time.perf_counter()
            result = simulate(subparser, args, [data], backend=backend)
            elapsed = time.perf_counter() - started
            speeds.append(result.input_bytes / elapsed)
            print(f"{shown:40} {backend:9} {result.input_bytes:9} {result.input_beats:9} "
                  f"{result.cycles:9} {result.units_per_clock:11.4f} "
                  f"{result.bytes_per_clock:11.4f} "
                  f"{result.cycles / elapsed:10.0f} {speeds[-1]:10.0f}", flush=True)
        if len(speeds) == 2:
            print(f"{shown:40} verilator runs {speeds[1] / speeds[0]:.0f} times as many input "
                  f"bytes per second as amaranth", flush=True)
