"""The lane layer's copies (hdl/lanes/copies.py): they carry what they copy on every clock, and
Yosys keeps them apart where it merges plain registered copies."""

import json
import random

import pytest
from amaranth.back import rtlil
from amaranth.hdl import Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

from utfhw.hdl.lanes.copies import (RegisteredCopy, copied_value, copy_groups, registered_copies,
                                    state_copies, update_copies)
from utfhw.toolchain.tools import find_fpga_tool, run


COPIES = 4


class _Copies(wiring.Component):
    """``COPIES`` copies of a 3-bit counter that counts while ``step`` is high, and of ``step``
    registered; each copy drives an output of its own. ``plain=True`` registers the same
    values with no copies: the broken variant."""
    def __init__(self, *, plain=False):
        self._plain = plain
        super().__init__({
            "step": In(1),
            "counts": Out(3).array(COPIES),
            "steps": Out(1).array(COPIES),
        })

    def elaborate(self, platform):
        m = Module()
        if self._plain:
            # Each output a register of the counter's next value, as the counter is.
            counter = Signal(3)
            m.d.sync += counter.eq(counter + self.step)
            for count, step in zip(self.counts, self.steps):
                m.d.sync += [count.eq(counter + self.step), step.eq(self.step)]
            return m
        counters = state_copies(COPIES, 3, name="counter")
        update_copies(m, counters, lambda copy: copy + self.step)
        registered = [Signal(RegisteredCopy, name=f"step_{index}") for index in range(COPIES)]
        registered_copies(m, registered, self.step)
        for count, counter in zip(self.counts, counters):
            m.d.comb += count.eq(counter)
        for step, copy in zip(self.steps, registered):
            m.d.comb += step.eq(copied_value(copy))
        return m


def test_copies_carry_the_value():
    dut = _Copies()
    rng = random.Random(1)
    simulator = Simulator(dut)
    simulator.add_clock(1e-6)

    async def bench(ctx):
        count = 0
        for _ in range(60):
            step = rng.randrange(2)
            ctx.set(dut.step, step)
            await ctx.tick()
            assert [ctx.get(value) for value in dut.steps] == [step] * COPIES
            count = (count + step) % 8
            assert [ctx.get(value) for value in dut.counts] == [count] * COPIES

    simulator.add_testbench(bench)
    simulator.run()


def _flip_flops(tmp_path, dut):
    yosys = find_fpga_tool("yosys")
    (tmp_path / "top.il").write_text(rtlil.convert(dut, name="top"))
    # One cell a bit (techmap), then merge what has the same inputs.
    run([yosys, "-q", "-p", "read_rtlil top.il; proc; opt; techmap; opt; opt_merge -share_all; "
                            "opt_clean; tee -q -o stat.json stat -json"],
        what="yosys", cwd=tmp_path)
    cells = json.loads((tmp_path / "stat.json").read_text())["modules"]["\\top"]["num_cells_by_type"]
    return sum(count for cell, count in cells.items() if "dff" in cell.lower())


def test_synthesis_keeps_the_copies(tmp_path):
    """Yosys merges registers with the same inputs into one; the copies stay four each."""
    (tmp_path / "copies").mkdir()
    (tmp_path / "plain").mkdir()
    # Per copy: a 3-bit counter, and a toggle with its value a clock before.
    assert _flip_flops(tmp_path / "copies", _Copies()) == (3 + 2) * COPIES
    # The plain registers: one counter and one registered bit are left.
    assert _flip_flops(tmp_path / "plain", _Copies(plain=True)) == 3 + 1


@pytest.mark.parametrize("lanes,groups", [(1, 1), (4, 1), (5, 2), (32, 8)])
def test_copy_groups(lanes, groups):
    assert copy_groups(lanes) == groups


def test_copy_parameters():
    with pytest.raises(ValueError, match=r"^lanes must be an integer of at least 1, not 0$"):
        copy_groups(0)
    with pytest.raises(ValueError, match=r"^count must be an integer of at least 1, not 0$"):
        state_copies(0, 1, name="x")
