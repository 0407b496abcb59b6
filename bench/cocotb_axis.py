"""A cocotb test bench for the AXI4-Stream top (``utfhw generate --interface axis``), built on
cocotbext-axi's bus models and scored by the reference model.

Each message goes in as one frame from an ``AxiStreamSource`` on ``s_axis``, an
``AxiStreamMonitor`` on ``s_axis`` checks that every frame went in whole and in order, and an
``AxiStreamSink`` on ``m_axis`` takes the output frames. Both sides pause at random. Every
output beat, its units, kept bytes, ``m_axis_tuser`` and ``m_axis_tlast``, is checked by the
golden model's :class:`~utfhw.bench.golden.Scoreboard`, the one a user's own cocotb test
takes. The bus models' frames are left out of the log unless ``UTFHW_VERBOSE=1``. cocotbext-axi cannot send an
empty frame, so empty messages are left out here (the stream top's benches send them).

With ``UTFHW_EMPTY_BEATS=0`` (``utfhw cocotb --interface axis --no-empty-beats``) it also
watches ``m_axis`` and fails if any beat keeps no byte. Settings come from the same environment
variables as :mod:`utfhw.bench.cocotb`; run it with ``utfhw cocotb --interface axis``.
"""

import random

from .cocotb import bench_spec, quiet_loggers, settings
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


if cocotb is not None:
    @cocotb.test()
    async def transcodes_like_the_reference_model(dut):
        """Every output unit and error kind equals the reference model's, under random
        pauses on both sides."""
        from .golden import Scoreboard

        config = settings()
        spec = bench_spec(config)
        messages = [message for message in stress_messages(spec.source, config["seed"],
                                                        config["messages"]) if message]
        rng = random.Random(config["seed"])

        cocotb.start_soon(Clock(dut.clk, 10, unit="ns").start())
        # cocotbext-axi logs to cocotb.<module>.<bus>.
        quiet_loggers(config["verbose"], f"cocotb.{dut._name}.s_axis",
                      f"cocotb.{dut._name}.m_axis")
        sender = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        monitor = AxiStreamMonitor(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        receiver = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        sender.set_pause_generator(_stalls(rng, config["stall"]))
        receiver.set_pause_generator(_stalls(rng, config["stall"]))
        scoreboard = Scoreboard(spec, interface="axis", empty_beats=config["empty_beats"],
                                log=dut._log)

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
            scoreboard.expect(message)
            await sender.send(AxiStreamFrame(message))
        for index, message in enumerate(messages):
            taken = await monitor.recv()
            assert bytes(taken.tdata) == message, f"input frame {index} was not taken whole"
            scoreboard.add_frame(await receiver.recv(compact=False))
        scoreboard.finish()
        dut._log.info("%d beats kept no byte", len(empty))
        if not config["empty_beats"]:
            assert empty == [], f"{len(empty)} output beats kept no byte"
