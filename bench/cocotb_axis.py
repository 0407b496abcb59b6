"""A cocotb test bench for the AXI4-Stream top (``utfhw generate --interface axis``), built on
cocotbext-axi's bus models and scored by the reference model.

Each message goes in as one frame from an ``AxiStreamSource`` on ``s_axis``, an
``AxiStreamMonitor`` on ``s_axis`` checks that every frame went in whole and in order, and an
``AxiStreamSink`` on ``m_axis`` takes the output frames. Both sides pause at random. Every
output unit, and its error kind from ``m_axis_tuser``, is compared with the units
:func:`utfhw.model.wide.expected_beats` gives for the message. cocotbext-axi cannot send an
empty frame, so empty messages are left out here (the stream top's benches send them).

With ``UTFHW_EMPTY_BEATS=0`` (``utfhw cocotb --interface axis --no-empty-beats``) it also
watches ``m_axis`` and fails if any beat keeps no byte. Settings come from the same environment
variables as :mod:`utfhw.bench.cocotb`; run it with ``utfhw cocotb --interface axis``.
"""

import random

from .cocotb import settings
from .stimulus import stress_messages


__all__ = []


try:
    import cocotb
    from cocotb.clock import Clock
    from cocotb.triggers import ReadOnly, RisingEdge
    from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamMonitor, AxiStreamSink
    from cocotbext.axi import AxiStreamSource
except ImportError:
    cocotb = None


def _stalls(rng, probability):
    while True:
        yield int(rng.random() < probability)


def _units(frame, unit_bytes, lanes):
    """The ``(data, error kind)`` of every kept unit of an uncompacted frame, in order."""
    units = []
    beat_bytes = unit_bytes * lanes
    for beat in range(len(frame.tdata) // beat_bytes):
        for lane in range(lanes):
            first = beat * beat_bytes + lane * unit_bytes
            if frame.tkeep[first]:
                data = int.from_bytes(bytes(frame.tdata[first:first + unit_bytes]), "little")
                units.append((data, (frame.tuser[first] >> (8 * lane)) & 0b111))
    return units


if cocotb is not None:
    @cocotb.test()
    async def transcodes_like_the_reference_model(dut):
        """Every output unit and error kind equals the reference model's, under random
        pauses on both sides."""
        from ..hdl.unicode.layout import ErrorKind
        from ..model.wide import expected_beats

        config = settings()
        source, target, errors = config["source"], config["target"], config["errors"]
        messages = [message for message in stress_messages(source, config["seed"],
                                                        config["messages"]) if message]
        rng = random.Random(config["seed"])

        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        sender = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        monitor = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        receiver = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        sender.set_pause_generator(_stalls(rng, config["stall"]))
        receiver.set_pause_generator(_stalls(rng, config["stall"]))
        lanes = len(dut.m_axis_tuser) // 8
        unit_bytes = len(dut.m_axis_tkeep) // lanes

        dut.rst.value = 1
        for _ in range(2):
            await RisingEdge(dut.clk)
        dut.rst.value = 0
        empty = []

        async def watch_empty_beats():
            # Every beat that moves and keeps no byte (none is an empty message's: the bench
            # sends none).
            while True:
                await RisingEdge(dut.clk)
                await ReadOnly()
                if dut.m_axis_tvalid.value and dut.m_axis_tready.value and \
                        not dut.m_axis_tkeep.value.to_unsigned():
                    empty.append(bool(dut.m_axis_tlast.value))

        cocotb.start_soon(watch_empty_beats())

        for message in messages:
            await sender.send(AxiStreamFrame(message))
        for index, message in enumerate(messages):
            taken = await monitor.recv()
            assert bytes(taken.tdata) == message, f"input frame {index} was not taken whole"
            frame = await receiver.recv(compact=False)
            expected = [(data, ErrorKind(kind).value) for units, _ in
                        expected_beats(message, source, target, errors,
                                       width=config["width"])
                        for data, kind in units]
            assert _units(frame, unit_bytes, lanes) == expected, \
                f"message {index} ({message.hex()}): the output differs from the model's"
        dut._log.info("%d frames matched the reference model; %d beats kept no byte",
                      len(messages), len(empty))
        if not config["empty_beats"]:
            assert empty == [], f"{len(empty)} output beats kept no byte"
