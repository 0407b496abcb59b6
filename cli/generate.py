"""``utfhw generate``: a core's Verilog or RTLIL, or a FuseSoC core."""

import json
import os
import sys

from ..hdl.unicode.params import HARDWARE_ERROR_HANDLERS
from ..verilog.generate import INTERFACES, generate_module
from ..toolchain.tools import ToolchainError
from .files import check_output_folder, write_output
from .options import (add_codec_arguments, add_core_arguments, add_empty_beats_argument,
                      add_validate_argument, check_core_options, fail)


def add_parser(commands):
    parser = commands.add_parser(
        "generate", help="write the gateware as Verilog or RTLIL",
        description="Write the transcoder top as Verilog (.v) or RTLIL (.il), chosen by the "
                    "extension of FILE, with a comment at its top saying what made it.")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="the Verilog (.v) or RTLIL (.il) file; its port description "
                             "goes beside it as FILE.json")
    parser.add_argument("--fusesoc", metavar="DIR",
                        help="instead, write a FuseSoC core into DIR: the Verilog, its port "
                             "description, a .core file with lint and sim targets, and the "
                             "sim target's self-checking bench")
    add_codec_arguments(parser, HARDWARE_ERROR_HANDLERS, pairs=True)
    parser.add_argument("--name", help="module name (default: from the codecs, core and "
                                       "ports, e.g. utf8_to_utf16le, utf8_to_utf16le_axis, "
                                       "utf8_to_utf16le_w32)")
    parser.add_argument("--interface", choices=INTERFACES, default="stream",
                        help="ports: the core's streams i and o (default), or AXI4-Stream "
                             "(s_axis_*, m_axis_*; see README)")
    add_empty_beats_argument(parser)
    add_core_arguments(parser)
    add_validate_argument(parser)
    return parser


def run(subparser, args):
    if (args.output is None) == (args.fusesoc is None):
        subparser.error("give -o FILE or --fusesoc DIR (one of them)")
    if args.fusesoc is not None:
        return _generate_fusesoc(subparser, args)
    extension = os.path.splitext(args.output)[1]
    if extension not in (".v", ".il"):
        subparser.error(f"output file must end in .v (Verilog) or .il (RTLIL), not "
                        f"{args.output!r}")
    check_output_folder(subparser, args.output)
    spec = check_core_options(subparser, args)
    try:
        module = generate_module(spec, interface=args.interface, name=args.name,
                                 language="verilog" if extension == ".v" else "rtlil",
                                 empty_beats=args.empty_beats)
    except ValueError as error:
        subparser.error(str(error))
    except ToolchainError as error:
        fail(subparser, str(error))
    description = os.path.splitext(args.output)[0] + ".json"
    try:
        write_output(args.output, module.text.encode())
        write_output(description, (json.dumps(module.ports, indent=2) + "\n").encode())
    except OSError as error:
        fail(subparser, f"cannot write {error.filename}: {error.strerror}")
    print(f"utfhw: wrote module {module.name} to {args.output}, its ports to {description}",
          file=sys.stderr)


def _generate_fusesoc(subparser, args):
    from ..bench.fusesoc import core_vlnv, write_fusesoc_core
    spec = check_core_options(subparser, args)
    try:
        module = generate_module(spec, interface=args.interface, name=args.name,
                                 empty_beats=args.empty_beats)
        path = write_fusesoc_core(args.fusesoc, module, spec=spec, interface=args.interface,
                                  empty_beats=args.empty_beats)
    except ValueError as error:
        subparser.error(str(error))
    except ToolchainError as error:
        fail(subparser, str(error))
    except OSError as error:
        fail(subparser, f"cannot write {error.filename}: {error.strerror}")
    targets = "lint and sim" if args.interface == "stream" else "lint"
    print(f"utfhw: wrote the FuseSoC core {core_vlnv(path.stem)} to {path} ({targets} "
          f"targets); try: fusesoc --cores-root {args.fusesoc} run --target "
          f"{targets.split()[-1]} {core_vlnv(path.stem).rsplit(':', 1)[0]}", file=sys.stderr)
