"""The structure of the house, read from the source (ast): imports run one way, private names stay home,
the shared front ends know no game by name, and importing one game loads only what it needs."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"quaternity_cp": ROOT / "quaternity_cp", "quaternity_cli": ROOT / "cli"}


def _modules() -> dict[str, Path]:
    """Every module of the library and the command, by its dotted name."""
    out = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()
TREES = {name: ast.parse(path.read_text(encoding="utf-8"), str(path)) for name, path in MODULES.items()}


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of the import nodes under ``if TYPE_CHECKING:`` (never run)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            out.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return out


def _imports(name: str) -> list[tuple[ast.stmt, str, list[str]]]:
    """(node, module imported from, names) of every import the module runs, at any depth (functions too)."""
    tree = TREES[name]
    skip = _type_checking_only(tree)
    is_package = MODULES[name].name == "__init__.py"
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.extend((node, alias.name, []) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                here = here[: len(here) - node.level + 1]
                base = ".".join(here + ([base] if base else []))
            out.append((node, base, [alias.name for alias in node.names]))
    return out


def _graph() -> dict[str, set[str]]:
    """module -> the project's modules it imports (``from package import module`` counts as the module)."""
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name in MODULES:
        for _, base, names in _imports(name):
            targets = [f"{base}.{n}" for n in names if f"{base}.{n}" in MODULES] if names else []
            if not targets or len(targets) < len(names):
                targets.append(base)
            graph[name].update(t for t in targets if t in MODULES and t != name)
    return graph


def test_the_module_graph_has_no_cycle():
    graph = _graph()
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []
    cycles = []

    def visit(m: str) -> None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append(path[path.index(n):] + [n])
            elif n not in state:
                visit(n)
        path.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_graph_is_read_from_every_import():
    """The graph sees module-level, function-level and relative imports (a blind reader would pass anything)."""
    graph = _graph()
    assert "quaternity_cp.quartets.game" in graph["quaternity_cp.quartets"]  # relative, module level
    assert "quaternity_cp.games" in graph["quaternity_cli.cmd_report"]  # absolute, inside the command
    assert "quaternity_cp.replay" in graph["quaternity_cp.quartets.check"]  # relative, inside a function
    assert "quaternity_cli.common" in graph["quaternity_cli.cmd_check"]


def test_no_private_name_is_used_across_modules():
    """``from x import _name`` and ``module._name`` of a project module: a private name is its module's own."""
    found = []
    for name in MODULES:
        modules_bound: set[str] = set()
        for node, base, names in _imports(name):
            if not base.startswith(tuple(PACKAGES)):
                continue
            for n in names:
                if n.startswith("_") and not n.startswith("__"):
                    found.append(f"{name}: from {base} import {n}")
            for alias in node.names:
                target = f"{base}.{alias.name}" if names else alias.name
                if target in MODULES:
                    modules_bound.add(alias.asname or alias.name.split(".")[0])
        for node in ast.walk(TREES[name]):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in modules_bound and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                found.append(f"{name}: {node.value.id}.{node.attr}")
    assert not found, "private names used across modules:\n" + "\n".join(found)


def test_no_module_patches_another_modules_names():
    """``Imported.attr = value`` or ``setattr(imported, ...)``: a module changes only its own names; a game's
    parts reach the core through the registry (quaternity_cp.games), not by patching a class of the core."""
    found = []
    for name in MODULES:
        imported = {alias.asname or alias.name.split(".")[0]
                    for node, base, _ in _imports(name) if base.startswith(tuple(PACKAGES)) for alias in node.names}
        for node in ast.walk(TREES[name]):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) \
                        and target.value.id in imported:
                    found.append(f"{name}: {ast.unparse(target)} = ...")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id in imported:
                found.append(f"{name}: {ast.unparse(node)}")
    assert not found, "names of other modules patched:\n" + "\n".join(found)


def test_a_position_draws_itself_without_its_game_loaded_first():
    loaded = _loaded("from quaternity_cp.position import Position\nfrom quaternity_cp.game import Game\n"
                     "assert '<svg' in Position(Game(2, 2, 2))._repr_html_()")
    assert "quaternity_cp.quartets.svg" in loaded


# -- the shared front ends know no game by name ---------------------------------------------------------
#: The front ends shared by every game: they ask the registry (quaternity_cp.games) for games, options,
#: agents and each game's parts.
FRONT_ENDS = [m for m in MODULES if m.startswith(("quaternity_cli", "quaternity_cp.web"))] + [
    "quaternity_cp.report", "quaternity_cp.svg", "quaternity_cp.tournament"]

#: Command modules that belong to one game: its own commands and its terminal view.
GAME_OWNED = {
    "quaternity_cli.cmd_quarto": "the command group `quaternity quarto` (Quarto's check and solve)",
    "quaternity_cli.play_quartets": "the terminal view of quartets in `quaternity play`",
    "quaternity_cli.play_quarto": "the terminal view of Quarto in `quaternity play`",
}

#: (module, literal): a name that is not a game's there.
ALLOWED = {
    ("quaternity_cli.main", "quaternity"): "the program's name in a usage error",
    ("quaternity_cli.main", "quarto"): "the name of the command group `quaternity quarto`, registered lazily",
    ("quaternity_cli.render", "quartets"): "a JSON key of `analyze --json`: the sets each seat may hold whole",
    ("quaternity_cli.cmd_count", "quartets"): "a JSON key of `count --json`: each seat's chance of a whole set",
    ("quaternity_cli.cmd_explain", "quartets"): "a JSON key of `explain --json`: who may hold the whole set",
}


def _game_names() -> set[str]:
    from quaternity_cp.games import load_all
    from quaternity_cp.rules import PRESETS

    return set(load_all()) | set(PRESETS)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _name_literals(module: str, names: set[str], allowed=ALLOWED) -> list[str]:
    """The string literals (docstrings aside) that are exactly a game's or a preset's name."""
    tree = TREES[module]
    docs = _docstrings(tree)
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
            and node.value in names and (module, node.value) not in allowed]


def test_the_shared_front_ends_name_no_game():
    """A literal that is exactly a game's or a preset's name is what code compares with or passes on;
    the front ends get those from the registry. Prose that mentions a game (help texts) is documentation."""
    names = _game_names()
    assert {"quartets", "quarto", "classic", "blind"} <= names
    found = {m: _name_literals(m, names) for m in FRONT_ENDS if m not in GAME_OWNED}
    assert not any(found.values()), {m: v for m, v in found.items() if v}
    # every exception is still there (the check sees them without it), and every game-owned module exists
    for module, literal in ALLOWED:
        assert literal in _name_literals(module, names, allowed={}), (module, literal)
    assert set(GAME_OWNED) <= set(MODULES)


# -- importing one game loads only what it needs --------------------------------------------------------
CORE = ("position", "engines", "constraints", "solver", "explain", "count", "knowledge", "rules", "game", "formats",
        "replay", "classic", "effects", "outcome", "quartets", "agents")


def _loaded(code: str) -> list[str]:
    script = code + "\nimport json, sys\nprint(json.dumps([m for m in sys.modules if m.startswith('quaternity_cp')]))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", ["import quaternity_cp.quarto.game", "import quaternity_cp.quarto",
                                  "from quaternity_cp.games import GAMES; import quaternity_cp.quarto.game; "
                                  "GAMES['quarto'].new_state(0)"])
def test_importing_the_quarto_game_loads_no_module_of_the_quaternity_core(code):
    loaded = _loaded(code)
    assert "quaternity_cp.quarto.game" in loaded or "quaternity_cp.quarto" in loaded
    core = [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in CORE]
    assert not core, core


def test_the_quaternity_core_still_loads_with_its_names():
    loaded = _loaded("from quaternity_cp import Position")
    assert "quaternity_cp.position" in loaded and not [m for m in loaded if m.startswith("quaternity_cp.quarto")]
