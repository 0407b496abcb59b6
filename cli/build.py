"""``utfhw build``: the UART bridge's bitstream for a board."""

import os

from ..hdl.unicode.params import HARDWARE_ERROR_HANDLERS
from ..toolchain.tools import ToolchainError
from .options import (BOARD_NAMES, add_bridge_arguments, add_codec_arguments,
                      add_validate_argument, bridge_options, check_core_options, fail,
                      import_extra)


def add_parser(commands):
    parser = commands.add_parser(
        "build", help="build the UART transcoder bridge's bitstream for a board",
        description="Build the UART transcoder bridge (hdl/bridge.py) for a board with the "
                    "yowasp tools (or those named by YOSYS, NEXTPNR_ICE40, ICEPACK, "
                    "NEXTPNR_ECP5, ECPPACK): bytes sent to the board's USB serial port come "
                    "back transcoded (utfhw board sends them and checks the answers). Prints "
                    "utilisation, the clock reached, the serial settings and the burst rule. "
                    "Fails if a tool is missing, if the design needs more cells than the "
                    "board's device has (before place and route) or if the clock is not met.")
    parser.add_argument("--board", required=True, choices=BOARD_NAMES)
    add_codec_arguments(parser, HARDWARE_ERROR_HANDLERS, pairs=True)
    add_bridge_arguments(parser)
    add_validate_argument(parser)
    parser.add_argument("-o", "--output", metavar="DIR",
                        help="build directory (default: build/BOARD)")
    return parser


def run(subparser, args):
    check_core_options(subparser, args)

    def load():
        from ..boards.build import build
        from ..boards.fit import DoesNotFit
        from ..boards.nextpnr import TimingError
        return build, (TimingError, DoesNotFit)
    build, failures = import_extra(subparser, "build", "build", load)
    directory = args.output or os.path.join("build", args.board)
    try:
        result = build(args.board, directory=directory, baud=args.baud, **bridge_options(args))
    except (ValueError, ToolchainError, RuntimeError, *failures) as error:
        fail(subparser, str(error))
    print(result.summary())
