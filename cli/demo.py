"""``utfhw demo``: the built-in sample through the simulated gateware, against CPython."""

import argparse

from ..hdl.unicode.params import ERROR_HANDLERS
from ..bench.sample import sample_messages
from .files import write_output
from .options import (add_codec_arguments, add_core_arguments, add_sim_argument,
                      check_core_options, fail)
from .running import backend_name, choose_backend, cpython, plural, simulate


def add_parser(commands):
    parser = commands.add_parser(
        "demo", help="transcode a built-in multilingual sample and check it against CPython",
        description="Transcode a built-in sample (a line of text in each of nine scripts, then "
                    "each malformed sequence of the source's encoding form as a message of its "
                    "own) in a simulation of the gateware, check the output byte for byte "
                    "against CPython's data.decode(source, errors).encode(target, errors), and print "
                    "what came out and how fast. Exits 1 if anything differs.")
    add_codec_arguments(parser, ERROR_HANDLERS)
    add_sim_argument(parser)
    add_core_arguments(parser)
    parser.add_argument("--save", metavar="FILE",
                        help="also write the sample's text (in the source codec, its first "
                             "message) to FILE, to try the other commands on")
    return parser


def run(subparser, args):
    spec = check_core_options(subparser, args)
    samples = sample_messages(args.source)
    messages = [message for message, _ in samples]
    if args.save:
        try:
            write_output(args.save, messages[0])
        except OSError as error:
            fail(subparser, f"cannot write {args.save}: {error.strerror}")
    backend = choose_backend(args.sim)
    errors = spec.hardware_errors
    replace_args = argparse.Namespace(**{**vars(args), "errors": errors})
    result = simulate(subparser, replace_args, messages, backend=backend)
    expected = cpython(messages, args.source, args.target, errors)
    core = spec.core_name + (f", width {spec.width}" if spec.kind == "wide" else "")
    print(f"utfhw demo: {args.source} -> {args.target}, errors={args.errors}, {core}, on "
          f"{backend_name(backend)}")
    print(f"  text:  {len(messages[0])} bytes of {args.source} in nine scripts -> "
          f"{len(result.outputs[0])} bytes of {args.target}")
    different = [index for index, (got, wanted) in enumerate(zip(result.outputs, expected))
                 if got != wanted]
    if different:
        fail(subparser, f"messages {different} differ from CPython's "
                        f"decode({args.source!r}, {errors!r}).encode({args.target!r}, "
                        f"{errors!r})")
    if len(samples) > 1:
        print("  malformed input, each a message of its own, and what came out (code points):")
    else:
        print(f"  malformed input: none, {args.source} decodes every byte")
    hex_width = max((len(message.hex(" ")) for message, _ in samples[1:]), default=0)
    text_width = max((len(description) for _, description in samples[1:]), default=0)
    for (message, description), output in zip(samples[1:], result.outputs[1:]):
        shown = " ".join(f"{ord(character):04X}" for character in output.decode(args.target))
        print(f"    {message.hex(' ').upper():{hex_width}}  {description:{text_width}}  -> "
              f"{shown or '(nothing)'}")
    print(f"  {plural(len(messages), 'message')}, {result.input_bytes} bytes in "
          f"{result.cycles} clocks: {result.bytes_per_clock:.2f} input bytes per clock")
    print(f"  matches CPython: every message's output is decode({args.source!r}, {errors!r})"
          f".encode({args.target!r}, {errors!r}), byte for byte")
    if args.errors == "strict":
        _demo_strict(subparser, args, messages, backend)
    if args.save:
        print(f"  wrote the text to {args.save}")


def _demo_strict(subparser, args, messages, backend):
    """With --errors strict, where each message that CPython's strict stops at stops, against
    CPython: the malformed ones, and the text where the target cannot hold it all."""
    def outcome(run):
        try:
            run()
        except UnicodeError as error:       # decoding, or encoding to Latin-1 or ASCII
            return type(error).__name__, error.start, error.end, error.reason
        return None

    kinds = set()
    for message in messages:
        wanted = outcome(lambda: message.decode(args.source).encode(args.target))
        got = outcome(lambda: simulate(subparser, args, [message], backend=backend))
        if got != wanted:
            fail(subparser, f"strict stopped at {got}, CPython at {wanted}")
        if wanted is not None:
            kinds.add(wanted[0])
    print(f"  strict: each message raises what CPython raises ({', '.join(sorted(kinds))}: "
          f"start, end, reason)" if kinds else "  strict: no message raises, as in CPython")
