"""Run the generated Verilog of a pipeline in Verilator.

:func:`verilated_pipeline` generates the Verilog that ``utfhw generate`` writes, verilates it,
and compiles it with ``verilator_driver.cpp`` (the C++ twin of :mod:`utfhw.sim.stream`) into a
program that streams messages through the design with random stalls on both sides. Builds are
kept in utfhw's cache folder (:mod:`utfhw.toolchain.cache`) by a hash of the Verilog, the driver
and the toolchain, and the Verilog itself is kept there too, so once a design is built a later
call (in any process) only reads and hashes its Verilog, and within one process not even that.
"""

import array
import concurrent.futures
import functools
import json
import pathlib
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field

from amaranth.hdl import Shape

from ..hdl.unicode.layout import ErrorKind, ValidatedBytes
from ..hdl.unicode.params import check_errors
from ..toolchain import tools
from ..toolchain.cache import building, cache_dir, digest
from ..verilog.generate import generate_module
from ..verilog.ports import core_of
from .payload import LaneFormat
from .stream import check_stall
from ..toolchain.tools import BuildError, ToolchainError


__all__ = ["ToolchainError", "BuildError", "verilator_available", "VerilatorRun", "VerilatedPipeline",
           "verilated_pipeline", "compile_driver"]


DRIVER_SOURCE = pathlib.Path(__file__).with_name("verilator_driver.cpp")

# Flags shared by the runtime, its precompiled header and every design, so the header applies.
_CXXFLAGS = ["-std=c++20", "-O1", "-DVL_TIME_CONTEXT", "-DVERILATOR=1", "-DVM_COVERAGE=0",
             "-DVM_SC=0", "-DVM_TIMING=0", "-DVM_TRACE=0", "-DVM_TRACE_FST=0",
             "-DVM_TRACE_VCD=0", "-DVM_TRACE_SAIF=0"]
_PCH_HEADER = "utfhw_verilated.h"
_RUNTIME_SOURCES = ["verilated.cpp", "verilated_threads.cpp"]
_NO_ERROR = (1 << 64) - 1


@functools.lru_cache(maxsize=None)
def _toolchain():
    verilator = tools.find_verilator()
    tools.require_program("perl", what="perl (which Verilator needs)",
                          install="install it (Debian: apt install perl)")
    compiler = tools.find_compiler()
    root = tools.verilator_root()
    version = tools.run([verilator, "--version"], what="verilator --version").strip()
    compiler_version = tools.run([compiler, "--version"], what=f"{compiler} --version")
    return verilator, compiler, root / "include", \
        digest(version, compiler, compiler_version, *_CXXFLAGS)


def verilator_available():
    """Whether Verilator, perl and a C++ compiler are found here (nothing is built)."""
    try:
        _toolchain()
    except (ToolchainError, BuildError):
        return False
    return True


def _include_flags(include):
    return [f"-I{include}", f"-I{include / 'vltstd'}"]


def _runtime_folder():
    return cache_dir() / "verilator" / f"runtime-{_toolchain()[3]}"


def _runtime_built():
    return (_runtime_folder() / "done").exists()


def _runtime():
    """Verilator's runtime objects and a precompiled header, built once per toolchain."""
    verilator, compiler, include, toolchain_key = _toolchain()
    final = _runtime_folder()
    if (final / "done").exists():
        return final
    with building(final, "runtime-") as build:
        (build / _PCH_HEADER).write_text(
            '#include "verilated.h"\n#include <cstdio>\n#include <string>\n#include <vector>\n')
        flags = [*_CXXFLAGS, *_include_flags(include)]
        commands = [[compiler, *flags, "-x", "c++-header", "-o", f"{_PCH_HEADER}.gch",
                     _PCH_HEADER]]
        commands += [[compiler, *flags, "-c", "-o", source.replace(".cpp", ".o"),
                      str(include / source)] for source in _RUNTIME_SOURCES]
        # The three take about 15 s one after another, and are independent.
        with concurrent.futures.ThreadPoolExecutor() as pool:
            for done in [pool.submit(tools.run, command, cwd=build, what=f"compiling {command[-1]}")
                         for command in commands]:
                done.result()
        (build / "done").write_text("")
    return final


def _port_options(core):
    """The driver's command-line description of the pipeline's payload fields."""
    def width(shape):
        return Shape.cast(shape).width

    source = core.i.payload.shape()
    target = core.o.payload.shape()
    inputs = {
        "in-unit-bytes": width(source["data"].shape) // 8,
        "in-bits": source.size,
        "in-count-offset": source["count"].offset,
        "in-last-offset": source["last"].offset,
    }
    if isinstance(target, ValidatedBytes):
        # A validator's beats are bytes, with no error kind of their own; its verdict comes
        # with each message's last beat (``--lasts``).
        return {
            **inputs,
            "out-bits": target.size,
            "out-lanes": target.width,
            "out-lane-offset": target["data"].offset,
            "out-lane-stride": 8,
            "out-data-offset": 0,
            "out-data-bits": 8,
            "out-error-offset": 0,
            "out-error-bits": 0,
            "out-count-offset": target["count"].offset,
            "out-count-bits": width(target["count"].shape),
            "out-last-offset": target["last"].offset,
            "out-unit-bytes": 1,
        }
    item = target.item
    return {
        **inputs,
        "out-bits": target.size,
        "out-lanes": target.lane_count,
        "out-lane-offset": target["lanes"].offset,
        "out-lane-stride": item.size,
        "out-data-offset": item["data"].offset,
        "out-data-bits": width(item["data"].shape),
        "out-error-offset": item["error"].offset,
        "out-error-bits": width(item["error"].shape),
        "out-count-offset": target["count"].offset,
        "out-count-bits": width(target["count"].shape),
        "out-last-offset": target["last"].offset,
        "out-unit-bytes": (width(item["data"].shape) + 7) // 8,
    }


@dataclass
class VerilatorRun:
    """What one run of a Verilated pipeline produced.

    Attributes
    ----------
    output : bytes
        The output units of all messages, back to back, in wire order.
    output_lengths : list of int
        Output bytes of each message.
    beat_counts : list of int
        Output beats of each message (one per input beat).
    first_error_beats : list of int or None
        For each message, the index of its first output beat that carries an error kind.
    cycles : int
        Clocks from the first accepted input beat to the last output beat, both included.
    input_beats : int
        Input beats taken.
    cut : list of bool
        For each message, whether a reset cut it: the output it has is what came before the
        reset (with random resets, :meth:`VerilatedPipeline.run_joined`'s ``reset``).
    resets : int
        Resets during the run.
    beats : list or None
        When asked for, the output beats of each message as ``(items, last)`` tuples (see
        :class:`~utfhw.sim.payload.LaneFormat`), all of them or only up to each message's first
        error.
    lasts : list or None
        For a validator, the raw payload (an :class:`int`) of each message's last output beat,
        which holds its verdict.
    """
    output: bytes
    output_lengths: list
    beat_counts: list
    first_error_beats: list
    cycles: int
    input_beats: int
    cut: list = field(default=None, repr=False)
    resets: int = 0
    beats: list = field(default=None, repr=False)
    lasts: list = field(default=None, repr=False)

    def messages(self):
        """The output bytes of each message."""
        offset = 0
        for length in self.output_lengths:
            yield self.output[offset:offset + length]
            offset += length


class VerilatedPipeline:
    """A pipeline's Verilog, compiled by Verilator with the stream driver.

    Attributes
    ----------
    source, target, errors : str
        What the pipeline does (``errors`` is the hardware's handler: ``replace`` or
        ``ignore``).
    name : str
        The Verilog module name.
    directory : pathlib.Path
        The cached build: ``design.v``, the Verilated sources in ``obj/`` and ``driver``.
    """
    def __init__(self, *, source, target, errors, name, directory, ports, output_format,
                 latency, verdicts=False):
        self.latency = latency
        #: Whether each message's last beat carries a verdict (a validator's), which a run
        #: returns as :attr:`VerilatorRun.lasts`.
        self.verdicts = verdicts
        self.source = source
        self.target = target
        self.errors = errors
        self.name = name
        self.directory = directory
        self._ports = ports
        self._output_format = output_format

    @property
    def verilog_path(self):
        return self.directory / "design.v"

    def run(self, messages, *, stall=0.0, seed=None, beats=None, progress=None, reset=0.0):
        """Stream byte ``messages`` back to back through the design; see :meth:`run_joined`."""
        messages = [bytes(message) for message in messages]
        return self.run_joined(b"".join(messages), [len(message) for message in messages],
                               stall=stall, seed=seed, beats=beats, progress=progress,
                               reset=reset)

    def run_joined(self, data, lengths, *, stall=0.0, seed=None, beats=None, progress=None,
                   reset=0.0):
        """Stream the messages ``data`` holds back to back, the ``n``-th ``lengths[n]`` bytes
        long (an empty one goes in as one empty beat with ``last``).

        ``stall`` is the probability of a stall clock on each side, ``seed`` seeds the stall
        pattern (``None`` for 0). ``beats`` may be ``"all"`` or ``"until-error"`` to get the
        output beats back too (slow on long inputs). ``progress(done, total)`` is called about
        every million input beats. ``reset`` is the probability that ``rst`` rises on a clock,
        for one to three clocks, at any point of the run: the driver fails the run if
        ``i.ready`` or ``o.valid`` is high while it is, abandons the message it was sending, and
        marks every message begun before the reset whose output had not all come as
        :attr:`~VerilatorRun.cut`; the output after a reset is the next messages'. Returns a
        :class:`VerilatorRun`.
        """
        check_stall(stall)
        if isinstance(reset, bool) or not isinstance(reset, (int, float)) or \
                not 0 <= reset < 1:
            raise ValueError(f"reset must be a probability from 0 up to (not including) 1, "
                             f"not {reset!r}")
        if beats not in (None, "all", "until-error"):
            raise ValueError(f"beats must be None, 'all' or 'until-error', not {beats!r}")
        if sum(lengths) != len(data):
            raise ValueError(f"message lengths add up to {sum(lengths)} bytes, but there are "
                             f"{len(data)}")
        with tempfile.TemporaryDirectory(prefix="utfhw-run-") as work:
            work = pathlib.Path(work)
            (work / "messages").write_bytes(data)
            (work / "lengths").write_bytes(array.array("Q", lengths).tobytes())
            command = [str(self.directory / "driver"), "--messages", str(work / "messages"),
                       "--lengths", str(work / "lengths"), "--output", str(work / "output"),
                       "--records", str(work / "records"), "--summary", str(work / "summary"),
                       "--stall", repr(float(stall)), "--seed", str(seed or 0),
                       "--reset", repr(float(reset))]
            for name, value in self._ports.items():
                command += [f"--{name}", str(value)]
            if beats is not None:
                command += ["--beats", str(work / "beats")]
                if beats == "until-error":
                    command.append("--beats-until-error")
            if self.verdicts:
                command += ["--lasts", str(work / "lasts")]
            self._execute(command, progress)
            records = array.array("Q", (work / "records").read_bytes())
            summary = dict(line.split() for line in (work / "summary").read_text().splitlines())
            run = VerilatorRun(
                output=(work / "output").read_bytes(),
                output_lengths=records[0::4].tolist(),
                beat_counts=records[1::4].tolist(),
                first_error_beats=[None if index == _NO_ERROR else index
                                   for index in records[2::4].tolist()],
                cycles=int(summary["cycles"]),
                input_beats=int(summary["beats"]),
                cut=[bool(flag) for flag in records[3::4]],
                resets=int(summary["resets"]))
            if beats is not None:
                run.beats = self._read_beats(work / "beats", run, beats)
            if self.verdicts:
                size = 4 * ((self._ports["out-bits"] + 31) // 32)
                raw = (work / "lasts").read_bytes()
                run.lasts = [int.from_bytes(raw[offset:offset + size], "little")
                             for offset in range(0, len(raw), size)]
        return run

    def stream(self, pieces, *, stall=0.0, seed=None, chunk_size=1 << 16):
        """Stream messages through the design as they come, holding none of them whole.

        ``pieces`` is an iterable of ``(data, last)`` pairs: bytes of the messages in order,
        ``last`` true on the pair that ends a message (see :mod:`utfhw.sim.framing`). It is
        read on a thread of its own, while this generator yields what the driver reports:
        ``("data", bytes)`` for output bytes (at most ``chunk_size`` at once),
        ``("error", kind)`` before a message's first unit that carries an error
        (:class:`~utfhw.hdl.unicode.layout.ErrorKind`), for a validator ``("last", payload)``
        with the raw payload of a message's last beat, ``("end", beats)`` when a message's
        output is complete, and last ``("summary", cycles, input_beats)``. ``stall`` and
        ``seed`` are :meth:`run_joined`'s; the same messages give the same output, cycles and
        beats as :meth:`run`. Closing the generator early stops the driver.
        """
        check_stall(stall)
        command = [str(self.directory / "driver"), "--stream", "--chunk", str(chunk_size),
                   "--stall", repr(float(stall)), "--seed", str(seed or 0)]
        if self.verdicts:
            command += ["--lasts", "frames"]
        for name, value in self._ports.items():
            command += [f"--{name}", str(value)]
        process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE)
        failed = []

        def feed():
            try:
                with process.stdin as pipe:
                    for data, last in pieces:
                        data = memoryview(data).cast("B")
                        # Frames of at most chunk_size bytes, so the driver holds no more.
                        for start in range(0, max(len(data), 1), chunk_size):
                            frame = data[start:start + chunk_size]
                            ends = last and start + chunk_size >= len(data)
                            if frame or ends:
                                pipe.write((len(frame) | ends << 63).to_bytes(8, "little"))
                                pipe.write(frame)
            except BrokenPipeError:
                pass                # the driver stopped; its exit says why
            except BaseException as error:
                failed.append(error)
                process.kill()

        # A daemon: if the pieces block (a terminal's standard input), an interrupted run
        # still ends.
        feeder = threading.Thread(target=feed, name="utfhw-verilator-feed", daemon=True)
        feeder.start()
        try:
            output = process.stdout
            summary = None
            while summary is None:
                header = output.read(8)
                if len(header) < 8:
                    break
                word = int.from_bytes(header, "little")
                kind, value = word >> 56, word & ((1 << 56) - 1)
                if kind == 0:
                    data = output.read(value)
                    # The driver's frames may pass chunk_size by part of a beat.
                    for start in range(0, len(data), chunk_size):
                        yield "data", data[start:start + chunk_size]
                elif kind == 1:
                    yield "error", ErrorKind(value)
                elif kind == 2:
                    yield "end", value
                elif kind == 4:
                    yield "last", int.from_bytes(output.read(4 * value), "little")
                else:
                    summary = [int.from_bytes(output.read(8), "little") for _ in range(2)]
            feeder.join()
            errors = process.stderr.read().decode(errors="replace")
            process.wait()
            if failed:
                raise failed[0]
            self._check_exit(process.returncode, errors)
            if summary is None:
                raise RuntimeError(f"the Verilated {self.name} stopped without a summary")
            yield "summary", *summary
        except KeyboardInterrupt:
            # Not waited for: the feeder may be blocked on a terminal's standard input.
            feeder = None
            raise
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
            # Stopped early, the feeder's next write fails: once it has, the pieces are the
            # caller's again.
            if feeder is not None:
                feeder.join()
            for pipe in (process.stdout, process.stderr):
                pipe.close()

    def _check_exit(self, returncode, errors):
        if returncode == -signal.SIGINT:
            # Ctrl-C in a terminal reaches the driver too; it is the user's interrupt, not a
            # failure of the design.
            raise KeyboardInterrupt
        if returncode != 0:
            raise RuntimeError(f"the Verilated {self.name} failed (exit "
                               f"{returncode}): {errors.strip()}")

    def _execute(self, command, progress):
        with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) as process:
            try:
                for line in process.stdout:
                    words = line.split()
                    if progress is not None and words[:1] == ["progress"]:
                        progress(int(words[1]), int(words[2]))
                errors = process.stderr.read()
            except BaseException:
                # Interrupted (Ctrl-C), or the progress callback failed: the run is abandoned,
                # so the driver is stopped rather than waited for.
                process.kill()
                raise
        self._check_exit(process.returncode, errors)

    def _read_beats(self, path, run, mode):
        words = (self._ports["out-bits"] + 31) // 32
        raw = path.read_bytes()
        size = 4 * words
        beats = []
        offset = 0
        for count, first_error in zip(run.beat_counts, run.first_error_beats):
            if mode == "until-error" and first_error is not None:
                count = first_error + 1
            message = []
            for _ in range(count):
                payload = int.from_bytes(raw[offset:offset + size], "little")
                message.append(self._output_format.unpack(payload))
                offset += size
            beats.append(message)
        assert offset == len(raw), "the driver wrote beats the records do not account for"
        return beats


_built = {}


def verilated_pipeline(spec, *, on_build=None):
    """The :class:`VerilatedPipeline` of the core ``spec`` (a
    :class:`~utfhw.hdl.cores.CoreSpec`, its ``errors`` ``"replace"``, ``"ignore"`` or a
    Transcoder's pair of handlers) names, built now or found in the cache.

    ``on_build(name, seconds)`` is called before a build starts (not when the cache has it),
    with the module's name and a rough estimate of the seconds it takes. Raises
    :exc:`ToolchainError` if Verilator, perl or a C++ compiler is missing, :exc:`BuildError` if
    a build fails.
    """
    # A pair of handlers CoreSpec has checked is one the gateware runs; "strict" is not.
    if isinstance(spec.errors, str):
        check_errors(spec.errors)
    if spec not in _built:
        _built[spec] = _build(spec, on_build)
    return _built[spec]


def _build_seconds(width, runtime_built):
    """About how long a build takes on the development machine (2 cores): the runtime's three
    compiles, once per toolchain (5 s), then the design (1.4 s for a scalar core, 2.3 s for the
    wide core at width 4, 15 s at width 32)."""
    return (0 if runtime_built else 5) + 2 + (width or 0) // 2


def compile_driver(verilog, *, name, driver, key=(), on_build=None, width=None):
    """The folder of a program built from Verilog module ``name`` (its text ``verilog``,
    verilated as class ``Vdut``) and the C++ ``driver`` that runs it, found in the cache or
    built now: ``design.v``, the Verilated sources in ``obj/`` and the program, ``driver``.

    ``key`` holds anything else the program depends on (strings); ``on_build`` is called as
    :func:`verilated_pipeline` calls it, ``width`` sizing its estimate."""
    verilator, compiler, include, toolchain_key = _toolchain()
    final = cache_dir() / "verilator" / digest(verilog, name, driver, *key, toolchain_key)
    if (final / "driver").exists():
        _runtime()
        return final
    if on_build is not None:
        on_build(name, _build_seconds(width, _runtime_built()))
    runtime = _runtime()
    with building(final, f"{name}-") as build:
        (build / "design.v").write_text(verilog)
        tools.run([verilator, "--cc", "--prefix", "Vdut", "--top-module", name, "-Mdir", "obj",
                   "-Wno-fatal", "-Wno-lint", "-Wno-style", "design.v"],
                  cwd=build, what="verilating")
        sources = sorted(path.name for path in (build / "obj").glob("Vdut*.cpp"))
        (build / "obj" / "driver.cpp").write_text(driver)
        (build / "obj" / "all.cpp").write_text(
            "".join(f'#include "{source}"\n' for source in [*sources, "driver.cpp"]))
        flags = [*_CXXFLAGS, f"-I{runtime}", *_include_flags(include), "-Iobj"]
        tools.run([compiler, *flags, "-include", _PCH_HEADER, "-o", "driver", "obj/all.cpp",
                   *(str(runtime / source.replace(".cpp", ".o")) for source in _RUNTIME_SOURCES),
                   "-pthread"],
                  cwd=build, what="compiling the driver")
    return final


def _build(spec, on_build):
    # A missing tool is said before the Verilog is made, which can take a while.
    _toolchain()
    module = generate_module(spec, cached=True)
    core, name, verilog = module.top, module.name, module.text
    ports = _port_options(core)
    final = compile_driver(verilog, name=name, driver=DRIVER_SOURCE.read_text(),
                           key=(json.dumps(ports),), on_build=on_build, width=spec.width)
    validator = spec.kind == "validator"
    return VerilatedPipeline(source=spec.source, target=spec.target, errors=spec.errors, name=name,
                             directory=final, ports=ports,
                             output_format=None if validator
                             else LaneFormat(core.o.payload.shape()),
                             latency=core_of(core).latency, verdicts=validator)
