"""Peak memory of ``utfhw transcode --check`` against the input's length.

``python -m utfhw.bench.memory`` writes N MB of mixed UTF-8 (seeded, so every run has the same
bytes), runs ``utfhw transcode --check --sim verilator --width 32`` on it in a process of its
own, and prints the peak resident memory of that process and of the Verilator driver it runs
(the larger of the two), for 20 MB and 200 MB by default. A streamed run's peak should not grow
with the input. The figures are the kernel's own (``wait4``'s ``ru_maxrss``).
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time


__all__ = ["write_mixed_utf8", "peak_memory", "main"]


#: What the lines are made of: every UTF-8 sequence length, and a few malformed bytes so that
#: the error path runs too.
_WORDS = ["plain", "ASCII", "caf\u00e9", "na\u00efve", "\u00fcber", "\u03b1\u03b2\u03b3",
          "\u043c\u0438\u0440", "\u05e9\u05dc\u05d5\u05dd", "\u0645\u0631\u062d\u0628\u0627",
          "\u0928\u092e\u0938\u094d\u0924\u0947", "\u65e5\u672c\u8a9e", "\ud55c\uad6d\uc5b4",
          "\u20ac100", "\U0001F600", "\U0001F680\U0001F30D", "\U00020000"]
_MALFORMED = [b"\xff", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf"]


def write_mixed_utf8(path, size, *, seed=0):
    """Write ``size`` bytes of mixed UTF-8 lines to ``path``, the same bytes for the same
    ``seed``, a megabyte at a time."""
    rng = random.Random(seed)
    lines = []
    for _ in range(4096):
        line = " ".join(rng.choice(_WORDS) for _ in range(rng.randrange(1, 16))).encode()
        if rng.random() < 0.01:
            line += rng.choice(_MALFORMED)
        lines.append(line + b"\n")
    average = sum(map(len, lines)) // len(lines)
    written = 0
    with open(path, "wb") as file:
        while written < size:
            block = b"".join(rng.choices(lines, k=(1 << 20) // average))
            block = block[:size - written]
            file.write(block)
            written += len(block)


def peak_memory(command):
    """Run ``command``; return its peak resident memory in bytes (that of the process or of
    any child it waited for, the larger) and its wall time in seconds. Raises
    :exc:`RuntimeError` if it fails."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # stderr is a few lines; read after the exit, it cannot fill the pipe.
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    errors = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {errors.strip()}")
    return usage.ru_maxrss * 1024, time.monotonic() - started


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m utfhw.bench.memory",
        description="Peak memory of utfhw transcode --check on Verilator against the input's "
                    "length.")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200], metavar="MB",
                        help="input sizes in MB (default: 20 200)")
    parser.add_argument("--width", type=int, default=32, help="the wide core's width "
                                                               "(default: 32)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the input (default: 0)")
    args = parser.parse_args(argv)
    peaks = []
    with tempfile.TemporaryDirectory(prefix="utfhw-memory-") as folder:
        source, target = os.path.join(folder, "in.txt"), os.path.join(folder, "out.bin")
        # The model is built (and the build's memory spent) before anything is measured.
        write_mixed_utf8(source, 1000, seed=args.seed)
        command = [sys.executable, "-m", "utfhw.cli", "transcode", source, target, "--check",
                   "--sim", "verilator", "--width", str(args.width)]
        peak_memory(command)
        print(f"utfhw transcode IN OUT --check --sim verilator --width {args.width} "
              f"(mixed UTF-8, seed {args.seed}):")
        for size in args.sizes:
            write_mixed_utf8(source, size * 1_000_000, seed=args.seed)
            peak, seconds = peak_memory(command)
            peaks.append(peak)
            print(f"  {size:>6} MB input: peak RSS {peak / 1e6:7.1f} MB  ({seconds:.0f} s)",
                  flush=True)
    if len(peaks) > 1:
        print(f"  largest over smallest input's peak: {max(peaks) / peaks[0]:.2f} times")
    return 0


if __name__ == "__main__":
    sys.exit(main())
