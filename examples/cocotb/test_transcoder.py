"""A cocotb test of your own around a utfhw core with AXI4-Stream ports, to copy into your
flow: cocotbext-axi's bus models on both sides, pauses on both, and utfhw's golden model
scoring every output beat against what CPython gives.

It reads which core it tests from the port description ``utfhw generate`` wrote beside the
Verilog (``transcoder.json``, or the file ``UTFHW_PORTS`` names). Run it with run.py.
"""

import json
import logging
import os
import random

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSink, AxiStreamSource

from utfhw.bench.golden import Scoreboard
from utfhw.hdl import CoreSpec


def pauses(rng):
    while True:
        yield int(rng.random() < 0.3)


@cocotb.test()
async def transcodes_as_cpython(dut):
    with open(os.environ.get("UTFHW_PORTS", "transcoder.json")) as file:
        ports = json.load(file)
    spec = CoreSpec.of(ports["source"], ports["target"], errors=ports["errors"],
                       width=ports["width"])
    # Text in the source codec ("?" where it cannot hold a character), then bytes that are
    # malformed in most codecs, and a message longer than a beat.
    text = "h\u00e9llo \u20ac \U0001F600".encode(spec.source, "replace")
    messages = [text, b"A\xff\xfe\x00\xd8\xc3", text * 5 + b"\x80"]

    cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    rng = random.Random(1)
    source.set_pause_generator(pauses(rng))
    sink.set_pause_generator(pauses(rng))
    # The bus models log every frame; the scoreboard says what matters in one line.
    source.log.setLevel(logging.WARNING)
    sink.log.setLevel(logging.WARNING)

    dut.rst.value = 1
    for _ in range(4):
        await RisingEdge(dut.clk)
    dut.rst.value = 0

    scoreboard = Scoreboard(spec, interface="axis", log=dut._log)
    for message in messages:
        scoreboard.expect(message)
        await source.send(AxiStreamFrame(message))
    for _ in messages:
        scoreboard.add_frame(await sink.recv(compact=False))
    scoreboard.finish()
