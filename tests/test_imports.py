"""The package's structure: imports run one way (the command line on top; boards, benches,
formal checking, simulators, reference models, Verilog export, the toolchain, and the gateware
at the bottom), with no cycle anywhere, and every module imports on its own."""

import ast
import importlib
import pathlib

import pytest


PACKAGE = pathlib.Path(__file__).resolve().parent.parent
LAYERS = ("hdl", "toolchain", "verilog", "model", "sim", "formal", "bench", "boards", "cli")


def module_names():
    """Every module of the package, as its import name (a package by its own name)."""
    names = ["utfhw"]
    for layer in LAYERS:
        for path in sorted((PACKAGE / layer).rglob("*.py")):
            parts = path.relative_to(PACKAGE).with_suffix("").parts
            if parts[-1] == "__main__":
                continue        # a script: importing it runs the command line
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names.append(".".join(["utfhw", *parts]))
    return names


def module_path(name):
    parts = name.split(".")[1:]
    if not parts:
        return PACKAGE / "__init__.py"
    package = PACKAGE.joinpath(*parts)
    if package.is_dir():
        return package / "__init__.py"
    return PACKAGE.joinpath(*parts[:-1], parts[-1] + ".py")


def imported_modules(name):
    """The modules of the package that ``name`` imports anywhere in its text (at the top or
    inside a function), resolved to import names."""
    path = module_path(name)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    known = set(module_names())
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from package import module` imports the module; the package's __init__ runs
            # first whatever one imports from it, so it is no edge of its own.
            submodules = [f"{target}.{alias.name}" for alias in node.names]
            candidates = [module for module in submodules if module in known] or [target]
        elif isinstance(node, ast.Import):
            candidates = [alias.name for alias in node.names]
        else:
            continue
        found.update(candidate for candidate in candidates if candidate in known)
    found.discard(name)
    return found


def layer(name):
    parts = name.split(".")
    return parts[1] if len(parts) > 1 else "utfhw"


def test_module_list_is_complete():
    assert len(module_names()) > 30
    assert all(module_path(name).is_file() for name in module_names())


@pytest.mark.parametrize("name", module_names())
def test_every_module_imports(name):
    importlib.import_module(name)


def test_no_import_cycle():
    graph = {name: imported_modules(name) for name in module_names()}
    state = {}
    cycles = []

    def visit(name, trail):
        state[name] = "open"
        for child in sorted(graph[name]):
            if state.get(child) == "open":
                cycles.append(trail[trail.index(child):] + [child])
            elif child not in state:
                visit(child, trail + [child])
        state[name] = "done"

    for name in graph:
        if name not in state:
            visit(name, [name])
    assert cycles == []


@pytest.mark.parametrize("name", module_names())
def test_imports_run_one_way(name):
    """Each package imports only those below it: the gateware (``hdl``) nothing, the toolchain
    finder nothing, Verilog export the two, the reference models only the gateware's layouts
    and codecs, the simulators those, the formal checks the gateware and the toolchain, the
    benches the simulators and what they use, boards no simulator; nothing imports the command
    line. The package root (its version) imports nothing, so any module may read it."""
    allowed = {
        "hdl": {"hdl"},
        "toolchain": {"toolchain"},
        "verilog": {"hdl", "toolchain", "verilog"},
        "model": {"hdl", "model"},
        "sim": {"hdl", "toolchain", "verilog", "model", "sim"},
        "formal": {"hdl", "toolchain", "formal"},
        "bench": {"hdl", "toolchain", "verilog", "model", "sim", "bench"},
        "boards": {"hdl", "toolchain", "verilog", "boards"},
        "cli": {"hdl", "toolchain", "verilog", "model", "sim", "formal", "bench", "boards",
                "cli"},
        "utfhw": set(),
    }[layer(name)] | {"utfhw"}
    for imported in imported_modules(name):
        assert layer(imported) in allowed, f"{name} imports {imported}"


#: What each folder of ``hdl/`` may import of ``hdl/``: the Unicode tables and layouts nothing
#: else; the lane layer nothing codec-specific (only the generic lane layout and argument checks
#: of ``unicode``); the stages every form shares (``scalar``, ``wide``) the layers below them and
#: not each other; a form's folder those and nothing of another form; the cores any of them. The
#: modules at the top of ``hdl/`` (the AXI4-Stream and UART wrappers, the bridge) may import any
#: of them.
HDL_FOLDERS = {
    "unicode": {"unicode"},
    "lanes": {"lanes", "unicode.layout", "unicode.params"},
    "scalar": {"scalar", "unicode"},
    "wide": {"wide", "lanes", "unicode"},
    "forms": {"forms", "scalar", "wide", "lanes", "unicode"},
    "cores": {"cores", "forms", "scalar", "wide", "lanes", "unicode"},
}


@pytest.mark.parametrize("name", [name for name in module_names()
                                  if name.split(".")[1:2] == ["hdl"]
                                  and name.split(".")[2:3] and name.split(".")[2] in HDL_FOLDERS])
def test_hdl_folders_import_down(name):
    allowed = HDL_FOLDERS[name.split(".")[2]]
    for imported in imported_modules(name):
        parts = imported.split(".")
        if parts[:2] != ["utfhw", "hdl"] or len(parts) < 3:
            assert imported == "utfhw" or parts[:2] == ["utfhw", "hdl"], \
                f"{name} imports {imported}"
            continue
        assert parts[2] in allowed or ".".join(parts[2:4]) in allowed, \
            f"{name} imports {imported}"


@pytest.mark.parametrize("name", [name for name in module_names()
                                  if name.startswith("utfhw.hdl.forms.")])
def test_forms_import_no_other_form(name):
    """A form's gateware imports nothing of another form's folder."""
    own = name.split(".")[3]
    for imported in imported_modules(name):
        parts = imported.split(".")
        if parts[:3] == ["utfhw", "hdl", "forms"] and len(parts) > 3:
            assert parts[3] == own, f"{name} imports {imported}"


def test_hdl_folders_are_all_checked():
    folders = {path.name for path in (PACKAGE / "hdl").iterdir()
               if (path / "__init__.py").is_file()}
    assert folders == set(HDL_FOLDERS)


def test_import_graph_sees_every_form():
    """The graph the checks walk has the edges of each form of import: relative from a module,
    from a package (``from . import tools``), and inside a function (the command line's)."""
    assert "utfhw.hdl.cores" in imported_modules("utfhw.sim.backends")
    assert "utfhw.toolchain.tools" in imported_modules("utfhw.sim.verilator")
    assert "utfhw.boards.build" in imported_modules("utfhw.cli.build")


def imports_of(name):
    """Every module ``name`` imports, inside the package or not, by its first part."""
    found = set()
    for node in ast.walk(ast.parse(module_path(name).read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
    return found


@pytest.mark.parametrize("name", ["utfhw.boards.designs", "utfhw.boards.harness",
                                  "utfhw.boards.implement", "utfhw.boards.runcache"])
def test_report_tasks_need_no_dask(name):
    """The report's tasks and what they use import neither Dask nor the runner: the runner
    alone talks to the cluster, and a task is a plain function of its arguments."""
    assert not imports_of(name) & {"dask", "distributed"}
    assert "utfhw.boards.runner" not in imported_modules(name)
