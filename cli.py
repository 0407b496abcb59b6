"""The ``utfhw`` command line: run files through the simulated gateware, generate HDL, build
bitstreams and the implementation report. It sits above everything it drives: ``utfhw.sim``,
``utfhw.boards`` and ``utfhw.hdl``."""

import argparse
import json
import os
import pathlib
import sys
import time

from . import __version__
from .hdl.params import CODECS, ERROR_HANDLERS, HARDWARE_ERROR_HANDLERS, check_width
from .hdl.cores import check_core
from .sim.backends import BACKENDS, simulate
from .sim.cocotb_testbench import SIMULATORS, run as run_cocotb
from .sim.generate import INTERFACES, convert, make_top, module_name
from .sim.ports import describe_ports
from .sim.stream import check_stall
from .sim.tools import BuildError, ToolchainError
from .sim.throughput import stress_input
from .sim.verilator import verilated_pipeline


__all__ = ["main", "module_name"]


#: The boards ``utfhw build`` knows (``utfhw.boards.top.BOARDS``, which needs amaranth-boards,
#: is imported only when a board is built).
BOARD_NAMES = ("icebreaker", "ulx3s-85f")

#: Inputs at least this long get a progress bar (when stderr is a terminal or --progress is given).
PROGRESS_THRESHOLD = 4096


class _ProgressBar:
    def __init__(self, stream, unit, width=40):
        self._stream = stream
        self._unit = unit
        self._width = width
        self._started = time.monotonic()

    def __call__(self, done, total):
        filled = self._width * done // total
        elapsed = time.monotonic() - self._started
        self._stream.write(f"\r[{'#' * filled}{'.' * (self._width - filled)}] "
                           f"{100 * done // total:3d}% {done}/{total} {self._unit} {elapsed:.0f} s")
        if done == total:
            self._stream.write("\n")
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
                        help="the wide core, W bytes per clock (1, 2, 4, 8, 16, 32 or 64; "
                             "utf-8 to utf-16-le or utf-16-be only)")


def _add_codec_arguments(parser, errors_choices):
    parser.add_argument("--from", dest="source", default="utf-8", choices=CODECS,
                        help="source codec (default: utf-8)")
    parser.add_argument("--to", dest="target", default="utf-16-le", choices=CODECS,
                        help="target codec (default: utf-16-le)")
    parser.add_argument("--errors", default="replace", choices=errors_choices)


def _parser():
    parser = argparse.ArgumentParser(
        prog="utfhw", description="Streaming Unicode transcoding gateware, exact to CPython.")
    parser.add_argument("--version", action="version", version=f"utfhw {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "transcode", help="run a file through the simulated gateware",
        description="Transcode INPUT into OUTPUT ('-' for standard input or output) in "
                    "Amaranth's simulation of the gateware; print cycles and bytes per clock.")
    run.add_argument("input", metavar="INPUT")
    run.add_argument("output", metavar="OUTPUT")
    _add_codec_arguments(run, ERROR_HANDLERS)
    run.add_argument("--stall", type=_probability, default=0.0, metavar="P",
                     help="probability of a stall clock on each side (default: 0)")
    run.add_argument("--seed", type=int, default=None, help="seed of the stall pattern")
    run.add_argument("--sim", choices=BACKENDS, default="amaranth",
                     help="simulator: Amaranth's (default) or Verilator running the generated "
                          "Verilog (builds it on first use; about a thousand times faster)")
    _add_width_argument(run)
    run.add_argument("--vcd", metavar="FILE", help="write a waveform file (--sim amaranth)")
    run.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                     help="show a progress bar (default: on long inputs when stderr is a "
                          "terminal)")

    generate = commands.add_parser(
        "generate", help="write the gateware as Verilog or RTLIL",
        description="Write the transcoder top as Verilog (.v) or RTLIL (.il), chosen by the "
                    "extension of FILE.")
    generate.add_argument("-o", "--output", metavar="FILE",
                          help="the Verilog (.v) or RTLIL (.il) file; its port description "
                               "goes beside it as FILE.json")
    generate.add_argument("--fusesoc", metavar="DIR",
                          help="instead, write a FuseSoC core into DIR: the Verilog, its port "
                               "description, a .core file with lint and sim targets, and the "
                               "sim target's self-checking bench")
    _add_codec_arguments(generate, HARDWARE_ERROR_HANDLERS)
    generate.add_argument("--name", help="module name (default: from the codecs, e.g. "
                                         "utf8_to_utf16le)")
    generate.add_argument("--interface", choices=INTERFACES, default="stream",
                          help="ports: the core's streams i and o (default), or AXI4-Stream "
                               "(s_axis_*, m_axis_*; see README)")
    generate.add_argument("--pipelined", action="store_true",
                          help="the eight-stage PipelinedUTF8ToUTF16 core, built for clock "
                               "speed (utf-8 to utf-16-le or utf-16-be only)")
    _add_width_argument(generate)
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
                       help="measure all 64 pipelines on a generated stress input")
    bench.add_argument("--bytes", type=int, default=2048, metavar="N",
                       help="length of the generated stress input (default: 2048)")
    _add_codec_arguments(bench, HARDWARE_ERROR_HANDLERS)
    bench.add_argument("--limit", type=int, default=None, metavar="BYTES",
                       help="use at most the first BYTES bytes of each file")
    bench.add_argument("--sim", choices=[*BACKENDS, "both"], default="amaranth",
                       help="simulator to measure (default: amaranth)")
    _add_width_argument(bench)
    bench.add_argument("--stress", type=int, default=None, metavar="BYTES",
                       help="also measure a generated adversarial input of BYTES bytes "
                            "(malformed UTF-8 of every kind mixed with text)")
    cocotb_command = commands.add_parser(
        "cocotb", help="run the cocotb test bench on the generated Verilog",
        description="Generate the pipeline's Verilog and run utfhw.sim.cocotb_testbench on it with "
                    "cocotb's runner: messages stream through with random stalls and every "
                    "output beat is checked against the reference model.")
    _add_codec_arguments(cocotb_command, HARDWARE_ERROR_HANDLERS)
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
    report.add_argument("--devices", default=None, metavar="DEVICE,...",
                        help="implement on these devices only (default: 'iCE40 UP5K,iCE40 "
                             "HX8K,ECP5-25F,ECP5-85F'); with --build-dir, designs already "
                             "implemented there are taken from it, so reports can be put "
                             "together from several runs")
    report.add_argument("--jobs", type=int, default=None,
                        help="designs implemented at once (default: one per CPU)")
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
    return parser


def _import_extra(parser, command, extra, load):
    """``load()``, or exit saying which extra the command needs when a package is missing."""
    try:
        return load()
    except ModuleNotFoundError as error:
        parser.exit(1, f"utfhw {command}: error: {error.name} is not installed; utfhw {command} "
                       f"needs the {extra} extra: pip install 'utfhw[{extra}]'\n")


def _build(parser, args):
    def load():
        from .boards.build import build
        from .boards.nextpnr import TimingError
        return build, TimingError
    build, TimingError = _import_extra(parser, "build", "boards", load)
    directory = args.output or os.path.join("build", args.board)
    try:
        result = build(args.board, directory=directory, source=args.source,
                       target=args.target, errors=args.errors, baud=args.baud)
    except (ValueError, ToolchainError, TimingError, RuntimeError) as error:
        parser.exit(1, f"utfhw build: error: {error}\n")
    print(result.summary())


def _report(parser, args):
    import tempfile

    def load():
        import matplotlib  # noqa: F401  (for the chart, before hours of place and route)
        from .boards import report
        return report.run_report, report.write_chart, report.write_markdown, report.progress_line
    run_report, write_chart, write_markdown, progress_line = _import_extra(
        parser, "report", "boards", load)

    def progress(done, total, row):
        print(progress_line(done, total, row), file=sys.stderr, flush=True)

    output = pathlib.Path(args.output)
    chart = output.with_suffix(".png")
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="utfhw-report-") as scratch:
            options = {} if args.widths is None else {"widths": args.widths}
            if args.devices is not None:
                options["devices"] = tuple(args.devices.split(","))
            if args.pnr_timeout is not None:
                if not args.pnr_timeout > 0:
                    parser.error(f"--pnr-timeout must be a positive number of minutes, not "
                                 f"{args.pnr_timeout:g}")
                options["pnr_timeout"] = args.pnr_timeout * 60
            rows = run_report(args.build_dir or scratch, pairs=args.pairs, jobs=args.jobs,
                              router=args.router, progress=progress, **options)
    except (ValueError, ToolchainError, RuntimeError) as error:
        parser.exit(1, f"utfhw report: error: {error}\n")
    write_chart(rows, chart)
    command = " ".join(["utfhw report", *(sys.argv[2:] if sys.argv[1:2] == ["report"] else [])])
    write_markdown(rows, output, chart=chart.name, command=command,
                   seconds=time.monotonic() - started)
    print(f"wrote {output} and {chart}")


def _cocotb(parser, args):
    try:
        tests, failures = run_cocotb(source=args.source, target=args.target,
                                     errors=args.errors, simulator=args.sim,
                                     interface=args.interface,
                                     build_dir=args.build_dir, stall=args.stall,
                                     seed=args.seed, messages=args.messages)
    except RuntimeError as error:
        parser.exit(1, f"utfhw: error: {error}\n")
    print(f"utfhw: cocotb ran {tests} test(s), {failures} failed", file=sys.stderr)
    if failures or not tests:
        parser.exit(1)


def _read_input(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as file:
        return file.read()


def _write_output(path, data):
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        with open(path, "wb") as file:
            file.write(data)


def _transcode(parser, args):
    try:
        data = _read_input(args.input)
    except OSError as error:
        parser.exit(1, f"utfhw: error: cannot read {args.input}: {error.strerror}\n")

    show_progress = args.progress
    if show_progress is None:
        show_progress = sys.stderr.isatty()
    progress = None
    if show_progress and len(data) >= PROGRESS_THRESHOLD:
        progress = _ProgressBar(sys.stderr, "bytes" if args.source.startswith("utf-8")
                                else "units")

    if args.vcd and args.sim != "amaranth":
        parser.error("--vcd needs --sim amaranth")
    try:
        result = simulate(data, args.source, args.target, errors=args.errors, stall=args.stall,
                          seed=args.seed, vcd=args.vcd, progress=progress, backend=args.sim,
                          width=args.width)
    except UnicodeDecodeError as error:
        parser.exit(1, f"utfhw: error: malformed {error.encoding} at byte {error.start}: "
                       f"{error.reason} (start={error.start}, end={error.end})\n")
    except ValueError as error:
        parser.error(_option_names(error))
    except OSError as error:
        parser.exit(1, f"utfhw: error: cannot write {args.vcd}: {error.strerror}\n")
    except (ToolchainError, BuildError) as error:
        parser.exit(1, f"utfhw: error: {error}\n")

    try:
        _write_output(args.output, result.output)
    except OSError as error:
        parser.exit(1, f"utfhw: error: cannot write {args.output}: {error.strerror}\n")

    beats = "units" if args.width is None else "beats"
    print(f"utfhw: {result.input_bytes} input bytes ({result.input_beats} "
          f"{'code units' if args.width is None else 'beats'}), "
          f"{len(result.output)} output bytes, {result.cycles} cycles, "
          f"{result.units_per_clock:.4f} input {beats} per clock, "
          f"{result.bytes_per_clock:.4f} input bytes per clock", file=sys.stderr)


def _generate(parser, args):
    if (args.output is None) == (args.fusesoc is None):
        parser.error("give -o FILE or --fusesoc DIR (one of them)")
    if args.fusesoc is not None:
        return _generate_fusesoc(parser, args)
    extension = os.path.splitext(args.output)[1]
    if extension not in (".v", ".il"):
        parser.error(f"output file must end in .v (Verilog) or .il (RTLIL), not {args.output!r}")
    name = args.name or module_name(args.source, args.target, pipelined=args.pipelined,
                                    width=args.width)
    try:
        top = make_top(args.source, args.target, errors=args.errors, pipelined=args.pipelined,
                       width=args.width, interface=args.interface)
        ports = describe_ports(top, name=name, source=args.source, target=args.target,
                               errors=args.errors, pipelined=args.pipelined,
                               width=args.width, interface=args.interface)
        text = convert(top, name=name, language="verilog" if extension == ".v" else "rtlil")
    except ValueError as error:
        parser.error(_option_names(error))
    except ToolchainError as error:
        parser.exit(1, f"utfhw: error: {error}\n")
    description = os.path.splitext(args.output)[0] + ".json"
    try:
        with open(args.output, "w") as file:
            file.write(text)
        with open(description, "w") as file:
            json.dump(ports, file, indent=2)
            file.write("\n")
    except OSError as error:
        parser.exit(1, f"utfhw: error: cannot write {error.filename}: {error.strerror}\n")
    print(f"utfhw: wrote module {name} to {args.output}, its ports to {description}",
          file=sys.stderr)


def _generate_fusesoc(parser, args):
    from .sim.fusesoc import core_vlnv, write_fusesoc_core
    try:
        path = write_fusesoc_core(args.fusesoc, args.source, args.target, errors=args.errors,
                                  pipelined=args.pipelined, width=args.width,
                                  interface=args.interface, name=args.name)
    except ValueError as error:
        parser.error(_option_names(error))
    except ToolchainError as error:
        parser.exit(1, f"utfhw: error: {error}\n")
    except OSError as error:
        parser.exit(1, f"utfhw: error: cannot write {error.filename}: {error.strerror}\n")
    targets = "lint and sim" if args.interface == "stream" else "lint"
    print(f"utfhw: wrote the FuseSoC core {core_vlnv(path.stem)} to {path} ({targets} "
          f"targets); try: fusesoc --cores-root {args.fusesoc} run --target "
          f"{targets.split()[-1]} {core_vlnv(path.stem).rsplit(':', 1)[0]}", file=sys.stderr)


def _option_names(error):
    """A core's error message with its keyword arguments named as the command line's."""
    return (str(error).replace("pipelined=True", "--pipelined")
            .replace("width is for", "--width is for").replace(" and width are", " and --width are"))


def _bench_pairs(args):
    from .sim.throughput import pair_rates

    print(f"{'source':10} {'target':10} {'in bits':>7} {'out lanes':>12} {'latency':>7} "
          f"{'units':>6} {'cycles':>6} {'units/clock':>11}")
    for rate in pair_rates(args.bytes, errors=args.errors):
        lanes = f"{rate.output_lanes} x {rate.output_unit_bits}"
        print(f"{rate.source:10} {rate.target:10} {rate.input_bits:7} {lanes:>12} "
              f"{rate.latency:7} {rate.input_units:6} {rate.cycles:6} "
              f"{rate.units_per_clock:11.4f}", flush=True)


def _bench(parser, args):
    if args.every_pair:
        if args.files:
            parser.error("give FILE arguments or --every-pair, not both")
        return _bench_pairs(args)
    if not args.files and args.stress is None:
        parser.error("give at least one FILE, --stress BYTES or --every-pair")
    backends = BACKENDS if args.sim == "both" else [args.sim]
    try:
        check_core(args.source, args.target, errors=args.errors, width=args.width)
        if "verilator" in backends:
            verilated_pipeline(args.source, args.target, errors=args.errors, width=args.width)
    except ValueError as error:
        parser.error(_option_names(error))
    except (ToolchainError, BuildError) as error:
        parser.exit(1, f"utfhw: error: {error}\n")
    inputs = [(path, None) for path in args.files]
    if args.stress is not None:
        inputs.append((f"stress input, {args.stress} bytes",
                       stress_input(args.source, args.stress)))
    beats = "units" if args.width is None else "beats"
    print(f"{'file':40} {'sim':9} {'bytes':>9} {beats:>9} {'cycles':>9} {beats + '/clock':>11} "
          f"{'bytes/clock':>11} {'clocks/s':>10} {'bytes/s':>10}")
    for path, data in inputs:
        if data is None:
            try:
                data = _read_input(path)
            except OSError as error:
                parser.exit(1, f"utfhw: error: cannot read {path}: {error.strerror}\n")
            shown = os.path.join(*pathlib.Path(path).parts[-2:])
        else:
            shown = path
        data = data[:args.limit]
        speeds = []
        for backend in backends:
            started = time.perf_counter()
            result = simulate(data, args.source, args.target, errors=args.errors,
                              backend=backend, width=args.width)
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
    parser = _parser()
    args = parser.parse_args(argv)
    commands = {"transcode": _transcode, "generate": _generate, "bench": _bench,
                "cocotb": _cocotb, "build": _build, "report": _report}
    commands[args.command](parser, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
