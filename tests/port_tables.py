"""docs/verilog.md's tables of ports, made from the port descriptions ``utfhw generate`` writes
beside its Verilog, so that what the docs say of a port or a bit field is what the JSON says::

    python tests/port_tables.py

writes the tables between the markers in ``docs/verilog.md`` again
(``tests/verilog/test_port_tables.py`` holds them equal).
"""

import pathlib
import sys


REPOSITORY = pathlib.Path(__file__).resolve().parent.parent
DOCUMENT = REPOSITORY / "docs" / "verilog.md"
BEGIN = "<!-- port tables: made by tests/port_tables.py from the modules' port descriptions -->"
END = "<!-- end of port tables -->"

#: The modules whose ports the docs show, as ``utfhw generate`` names them: the scalar core's
#: stream ports and AXI4-Stream ports, the wide core's AXI4-Stream ports and the validator's.
MODULES = [
    ("utf8_to_utf16le", {"source": "utf-8", "target": "utf-16-le"}, "stream"),
    ("utf8_to_utf16le_axis", {"source": "utf-8", "target": "utf-16-le"}, "axis"),
    ("utf8_to_utf16le_w16_axis", {"source": "utf-8", "target": "utf-16-le", "kind": "wide",
                                  "width": 16}, "axis"),
    ("utf8_validator_w16_axis", {"source": "utf-8", "target": "utf-8", "kind": "validator",
                                 "width": 16}, "axis"),
]


def _bits(offset, width):
    return f"`[{offset}]`" if width == 1 else f"`[{offset + width - 1}:{offset}]`"


def _cell(text):
    return text.replace("|", "\\|")


def describe(name, spec, interface):
    """The port description ``utfhw generate`` writes for the module."""
    from utfhw.hdl.cores import CoreSpec
    from utfhw.verilog.generate import make_top
    from utfhw.verilog.ports import describe_ports
    spec = CoreSpec(**spec)
    return describe_ports(make_top(spec, interface=interface), name=name, spec=spec,
                          interface=interface)


def tables():
    """The Markdown between the markers: for each module its ports and, for stream payloads
    and a validator's verdict, their bit fields."""
    lines = []
    for name, spec, interface in MODULES:
        described = describe(name, spec, interface)
        lines += ["", f"`{name}` ({described['source']} to {described['target']}, "
                      f"{described['kind']} core" + (f", W = {described['width']}"
                                                     if described["width"] else "")
                  + f"; latency {described['latency']}, capacity {described['capacity']}):",
                  "", "| port | direction | width | meaning |", "|---|---|---|---|"]
        fields = []
        for port in described["ports"]:
            meaning = port.get("meaning", "the bit fields below")
            lines.append(f"| `{port['name']}` | {port['direction']} | {port['width']} | "
                         f"{_cell(meaning)} |")
            fields += [(port["name"], field) for field in port.get("fields", ())]
        fields += [("m_axis_tuser", field) for field in described.get("tuser_fields", ())]
        if fields:
            lines += ["", "| port | bits | field | meaning |", "|---|---|---|---|"]
            lines += [f"| `{port}` | {_bits(field['offset'], field['width'])} | "
                      f"`{field['name']}` | {_cell(field['meaning'])} |"
                      for port, field in fields]
    return "\n".join(lines[1:])


def replace_between(text, begin, end, made):
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{begin}\n{made}\n{end}{tail}"


def main():
    DOCUMENT.write_text(replace_between(DOCUMENT.read_text(), BEGIN, END, tables()))
    print(f"wrote the port tables of {len(MODULES)} modules to {DOCUMENT}", file=sys.stderr)


if __name__ == "__main__":
    main()
