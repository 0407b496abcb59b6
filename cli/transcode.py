"""``utfhw transcode``: a file through the simulated gateware, streamed (on Verilator, in
memory that does not grow with the file)."""

import argparse
import sys
import threading

from ..hdl.unicode.params import ERROR_HANDLERS
from ..sim.framing import SEPARATORS, split_stream, whole_pieces
from .check import StreamCheck
from .files import check_output_folder, output_file, read_chunks
from .options import (add_codec_arguments, add_core_arguments, add_sim_argument,
                      check_core_options, fail, probability)
from .progress import PROGRESS_THRESHOLD, ProgressBar
from .running import (backend_name, choose_backend, describe_strict_error, note_slow_input,
                      plural, stream)


#: Bytes read from the input, fed to the simulation and written at once: on Verilator, a run
#: holds a few times this whatever the input's length.
CHUNK_BYTES = 1 << 20


def add_parser(commands):
    parser = commands.add_parser(
        "transcode", help="run a file through the simulated gateware",
        description="Transcode INPUT into OUTPUT ('-' for standard input or output) in a "
                    "simulation of the gateware; print cycles and bytes per clock. On "
                    "Verilator the input is streamed through, a megabyte at a time, so a run "
                    "of any length (--check and --split included) holds a few megabytes; "
                    "Amaranth's simulator, for short inputs, takes it whole.")
    parser.add_argument("input", metavar="INPUT")
    parser.add_argument("output", metavar="OUTPUT")
    add_codec_arguments(parser, ERROR_HANDLERS, pairs=True)
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
                             "errors).encode(target, errors) (its incremental codecs, as the output "
                             "comes) and exit 1 if they differ")
    parser.add_argument("--vcd", metavar="FILE", help="write a waveform file (--sim amaranth)")
    parser.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                        help="show a progress bar (default: on long inputs when stderr is a "
                             "terminal)")
    return parser


def run(subparser, args):
    check_core_options(subparser, args)
    try:
        chunks, size = read_chunks(args.input, CHUNK_BYTES)
    except OSError as error:
        fail(subparser, f"cannot read {args.input}: {error.strerror}")
    check_output_folder(subparser, args.output)
    if args.vcd and args.sim not in ("amaranth", "auto"):
        subparser.error("--vcd needs --sim amaranth")
    backend = "amaranth" if args.vcd else choose_backend(args.sim)
    chunks = _read(chunks)
    if backend == "amaranth":
        # Amaranth's simulator is for short inputs: they are run whole (simulate_stream).
        try:
            data = b"".join(chunks)
        except _ReadError as error:
            fail(subparser, f"cannot read {args.input}: {error.strerror}")
        chunks, size = [data], len(data)
    note_slow_input(args, backend, size or 0)

    show_progress = args.progress
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = (ProgressBar(sys.stderr, size)
                if show_progress and size is not None and size >= PROGRESS_THRESHOLD else None)
    reporting = threading.Event()
    if progress is not None and backend == "verilator":
        # A streamed run's progress is the input read, as the simulation takes it.
        reporting.set()
        chunks = _reported(chunks, progress, size, reporting)
        progress = None
    pieces = (whole_pieces(chunks) if args.split is None else
              split_stream(chunks, args.source, args.split))
    check = StreamCheck(args.source, args.target, args.errors) if args.check else None
    simulation = stream(subparser, args, pieces if check is None else check.tee(pieces),
                        backend=backend, chunk_size=CHUNK_BYTES, progress=progress)
    try:
        with output_file(args.output) as output:
            for chunk in simulation:
                output.write(chunk)
                if check is not None:
                    check.output(chunk)
    except UnicodeError as error:
        reporting.clear()
        if ProgressBar.active is not None:
            sys.stderr.write("\n")
        # The count of messages: those the run took, and those it did not get to.
        count = simulation.messages + sum(last for _, last in pieces)
        fail(subparser, describe_strict_error(error, count))
    except _ReadError as error:
        fail(subparser, f"cannot read {args.input}: {error.strerror}")
    except OSError as error:
        name = args.vcd if args.vcd and error.filename == args.vcd else args.output
        fail(subparser, f"cannot write {name}: {error.strerror}")
    finally:
        reporting.clear()

    if args.width is None:
        units = ("an empty message" if not simulation.input_bytes and simulation.messages == 1
                 else plural(simulation.input_beats - simulation.empty_messages, "code unit"))
        rate = f"{simulation.units_per_clock:.4f} input units per clock"
    else:
        units = plural(simulation.input_beats, "beat")
        rate = f"{simulation.units_per_clock:.4f} input beats per clock"
    split = f" in {plural(simulation.messages, 'message')}" if args.split is not None else ""
    print(f"utfhw: {args.source} -> {args.target} on {backend_name(backend)}: "
          f"{simulation.input_bytes} input bytes{split} ({units}), {simulation.output_bytes} "
          f"output bytes, {simulation.cycles} cycles, {rate}, "
          f"{simulation.bytes_per_clock:.4f} input bytes per clock", file=sys.stderr)
    if check is not None:
        difference = check.finish()
        if difference is not None:
            fail(subparser, f"the output differs from CPython's (first at byte "
                            f"{difference})")
        print(f"utfhw: matches CPython's {_cpython_call(args)} byte for byte", file=sys.stderr)


def _cpython_call(args):
    """What the output is checked against, as CPython's calls: ``decode('utf-8',
    'replace').encode('utf-16-le')``, or with a pair of handlers each side's."""
    if isinstance(args.errors, str):
        return f"decode({args.source!r}, {args.errors!r}).encode({args.target!r})"
    decoding, encoding = args.errors
    return f"decode({args.source!r}, {decoding!r}).encode({args.target!r}, {encoding!r})"


class _ReadError(OSError):
    """The input failed while it was being read (told apart from the output's errors)."""


def _read(chunks):
    try:
        yield from chunks
    except OSError as error:
        raise _ReadError(error.errno, error.strerror) from error


def _reported(chunks, progress, size, reporting):
    """``chunks``, telling ``progress`` how much of ``size`` bytes has been read (until
    ``reporting`` is cleared: the run ended or failed)."""
    done = 0
    for chunk in chunks:
        done += len(chunk)
        if reporting.is_set() and done < size:
            progress(done, size)
        yield chunk
    if reporting.is_set():
        progress(size, size)
