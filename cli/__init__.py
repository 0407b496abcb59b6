"""The ``utfhw`` command line, a module per command (:mod:`.demo`, :mod:`.transcode`,
:mod:`.validate`, :mod:`.generate`, :mod:`.bench`, :mod:`.cocotb`, :mod:`.build`, :mod:`.board`,
:mod:`.report`), each with its
``add_parser`` and ``run``; the options they share are in :mod:`.options`. It sits above
everything it drives."""

import argparse
import sys

from .. import __version__
from . import bench, board, build, cocotb, demo, generate, report, transcode, validate
from .progress import ProgressBar


__all__ = ["main"]


#: The commands, in the order ``utfhw --help`` lists them.
COMMANDS = {"demo": demo, "transcode": transcode, "validate": validate, "generate": generate,
            "bench": bench,
            "cocotb": cocotb, "build": build, "board": board, "report": report}

#: The exit status of a command stopped by Ctrl-C (SIGINT), as shells report it.
INTERRUPTED = 130


def _parser():
    parser = argparse.ArgumentParser(
        prog="utfhw", description="Streaming Unicode transcoding gateware, exact to CPython.")
    parser.add_argument("--version", action="version", version=f"utfhw {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        # A command's own errors print its usage, not the top-level one.
        command.add_parser(commands).set_defaults(subparser=commands.choices[name])
    return parser


def main(argv=None):
    """Run the command line; return 0, or exit with 1 on a failure, 2 on a usage error and
    130 when interrupted (Ctrl-C), with one line of explanation and no traceback."""
    args = _parser().parse_args(argv)
    try:
        COMMANDS[args.command].run(args.subparser, args)
    except KeyboardInterrupt:
        if ProgressBar.active is not None:
            sys.stderr.write("\n")
        sys.stderr.write(f"utfhw {args.command}: interrupted\n")
        sys.stderr.flush()
        # Exit as a program killed by SIGINT would be reported, without Python's traceback.
        sys.exit(INTERRUPTED)
    return 0
