"""``utfhw transcode``: a file through the simulated gateware."""

import argparse
import sys

from ..hdl.unicode.params import ERROR_HANDLERS
from ..sim.framing import SEPARATORS, split_messages
from .files import check_output_folder, read_input, write_output
from .options import (add_codec_arguments, add_core_arguments, add_sim_argument,
                      check_core_options, probability)
from .progress import PROGRESS_THRESHOLD, ProgressBar
from .running import (backend_name, choose_backend, cpython, describe_decode_error,
                      first_difference, note_slow_input, plural, simulate)


def add_parser(commands):
    parser = commands.add_parser(
        "transcode", help="run a file through the simulated gateware",
        description="Transcode INPUT into OUTPUT ('-' for standard input or output) in a "
                    "simulation of the gateware; print cycles and bytes per clock.")
    parser.add_argument("input", metavar="INPUT")
    parser.add_argument("output", metavar="OUTPUT")
    add_codec_arguments(parser, ERROR_HANDLERS)
    parser.add_argument("--stall", type=probability, default=0.0, metavar="P",
                        help="probability of a stall clock on each side (default: 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the stall pattern")
    add_sim_argument(parser)
    add_core_arguments(parser)
    parser.add_argument("--split", choices=SEPARATORS, default=None,
                        help="send the input as several messages, each its own bytes object to "
                             "CPython: one per line (cut after each U+000A code unit of the "
                             "source form) or after each U+0000 unit (nul); the separator stays "
                             "at the end of its message (default: the whole input is one message)")
    parser.add_argument("--check", action="store_true",
                        help="compare the output with CPython's data.decode(source, "
                             "errors).encode(target, errors) and exit 1 if they differ")
    parser.add_argument("--vcd", metavar="FILE", help="write a waveform file (--sim amaranth)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar (default: on long inputs when stderr is a "
                             "terminal)")
    return parser


def run(subparser, args):
    check_core_options(subparser, args)
    try:
        data = read_input(args.input)
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot read {args.input}: {error.strerror}\n")
    check_output_folder(subparser, args.output)
    if args.vcd and args.sim not in ("amaranth", "auto"):
        subparser.error("--vcd needs --sim amaranth")
    backend = "amaranth" if args.vcd else choose_backend(args.sim)
    messages = [data] if args.split is None else split_messages(data, args.source, args.split)
    note_slow_input(args, backend, len(data))

    show_progress = args.progress
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = (ProgressBar(sys.stderr, len(data))
                if show_progress and len(data) >= PROGRESS_THRESHOLD else None)
    try:
        result = simulate(subparser, args, messages, backend=backend, progress=progress,
                           vcd=args.vcd, stall=args.stall, seed=args.seed)
    except UnicodeDecodeError as error:
        subparser.exit(1, f"utfhw: error: {describe_decode_error(error, messages)}\n")
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {args.vcd}: {error.strerror}\n")

    try:
        write_output(args.output, result.output)
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {args.output}: {error.strerror}\n")

    if args.width is None:
        units = ("an empty message" if not data and len(messages) == 1 else
                 plural(result.input_beats - sum(1 for m in messages if not m), "code unit"))
        rate = f"{result.units_per_clock:.4f} input units per clock"
    else:
        units = plural(result.input_beats, "beat")
        rate = f"{result.units_per_clock:.4f} input beats per clock"
    split = f" in {plural(len(messages), 'message')}" if args.split is not None else ""
    print(f"utfhw: {args.source} -> {args.target} on {backend_name(backend)}: "
          f"{result.input_bytes} input bytes{split} ({units}), {len(result.output)} output "
          f"bytes, {result.cycles} cycles, {rate}, {result.bytes_per_clock:.4f} input bytes "
          f"per clock", file=sys.stderr)
    if args.check:
        expected = b"".join(cpython(messages, args.source, args.target, args.errors))
        if result.output != expected:
            subparser.exit(1, f"utfhw: error: the output differs from CPython's "
                              f"(first at byte {first_difference(result.output, expected)})\n")
        print(f"utfhw: matches CPython's decode({args.source!r}, {args.errors!r})"
              f".encode({args.target!r}) byte for byte", file=sys.stderr)
