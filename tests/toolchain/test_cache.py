"""utfhw's cache folder (toolchain/cache.py): a cached conversion is the one ``utfhw generate``
makes, is read back instead of converted again, and is never served to a different design,
source or folder."""

import gc
import os
import subprocess
import sys
import warnings

from amaranth.hdl import UnusedElaboratable

from utfhw.hdl.cores import CoreSpec
from utfhw.toolchain.cache import cache_dir
from utfhw.verilog.generate import generate_module

from support import copy_package


SPEC = CoreSpec.of("utf-16-le", "utf-8", errors="replace")


def kept(folder):
    return sorted((folder / "verilog").glob("*.txt"))


def test_cached_text_is_the_generated_text(tmp_path, monkeypatch):
    monkeypatch.setenv("UTFHW_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path
    fresh = generate_module(SPEC)
    assert generate_module(SPEC, cached=True).text == fresh.text
    [entry] = kept(tmp_path)
    assert fresh.text.endswith(entry.read_text())
    assert generate_module(SPEC, cached=True).text == fresh.text


def test_a_kept_conversion_is_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("UTFHW_CACHE_DIR", str(tmp_path))
    generate_module(SPEC, cached=True)
    [entry] = kept(tmp_path)
    entry.write_text("module marker; endmodule\n")
    assert generate_module(SPEC, cached=True).text.endswith("module marker; endmodule\n")
    # Without ``cached`` nothing is read from the folder.
    assert "marker" not in generate_module(SPEC).text


def test_a_design_read_back_is_still_elaborated(tmp_path, monkeypatch):
    monkeypatch.setenv("UTFHW_CACHE_DIR", str(tmp_path))
    generate_module(SPEC, cached=True)
    # Whatever earlier tests on this worker left unused is collected first: only this
    # design's warnings count.
    gc.collect()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        generate_module(SPEC, cached=True)
        gc.collect()
    assert not [warning for warning in caught if warning.category is UnusedElaboratable]


def test_each_design_and_language_has_its_own_entry(tmp_path, monkeypatch):
    monkeypatch.setenv("UTFHW_CACHE_DIR", str(tmp_path))
    texts = {generate_module(SPEC, cached=True, **options).text for options in
             [{}, {"name": "other"}, {"language": "rtlil"}, {"interface": "axis"},
              {"empty_beats": False}]}
    texts.add(generate_module(SPEC.with_errors("ignore"), cached=True).text)
    assert len(texts) == len(kept(tmp_path)) == 6


def test_an_unwritable_cache_only_costs_the_saving(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("UTFHW_CACHE_DIR", str(blocker))
    assert generate_module(SPEC, cached=True).text == generate_module(SPEC).text
    assert not blocker.read_text()


def test_an_edited_source_misses_the_cache(tmp_path):
    """A checkout whose gateware differs by one comment does not read another's conversion,
    and one with the same source does."""
    cache = tmp_path / "cache"
    program = ("import sys; from utfhw.hdl.cores import CoreSpec; "
               "from utfhw.verilog.generate import generate_module; "
               "generate_module(CoreSpec.of('utf-16-le', 'utf-8'), cached=True)")
    environment = dict(os.environ, UTFHW_CACHE_DIR=str(cache))

    def run(folder):
        subprocess.run([sys.executable, "-c", program], check=True, cwd=folder,
                       env=dict(environment, PYTHONPATH=str(folder)))
        return len(kept(cache))

    same = copy_package(tmp_path / "same")
    edited = copy_package(tmp_path / "edited")
    with open(edited / "utfhw" / "hdl" / "scalar" / "utf16.py", "a") as source:
        source.write("# an edit\n")
    assert run(same) == 1
    assert run(copy_package(tmp_path / "again")) == 1
    assert run(edited) == 2
