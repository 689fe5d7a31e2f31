"""The layers of docs/architecture.md hold: the rules engine stands alone, every package imports
only the layers below it, nothing imports an edition but the registry's package, and there is
no import cycle anywhere in saboteur_p2p/ or bots/."""
from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"saboteur_p2p": ROOT / "saboteur_p2p", "saboteur_bots": ROOT / "bots"}

#: what each layer may import of ours (besides itself); docs/architecture.md draws the same table
MAY_IMPORT = {
    "rules": set(),
    "files": set(),
    "botspec": set(),
    "crypto": {"files"},
    "botclock": set(),
    "botapi": {"rules", "botspec", "botclock"},
    "match": {"rules", "botapi", "botclock"},
    "tournament": {"rules", "botapi", "botspec", "match", "files"},
    "protocol": {"rules", "crypto", "botapi", "match"},
    "net": {"rules", "crypto", "protocol", "botapi", "match", "files"},
    "client": {"rules", "botapi", "match", "net", "files"},
    "bots": {"rules", "botapi"},
}
#: the modules of an edition other than the base game: only they and the package that
#: registers them (saboteur_p2p.rules) may import them
EDITION_MODULES = {"saboteur_p2p.rules.saboteur2", "saboteur_p2p.rules.scoring2"}


def _module_name(package: str, base: Path, path: Path) -> str:
    parts = [package, *path.relative_to(base).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {
    _module_name(package, base, path): path for package, base in PACKAGES.items() for path in sorted(base.rglob("*.py"))
}


def _runtime_imports(name: str, path: Path) -> set[str]:
    """The project modules ``name`` imports when it runs (anywhere in the file, functions
    included); imports under ``if TYPE_CHECKING:`` are for annotations only and left out."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for stmt in child.orelse:
                    visit(stmt)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (child.level - 1)]
                    target = ".".join(base + ([child.module] if child.module else []))
                else:
                    target = child.module or ""
                submodules = [f"{target}.{alias.name}" for alias in child.names if f"{target}.{alias.name}" in MODULES]
                found.update(submodules)
                if len(submodules) < len(child.names):
                    found.add(target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _runtime_imports(name, path) for name, path in MODULES.items()}


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] == "saboteur_bots":
        return "bots"
    return parts[1] if len(parts) > 1 else "saboteur_p2p"


def test_the_import_graph_was_read():
    # a guard for the tests below: they would pass vacuously on an empty graph
    assert "saboteur_p2p.rules.state" in GRAPH["saboteur_p2p.rules.saboteur2"]
    assert "saboteur_bots.heuristic_base" in GRAPH["saboteur_bots.heuristic2"]
    assert len(GRAPH) > 50


def test_no_import_cycles():
    try:
        list(graphlib.TopologicalSorter(GRAPH).static_order())
    except graphlib.CycleError as cycle:
        pytest.fail(f"import cycle: {' -> '.join(cycle.args[1])}")


def test_cycle_check_finds_a_cycle():
    graph = dict(GRAPH)
    graph["saboteur_p2p.rules.cards"] = {"saboteur_p2p.rules.state"}
    with pytest.raises(graphlib.CycleError):
        list(graphlib.TopologicalSorter(graph).static_order())


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_each_layer_imports_only_the_layers_below_it(layer):
    wrong = sorted(
        f"{module} imports {dep}"
        for module, deps in GRAPH.items()
        if _layer(module) == layer
        for dep in deps
        if _layer(dep) != layer and _layer(dep) not in MAY_IMPORT[layer]
    )
    assert wrong == []


def test_no_module_imports_an_edition_but_the_registering_package():
    allowed = EDITION_MODULES | {"saboteur_p2p.rules"}
    wrong = sorted(f"{m} imports {d}" for m, deps in GRAPH.items() if m not in allowed for d in deps & EDITION_MODULES)
    assert wrong == []


def test_rules_import_loads_no_io_modules():
    code = (
        "import sys; import saboteur_p2p.rules; "
        "bad = [m for m in ('zmq', 'prompt_toolkit', 'socket', 'saboteur_p2p.net', 'saboteur_p2p.client', 'msgpack', 'zeroconf') "
        "if m in sys.modules]; print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""
