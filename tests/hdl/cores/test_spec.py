"""The core protocol and the choice of core for a codec pair (hdl/cores/spec.py)."""

import gc
import itertools
import warnings

import pytest

from utfhw.hdl import (CODECS, Core, PIPELINED_PAIRS, PipelinedUTF8ToUTF16, Transcoder, UTF8Decoder,
                       make_core)
from utfhw.hdl.unicode.layout import UnitBytes


# A component whose __init__ raises was still created, and Amaranth warns that it went unused.
pytestmark = pytest.mark.filterwarnings("ignore::amaranth.hdl.UnusedElaboratable")


@pytest.mark.parametrize("source,target", list(itertools.product(CODECS, CODECS)))
def test_every_pair_has_a_core(source, target):
    core = make_core(source, target, errors="ignore")
    assert isinstance(core, Transcoder) and isinstance(core, Core)
    assert (core.source, core.target, core.errors) == (source, target, "ignore")
    assert core.i.payload.shape() == UnitBytes(CODECS[source].unit_bytes)
    assert core.capacity >= core.latency >= 1
    del core
    gc.collect()    # so that the unused-elaboratable warning is raised, and ignored, here


@pytest.mark.parametrize("source,target", PIPELINED_PAIRS)
def test_pipelined_core(source, target):
    core = make_core(source, target, errors="strict", pipelined=True)
    assert isinstance(core, PipelinedUTF8ToUTF16) and isinstance(core, Core)
    # "strict" is the replace core, read by a consumer that stops at the first error.
    assert (core.source, core.target, core.errors) == (source, target, "replace")
    assert core.capacity == core.latency + 1
    del core
    gc.collect()


def test_a_component_without_the_protocol_is_no_core():
    from utfhw.hdl import UTF8Decoder
    decoder = UTF8Decoder()
    assert not isinstance(decoder, Core)
    del decoder
    gc.collect()


def test_make_core_arguments():
    with pytest.raises(ValueError, match=r"^errors must be 'replace', 'ignore' or 'strict', "
                                         r"not 'surrogatepass'$"):
        make_core("utf-8", "utf-8", errors="surrogatepass")
    with pytest.raises(ValueError, match=r"^target codec must be 'utf-8', .* not 'utf_7'$"):
        make_core("utf-8", "utf_7")
    with pytest.raises(ValueError, match=r"^pipelined=True is for utf-8 to utf-16-le or "
                                         r"utf-16-be, not utf-8 to utf-32$"):
        make_core("utf-8", "utf-32", pipelined=True)
    gc.collect()


def test_core_spec_names_the_core():
    """A CoreSpec is the one value that names a core; of() reads the keyword form."""
    from utfhw.hdl.cores import CoreSpec
    assert CoreSpec.of("utf-8", "utf-16-be", width=4) == CoreSpec("utf-8", "utf-16-be",
                                                                  "replace", "wide", 4)
    assert CoreSpec.of(pipelined=True).kind == "pipelined"
    spec = CoreSpec("utf-16", "utf-8", "strict")
    assert spec.hardware_errors == "replace" and spec.with_errors("ignore").errors == "ignore"
    assert spec.core_name == "Transcoder"
    core = CoreSpec("utf-8", "utf-16-le", "ignore", "wide", 8).build()
    assert (type(core).__name__, core.errors, core.width) == ("WideTranscoder", "ignore", 8)
    assert CoreSpec("utf-8", "utf-32-le", "replace", "wide", 4).core_name == "WideTranscoder"
    # Equal specs are one key (the Verilator back end caches by them).
    assert len({CoreSpec(), CoreSpec.of(), CoreSpec("utf-8", "utf-16-le")}) == 1


def test_a_pair_of_handlers():
    from utfhw.hdl.cores import CoreSpec
    spec = CoreSpec.of("utf-8", "latin-1", errors=("replace", "xmlcharrefreplace"))
    assert (spec.errors, spec.hardware_errors, spec.errors_name) == (
        ("replace", "xmlcharrefreplace"), ("replace", "xmlcharrefreplace"),
        "replace,xmlcharrefreplace")
    assert spec.build().errors == ("replace", "xmlcharrefreplace")
    # A pair of one handler is that handler.
    assert CoreSpec.of(errors=("ignore", "ignore")) == CoreSpec.of(errors="ignore")
    assert CoreSpec.of(width=4, errors=("replace", "replace")).errors == "replace"
    # Strict on a side: the core that replaces there, whose error kinds the consumer reads.
    strict = {errors: CoreSpec.of("utf-8", "ascii", errors=errors)
              for errors in [("strict", "xmlcharrefreplace"), ("ignore", "strict"),
                             ("strict", "replace"), "strict", "ignore"]}
    assert {errors: (spec.hardware_errors, spec.raises) for errors, spec in strict.items()} == {
        ("strict", "xmlcharrefreplace"): (("replace", "xmlcharrefreplace"), True),
        ("ignore", "strict"): (("ignore", "replace"), True),
        ("strict", "replace"): ("replace", True), "strict": ("replace", True),
        "ignore": ("ignore", False)}
    # Into a target that holds every character, nothing is dropped on encoding.
    assert CoreSpec.of("utf-8", "utf-16", errors=("strict", "ignore")).hardware_errors == \
        ("replace", "ignore")
    gc.collect()


@pytest.mark.parametrize("arguments,message", [
    ({"kind": "fast"},
     "kind must be 'transcoder', 'pipelined', 'wide' or 'validator', not 'fast'"),
    ({"kind": "wide"}, "width must be a power of two from 1 to 64, not None"),
    ({"kind": "wide", "width": 3}, "width must be a power of two from 1 to 64, not 3"),
    ({"width": 4}, "width is for the wide core and the validator, not the transcoder core"),
    ({"kind": "pipelined", "width": 4},
     "width is for the wide core and the validator, not the pipelined core"),
    ({"kind": "validator", "width": 4},
     "a validator passes its source through: target must be utf-8, not utf-16-le"),
    ({"source": "utf-32", "target": "utf-32", "kind": "validator", "width": 2},
     "width must be at least 4 for utf-32, not 2"),
    ({"target": "utf-8", "kind": "validator"},
     "width must be a power of two from 1 to 64, not None"),
    ({"source": "utf-16", "kind": "pipelined"},
     "pipelined=True is for utf-8 to utf-16-le or utf-16-be, not utf-16 to utf-16-le"),
    ({"source": "utf-32", "target": "utf-32", "kind": "wide", "width": 2},
     "width must be at least 4 for utf-32, not 2"),
    ({"source": "utf-16-be", "target": "utf-32-le", "kind": "wide", "width": 1},
     "width must be at least 2 for utf-16-be, not 1"),
    ({"errors": "surrogateescape"},
     "errors must be 'replace', 'ignore' or 'strict', not 'surrogateescape'"),
    ({"source": "cp1252"}, "source codec must be 'utf-8', "),
    ({"errors": ("surrogatepass", "xmlcharrefreplace")},
     "errors for decoding must be 'replace', 'ignore' or 'strict', not 'surrogatepass'"),
    ({"errors": ("replace", "surrogatepass")},
     "errors for encoding must be 'replace', 'ignore', 'backslashreplace', "
     "'xmlcharrefreplace' or 'strict', not 'surrogatepass'"),
    ({"errors": ("strict", "ignore"), "target": "latin-1"},
     "errors must be another pair to latin-1, not ('strict', 'ignore') (the characters it "
     "drops leave no trace of where a decoding error lies)"),
    ({"errors": ["replace", "ignore"]},
     "errors must be a handler's name or a (decoding, encoding) pair of them, not "
     "['replace', 'ignore']"),
    ({"errors": ("replace", "ignore"), "kind": "wide", "width": 4},
     "errors must be one handler's name for the wide core, not ('replace', 'ignore') (a pair "
     "of handlers is for the Transcoder)"),
])
def test_core_spec_messages(arguments, message):
    from utfhw.hdl.cores import CoreSpec
    with pytest.raises(ValueError) as error:
        CoreSpec(**arguments)
    assert str(error.value).startswith(message)


@pytest.mark.parametrize("arguments,message", [
    ({"width": 3}, "--width must be a power of two from 1 to 64, not 3"),
    ({"width": 4, "pipelined": True},
     "--pipelined and --width are two different cores; give one of them"),
    ({"source": "utf-16", "pipelined": True},
     "--pipelined is for utf-8 to utf-16-le or utf-16-be, not utf-16 to utf-16-le"),
    ({"source": "utf-32-le", "width": 2}, "--width must be at least 4 for utf-32-le, not 2"),
    ({"validate": True}, "--width must be given for a validator (--validate)"),
    ({"validate": True, "width": 4, "pipelined": True},
     "--pipelined is a transcoder, not a validator (--validate)"),
    ({"validate": True, "width": 4, "target": "utf-16-le"},
     "a validator passes its source through: --to must be utf-8, not utf-16-le"),
    ({"source": "utf-16", "validate": True, "width": 1},
     "--width must be at least 2 for utf-16, not 1"),
])
def test_core_spec_names_the_arguments_as_asked(arguments, message):
    """CoreSpec.of says width, pipelined=True, validate=True and the target as its caller
    names them (the command line's options), rather than the caller rewriting its
    messages."""
    from utfhw.hdl.cores import CoreSpec
    arguments.setdefault("target", None if arguments.get("validate") else "utf-16-le")
    with pytest.raises(ValueError) as error:
        CoreSpec.of(**arguments, names={"width": "--width", "pipelined": "--pipelined",
                                        "validate": "--validate", "target": "--to"})
    assert str(error.value) == message


def every_kind_of_core():
    from utfhw.hdl.cores import CoreSpec
    from utfhw.hdl.forms import CODECS
    return ([CoreSpec(source, target) for source in CODECS for target in CODECS]
            + [CoreSpec("utf-8", target, kind="pipelined") for target in ("utf-16-le", "utf-16-be")]
            + [CoreSpec(source, target, kind="wide", width=width) for source in CODECS
               for target in CODECS for width in (4, 16)]
            + [CoreSpec("utf-8", "utf-8", kind="wide", width=1),
               CoreSpec("utf-16-le", "utf-8-sig", kind="wide", width=64)]
            + [CoreSpec(source, source, kind="validator", width=width) for source in CODECS
               for width in (4, 64)])


def test_signature_is_the_cores():
    """A spec's ports, found without making the core, are those of the core it builds."""
    for spec in every_kind_of_core():
        core = spec.build()
        assert spec.signature == core.signature, spec
        assert spec.input_layout == core.i.payload.shape()
        assert spec.output_layout == core.o.payload.shape()
    gc.collect()    # the cores made here warn that they were never used, here


def test_signature_makes_no_core():
    """Reading a port's layout from a spec leaves no unused core behind to warn of."""
    from amaranth.hdl import Fragment
    from utfhw.hdl.cores import CoreSpec
    # Amaranth warns of unused elaboratables once it has elaborated one.
    Fragment.get(UTF8Decoder(), None)
    gc.collect()
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        for spec in (CoreSpec("utf-8", "utf-32"), CoreSpec("utf-8", "utf-16-le", kind="pipelined"),
                     CoreSpec("utf-32-be", "utf-8", kind="wide", width=16)):
            assert spec.output_layout.lane_count > 0
        gc.collect()
    assert [str(warning.message) for warning in warned] == []
