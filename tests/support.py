"""Shared by the tests: input generators biased toward the bytes that matter, adversarial
messages for every codec, the oracle, and running many messages through a pipeline's generated
Verilog in Verilator."""

import itertools
import pathlib
import random
import zlib
import shutil

from hypothesis import strategies as st

from conftest import FULL_SWEEP

from utfhw.hdl.cores import CoreSpec
from utfhw.hdl.forms import CODECS
from utfhw.sim.verilator import verilated_pipeline
from utfhw.model.wide import stream_clocks


#: Every pair of codecs.
EVERY_PAIR = list(itertools.product(CODECS, CODECS))

#: Where a test costs a Verilator build a pair, the pairs CI runs: every form to every form
#: (UTF-8, UTF-16, UTF-32, Latin-1 and ASCII) once, the codecs taking turns so that each is a
#: source and a target, marks read and written, and UTF-16 and UTF-32 to the other byte order;
#: ``UTFHW_SWEEP=full`` runs every pair. Every pair goes through Amaranth's simulator in
#: tests/hdl/cores/test_transcoder.py.
BUILT_PAIRS = EVERY_PAIR if FULL_SWEEP else [
    ("utf-8", "utf-8"), ("utf-8", "utf-16-le"), ("utf-8", "utf-32"), ("utf-8", "latin-1"),
    ("utf-8-sig", "ascii"),
    ("utf-16", "utf-8"), ("utf-16-le", "utf-16-be"), ("utf-16-be", "utf-32-le"),
    ("utf-16", "latin-1"), ("utf-16-be", "ascii"),
    ("utf-32", "utf-16"), ("utf-32-le", "utf-8-sig"), ("utf-32-be", "utf-32-le"),
    ("utf-32-le", "latin-1"), ("utf-32", "ascii"),
    ("latin-1", "utf-8-sig"), ("latin-1", "utf-16-be"), ("latin-1", "utf-32-le"),
    ("latin-1", "latin-1"), ("latin-1", "ascii"),
    ("ascii", "utf-8"), ("ascii", "utf-16"), ("ascii", "utf-32-be"), ("ascii", "latin-1"),
    ("ascii", "ascii")]

#: The wide width CI builds cores at beside 4: 8, where a UTF-8 core has two groups of lane
#: copies and every form more than one unit a beat (CI builds dozens of wide cores; one at 16
#: takes twice as long to convert and build as at 8, at 32 four times); the full sweep builds
#: every width, and takes 32 where a test names one width.
WIDE_WIDTH = 32 if FULL_SWEEP else 8

#: Where a sweep runs every scalar value through a codec, the codecs CI takes: each form once,
#: UTF-8 and UTF-16 reading and writing marks, UTF-32 in the other byte order;
#: ``UTFHW_SWEEP=full`` takes every codec.
SWEPT_CODECS = list(CODECS) if FULL_SWEEP else ["utf-8-sig", "utf-16", "utf-32-be", "latin-1",
                                                "ascii"]

def handlers(*key):
    """The error handlers a test runs its core with: both with ``UTFHW_SWEEP=full``;
    in CI one, chosen by ``key`` (the test's parameters) so that the tests take turns (a core's
    build costs more than the checks it serves, and ignore differs from replace by one
    stage)."""
    if FULL_SWEEP:
        return ("replace", "ignore")
    return (("replace", "ignore")[zlib.crc32(repr(key).encode()) % 2],)


#: Where a test runs a core on both back ends, CI takes Verilator (the Amaranth back end runs the
#: same checks on the same beats: tests/sim/test_verilator.py holds the two beat for beat);
#: ``UTFHW_SWEEP=full`` both.
SAMPLED_BACKENDS = ["amaranth", "verilator"] if FULL_SWEEP else ["verilator"]


# Bytes at the edges of Unicode Table 3-7, where decoders go wrong.
TRICKY_BYTES = [
    0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF7, 0xF8, 0xFE, 0xFF,
]

# Whole well-formed sequences of every length and their truncations, to splice into the soup.
SEQUENCES = [
    chr(code_point).encode("utf-8")
    for code_point in (0x41, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF,
                       0x10000, 0x1F600, 0x10FFFF)
]
FRAGMENTS = SEQUENCES + [sequence[:cut] for sequence in SEQUENCES
                         for cut in range(1, len(sequence))]

tricky_byte = st.one_of(st.sampled_from(TRICKY_BYTES), st.integers(0, 255)).map(lambda b: bytes([b]))
fragment = st.one_of(tricky_byte, st.sampled_from(FRAGMENTS))


def byte_soup(min_size=0, max_size=40):
    """Messages made of tricky bytes and (possibly truncated) well-formed sequences."""
    return st.lists(fragment, min_size=min_size, max_size=max_size).map(b"".join)


def cpython_error(data):
    """CPython's (start, end, reason) for malformed UTF-8, or None."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start, error.end, error.reason
    return None


def error_fields(error):
    """What must match between two UnicodeDecodeErrors (or None for no error)."""
    if error is None:
        return None
    return error.encoding, error.object, error.start, error.end, error.reason


def cpython_strict_error(data, source):
    try:
        data.decode(source)
    except UnicodeDecodeError as error:
        return error_fields(error)
    return None


def encoding_meets_unwritable(source, target, decoding):
    """Whether encoding into ``target`` what ``source`` decodes to with the handler
    ``decoding`` can meet a character the target cannot write: one above its last code point,
    or a U+FFFD that replaced a decoding error."""
    source_form, target_form = CODECS[source].form, CODECS[target].form
    return not target_form.holds_every_code_point and (
        source_form.last_code_point > target_form.last_code_point
        or (decoding == "replace" and bool(source_form.error_kinds)))


def cpython_strict_outcome(data, source, target, errors=("strict", "strict")):
    """CPython's error decoding ``data`` and encoding it with ``target``, with the
    ``(decoding, encoding)`` handlers ``errors`` (strict on both sides by default): its type's
    name and :func:`error_fields`, or ``None``."""
    try:
        data.decode(source, errors[0]).encode(target, errors[1])
    except (UnicodeDecodeError, UnicodeEncodeError) as error:
        return (type(error).__name__,) + error_fields(error)
    return None


def hardware_strict_error(beats, message, source, target, *, errors="strict", wide=False):
    """The strict error :func:`~utfhw.sim.simulate` raises from the beats of the core that
    serves ``errors`` for one message, as :func:`cpython_strict_outcome` gives CPython's."""
    from utfhw.model.strict import strict_error
    error = strict_error(beats, message, source, target, errors=errors, wide=wide)
    if error is None:
        return None
    return (type(error).__name__,) + error_fields(error)


def check_messages(messages, source="utf-8", target="utf-16-le", *, errors="replace",
                   stall=0.0, seed=0, pipelined=False):
    """Run messages back to back through one Transcoder (or with ``pipelined``, the
    PipelinedUTF8ToUTF16); compare every message's beats with the model, its bytes with CPython
    and, from the "replace" core's beats, the strict error with CPython's. Returns the cycle
    count."""
    from utfhw.sim.payload import units_to_bytes
    from utfhw.sim.pysim import built_core, run_messages
    from utfhw.model.reference import transcoder_beats

    dut = built_core(CoreSpec.of(source, target, errors=errors, pipelined=pipelined))
    beats, cycles = run_messages(dut, messages, stall=stall, seed=seed)
    assert len(beats) == len(messages)
    for message, message_beats in zip(messages, beats):
        context = (source, target, errors, message.hex())
        assert message_beats == transcoder_beats(message, source, target, errors), context
        assert units_to_bytes(message_beats, target) == \
            message.decode(source, errors).encode(target, errors), context
        if errors == "replace":
            assert hardware_strict_error(message_beats, message, source, target) == \
                cpython_strict_outcome(message, source, target), context
    return cycles


TRICKY_UNITS = [0x0000, 0x0041, 0x00E9, 0xFEFF, 0xFFFE, 0xFFFD, 0xFFFF, 0xD800, 0xDBFF, 0xDC00,
                0xDFFF, 0xE000, 0x10000, 0x1F600, 0x10FFFF, 0x110000, 0xFFFFFFFF]

# Byte order mark edge cases, in every encoding: mark only, mark then text, two marks, a mark
# in the wrong order, a mark cut short, and a mark after other text. Every pair gets all of them.
MARK_CASES = [bytes.fromhex(case) for case in [
    "", "EFBBBF", "EFBBBF 41", "EFBBBF EFBBBF", "EFBB", "41 EFBBBF", "80 EFBBBF",
    "FFFE", "FEFF", "FFFE 4100", "FEFF 0041", "FFFE FFFE", "FEFF FEFF", "FFFE 41", "FF",
    "4100 FFFE", "FFFE 00D8", "FEFF D800 0041",
    "FFFE0000", "0000FEFF", "FFFE0000 41000000", "0000FEFF 00000041", "0000FEFF 0000FEFF",
    "FFFE00", "0000FE", "FFFE0000 00D80000",
]]


def adversarial_message(rng, max_parts=12):
    """A message of tricky bytes, UTF-8 sequences and fragments, and UTF-16/UTF-32 units in
    either byte order, so that every source codec meets both well-formed and malformed input."""
    parts = []
    for _ in range(rng.randrange(max_parts + 1)):
        kind = rng.randrange(4)
        if kind == 0:
            parts.append(bytes([rng.choice(TRICKY_BYTES)]))
        elif kind == 1:
            parts.append(rng.choice(FRAGMENTS))
        else:
            width = 2 if kind == 2 else 4
            unit = rng.choice(TRICKY_UNITS + [rng.getrandbits(8 * width)]) % (1 << 8 * width)
            parts.append(unit.to_bytes(width, rng.choice(["little", "big"])))
    return b"".join(parts)


# Verilator: many messages through a pipeline's generated Verilog, each compared with CPython.

def split(data, lengths):
    offset = 0
    for length in lengths:
        yield data[offset:offset + length]
        offset += length


def check_verilated(data, lengths, source, target, *, errors="replace", stall=0.0, seed=0,
                    pipelined=False, width=None):
    """Stream the messages in ``data`` (the ``n``-th ``lengths[n]`` bytes long) back to back
    through the Verilated pipeline and check each one's output against
    ``message.decode(source, errors).encode(target, errors)``. Without stalls, also check that ``N``
    input beats take ``N`` plus the latency clocks (the wide core: at most one more). Returns
    the :class:`~utfhw.sim.verilator.VerilatorRun`."""
    spec = CoreSpec.of(source, target, errors=errors, pipelined=pipelined, width=width)
    pipeline = verilated_pipeline(spec)
    run = pipeline.run_joined(data, lengths, stall=stall, seed=seed)
    expected = [message.decode(source, errors).encode(target, errors)
                for message in split(data, lengths)]
    if run.output_lengths != [len(output) for output in expected] or run.output != b"".join(expected):
        for index, (message, got, want) in enumerate(zip(split(data, lengths), run.messages(),
                                                         expected)):
            assert got == want, (source, target, errors, index, message.hex(), got.hex(),
                                 want.hex())
        assert False, "outputs differ in length but no message does"
    if stall == 0.0:
        least = run.input_beats + pipeline.latency
        if width is not None:
            # The rest after the final message (to a mark-writing target) delays nothing.
            least = pipeline.latency - CODECS[target].mark + stream_clocks(
                split(data, lengths), width, errors=spec.hardware_errors, target=target,
                source=source)
        most = least + (0 if width is None else 1)
        if width is not None and width < 4 and CODECS[source].form.name == CODECS[target].form.name:
            # UTF-8 to UTF-8 below four bytes a beat: the model's clocks are the fewest, exact
            # while the input never waits for the middle queue; when it does, the expanding
            # stage is busy, so at worst a clock for each input beat and each of expand's.
            most = pipeline.latency - CODECS[target].mark + run.input_beats + stream_clocks(
                split(data, lengths), 4, errors=spec.hardware_errors, target=target,
                source=source) + 1
        assert least <= run.cycles <= most, (source, target, errors, run.cycles, least)
    if width is not None:
        assert run.input_beats == sum(max(1, -(-length // width)) for length in lengths)
    return run


def joined(messages):
    """``(data, lengths)`` of a list of messages."""
    return b"".join(messages), [len(message) for message in messages]


def every_two_bytes():
    return b"".join(value.to_bytes(2, "big") for value in range(1 << 16))


def every_two_bytes_messages():
    """All 16,843,008 byte strings of 1 to 3 bytes as ``(data, lengths)`` chunks, each string
    its own message: first those of 1 and 2 bytes, then the 3-byte ones in eight slices of 32
    first bytes."""
    pairs = every_two_bytes()
    yield bytes(range(256)) + pairs, [1] * 256 + [2] * (1 << 16)
    for start in range(0, 256, 32):
        data = bytearray(3 << 16)
        data[1::3] = pairs[0::2]
        data[2::3] = pairs[1::2]
        slices = []
        for first in range(start, start + 32):
            data[0::3] = bytes([first]) * (1 << 16)
            slices.append(bytes(data))
        joined_slices = b"".join(slices)
        yield joined_slices, [3] * (len(joined_slices) // 3)


#: The slices of :func:`every_two_bytes_messages` CI takes, all nine with ``UTFHW_SWEEP=full``:
#: the messages of one and two bytes, and the three-byte ones that start with C0 to FF (the
#: leads of two-, three- and four-byte sequences and the bytes no sequence starts with). The
#: others are an ASCII or continuation byte before a two-byte message.
SHORT_MESSAGE_SLICES = range(9) if FULL_SWEEP else (0, 7, 8)


PACKAGE = pathlib.Path(__file__).resolve().parent.parent


def copy_package(folder):
    """A copy of the package's sources (no tests, docs, environments or build files) in
    ``folder / "utfhw"``, so that a test can build or import it without touching the checkout.
    Returns ``folder``."""
    shutil.copytree(PACKAGE, folder / "utfhw", ignore=shutil.ignore_patterns(
        ".git", ".venv*", "tests", "docs", "__pycache__", "*.egg-info", "build"))
    return folder


def run_valid_stream(dut, payloads, *, gap=0.3, seed=0, drain=64):
    """Drive raw ``payloads`` into ``dut.i``, a stream without ``ready``, with a clock of no
    beat between them at random (probability ``gap``), and return the raw payloads ``dut.o``
    gave, in order, up to ``drain`` clocks after the last beat went in."""
    from amaranth.sim import Simulator

    rng = random.Random(seed)
    received = []

    async def producer(ctx):
        for payload in payloads:
            while rng.random() < gap:
                ctx.set(dut.i.valid, 0)
                await ctx.tick()
            ctx.set(dut.i.valid, 1)
            ctx.set(dut.i.payload.as_value(), payload)
            await ctx.tick()
        ctx.set(dut.i.valid, 0)

    clocks = int(len(payloads) * (1 + 4 * gap)) + drain

    async def consumer(ctx):
        # Each clock's output, read once after the edge that made it.
        for _ in range(clocks):
            await ctx.tick()
            if ctx.get(dut.o.valid):
                received.append(ctx.get(dut.o.payload.as_value()))

    simulator = Simulator(dut)
    simulator.add_clock(1e-8)
    simulator.add_testbench(producer)
    simulator.add_testbench(consumer)
    simulator.run()
    return received


def run_taking(dut, received, *testbenches):
    """Simulate ``dut`` with ``testbenches`` (a writer driving ``dut.i``, a reader driving
    ``dut.o.ready``), appending to ``received`` each payload ``dut.o`` gives as it is taken,
    in order (a reader may watch it to know when to stop)."""
    from amaranth.sim import Simulator

    async def taker(ctx):
        async for _, _, valid, ready, payload in ctx.tick().sample(dut.o.valid, dut.o.ready,
                                                                   dut.o.payload):
            if valid and ready:
                received.append(payload)

    simulator = Simulator(dut)
    simulator.add_clock(1e-8)
    for testbench in testbenches:
        simulator.add_testbench(testbench)
    simulator.add_process(taker)
    simulator.run()


def check_wide_beats(messages, source, target, width, errors):
    """Run ``messages`` through the wide core in Amaranth's simulator, with stalls on both
    sides, and check each message's beats against the model of the wide core, and its bytes
    against CPython."""
    from utfhw.hdl.forms import CODECS
    from utfhw.sim.pysim import built_core, run_messages
    from utfhw.model.wide import wide_beats

    dut = built_core(CoreSpec.of(source, target, errors=errors, width=width))
    beats, _ = run_messages(dut, messages, stall=0.3, seed=width)
    unit_bytes = CODECS[target].unit_bytes
    for message, got in zip(messages, beats):
        assert got == wide_beats(message, width, errors=errors, target=target,
                                 source=source), message.hex()
        output = b"".join(unit.to_bytes(unit_bytes, "little")
                          for units, _ in got for unit, _ in units)
        assert output == message.decode(source, errors).encode(target, errors)


def check_a_beat_every_clock(messages, source, target, width):
    """With the output always ready, each of ``messages`` alone takes ``ceil(n / width)``
    input clocks (one if empty) and is out ``latency`` clocks later, or one clock more."""
    from utfhw.hdl.cores.wide import WideTranscoder
    from utfhw.sim.backends import simulate

    latency = WideTranscoder.latency_of(width, source=source, target=target)
    for message in messages:
        result = simulate(message, source, target, width=width)
        beats = max(1, -(-len(message) // width))
        assert result.input_beats == beats
        assert beats + latency <= result.cycles <= beats + latency + 1, message.hex()


def check_wide_strict(cases, source, cores, backend):
    """Each of ``cases`` through the wide core of each ``(width, target)`` of ``cores`` with
    ``errors="strict"``: CPython's exception (start, end, reason, object) or its output."""
    from utfhw.sim.backends import simulate

    for data in cases:
        expected = cpython_strict_error(data, source)
        for width, target in cores:
            try:
                result = simulate(data, source, target, errors="strict", width=width,
                                  backend=backend)
            except UnicodeDecodeError as error:
                assert error_fields(error) == expected, (data.hex(), width, target)
            else:
                assert expected is None, (data.hex(), width, target)
                assert result.output == data.decode(source).encode(target)


def corpus_messages(corpus, encoding):
    """Every file of the corpus as a message of ``encoding`` (its text, decoded as UTF-8 with
    replacement), then every file's bytes as they are."""
    files = sorted(path for path in corpus.rglob("*") if path.is_file())
    assert files, "no corpus files"
    return ([path.read_bytes().decode("utf-8", "replace").encode(encoding) for path in files]
            + [path.read_bytes() for path in files])


# The first and last byte of every class of Table 3-7, and ASCII, C0 and F5..FF.
EDGES_25 = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0,
            0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF, 0x41]
EDGES_13 = [0x41, 0x80, 0x8F, 0x90, 0xA0, 0xBF, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xFF]
EDGES_9 = [0x41, 0x80, 0x9F, 0xBF, 0xC2, 0xE0, 0xED, 0xF0, 0xF4]

# (alphabet, length): every message of that many bytes over it. CI runs the bounded set, which
# still has every 3-byte window of the 25 edges, in every place a message can put it.
SWEEPS = [(EDGES_25, 1), (EDGES_25, 2), (EDGES_25, 3), (EDGES_13, 4), (EDGES_9, 5)]
if FULL_SWEEP:
    SWEEPS += [(EDGES_25, 4), (EDGES_13, 5), (EDGES_9, 6)]


def random_messages(rng, width, count):
    """Messages of class-edge bytes and fragments, 0 to three beats and a bit long."""
    messages = []
    for _ in range(count):
        parts = []
        while sum(map(len, parts)) < rng.randrange(0, 3 * width + 5):
            parts.append(rng.choice([bytes([rng.choice(TRICKY_BYTES)]), rng.choice(FRAGMENTS)]))
        messages.append(b"".join(parts))
    return messages + [b"", b"a", b"\xf0", b"\xf0\x90\x80"]


#: Every message of one to three class-edge bytes.
CLASS_MESSAGES = [bytes(message) for length in (1, 2, 3)
                  for message in itertools.product(TRICKY_BYTES, repeat=length)]


def cpython_verdict(message, source):
    """What CPython says of ``message``, as the fields of a Validation."""
    text = message.decode(source, "replace")
    verdict = {"valid": True, "start": None, "end": None, "reason": None,
               "code_points": len(text), "utf16_units": len(text.encode("utf-16-le")) // 2,
               "utf8_bytes": len(text.encode("utf-8"))}
    try:
        message.decode(source)
    except UnicodeDecodeError as error:
        verdict.update(valid=False, start=error.start, end=error.end, reason=error.reason)
    return verdict
