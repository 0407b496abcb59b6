"""Every public entry point takes a codec by any name CPython gives it, as ``bytes.decode`` does,
and refuses other codecs with one line.

The names come from CPython: :mod:`encodings.aliases` and the modules it names, each kept if
:func:`codecs.lookup` finds one of the ten codecs under it; and what each name means is what
CPython does with it.
"""

import codecs
import encodings.aliases

import pytest

from utfhw.bench.golden import check_beats, expected_beats
from utfhw.hdl import (CODECS, CoreSpec, Transcoder, Validator, WideTranscoder, check_core,
                       make_core)
from utfhw.model import reference, wide
from utfhw.sim import (simulate, simulate_messages, simulate_stream, transcode, transcode_chunks,
                       validate, validate_chunks, validate_messages)
from utfhw.sim.verilator import verilator_available


# The cores made here only to see what names they keep are never elaborated.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")

def _lookup(name):
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


# CPython's own name of each of the ten codecs (``iso8859-1`` for ``latin-1``).
_TEN = {_lookup(name) for name in CODECS}

#: Every name CPython takes for one of the ten codecs: each alias and module name of
#: :mod:`encodings.aliases`, as written there, with hyphens (``iso-8859-1``) and in capitals with
#: hyphens (``UTF-16-LE``).
NAMES = sorted({variant
                for name in (*encodings.aliases.aliases, *encodings.aliases.aliases.values(),
                             *_TEN)
                for variant in (name, name.replace("_", "-"), name.upper().replace("_", "-"))
                if _lookup(variant) in _TEN})

#: For each of the ten codecs, a name of it that is not utfhw's, in the order of
#: :data:`~utfhw.hdl.CODECS`.
ALIASES = [next(name for name in NAMES if _lookup(name) == _lookup(codec) and name != codec)
           for codec in CODECS]

# Each codec read, and each written, by one of its other names: a pair of aliases and the pair
# of utfhw's names they mean.
PAIRS = [((alias, ALIASES[(index + 1) % len(ALIASES)]),
          (codec, list(CODECS)[(index + 1) % len(CODECS)]))
         for index, (alias, codec) in enumerate(zip(ALIASES, CODECS))]

# A mark, an unpaired surrogate's bytes in UTF-16, a malformed byte of UTF-8, a character
# Latin-1 holds and ASCII does not, and a trailing part of a unit: each codec reads it
# differently.
SAMPLE = b"\xef\xbb\xbf\xff\xfeA\x00\x00\xd8\xc3\xa9\xe9"
TEXT = "\ufeffA\xe9\u20ac\U0001F600".encode("utf-8")


def test_the_names_are_cpythons():
    # Every codec has names other than its own, and none is left out: a check of the
    # derivation above, so that an empty list cannot pass the tests below.
    assert len(ALIASES) == len(CODECS) == 10
    assert {"utf8", "UTF-8", "latin1", "iso-8859-1", "ISO-8859-1", "l1", "us-ascii", "US-ASCII",
            "u16", "UTF-16-LE", "utf_32_be", "UTF-8-SIG"} <= set(NAMES)
    assert "cp1252" not in NAMES and "utf-7" not in NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_name_is_what_cpython_makes_of_it(name):
    assert transcode(SAMPLE, name, "utf-8") == SAMPLE.decode(name, "replace").encode("utf-8")
    assert transcode(TEXT, "utf-8", name) == TEXT.decode("utf-8").encode(name, "replace")
    assert CoreSpec(name, name).source in CODECS


# Each public entry point, called with a source and a target, giving something to compare.
ENTRY_POINTS = {
    "transcode": lambda s, t: transcode(SAMPLE, s, t),
    "simulate": lambda s, t: simulate(SAMPLE, s, t, width=4).output,
    "simulate_messages": lambda s, t: simulate_messages([SAMPLE, b"A"], s, t).outputs,
    "transcode_chunks": lambda s, t: b"".join(transcode_chunks([SAMPLE[:5], SAMPLE[5:]], s, t,
                                                               backend="amaranth")),
    "simulate_stream": lambda s, t: b"".join(simulate_stream([SAMPLE], s, t, backend="amaranth")),
    "validate": lambda s, t: validate(SAMPLE, s, width=4),
    "validate_messages": lambda s, t: validate_messages([SAMPLE], s, width=4).results,
    "CoreSpec": lambda s, t: CoreSpec(s, t, kind="wide", width=4),
    "CoreSpec.of": lambda s, t: CoreSpec.of(s, None, validate=True, width=4),
    "check_core": lambda s, t: check_core(s, t),
    "make_core": lambda s, t: (lambda core: (core.source, core.target))(make_core(s, t)),
    "Transcoder": lambda s, t: (lambda core: (core.source, core.target))(
        Transcoder(source=s, target=t)),
    "WideTranscoder": lambda s, t: (lambda core: (core.source, core.target))(
        WideTranscoder(source=s, target=t, width=4)),
    "Validator": lambda s, t: Validator(source=s, width=4).source,
    "reference.transcode": lambda s, t: reference.transcode(SAMPLE, s, t),
    "reference.decode": lambda s, t: reference.decode(SAMPLE, s),
    "reference.encode": lambda s, t: reference.encode([0x41, 0xE9, 0x1F600], t, "replace"),
    "reference.transcoder_beats": lambda s, t: reference.transcoder_beats(SAMPLE, s, t),
    "wide.expected_beats": lambda s, t: wide.expected_beats(SAMPLE, s, t, width=4),
    "golden.expected_beats": lambda s, t: expected_beats([SAMPLE], CoreSpec(s, t),
                                                         interface="axis"),
    "golden.check_beats": lambda s, t: check_beats(
        [SAMPLE], expected_beats([SAMPLE], CoreSpec(s, t))[0], CoreSpec(s, t)),
}


@pytest.mark.parametrize("entry", ENTRY_POINTS)
def test_every_entry_point_takes_cpythons_names(entry):
    call = ENTRY_POINTS[entry]
    for (source, target), (codec_source, codec_target) in PAIRS:
        assert call(source, target) == call(codec_source, codec_target), (source, target)


@pytest.mark.parametrize("entry", ENTRY_POINTS)
@pytest.mark.parametrize("side", ["source", "target"])
def test_every_entry_point_refuses_other_codecs(entry, side):
    if entry.startswith(("validate", "CoreSpec.of", "Validator", "reference.decode")) \
            and side == "target":
        pytest.skip("takes no target")
    if entry == "reference.encode" and side == "source":
        pytest.skip("takes no source")
    codecs_given = {"source": "utf-8", "target": "utf-16-le", side: "cp1252"}
    with pytest.raises(ValueError) as error:
        ENTRY_POINTS[entry](codecs_given["source"], codecs_given["target"])
    assert str(error.value).startswith(f"{side} codec must be 'utf-8', ")
    assert str(error.value).endswith("or another of CPython's names for them, not 'cp1252'")
    assert "\n" not in str(error.value)


@pytest.mark.skipif(not verilator_available(), reason="validate_chunks needs Verilator")
def test_validate_chunks_takes_cpythons_names():
    assert (validate_chunks([SAMPLE[:3], SAMPLE[3:]], "UTF8", width=4)
            == validate_chunks([SAMPLE[:3], SAMPLE[3:]], "utf-8", width=4))
    with pytest.raises(ValueError, match="^source codec must be .* not 'cp1252'$"):
        validate_chunks([SAMPLE], "cp1252", width=4)
