"""Board tops: the UART transcoder bridge on each board of :data:`BOARDS`."""

from dataclasses import dataclass

from amaranth.hdl import Elaboratable, Module
from amaranth.lib import io
from amaranth_boards.colorlight_5a75b_r7_0 import Colorlight_5A75B_R70Platform
from amaranth_boards.icebreaker import ICEBreakerPlatform
from amaranth_boards.tang_mega_138k_pro_dock import TangMega138kProDockPlatform
from amaranth_boards.tang_nano_9k import TangNano9kPlatform
from amaranth_boards.tang_primer_20k import TangPrimer20kPlatform
from amaranth_boards.ulx3s import ULX3S_85F_Platform

from ..hdl.bridge import UARTBridge
from .gowin import HIMBAECHEL_TOOLS, himbaechel_platform
from ..hdl.unicode.params import check_choice


__all__ = ["Board", "BOARDS", "BridgeTop"]


@dataclass(frozen=True)
class Board:
    """A board the bridge is built for.

    ``overflow_led`` and ``framing_led`` are the resources (name, number) that show the
    bridge's ``overflow`` and ``framing_error``, or ``None`` on a board whose LEDs are taken;
    ``bitstream`` is the file the build makes; ``family`` the device's family and
    ``capacity`` its name in :data:`~utfhw.boards.designs.CAPACITY`."""
    platform: type
    overflow_led: tuple
    framing_led: tuple
    bitstream: str
    tools: tuple
    family: str
    capacity: str

    @property
    def device(self):
        if hasattr(self.platform, "part"):         # Gowin's name the package in the part
            return self.platform.part
        return f"{self.platform.device}-{self.platform.package}"


BOARDS = {
    # The red LED for overflow; the green one for a framing error (a wrong baud rate).
    "icebreaker": Board(ICEBreakerPlatform, ("led_r", 0), ("led_g", 0), "bin",
                        ("yosys", "nextpnr-ice40", "icepack"), "ice40", "iCE40 UP5K"),
    "ulx3s-85f": Board(ULX3S_85F_Platform, ("led", 0), ("led", 1), "bit",
                       ("yosys", "nextpnr-ecp5", "ecppack"), "ecp5", "ECP5-85F"),
    # Revision 7.0. Its one LED's pin and its button's are the UART's (connector J19, through
    # a USB serial adapter), so no LED shows the flags.
    "colorlight-5a-75b": Board(Colorlight_5A75B_R70Platform, None, None, "bit",
                               ("yosys", "nextpnr-ecp5", "ecppack"), "ecp5", "ECP5-25F"),
    "tang-nano-9k": Board(himbaechel_platform(TangNano9kPlatform), ("led", 0), ("led", 1), "fs",
                          HIMBAECHEL_TOOLS, "gowin", "GW1N-9C"),
    # The core board on its dock, whose USB port carries the UART; amaranth-boards names none
    # of the dock's LEDs.
    "tang-primer-20k": Board(himbaechel_platform(TangPrimer20kPlatform), None, None, "fs",
                             HIMBAECHEL_TOOLS, "gowin", "GW2A-18C"),
    # The Pro dock's USB port carries the UART, as on the Tang Primer 20K's.
    "tang-mega-138k-pro": Board(himbaechel_platform(TangMega138kProDockPlatform), ("led", 0),
                                ("led", 1), "fs", HIMBAECHEL_TOOLS, "gowin", "GW5AST-138C"),
}


class BridgeTop(Elaboratable):
    """The :class:`~utfhw.hdl.bridge.UARTBridge` wired to a board's serial port and LEDs,
    clocked by the board's oscillator (12 MHz on the iCEBreaker, 25 MHz on the ULX3S and the
    Colorlight 5A-75B, 27 MHz on the Tang boards).

    The top only connects pins: all the logic is the bridge, which the system test simulates
    at these same pins. Keyword arguments go to :class:`~utfhw.hdl.bridge.UARTBridge`."""
    def __init__(self, board, **bridge_options):
        check_choice("board", board, BOARDS)
        self.board = BOARDS[board]
        self.bridge = UARTBridge(clk_freq=self.board.platform().default_clk_frequency,
                                 **bridge_options)

    def elaborate(self, platform):
        m = Module()
        m.submodules.bridge = bridge = self.bridge
        uart = platform.request("uart", 0, dir="-")
        m.submodules.rx = rx = io.Buffer("i", uart.rx)
        m.submodules.tx = tx = io.Buffer("o", uart.tx)
        m.d.comb += [bridge.rx.eq(rx.i), tx.o.eq(bridge.tx)]
        for name, led, flag in (("overflow_led", self.board.overflow_led, bridge.overflow),
                                ("framing_led", self.board.framing_led, bridge.framing_error)):
            if led is not None:
                m.submodules[name] = buffer = io.Buffer("o", platform.request(*led, dir="-"))
                m.d.comb += buffer.o.eq(flag)
        return m
