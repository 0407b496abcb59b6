"""The UART transcoder bridge at its pins, in Amaranth's simulator, against CPython."""

import gc
import random
import shutil

import pytest
from amaranth.sim import Simulator

from types import SimpleNamespace

from amaranth.hdl import ClockDomain, Fragment, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In
from amaranth.lib.io import SimulationPort

from utfhw.hdl.bridge import UARTBridge, burst_limit, expansion, FIFO_MARGIN, BITS_PER_FRAME
from utfhw.boards.top import BOARDS, BridgeTop
from utfhw.hdl.bytestream import BeatAssembler, LaneSerializer, UnitAssembler
from utfhw.hdl.unicode.layout import UnitBytes
from utfhw.hdl.uart import UARTReceiver, UARTTransmitter
from utfhw.bench.stimulus import stress_input
from utfhw.model.reference import CODECS
from utfhw.bench.uart import send_bytes, receive_bytes
from utfhw.verilog.generate import convert
from utfhw.toolchain.tools import find_iverilog, find_verilator, run


DIVISOR = 4
CLOCK = 4_000_000
IDLE_BITS = 30

MULTILINGUAL = ("Grüße aus Zürich! Привет, мир. Γειά σου κόσμε. 你好，世界。こんにちは。"
                "안녕하세요. مرحبا بالعالم. שלום עולם. नमस्ते दुनिया. สวัสดีชาวโลก. "
                "Emoji: 👋🌍🚀, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.")
# Invalid bytes, overlong forms, an encoded surrogate, a code point above U+10FFFF, and a
# sequence cut short by the end of the message.
MALFORMED = b"ok \xff \xc0\xaf \xe0\x80\x80 \xed\xa0\x80 \xf4\x90\x80\x80 \xe2\x82 done \xf0\x9f\x98"


class Pins:
    """The pins of a design: the serial lines ``rx`` (driven) and ``tx`` (read), and
    ``flags()``, what the design shows as ``(overflow, framing_error)``."""
    def __init__(self, design, rx, tx, flags):
        self.design, self.rx, self.tx, self.flags = design, rx, tx, flags


def bridge_pins(bridge):
    return Pins(bridge, bridge.rx, bridge.tx,
                lambda ctx: (ctx.get(bridge.overflow), ctx.get(bridge.framing_error)))


def run_bridge(bridge, messages, **kwargs):
    return run_pins(bridge_pins(bridge), messages, **kwargs)


def run_pins(pins, messages, *, expected_length, gap_bits=0, seed=0, pause_bits=None,
             clock=CLOCK):
    """Send ``messages`` to the ``rx`` pin, each followed by an idle line, and return the bytes
    the ``tx`` pin sends (``expected_length`` of them, or with ``None`` all that come), with the
    final ``overflow`` and ``framing_error``."""
    pause_bits = IDLE_BITS + 2 * BITS_PER_FRAME if pause_bits is None else pause_bits
    received = []

    async def host_sends(ctx):
        rng = random.Random(seed)
        for message in messages:
            await send_bytes(ctx, pins.rx, message, divisor=DIVISOR, gap_bits=gap_bits,
                             rng=rng)
            ctx.set(pins.rx, 1)
            await ctx.tick().repeat(pause_bits * DIVISOR)

    async def host_receives(ctx):
        timeout = (IDLE_BITS + 4 * BITS_PER_FRAME) * DIVISOR * 4
        received.append(await receive_bytes(ctx, pins.tx, expected_length, divisor=DIVISOR,
                                            timeout=timeout))
        # Nothing more may come out.
        await ctx.tick().repeat(2 * BITS_PER_FRAME * DIVISOR)
        assert ctx.get(pins.tx) == 1
        received.append(pins.flags(ctx))

    simulator = Simulator(pins.design)
    simulator.add_clock(1 / clock)
    simulator.add_testbench(host_sends)
    simulator.add_testbench(host_receives)
    simulator.run()
    return received[0], *received[1]


def cpython(messages, source, target, errors="replace"):
    return b"".join(message.decode(source, errors).encode(target, errors) for message in messages)


def make_bridge(source="utf-8", target="utf-16-le", errors="replace", **kwargs):
    kwargs.setdefault("fifo_depth", 64)
    return UARTBridge(source=source, target=target, errors=errors, clk_freq=CLOCK,
                      baud=CLOCK // DIVISOR, idle_bits=IDLE_BITS, **kwargs)


@pytest.mark.parametrize("gap_bits", [0, 3])
def test_multilingual_and_malformed_messages(gap_bits):
    messages = [MULTILINGUAL.encode("utf-8"), MALFORMED]
    expected = cpython(messages, "utf-8", "utf-16-le")
    output, overflow, framing_error = run_bridge(
        make_bridge(fifo_depth=512), messages, expected_length=len(expected),
        gap_bits=gap_bits, seed=gap_bits)
    assert output == expected
    assert (overflow, framing_error) == (0, 0)


class PinLevelPlatform:
    """Stands in for a board's platform in simulation: every resource the board top requests
    is a simulation port, with the board's polarity (the iCEBreaker's LEDs are active low)."""
    def __init__(self, board):
        self.board = board
        self.ports = {}

    def request(self, name, number=0, *, dir):
        assert dir == "-"
        if name == "uart":
            port = SimpleNamespace(rx=SimulationPort("i", 1, name="uart_rx"),
                                   tx=SimulationPort("o", 1, name="uart_tx"))
        else:
            resource = self.board.platform().lookup(name, number)
            port = SimulationPort("o", 1, invert=resource.ios[0].invert, name=f"{name}_{number}")
        self.ports[(name, number)] = port
        return port


@pytest.mark.parametrize("board", BOARDS)
def test_board_top_at_its_pins(board):
    """The whole board top, simulated at the FPGA's pins: the UART's and the LEDs' (the
    UART's alone on a board without LEDs for the flags)."""
    clock = BOARDS[board].platform().default_clk_frequency
    top = BridgeTop(board, baud=int(clock) // DIVISOR, fifo_depth=512, idle_bits=IDLE_BITS)
    assert top.bridge.divisor == DIVISOR
    platform = PinLevelPlatform(top.board)
    design = Fragment.get(top, platform)
    uart = platform.ports[("uart", 0)]
    if top.board.overflow_led is None:
        assert list(platform.ports) == [("uart", 0)]

        def leds(ctx):
            return (0, 0)
    else:
        overflow_pin = platform.ports[top.board.overflow_led]
        framing_pin = platform.ports[top.board.framing_led]
        inverted = overflow_pin.invert[0]

        def leds(ctx):
            return tuple(int(ctx.get(pin.o) != inverted) for pin in (overflow_pin, framing_pin))

    messages = [MULTILINGUAL.encode("utf-8"), MALFORMED]
    expected = cpython(messages, "utf-8", "utf-16-le")
    output, overflow, framing_error = run_pins(
        Pins(design, uart.rx.i, uart.tx.o, leds), messages, expected_length=len(expected),
        gap_bits=2, seed=7, clock=clock)
    assert output == expected
    assert (overflow, framing_error) == (0, 0)


@pytest.mark.parametrize("source,target,errors", [
    ("utf-16-be", "utf-8", "replace"),   # two bytes per unit; an odd trailing byte
    ("utf-8-sig", "utf-16", "ignore"),   # a mark stripped, one written per message
    ("utf-32", "utf-8-sig", "replace"),  # four bytes per unit, read from a mark
])
def test_other_pairs(source, target, errors):
    text = MULTILINGUAL[:40]
    messages = [
        text.encode(source),
        text.encode(source)[:-1],
        MALFORMED + MALFORMED[:3],
        "\ufeff".encode("utf-8") + "x".encode(source),
    ]
    expected = cpython(messages, source, target, errors)
    output, overflow, framing_error = run_bridge(
        make_bridge(source, target, errors, fifo_depth=256), messages,
        expected_length=len(expected), gap_bits=2, seed=1)
    assert output == expected
    assert (overflow, framing_error) == (0, 0)


def test_burst_at_the_limit_is_not_lost():
    # ASCII to UTF-16 doubles every byte: the worst case of this pair.
    bridge = make_bridge(fifo_depth=2 * FIFO_MARGIN)
    assert bridge.burst_limit == 2 * FIFO_MARGIN * 2 // 1 - 2 * FIFO_MARGIN
    message = bytes(random.Random(5).choices(b"abcdefghij", k=bridge.burst_limit))
    expected = cpython([message], "utf-8", "utf-16-le")
    output, overflow, _ = run_bridge(bridge, [message], expected_length=len(expected))
    assert output == expected
    assert overflow == 0


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("source,target,errors,width", [
    ("utf-8", "utf-16-le", "replace", None), ("utf-8", "utf-32-be", "ignore", 4),
    ("utf-16-le", "utf-8", "replace", 8), ("utf-32", "utf-16", "replace", None),
])
def test_burst_limit_without_a_bridge(source, target, errors, width):
    """The host's burst limit, from the pair and the FIFO alone, is the bridge's."""
    bridge = make_bridge(source, target, errors, fifo_depth=300, width=width)
    assert burst_limit(source, target, errors, fifo_depth=300) == bridge.burst_limit
    assert bridge.width == width
    del bridge
    gc.collect()


def test_beat_assembler():
    """A full beat waits for the next entry, so that an end marker after it puts last on it;
    an end marker after a part beat sends it with last."""
    assembler = BeatAssembler(width=4)
    entries = [(byte, 0) for byte in b"abcdefg"] + [(0, 1)] + \
        [(byte, 0) for byte in b"ABCD"] + [(0, 1)]
    beats = []

    async def feed(ctx):
        for data, end in entries:
            ctx.set(assembler.i.payload, {"data": data, "end": end})
            ctx.set(assembler.i.valid, 1)
            await ctx.tick().until(assembler.i.ready)
        ctx.set(assembler.i.valid, 0)

    async def take(ctx):
        ctx.set(assembler.o.ready, 1)
        for _ in range(3 * len(entries)):
            await ctx.tick()
            if ctx.get(assembler.o.valid):
                payload = ctx.get(assembler.o.payload)
                beats.append((payload.data.to_bytes(4, "little")[:payload.count], payload.last))

    simulator = Simulator(assembler)
    simulator.add_clock(1e-6)
    simulator.add_testbench(feed)
    simulator.add_testbench(take)
    simulator.run()
    assert beats == [(b"abcd", 0), (b"efg", 1), (b"ABCD", 1)]


def test_burst_past_the_limit_lights_overflow():
    bridge = make_bridge(fifo_depth=2 * FIFO_MARGIN)
    message = b"a" * (3 * bridge.burst_limit)
    # Some bytes are dropped, so fewer come out; take what a full FIFO lets through.
    output, overflow, _ = run_bridge(bridge, [message], expected_length=None)
    assert overflow == 1
    # The bytes that were not dropped still come out whole.
    assert 2 * bridge.burst_limit <= len(output) < 2 * len(message)
    assert output == "a".encode("utf-16-le") * (len(output) // 2)


def test_framing_error_is_reported():
    bridge = make_bridge()
    # A 0x00 byte sent at half the baud rate: its "stop bit" is still low.
    received = []

    async def host(ctx):
        for bit in [0] * 10 + [1]:
            ctx.set(bridge.rx, bit)
            await ctx.tick().repeat(DIVISOR * 2)
        await ctx.tick().repeat(DIVISOR * (IDLE_BITS + 2 * BITS_PER_FRAME))
        received.append((ctx.get(bridge.framing_error), ctx.get(bridge.overflow),
                         ctx.get(bridge.tx)))

    simulator = Simulator(bridge)
    simulator.add_clock(1 / CLOCK)
    simulator.add_testbench(host)
    simulator.run()
    assert received == [(1, 0, 1)]


# The handlers of the bridge's cores, and pairs of them with an escape on encoding.
EXPANSION_ERRORS = ["replace", "ignore", ("replace", "backslashreplace"),
                    ("replace", "xmlcharrefreplace"), ("ignore", "xmlcharrefreplace")]


def transcoded(message, source, target, errors):
    decoding, encoding = (errors, errors) if isinstance(errors, str) else errors
    return message.decode(source, decoding).encode(target, encoding)


@pytest.mark.parametrize("source", CODECS)
@pytest.mark.parametrize("target", CODECS)
def test_expansion_bounds_cpython(source, target):
    for errors in EXPANSION_ERRORS:
        ratio = expansion(source, target, errors)
        for seed in range(4):
            data = stress_input(source, 4000, seed=seed)
            for start in range(0, len(data), 500):
                message = data[start:start + random.Random(start).randrange(1, 500)]
                output = transcoded(message, source, target, errors)
                # Beyond the ratio, a message may add a byte order mark and the replacement
                # of a part unit at its end: the margin the burst rule keeps.
                assert len(output) <= ratio * len(message) + FIFO_MARGIN, (
                    source, target, errors, message)


@pytest.mark.parametrize("source", CODECS)
@pytest.mark.parametrize("target", CODECS)
def test_expansion_is_reached(source, target):
    """The bound is tight: some input grows by exactly that much (an escape's longest in a
    run of code points of one length is at its end)."""
    witnesses = [(text * 300).encode(source, "replace")
                 for text in ("a", "\u00e9", "\u00ff", "\u07ff", "\u0800", "\uffff",
                              "\U0001F600", "\U0010ffff")]
    witnesses += [] if source.startswith(("utf-16", "utf-32")) else [b"\xff" * 300]
    for errors in EXPANSION_ERRORS:
        ratio = expansion(source, target, errors)
        best = max(len(transcoded(witness, source, target, errors)) / len(witness)
                   for witness in witnesses if witness)
        assert best >= ratio * 0.98, (source, target, errors, best)


@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("arguments,message", [
    ({"clk_freq": 0}, "clk_freq must be a positive number of Hz, not 0"),
    ({"baud": 0}, "baud must be an integer of at least 1, not 0"),
    ({"baud": 2_000_000}, "baud must be at most clk_freq / 4 = 1000000, not 2000000"),
    ({"baud": 900_000}, "baud 900000 is 11.1% off at 4000000 Hz (4 clocks per bit give "
                        "1000000); choose one within 1%"),
    ({"fifo_depth": 15}, "fifo_depth must be an integer of at least 16, not 15"),
    ({"idle_bits": 19}, "idle_bits must be an integer of at least 20, not 19"),
    ({"source": "cp1252"}, "source codec must be 'utf-8', 'utf-8-sig', "),
    ({"errors": "strict"}, "errors must be 'replace' or 'ignore', not 'strict'"),
    ({"errors": ("strict", "xmlcharrefreplace")},
     "errors for decoding must be 'replace' or 'ignore', not 'strict'"),
    ({"errors": ("replace", "xmlcharrefreplace"), "width": 4},
     "errors must be one handler's name for the wide core, not ('replace', "
     "'xmlcharrefreplace') (a pair of handlers is for the Transcoder)"),
    ({"width": 3}, "width must be a power of two from 1 to 64, not 3"),
    ({"source": "utf-32", "width": 2}, "width must be at least 4 for utf-32, not 2"),
    ({"validate": True, "target": None}, "width must be given for a validator (validate=True)"),
    ({"validate": True, "width": 4}, "a validator passes its source through: target must be "
                                     "utf-8, not utf-16-le"),
    ({"validate": 1, "target": None, "width": 4}, "validate must be True or False, not 1"),
])
def test_bridge_arguments(arguments, message):
    kwargs = {"clk_freq": CLOCK, "baud": CLOCK // DIVISOR, **arguments}
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")) \
            as refused:
        UARTBridge(**kwargs)
    del refused
    gc.collect()


# A refused core is never elaborated.
@pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")
@pytest.mark.parametrize("make,error,message", [
    (lambda: UARTReceiver(divisor=3), ValueError,
     "divisor must be an integer of at least 4, not 3"),
    (lambda: UARTTransmitter(divisor=True), ValueError,
     "divisor must be an integer of at least 4, not True"),
    (lambda: UnitAssembler(width=3), ValueError, "width must be 1, 2 or 4 bytes, not 3"),
    (lambda: BeatAssembler(width=3), ValueError,
     "width must be a power of two from 1 to 64, not 3"),
    (lambda: LaneSerializer(layout=UnitBytes(1)), TypeError,
     "layout must be a Lanes layout, not UnitBytes(1)"),
])
def test_core_arguments(make, error, message):
    with pytest.raises(error, match="^" + message.replace("(", r"\(").replace(")", r"\)") + "$") \
            as refused:
        make()
    del refused
    gc.collect()


class ResetPin(wiring.Component):
    """``design`` with its reset on a pin of its own, for a bench to pulse."""
    rst: In(1)

    def __init__(self, design):
        self.design = design
        super().__init__()

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = domain = ClockDomain()
        m.d.comb += domain.rst.eq(self.rst)
        m.submodules.design = self.design
        return m


@pytest.mark.parametrize("cut_after,hold", [(3, 1), (40, 3), (90, 2)])
def test_reset_mid_message(cut_after, hold):
    """A reset while a message comes in and its output goes out: the tx line goes idle, the
    flags clear, nothing of the cut message comes out after the reset, and the next message
    is exact."""
    bridge = make_bridge(fifo_depth=512)
    top = ResetPin(bridge)
    cut = MULTILINGUAL.encode("utf-8") + MALFORMED
    following = [MALFORMED, "añ€😀".encode()]
    expected = cpython(following, "utf-8", "utf-16-le")
    reset_done = []
    received = []

    async def host_sends(ctx):
        await send_bytes(ctx, bridge.rx, cut[:cut_after], divisor=DIVISOR)
        ctx.set(top.rst, 1)
        for _ in range(hold):
            # One tick at a time: `repeat` stops a testbench at a reset.
            await ctx.tick()
        ctx.set(top.rst, 0)
        ctx.set(bridge.rx, 1)
        assert (ctx.get(bridge.tx), ctx.get(bridge.overflow), ctx.get(bridge.framing_error)) \
            == (1, 0, 0)
        reset_done.append(True)
        # The host's own receiver needs a frame's time to see the line idle again.
        await ctx.tick().repeat(BITS_PER_FRAME * DIVISOR)
        for message in following:
            await send_bytes(ctx, bridge.rx, message, divisor=DIVISOR)
            ctx.set(bridge.rx, 1)
            await ctx.tick().repeat((IDLE_BITS + 2 * BITS_PER_FRAME) * DIVISOR)

    async def host_receives(ctx):
        while not reset_done:
            await ctx.tick()
        timeout = (IDLE_BITS + 4 * BITS_PER_FRAME) * DIVISOR * 4
        received.append(await receive_bytes(ctx, bridge.tx, None, divisor=DIVISOR,
                                            timeout=timeout))

    simulator = Simulator(top)
    simulator.add_clock(1 / CLOCK)
    simulator.add_testbench(host_sends)
    simulator.add_testbench(host_receives)
    simulator.run()
    assert received == [expected]


def bridge_reset_bench(first, second, *, divisor, quiet_clocks):
    """A Verilog bench for module ``bridge``: it sends the bytes ``first`` on ``rx`` until the
    clock ``+cut=N`` names, where it holds ``rst`` high for ``+hold=N`` clocks (whatever frame
    was going in or out), then, after a frame's time of idle line, sends ``second``. From the
    end of the reset it writes every byte it receives on ``tx`` (8N1, sampled mid-bit) to
    ``received.txt``, and a word for anything else: ``x`` for an X on ``tx``, ``stop-bit`` for
    a low stop bit, ``after-reset`` for a busy line or a flag just after the reset. It stops
    when the line has been idle ``quiet_clocks`` after the last byte sent."""
    def bytes_list(name, data):
        return "".join(f"        {name}[{index}] = 8'h{byte:02x};\n"
                       for index, byte in enumerate(data))
    return f"""`timescale 1ns/1ps
module bench;
    reg clk = 1'b0;
    reg rst = 1'b0;
    reg rx = 1'b1;
    wire tx, overflow, framing_error;
    bridge dut (.clk(clk), .rst(rst), .rx(rx), .tx(tx), .overflow(overflow),
                .framing_error(framing_error));
    always #5 clk = ~clk;
    reg [7:0] first [0:{len(first) - 1}];
    reg [7:0] second [0:{len(second) - 1}];
    integer cycle = 0, listening = 0, sent = 0, quiet = 0, cut = 0, hold = 1;
    integer bit_sent, bit_read, index, out;
    reg [7:0] received;
    always @(posedge clk) cycle <= cycle + 1;

    task send_byte(input [7:0] value);
        begin
            rx = 1'b0;
            repeat ({divisor}) @(negedge clk);
            for (bit_sent = 0; bit_sent < 8; bit_sent = bit_sent + 1) begin
                rx = value[bit_sent];
                repeat ({divisor}) @(negedge clk);
            end
            rx = 1'b1;
            repeat ({divisor}) @(negedge clk);
        end
    endtask

    initial begin
{bytes_list("first", first)}{bytes_list("second", second)}        if ($value$plusargs("cut=%d", cut)) ;
        if ($value$plusargs("hold=%d", hold)) ;
        out = $fopen("received.txt", "w");
        @(negedge clk);
        fork
            begin : sender
                for (index = 0; index < {len(first)}; index = index + 1) send_byte(first[index]);
            end
            begin
                wait (cycle >= cut);
                @(negedge clk);
                disable sender;
            end
        join
        rst = 1'b1;
        rx = 1'b1;
        repeat (hold) @(negedge clk);
        rst = 1'b0;
        if (tx !== 1'b1 || overflow !== 1'b0 || framing_error !== 1'b0)
            $fwrite(out, "after-reset\\n");
        listening = 1;
        repeat ({10 * divisor}) @(negedge clk);
        for (index = 0; index < {len(second)}; index = index + 1) send_byte(second[index]);
        sent = 1;
    end

    initial begin
        wait (listening);
        forever begin
            @(negedge clk);
            if (tx === 1'bx) $fwrite(out, "x\\n");
            if (tx === 1'b0) begin
                quiet = 0;
                repeat ({divisor // 2}) @(negedge clk);
                for (bit_read = 0; bit_read < 8; bit_read = bit_read + 1) begin
                    repeat ({divisor}) @(negedge clk);
                    received[bit_read] = tx;
                end
                repeat ({divisor}) @(negedge clk);
                if (tx !== 1'b1) $fwrite(out, "stop-bit\\n");
                $fwrite(out, "%02x\\n", received);
            end else if (sent) begin
                quiet = quiet + 1;
                if (quiet > {quiet_clocks}) begin
                    $fclose(out);
                    $finish;
                end
            end
        end
    end
endmodule
"""


@pytest.mark.parametrize("simulator", ["icarus-2005", "icarus-2012", "verilator"])
def test_reset_mid_message_in_verilog(tmp_path, simulator):
    """The bridge's Verilog, reset at random clocks (a few frames in, or with output going
    out): after the reset the line is idle and the flags clear, no X, and only the next
    message's output comes, exact."""
    if simulator.startswith("icarus") and shutil.which("iverilog") is None:
        pytest.skip("iverilog is not installed")
    cut = MULTILINGUAL.encode("utf-8") + MALFORMED
    second = MALFORMED + "añ€😀".encode()
    expected = cpython([second], "utf-8", "utf-16-le")
    (tmp_path / "bridge.v").write_text(convert(make_bridge(fifo_depth=512), name="bridge"))
    (tmp_path / "bench.v").write_text(bridge_reset_bench(
        cut, second, divisor=DIVISOR,
        quiet_clocks=(IDLE_BITS + 4 * BITS_PER_FRAME) * DIVISOR * 4))
    if simulator.startswith("icarus"):
        generation = "-g" + simulator.split("-")[1]
        run([find_iverilog(), generation, "-o", "bench.vvp", "-s", "bench", "bench.v",
             "bridge.v"], what="iverilog", cwd=tmp_path)
        command = ["vvp", "-n", "bench.vvp"]
    else:
        run([find_verilator(), "--binary", "--timing", "-Wno-fatal", "-Wno-lint", "-Wno-style",
             "--top-module", "bench", "-Mdir", "obj", "-o", "bench", "bench.v", "bridge.v"],
            what="verilator", cwd=tmp_path)
        command = [str(tmp_path / "obj" / "bench")]
    frame = BITS_PER_FRAME * DIVISOR
    rng = random.Random(simulator)
    for hold, cut_clock in [(1, 3 * frame + rng.randrange(frame)),
                            (3, 40 * frame + rng.randrange(frame))]:
        run([*command, f"+cut={cut_clock}", f"+hold={hold}"], what=simulator, cwd=tmp_path)
        words = (tmp_path / "received.txt").read_text().split()
        assert not [word for word in words if len(word) != 2], (cut_clock, words[:8])
        assert bytes(int(word, 16) for word in words) == expected, cut_clock
