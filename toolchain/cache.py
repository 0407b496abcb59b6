"""The folder where utfhw keeps what it made, for later runs in any process: Verilator builds
(:mod:`utfhw.sim.verilator`) and the runtime its benches link (:mod:`utfhw.bench.verilog`),
converted Verilog (:func:`cached_conversion`), and the locks that
keep YoWASP programs' first runs apart (:mod:`utfhw.toolchain.tools`).

It is ``$UTFHW_CACHE_DIR`` if set, else ``$XDG_CACHE_HOME/utfhw`` or ``~/.cache/utfhw``. It is
safe to delete at any time; processes that fill it at once do no harm, since every entry is
written beside its place and moved into it whole.
"""

import contextlib
import functools
import hashlib
import os
import pathlib
import shutil
import tempfile

import amaranth

__all__ = ["cache_dir", "digest", "building", "cached_conversion"]


def cache_dir():
    """The cache folder (see the module documentation)."""
    if os.environ.get("UTFHW_CACHE_DIR"):
        return pathlib.Path(os.environ["UTFHW_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "utfhw"


def digest(*parts):
    """A short hex digest of ``parts`` (strings or bytes), each kept apart from the next."""
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode() if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()[:24]


@contextlib.contextmanager
def building(final, prefix):
    """A fresh folder beside ``final`` to build in, moved into place as ``final`` when the
    build succeeds (unless another process got there first) and removed when it fails."""
    final.parent.mkdir(parents=True, exist_ok=True)
    build = pathlib.Path(tempfile.mkdtemp(prefix=prefix, dir=final.parent))
    try:
        yield build
    except BaseException:
        shutil.rmtree(build, ignore_errors=True)
        raise
    try:
        os.replace(build, final)
    except OSError:
        if not final.exists():
            raise
        shutil.rmtree(build, ignore_errors=True)


@functools.lru_cache(maxsize=None)
def _source_key():
    """Every source file of the gateware and of the Verilog export (so an edit in a checkout is
    never served stale), and Amaranth's version."""
    package = pathlib.Path(__file__).resolve().parent.parent
    sources = sorted([package / "__init__.py", *(package / "hdl").rglob("*.py"),
                      *(package / "verilog").glob("*.py")])
    parts = [amaranth.__version__]
    for path in sources:
        parts += [path.relative_to(package).as_posix(), path.read_bytes()]
    return digest(*parts)


def cached_conversion(arguments, convert, *, found):
    """``convert()``'s text, read from the cache if a conversion with the same ``arguments``
    (a string naming the design, the output language and the tools besides Amaranth that make
    it) was kept there by this source with this Amaranth, else made now and kept. Converting a
    wide core takes seconds to tens of seconds; reading it back, milliseconds. ``found()`` is
    called when the text is read back, to do what the conversion would have done besides
    giving it (elaborate the design). A cache that cannot be written to only costs the
    saving."""
    path = cache_dir() / "verilog" / f"{digest(_source_key(), arguments)}.txt"
    try:
        text = path.read_text()
    except OSError:
        pass
    else:
        found()
        return text
    text = convert()
    part = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, suffix=".part",
                                         delete=False) as part:
            part.write(text)
        os.replace(part.name, path)
    except OSError:
        if part is not None:
            pathlib.Path(part.name).unlink(missing_ok=True)
    return text
