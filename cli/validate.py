"""``utfhw validate``: files through the simulated validator, CPython's verdict and the
lengths for each."""

import argparse
import sys

from ..hdl.cores import CoreSpec
from ..hdl.forms import CODECS
from ..sim.validation import validate, validate_chunks
from .files import read_chunks
from .options import (CORE_OPTION_NAMES, add_sim_argument, add_width_argument, codec_argument,
                      fail, probability)
from .progress import PROGRESS_THRESHOLD, ProgressBar
from .running import announce_build, backend_name, choose_backend, plural


#: Bytes read and fed to Verilator at once.
CHUNK_BYTES = 1 << 20


def add_parser(commands):
    parser = commands.add_parser(
        "validate", help="check files with the simulated validator",
        description="Validate each FILE ('-' for standard input), one message each, in a "
                    "simulation of the validator: say whether data.decode(CODEC) takes it, "
                    "where CPython's first error is and why, and how long "
                    "data.decode(CODEC, 'replace') is in code points, UTF-16 units and UTF-8 "
                    "bytes. Exit 1 if a file is not valid. On Verilator a file of any size is "
                    "streamed through a megabyte at a time; Amaranth's simulator, for short "
                    "files, takes it whole.")
    parser.add_argument("files", metavar="FILE", nargs="+")
    parser.add_argument("--from", dest="source", default="utf-8", type=codec_argument,
                        metavar="CODEC",
                        help=f"the codec to validate: {', '.join(CODECS)}, or any name CPython "
                             f"gives one of them (default: utf-8)")
    add_width_argument(parser)
    parser.add_argument("--stall", type=probability, default=0.0, metavar="P",
                        help="probability of a stall clock on each side (default: 0)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the stall pattern")
    add_sim_argument(parser)
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar (default: on long inputs when stderr is a "
                             "terminal)")
    return parser


def _verdict(name, result, source, size):
    lengths = (f"{plural(result.code_points, 'code point')}, "
               f"{plural(result.utf16_units, 'UTF-16 unit')}, "
               f"{plural(result.utf8_bytes, 'UTF-8 byte')}")
    if result.overflow:
        return f"{name}: longer than the validator counts (8 GiB): no verdict"
    if result.valid:
        return f"{name}: valid {source}, {plural(size, 'byte')}: {lengths}"
    where = (f"byte {result.start}" if result.end == result.start + 1
             else f"bytes {result.start}-{result.end - 1}")
    return (f"{name}: not valid {source}: {where}: {result.reason} (start={result.start}, "
            f"end={result.end}); with replace, {lengths}")


def run(subparser, args):
    width = args.width if args.width is not None else CODECS[args.source].unit_bytes
    try:
        spec = CoreSpec.of(args.source, None, validate=True, width=width,
                           names=CORE_OPTION_NAMES)
    except ValueError as error:
        subparser.error(str(error))
    backend = choose_backend(args.sim)
    if backend == "verilator":
        from ..sim.verilator import verilated_pipeline
        verilated_pipeline(spec, on_build=announce_build)
    invalid = 0
    for path in args.files:
        try:
            chunks, size = read_chunks(path, CHUNK_BYTES)
        except OSError as error:
            fail(subparser, f"cannot read {path}: {error.strerror}")
        show = args.progress if args.progress is not None else (
            sys.stderr.isatty() and (size or 0) > PROGRESS_THRESHOLD)
        bar = ProgressBar(sys.stderr, size) if show else None
        try:
            if backend == "verilator":
                got = [0]

                def counted(stream):
                    for chunk in stream:
                        got[0] += len(chunk)
                        yield chunk
                result = validate_chunks(counted(chunks), spec.source, width=width,
                                         stall=args.stall, seed=args.seed,
                                         progress=bar and (lambda done: bar(done, size)))
                length = got[0]
            else:
                data = b"".join(chunks)
                result = validate(data, spec.source, width=width, stall=args.stall,
                                  seed=args.seed)
                length = len(data)
        except OSError as error:
            fail(subparser, f"cannot read {path}: {error.strerror}")
        if bar is not None:
            sys.stderr.write("\n")
        invalid += not result.valid
        print(_verdict(path, result, spec.source, length))
    print(f"utfhw validate: {plural(len(args.files), 'file')}, {invalid} not valid; "
          f"Validator, width {width}, on {backend_name(backend)}", file=sys.stderr)
    if invalid:
        sys.exit(1)
