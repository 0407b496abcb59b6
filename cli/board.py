"""``utfhw board``: messages through the UART bridge on a board (or simulated), checked
against CPython."""

import argparse
import sys

from ..hdl.bridge import BITS_PER_FRAME, FIFO_MARGIN
from ..hdl.unicode.params import HARDWARE_ERROR_HANDLERS, check_integer
from ..toolchain.tools import BuildError, ToolchainError
from .options import (BOARD_NAMES, add_bridge_arguments, add_codec_arguments,
                      add_validate_argument, bridge_options, check_core_options, core_spec,
                      fail, import_extra)
from .running import announce_build, plural


#: Seconds without an answer before the board is taken not to answer: on a port, and behind
#: the simulation (which a busy machine can slow down).
PORT_TIMEOUT = 2.0
SIMULATED_TIMEOUT = 10.0

#: Seconds the simulation may fall behind wall time before the summary says so.
_BEHIND_NOTED = 0.1


def positive_seconds(text):
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value > 0:
        raise argparse.ArgumentTypeError(f"timeout must be a positive number of seconds, not "
                                         f"{text!r}")
    return value


def add_parser(commands):
    parser = commands.add_parser(
        "board", help="send messages through the UART bridge on a board and check them",
        description="Send each file of PATH (a folder: each of its files) as a message to the "
                    "UART bridge that utfhw build makes, through the board's serial port, "
                    "keeping the bridge's idle-gap and burst rules, and compare each answer "
                    "with CPython's data.decode(source, errors).encode(target), or with "
                    "--validate with CPython's verdict on data.decode(source). Without PATH, "
                    "the sample text, the malformed sequences of the source's form and a burst "
                    "at the burst limit. Prints each mismatch and the bytes per second; exits 1 "
                    "if an answer differs. The codec and bridge options must be those the "
                    "bridge was built with.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="a file (one message) or a folder (one message per file)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", help="the board's serial port, e.g. /dev/ttyUSB1")
    where.add_argument("--simulate", action="store_true",
                       help="the bridge's Verilog in Verilator behind a pseudo-terminal, at "
                            "bit level in real time, in place of a board")
    add_codec_arguments(parser, HARDWARE_ERROR_HANDLERS, pairs=True)
    add_bridge_arguments(parser)
    add_validate_argument(parser)
    parser.add_argument("--simulate-baud", type=int, default=None, metavar="BAUD",
                        help="with --simulate, the simulated bridge's baud rate, to see what a "
                             "--baud other than the bridge's does (default: --baud)")
    parser.add_argument("--board", choices=BOARD_NAMES,
                        help="first program this board with the bridge, with openFPGALoader "
                             "or iceprog")
    parser.add_argument("--bitstream", metavar="FILE",
                        help="with --board, the bitstream (default: the one utfhw build "
                             "--board BOARD writes)")
    parser.add_argument("--timeout", type=positive_seconds, default=None, metavar="SECONDS",
                        help=f"seconds without an answer before the board is taken not to "
                             f"answer (default: {PORT_TIMEOUT:g}, or {SIMULATED_TIMEOUT:g} "
                             f"with --simulate)")
    return parser


def _messages(subparser, args):
    from ..bench.board import builtin_messages, read_messages
    if not args.paths:
        spec = core_spec(args)
        return builtin_messages(spec.source, spec.target, args.errors,
                                fifo_depth=args.fifo_depth)
    try:
        messages = read_messages(args.paths)
    except OSError as error:
        fail(subparser, f"cannot read {error.filename}: {error.strerror}")
    if not messages:
        fail(subparser, f"no files in {', '.join(args.paths)}")
    return messages


def _program(subparser, args):
    from ..boards.program import default_bitstream, program
    bitstream = args.bitstream or default_bitstream(args.board)
    try:
        command = program(args.board, bitstream)
    except FileNotFoundError as error:
        fail(subparser, str(error))
    except (ToolchainError, BuildError) as error:
        fail(subparser, str(error).splitlines()[0])
    print(f"utfhw board: programmed the {args.board}: {' '.join(command)}", file=sys.stderr,
          flush=True)


def run(subparser, args):
    check_core_options(subparser, args)
    if args.simulate_baud is not None and not args.simulate:
        subparser.error("--simulate-baud is for --simulate")
    if args.board is not None and args.simulate:
        subparser.error("--board programs a real board, not with --simulate")
    if args.bitstream is not None and args.board is None:
        subparser.error("--bitstream needs --board")
    try:
        # Before anything is opened or programmed, as the bridge checks them.
        check_integer("--baud", args.baud, minimum=1)
        check_integer("--fifo-depth", args.fifo_depth, minimum=2 * FIFO_MARGIN)
        check_integer("--idle-bits", args.idle_bits, minimum=2 * BITS_PER_FRAME)
    except ValueError as error:
        subparser.error(str(error))

    def load():
        import serial  # noqa: F401  (pyserial, before anything is built or sent)
        from ..bench import board
        return board
    host = import_extra(subparser, "board", "board", load)
    if args.board is not None:
        import_extra(subparser, "board", "board", lambda: _program(subparser, args))
    messages = _messages(subparser, args)
    timeout = args.timeout or (SIMULATED_TIMEOUT if args.simulate else PORT_TIMEOUT)
    settings = {"baud": args.baud, "timeout": timeout, **bridge_options(args)}
    try:
        if args.simulate:
            from ..sim.bridge import SimulatedBoard
            simulated = SimulatedBoard(baud=args.simulate_baud or args.baud,
                                       host_baud=args.baud, on_build=announce_build,
                                       **bridge_options(args))
            with simulated:
                run_ = _run(args, host, simulated.port, messages, settings,
                            name=f"the simulated bridge ({simulated.port})")
            _note_simulation(simulated)
        else:
            run_ = _run(args, host, args.port, messages, settings, name=args.port)
    except ValueError as error:
        subparser.error(str(error))
    except (ToolchainError, BuildError, RuntimeError) as error:
        fail(subparser, str(error))
    except host.BoardError as error:
        fail(subparser, str(error))
    _summary(args, run_)
    if run_.mismatches:
        subparser.exit(1)


def _run(args, host, port, messages, settings, *, name):
    def show(index, report):
        if report is not None:
            print(report, flush=True)

    with host.Host(host.open_port(port, args.baud), name=name, **settings) as connection:
        return connection.run(messages, on_message=show)


def _note_simulation(simulated):
    if simulated.overflow:
        print("utfhw board: the simulated bridge's overflow flag is set: it dropped a byte",
              file=sys.stderr)
    if simulated.framing_error:
        print("utfhw board: the simulated bridge's framing error flag is set: a frame came "
              "at another baud rate", file=sys.stderr)
    if simulated.behind > _BEHIND_NOTED:
        print(f"utfhw board: note: the simulation fell up to {simulated.behind:.1f} s behind "
              f"wall time (a busy machine); its answers came that much late, and the rates "
              f"below are lower than a board's", file=sys.stderr)


def _summary(args, result):
    spec = core_spec(args)
    if spec.kind == "validator":
        what = f"{args.source} validator, {args.width} bytes a beat"
    else:
        core = "scalar core" if args.width is None else f"wide core, {args.width} bytes a beat"
        what = f"{spec.source} -> {spec.target}, errors={spec.errors_name}, {core}"
    count = len(result.mismatches)
    verdict = ("matches CPython" if not count
               else f"{count} differ{'s' if count == 1 else ''} from CPython")
    line_rate = args.baud / 10
    again = (f"; a message sent again {plural(result.tries, 'time')}, the host having been "
             f"held up within it" if result.tries else "")
    print(f"utfhw board: {plural(result.messages, 'message')} ({what}), {verdict}: "
          f"{result.input_bytes:,} bytes in and "
          f"{result.output_bytes:,} out in {result.seconds:.2f} s, {result.input_rate:,.0f} "
          f"bytes/s in and {result.output_rate:,.0f} out (the line carries {line_rate:,.0f} "
          f"each way){again}")
