"""The core protocol and the choice of core for a codec pair (hdl/cores.py)."""

import gc
import itertools

import pytest

from utfhw.hdl import CODECS, Core, PIPELINED_PAIRS, PipelinedUTF8ToUTF16, Transcoder, make_core
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
    with pytest.raises(ValueError, match=r"^target codec must be 'utf-8', "):
        make_core("utf-8", "utf_8")
    with pytest.raises(ValueError, match=r"^pipelined=True is for utf-8 to utf-16-le or "
                                         r"utf-16-be, not utf-8 to utf-32$"):
        make_core("utf-8", "utf-32", pipelined=True)
    gc.collect()
