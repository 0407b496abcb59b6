"""A differential soak: adversarial messages through a Verilated core with random stalls on both
sides and random resets, every message compared with CPython.

``python -m utfhw.bench.soak`` runs the long form (1 GiB through the wide core at W = 32 and
100 MB through each source form's scalar core, by default) and prints the figures; the tests
run :func:`soak` in a bounded form. A message a reset cuts must give a beginning of CPython's
output and nothing after the reset (the driver expects the next message's output next, so
anything of the cut message after the reset is a mismatch); every other message must give
exactly CPython's output.
"""

import argparse
import random
import sys
import time
from dataclasses import dataclass

from ..hdl.cores import CoreSpec
from .stimulus import stress_input
from ..sim.verilator import verilated_pipeline


__all__ = ["SoakFigures", "check_messages", "soak", "main"]


@dataclass
class SoakFigures:
    """What a soak ran: input ``bytes``, ``messages``, ``cut`` (messages a reset cut),
    ``resets``, ``clocks``, the stall probability on each side, and ``mismatches``."""
    bytes: int = 0
    messages: int = 0
    cut: int = 0
    resets: int = 0
    clocks: int = 0
    stall: float = 0.0
    mismatches: int = 0

    def add(self, other):
        for name in ("bytes", "messages", "cut", "resets", "clocks", "mismatches"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def check_messages(messages, run, source, target, errors):
    """The messages of a :class:`~utfhw.sim.verilator.VerilatorRun` that are not what CPython
    gives: ``(index, message, output, expected)`` for each, where a message the run marks as
    cut may give any beginning of CPython's output and any other exactly CPython's."""
    wrong = []
    for index, (message, got, cut) in enumerate(zip(messages, run.messages(),
                                                    run.cut or [False] * len(messages))):
        want = message.decode(source, errors).encode(target, errors)
        if got != want and not (cut and want.startswith(got)):
            wrong.append((index, message, got, want))
    if len(run.output_lengths) != len(messages):
        wrong.append((len(run.output_lengths), b"", b"", b"(a record for every message)"))
    return wrong


def _messages(rng, source, size, seed):
    """Adversarial input of about ``size`` bytes cut into messages of every length around a
    beat and up to a few kilobytes."""
    data = stress_input(source, size, seed=seed)
    messages = []
    start = 0
    # Cut by position: cutting the rest off again each time is quadratic in the chunk.
    while start < len(data):
        cut = rng.choice([0, 1, 2, 3, 31, 32, 33, rng.randrange(200), rng.randrange(5000)])
        messages.append(data[start:start + cut])
        start += cut
    return messages


def soak(spec, total_bytes, *, chunk=1 << 24, stall=0.2, reset=1e-4, seed=0, report=None):
    """Send about ``total_bytes`` of adversarial messages through the Verilated core ``spec``
    (a :class:`~utfhw.hdl.cores.CoreSpec`), ``chunk`` bytes a run, with stalls of probability
    ``stall`` on each side and a reset starting on a clock with probability ``reset``; returns
    the :class:`SoakFigures`. ``report(figures, mismatched)`` is called after each run."""
    pipeline = verilated_pipeline(spec)
    rng = random.Random(seed)
    figures = SoakFigures(stall=stall)
    run_number = 0
    while figures.bytes < total_bytes:
        size = min(chunk, total_bytes - figures.bytes)
        messages = _messages(rng, spec.source, size, seed=seed * 100003 + run_number)
        run = pipeline.run(messages, stall=stall, seed=seed * 100003 + run_number, reset=reset)
        wrong = check_messages(messages, run, spec.source, spec.target, spec.hardware_errors)
        figures.add(SoakFigures(bytes=sum(map(len, messages)), messages=len(messages),
                                cut=sum(run.cut), resets=run.resets, clocks=run.cycles,
                                mismatches=len(wrong)))
        if report is not None:
            report(figures, wrong)
        run_number += 1
    return figures


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m utfhw.bench.soak",
        description="Differential soak: adversarial messages through Verilated cores with "
                    "random stalls and resets, every message compared with CPython.")
    parser.add_argument("--wide-bytes", type=int, default=1 << 30,
                        help="bytes through the wide core (default: 1 GiB)")
    parser.add_argument("--width", type=int, default=32, help="its width (default: 32)")
    parser.add_argument("--scalar-bytes", type=int, default=100_000_000,
                        help="bytes through each source form's scalar core (default: 100 MB)")
    parser.add_argument("--stall", type=float, default=0.2)
    parser.add_argument("--reset", type=float, default=1e-4,
                        help="probability that a reset starts on a clock (default: 1e-4)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    cores = [(CoreSpec.of("utf-8", "utf-16-le", width=args.width), args.wide_bytes),
             (CoreSpec.of("utf-8", "utf-16-le"), args.scalar_bytes),
             (CoreSpec.of("utf-16-le", "utf-8"), args.scalar_bytes),
             (CoreSpec.of("utf-32-be", "utf-8"), args.scalar_bytes)]
    failed = False
    for spec, total in cores:
        if not total:
            continue
        started = time.monotonic()

        def report(figures, wrong):
            print(f"  {figures.bytes:,} bytes, {figures.messages:,} messages, "
                  f"{figures.resets:,} resets, {figures.mismatches} mismatches", file=sys.stderr)
            for index, message, got, want in wrong[:3]:
                print(f"    message {index}: {message[:40].hex()}... gave {got[:40].hex()}, "
                      f"CPython {want[:40].hex()}", file=sys.stderr)

        print(f"{spec.source} to {spec.target} ({spec.core_name}):", file=sys.stderr)
        figures = soak(spec, total, stall=args.stall, reset=args.reset, seed=args.seed,
                       report=report)
        print(f"{spec.source} to {spec.target} ({spec.core_name}): {figures.bytes:,} bytes, "
              f"{figures.messages:,} messages ({figures.cut:,} cut by a reset), "
              f"{figures.resets:,} resets, {figures.clocks:,} clocks, stall {figures.stall} on "
              f"each side, mismatches: {figures.mismatches} "
              f"({time.monotonic() - started:.0f} s)")
        failed = failed or figures.mismatches > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
