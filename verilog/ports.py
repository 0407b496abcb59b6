"""A machine-readable description of a generated module's ports: each port's direction and
width and, for the stream payloads, every bit field (name, offset, width, meaning). ``utfhw
generate`` writes it as JSON beside the Verilog."""

from amaranth.lib import data, wiring

from ..hdl.axis import AXIStreamTop, TUSER_BITS_PER_UNIT, TUSER_PROTOCOL_ERROR_BIT
from ..hdl.empty_beats import WithoutEmptyBeats
from ..hdl.reset import ResetGuard
from ..hdl.forms import CODECS
from ..hdl.unicode.layout import ErrorKind


__all__ = ["describe_ports", "axis_meanings", "error_kinds"]


_KIND_BITS = ErrorKind.as_shape().width
_ERROR_KINDS = ", ".join(f"{kind.value} {kind.name}" for kind in ErrorKind)

_MEANINGS = {
    "data": "input: the beat's bytes (one code unit, or up to the wide core's width); output: "
            "a code unit's bytes; both in wire order, [7:0] first on the wire",
    "count": "input: bytes present, from [7:0] up; output: lanes holding a unit, from lane 0",
    "last": "the final beat of a message",
    "error": f"ErrorKind of the unit's code point: {_ERROR_KINDS}",
    "valid": "on a message's last beat: the message decodes without error (data.decode(source) "
             "raises nothing)",
    "kind": f"on a message's last beat: the ErrorKind of its first error, CPython's reason "
            f"(error_kinds); 0 if valid: {_ERROR_KINDS}",
    "overflow": "on a message's last beat: the message is longer than the counters hold "
                "(2**33 bytes or more); its positions and lengths are not its own",
    "start": "on a message's last beat: CPython's start of the first error (0 if valid)",
    "end": "on a message's last beat: CPython's end of the first error (0 if valid)",
    "code_points": "on a message's last beat: len(data.decode(source, 'replace'))",
    "utf16_units": "on a message's last beat: UTF-16 code units of data.decode(source, "
                   "'replace')",
    "utf8_bytes": "on a message's last beat: bytes of data.decode(source, "
                  "'replace').encode('utf-8')",
}

# A validator's output beats are its input's.
_VALIDATOR_MEANINGS = {
    **_MEANINGS,
    "data": "the beat's bytes, in wire order, [7:0] first on the wire; out as they came in",
    "count": "bytes present, from [7:0] up; out as they came in",
}


# What every core's AXI4-Stream input ports carry, but s_axis_tkeep.
_AXIS_INPUT = {
    "s_axis_tlast": "the final beat of a message",
    "s_axis_tvalid": "an input beat is offered",
    "s_axis_tready": "the input beat is taken on this rising edge, if valid",
}


def axis_meanings(top, spec):
    """What each AXI4-Stream port of ``top`` (an :class:`~utfhw.hdl.axis.AXIStreamTop` around
    the core ``spec`` names) carries, with the module's own figures: the rules of a beat at its
    width, how output beats are packed and what ``m_axis_tuser`` holds on each lane."""
    width, unit, lanes = top.input_bytes, top.unit_bytes, top.lanes
    wide = spec.kind in ("wide", "validator")
    bytes_ = f"{width} byte{'s' if width > 1 else ''}"
    whole = ("all " if width > 1 else "") + bytes_ + ("" if wide else " (one source code unit)")
    packing = (f"every beat before a message's tlast beat holds all {lanes} lanes"
               if wide else f"each beat holds what one input unit gives, 0 to {lanes} lanes")
    return {
        "s_axis_tdata": f"{bytes_} a beat "
                        + ("(the core's width)" if wide else "(one source code unit)")
                        + ", in wire order ([7:0] first)",
        "s_axis_tkeep": f"one bit a byte, kept bytes packed from byte 0; every beat of a message "
                        f"but its last keeps {whole}; the tlast beat may keep fewer, or none "
                        f"(an empty message: nothing kept, tlast); a beat that keeps none "
                        f"without tlast (a null beat) is taken and dropped; a beat whose kept "
                        f"bytes have a hole, do not start at byte 0, or are fewer than {width} "
                        f"without tlast is a protocol error (protocol_error): it is transcoded "
                        f"as if its kept bytes were packed from byte 0, so that message's output "
                        f"is not CPython's",
        **_AXIS_INPUT,
        "m_axis_tdata": f"up to {lanes} target code units of {unit} byte(s), packed from lane 0: "
                        f"lane k in bytes {unit}*k up, in wire order; {packing}",
        "m_axis_tkeep": "one bit a byte: the bytes of the lanes that hold a unit (none on a beat "
                        "that carries no unit); the bytes of the other lanes are don't-care",
        "m_axis_tlast": "the final beat of a message",
        "m_axis_tvalid": "an output beat is offered",
        "m_axis_tready": "the output beat is taken on this rising edge, if valid",
        "m_axis_tuser": f"{TUSER_BITS_PER_UNIT} bits a lane, lane k in bits "
                        f"{TUSER_BITS_PER_UNIT}*k up: bits [{_KIND_BITS - 1}:0] are the ErrorKind of lane k's "
                        f"unit ({_ERROR_KINDS}), don't-care on lanes not kept; bit "
                        f"{TUSER_PROTOCOL_ERROR_BIT}, on the tlast beat and on every lane kept "
                        f"or not, says that the message's input had a protocol error; the "
                        f"other bits are 0",
        "protocol_error": "high for one clock after an input beat the core cannot take was taken "
                          "(see s_axis_tkeep): that message's output is not CPython's",
    } if top.verdict_bits is None else {
        **_AXIS_INPUT,
        "s_axis_tdata": f"{width} bytes a beat (the core's width), in wire order ([7:0] first)",
        "s_axis_tkeep": f"one bit a byte, kept bytes packed from byte 0; every beat of a message "
                        f"but its last keeps all {width} bytes; the tlast beat may keep fewer, "
                        f"or none (an empty message); a beat that keeps none without tlast is "
                        f"taken and dropped; any other beat is a protocol error "
                        f"(protocol_error), validated as if its kept bytes were packed from "
                        f"byte 0",
        "m_axis_tdata": "the input beat's bytes, unchanged",
        "m_axis_tkeep": "one bit a byte: the bytes of the beat, from byte 0",
        "m_axis_tlast": "the final beat of a message",
        "m_axis_tvalid": "an output beat is offered",
        "m_axis_tready": "the output beat is taken on this rising edge, if valid",
        "m_axis_tuser": f"on the tlast beat, the message's verdict: the fields of tuser_fields "
                        f"from bit 0, and bit {top.verdict_bits} set if its input had a "
                        f"protocol error; 0 on the other beats",
        "protocol_error": "high for one clock after an input beat the core cannot take was taken "
                          "(see s_axis_tkeep): that message's verdict is not CPython's",
    }


def _fields(layout, prefix="", offset=0):
    """The leaf fields of a payload layout (a struct or an array of them) as ``(name, offset,
    width)``, names joined with dots (``lanes.1.error``)."""
    if isinstance(layout, data.StructLayout):
        members = list(layout)
    else:
        members = [(str(index), layout[index]) for index in range(layout.length)]
    fields = []
    for name, field in members:
        path = f"{prefix}.{name}" if prefix else name
        if isinstance(field.shape, (data.StructLayout, data.ArrayLayout)):
            fields += _fields(field.shape, path, offset + field.offset)
        else:
            fields.append((path, offset + field.offset, field.width))
    return fields


def core_of(top):
    """The transcoding core inside ``top``, a module ``utfhw generate`` writes: under its
    :class:`~utfhw.hdl.reset.ResetGuard`, and its AXI4-Stream ports and
    :class:`~utfhw.hdl.empty_beats.WithoutEmptyBeats`, if any."""
    while isinstance(top, (AXIStreamTop, ResetGuard, WithoutEmptyBeats)):
        top = top.core
    return top


def describe_ports(top, *, name, spec, interface):
    """The ports of ``top`` (the module ``utfhw generate`` writes for ``spec``, a
    :class:`~utfhw.hdl.cores.CoreSpec`) as a dict ready for JSON."""
    core = core_of(top)
    ports = [
        {"name": "clk", "direction": "in", "width": 1,
         "meaning": "clock; everything happens on its rising edge"},
        {"name": "rst", "direction": "in", "width": 1,
         "meaning": "synchronous reset, active high, for one clock or more at any time; "
                    "optional: every register starts from its initial value. While it is high "
                    "the input's ready and the output's valid are low; after it the core is as "
                    "at power-up, the interrupted message gone"},
    ]
    meanings = axis_meanings(top, spec) if interface == "axis" else None
    meanings_of = _VALIDATOR_MEANINGS if spec.kind == "validator" else _MEANINGS
    for path, member, value in top.signature.flatten(top):
        port_name = "__".join(map(str, path))
        port = {"name": port_name, "direction": "in" if member.flow == wiring.In else "out",
                "width": len(value.as_value()) if hasattr(value, "as_value") else len(value)}
        if interface == "axis":
            port["meaning"] = meanings[port_name]
        elif port_name.endswith("__payload"):
            port["fields"] = [
                {"name": field, "offset": offset, "width": width,
                 "meaning": meanings_of[field.rpartition(".")[2]]}
                for field, offset, width in _fields(value.shape())]
        else:
            port["meaning"] = {"valid": "a beat is offered",
                               "ready": "the beat is taken on this rising edge, if valid"}[
                                   port_name.rpartition("__")[2]]
        ports.append(port)
    described = {
        "module": name, "source": spec.source, "target": spec.target, "errors": spec.errors_name,
        "kind": spec.kind, "pipelined": spec.kind == "pipelined", "width": spec.width,
        "interface": interface, "latency": core.latency, "capacity": core.capacity,
        "ports": ports,
        "error_kinds": error_kinds(spec.source,
                                   None if spec.kind == "validator" else spec.target),
    }
    if hasattr(core, "most_clocks_per_beat"):
        # More than one only where an escape lengthens the output.
        described["most_clocks_per_beat"] = core.most_clocks_per_beat
    if hasattr(core, "stage_names"):
        # What the core is made of, for the pair: a wide core without compaction says so.
        described["stages"] = list(core.stage_names)
    if interface == "axis" and top.verdict_bits is not None:
        result = core.o.payload.shape()["result"].shape
        described["tuser_fields"] = [
            {"name": field, "offset": offset, "width": width,
             "meaning": _VALIDATOR_MEANINGS[field]} for field, offset, width in _fields(result)]
    return described


def error_kinds(source, target=None):
    """The error kinds a core from codec ``source`` (to ``target``) writes, each with its value
    and CPython's ``reason`` for it from that codec (well-formed data is kind 0, ``NONE``): the
    source's decoding errors, and the characters a target such as Latin-1 cannot hold."""
    kinds = {ErrorKind.NONE: None, **CODECS[source].form.error_kinds}
    if target is not None and CODECS[target].form.unencodable_reason is not None:
        kinds[ErrorKind.UNENCODABLE_CHARACTER] = CODECS[target].form.unencodable_reason
    return [{"value": kind.value, "name": kind.name, "reason": reason}
            for kind, reason in kinds.items()]
