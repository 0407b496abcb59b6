"""``utfhw build``: the bridge's bitstream for a board, with its utilisation and clock."""

import pathlib
import subprocess

from ..hdl.bridge import VERDICT_BYTES
from ..toolchain.tools import tool_environment
from .designs import CAPACITY
from .fit import STAT_SCRIPT, DoesNotFit, check_command, design_counts, shortfall
from .implement import PLACEMENT_FAILURES
from .nextpnr import TimingError, read_report
from .top import BOARDS, BridgeTop


__all__ = ["build", "BuildResult", "TOP_NAME", "describe_core"]


#: The name of the top module and of every file the build writes.
TOP_NAME = "utfhw_bridge"


class BuildResult:
    """A built bitstream: ``bitstream`` (its path), ``report`` (a
    :class:`~utfhw.boards.nextpnr.PnrReport`), ``bridge`` (the
    :class:`~utfhw.hdl.bridge.UARTBridge` it holds) and ``board`` (its name)."""
    def __init__(self, board, bitstream, report, bridge):
        self.board = board
        self.bitstream = bitstream
        self.report = report
        self.bridge = bridge

    def summary(self):
        """A few lines for people: the bitstream, utilisation, clock and the burst rule."""
        bridge = self.bridge
        lines = [
            f"{self.board} ({BOARDS[self.board].device}): {describe_core(bridge)}",
            f"  bitstream   {self.bitstream}",
        ]
        for cell, (used, available) in sorted(self.report.utilisation.items()):
            if available:
                lines.append(f"  {cell:<14}{used:>6} / {available:<6} "
                             f"({100 * used / available:.0f} %)")
            else:   # a cell placed at another's sites (a Gowin TBUF at an IOB's)
                lines.append(f"  {cell:<14}{used:>6}")
        for clock, (achieved, constraint) in self.report.fmax.items():
            lines.append(f"  clock       {achieved:.1f} MHz achieved, {constraint:.1f} MHz "
                         f"needed ({clock})")
        lines.append(f"  serial      {bridge.actual_baud:.0f} baud ({bridge.divisor} clocks per "
                     f"bit), 8N1; a message ends after {bridge.idle_bits} idle bit times")
        if bridge.validates:
            lines.append(f"  answers     each message's verdict, {VERDICT_BYTES} bytes (utfhw "
                         f"board --validate reads them); send any number of bytes back to "
                         f"back (FIFO of {bridge.fifo_depth})")
        else:
            limit = bridge.burst_limit
            lines.append(f"  burst rule  output up to {bridge.expansion:g}x the input; send at "
                         f"most " + ("any number of" if limit is None else str(limit))
                         + f" bytes back to back (FIFO of {bridge.fifo_depth})")
        return "\n".join(lines)


def describe_core(bridge):
    """The core in ``bridge`` (a :class:`~utfhw.hdl.bridge.UARTBridge`) in a few words."""
    spec = bridge.spec
    if bridge.validates:
        return f"the {spec.source} validator at {spec.width} bytes a beat"
    return (f"{spec.source} -> {spec.target}, errors={spec.errors}"
            + ("" if spec.width is None else f", wide core at {spec.width} bytes a beat"))


def _checked(platform, board):
    """``platform`` (a class) with the fit check (:mod:`~utfhw.boards.fit`) between its
    synthesis, the first of its commands, and its place and route."""
    check = check_command(board.family, board.capacity)

    def command_templates(self):
        synthesis, *rest = super(checked, self).command_templates
        return [synthesis, check, *rest]
    checked = type(platform.__name__, (platform,), {
        "command_templates": property(command_templates),
        "__module__": platform.__module__,
    })
    return checked


def _placement_failure(log):
    """nextpnr's error in ``log`` (a path) when it could not place the design, or ``None``."""
    if not log.exists():
        return None
    for line in log.read_text().splitlines():
        if line.startswith("ERROR: ") and any(message in line
                                              for message in PLACEMENT_FAILURES):
            return line[len("ERROR: "):].rstrip(".")
    return None


def build(board, *, directory, source="utf-8", target="utf-16-le", errors="replace",
          baud=115200, **bridge_options):
    """Build the bridge for ``board`` (a name of :data:`~utfhw.boards.top.BOARDS`) in
    ``directory``.

    Returns a :class:`BuildResult`. Raises :exc:`~utfhw.toolchain.tools.ToolchainError` if a
    tool is missing, :exc:`~utfhw.boards.fit.DoesNotFit` after synthesis if the design needs
    more cells than the board's device has (nextpnr does not run),
    :exc:`~utfhw.boards.nextpnr.TimingError` if the design does not meet the board's clock,
    and :exc:`RuntimeError` with the failing tool's log for any other failure."""
    top = BridgeTop(board, source=source, target=target, errors=errors, baud=baud,
                    **bridge_options)
    environment = tool_environment(top.board.tools)
    directory = pathlib.Path(directory)
    platform = _checked(top.board.platform, top.board)()
    report = f"{TOP_NAME}.report.json"
    stat = directory / f"{TOP_NAME}.stat.json"
    stat.unlink(missing_ok=True)
    # The report gives utilisation and Fmax; timing is checked here, from it, so that a miss
    # says by how much.
    plan = platform.build(top, name=TOP_NAME, build_dir=str(directory), do_build=False,
                          nextpnr_opts=f"--report {report} --timing-allow-fail",
                          script_after_synth=STAT_SCRIPT.format(name=TOP_NAME))
    try:
        plan.execute_local(str(directory), env=environment)
    except subprocess.CalledProcessError as error:
        counts = design_counts(stat, top.board.family) if stat.exists() else None
        missing = None if counts is None else shortfall(counts, top.board.capacity)
        if missing is not None:
            raise DoesNotFit(f"{describe_core(top.bridge)} does not fit the {board}: the "
                             f"bridge needs {missing}") from None
        placement = _placement_failure(directory / f"{TOP_NAME}.tim")
        if placement is not None and counts is not None:
            luts, flip_flops, _ = CAPACITY[top.board.capacity]
            raise DoesNotFit(f"{describe_core(top.bridge)} does not fit the {board}: nextpnr "
                             f"could not place the bridge's {counts['lut4']:,} LUT4s and "
                             f"{counts['ff']:,} flip-flops on the {top.board.capacity}'s "
                             f"{luts:,} and {flip_flops:,} ({placement})") from None
        log = ""
        for name in (f"{TOP_NAME}.tim", f"{TOP_NAME}.rpt"):
            path = directory / name
            if path.exists():
                log = path.read_text()[-3000:]
                break
        raise RuntimeError(f"the {board} build failed ({error}); the log ends:\n{log}") from None
    result = BuildResult(board, directory / f"{TOP_NAME}.{top.board.bitstream}",
                         read_report(directory / report), top.bridge)
    if not result.report.met():
        achieved, constraint = min(result.report.fmax.values())
        raise TimingError(f"timing failed on {board}: {achieved:.1f} MHz achieved, "
                          f"{constraint:.1f} MHz needed (see {directory / (TOP_NAME + '.tim')})")
    return result
