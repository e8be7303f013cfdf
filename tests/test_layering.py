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


def _imports(name: str) -> list[tuple[ast.Import | ast.ImportFrom, str, list[str]]]:
    """(node, module imported from, names) of every import the module runs, at any depth (functions too)."""
    tree = TREES[name]
    skip = _type_checking_only(tree)
    is_package = MODULES[name].name == "__init__.py"
    out: list[tuple[ast.Import | ast.ImportFrom, str, list[str]]] = []
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
    assert "quaternity_cp.quartets.state" in graph["quaternity_cp.quartets"]  # relative, module level
    assert "quaternity_cp.registry" in graph["quaternity_cli.cmd_report"]  # absolute, inside the command
    assert "quaternity_cp.quartets.replay" in graph["quaternity_cp.quartets.check"]  # relative, inside a function
    assert "quaternity_cp.command" in graph["quaternity_cli.cmd_report"]  # the command's shared layer


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
    parts reach the core through the registry (quaternity_cp.registry), not by patching a class of the core."""
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
    loaded = _loaded("from quaternity_cp.quartets.position import Position\nfrom quaternity_cp.quartets.game import Game\n"
                     "assert '<svg' in Position(Game(2, 2, 2))._repr_html_()")
    assert "quaternity_cp.quartets.svg" in loaded


# -- no shared module names a game or tests which game it holds ------------------------------------------
#: The modules shared by every game: the registry, the runners and bridges, the web server and its page, the
#: command (besides the modules a game owns). They ask the registry (quaternity_cp.registry) for games, options,
#: agents and each game's parts; none names a game, imports a game's package or tests a game's class.
#: The shared layer: the command, and every module of the library outside a game's package (its top level and
#: web/): none of them imports a game or names one.
GAME_FOLDERS = ("quartets", "quarto", "gofish")
SHARED = sorted(m for m in MODULES if m.startswith("quaternity_cli") or (
    m.startswith("quaternity_cp") and (m.split(".") + [""])[1] not in GAME_FOLDERS))

#: Command modules that belong to one game (its own commands, its terminal view), if any are left in cli/.
GAME_OWNED: dict[str, str] = {}

#: (module, literal): a literal that is a game's name but does not name the game there.
ALLOWED = {
    ("quaternity_cp.registry", "quartets"): "DEFAULT_GAME: the game of a record that names none (the one named rule)",
    ("quaternity_cli.main", "quaternity"): "the program's name in a usage error",
    ("quaternity_cp", "classic"): "MOVED: the old module name quaternity_cp.classic, kept for one release",
    ("quaternity_cp.digest", "quaternity"): "the program's folder in the user's configuration directory",
}

#: Shared modules that still hold one game's code, being moved into the games' packages (issue 31): each is
#: listed with what is left there. The list only shrinks: an entry whose module is clean fails the test.
NOT_YET: dict[str, str] = {}

#: Names that are games' (the registered ones, quartets' presets, and those of the games being built or shown
#: in the docs): what a shared module must not compare with or pass on.
FUTURE_GAMES = {"gofish", "tictactoe", "tic-tac-toe"}


def _game_names() -> set[str]:
    from quaternity_cp.registry import load_all
    from quaternity_cp.quartets.rules import PRESETS

    return set(load_all()) | set(PRESETS) | FUTURE_GAMES


def _game_packages() -> set[str]:
    """The packages of the registered games (where each registers), and those of the games being built."""
    from quaternity_cp.registry import GAME_MODULES, load_all

    out = {m for m in GAME_MODULES} | {f"quaternity_cp.{n}" for n in FUTURE_GAMES if "-" not in n}
    for spec in load_all().values():
        module = spec.new_state.__module__
        out.add(module if module in GAME_MODULES else module.rpartition(".")[0] or module)
    return out


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


def _in_package(module: str, packages: set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _game_imports(module: str, packages: set[str]) -> list[str]:
    """The imports of a game's package (or a module of it) that ``module`` runs."""
    out = []
    for _, base, names in _imports(module):
        targets = [f"{base}.{n}" for n in names] if names else [base]
        if _in_package(base, packages) or any(_in_package(t, packages) for t in targets):
            out.append(f"import from {base}" + (f": {', '.join(names)}" if names else ""))
    return out


def _class_tests(module: str, packages: set[str]) -> list[str]:
    """``isinstance``/``issubclass`` against a name bound by an import from a game's package."""
    bound = {alias.asname or alias.name.split(".")[0]
             for node, base, names in _imports(module) if _in_package(base, packages) or any(
                 _in_package(f"{base}.{n}", packages) for n in names) for alias in node.names}
    out = []
    for node in ast.walk(TREES[module]):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in (
                "isinstance", "issubclass") and len(node.args) == 2:
            used = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            if used & bound:
                out.append(ast.unparse(node))
    return out


def _violations(module: str, names: set[str], packages: set[str], allowed=ALLOWED) -> list[str]:
    return ([f"names the game {v!r}" for v in _name_literals(module, names, allowed)]
            + _game_imports(module, packages) + [f"tests a game's class: {c}" for c in _class_tests(module, packages)])


def test_no_shared_module_names_a_game_or_tests_which_game_it_holds():
    """A literal that is exactly a game's or a preset's name is what code compares with or passes on; an import
    of a game's package or an ``isinstance`` against a game's class tells games apart. The shared modules get
    all of it from the registry. Prose that mentions a game (docstrings, help texts) is documentation."""
    names, packages = _game_names(), _game_packages()
    assert {"quartets", "quarto", "classic", "blind"} <= names
    assert {"quaternity_cp.quartets", "quaternity_cp.quarto"} <= packages
    found = {m: _violations(m, names, packages) for m in SHARED if m not in GAME_OWNED and m not in NOT_YET}
    assert not any(found.values()), {m: v for m, v in found.items() if v}
    # every exception is still needed (the check sees it without it), and every module named exists
    for module, literal in ALLOWED:
        assert literal in _name_literals(module, names, allowed={}), ("no longer needed in ALLOWED", module, literal)
    for module in NOT_YET:
        assert module in SHARED and _violations(module, names, packages), ("clean now: take it out of NOT_YET", module)
    assert set(GAME_OWNED) <= set(MODULES)


def test_the_library_never_imports_the_command():
    """Nothing under quaternity_cp imports quaternity_cli (the command): what a game's command part needs from
    the command (exit codes, one-line errors, reading input, options) is the library's shared layer
    quaternity_cp.command, which imports no game; the command imports the library, never the other way."""
    found = {m: [base for _, base, names in _imports(m) if base == "quaternity_cli" or base.startswith(
                 "quaternity_cli.")] for m in MODULES if m.startswith("quaternity_cp")}
    assert not any(found.values()), {m: v for m, v in found.items() if v}
    # the check sees an import of the command written at any depth, absolute or as a package import
    TREES["quaternity_cp.probe"] = ast.parse("def f():\n    from quaternity_cli.common import guarded\n"
                                             "import quaternity_cli.main\n")
    MODULES["quaternity_cp.probe"] = ROOT / "quaternity_cp" / "probe.py"
    try:
        assert sorted(base for _, base, _ in _imports("quaternity_cp.probe")) == ["quaternity_cli.common",
                                                                                   "quaternity_cli.main"]
    finally:
        del TREES["quaternity_cp.probe"], MODULES["quaternity_cp.probe"]
    # the command's shared layer is the library's and names no game (checked with the other shared modules)
    assert "quaternity_cp.command" in SHARED and "quaternity_cp.command.common" in SHARED


def test_the_checks_see_what_they_look_for():
    """Each check finds a violation written in the ways the shared modules could write it (a blind check
    would pass anything)."""
    names, packages = _game_names(), _game_packages()
    code = ("from quaternity_cp.quarto.core import Piece\nimport quaternity_cp.quartets.state as g\n"
            "from quaternity_cp import quarto\n"
            "def f(state, spec):\n    if spec.name == 'gofish' or isinstance(state, (int, Piece)):\n"
            "        return g\n")
    TREES["quaternity_cp.probe"] = ast.parse(code)
    MODULES["quaternity_cp.probe"] = ROOT / "quaternity_cp" / "probe.py"
    try:
        found = _violations("quaternity_cp.probe", names, packages)
    finally:
        del TREES["quaternity_cp.probe"], MODULES["quaternity_cp.probe"]
    assert "names the game 'gofish'" in found
    assert sum(v.startswith("import from") for v in found) == 3, found
    assert any(v.startswith("tests a game's class: isinstance(state, (int, Piece))") for v in found), found


# -- the shared page files name no game; each game's page part registers itself -------------------------
STATIC = ROOT / "quaternity_cp" / "web" / "static"

#: (file, word): a word of a shared page file that is a game's name but does not name the game there.
PAGE_ALLOWED = {
    ("app.js", "quaternity"): "the project's name: the page's global object (window.Quaternity), its storage key",
    ("app.js", "Quaternity"): "the project's name: the page's global object (window.Quaternity), its storage key",
    ("index.html", "Quaternity"): "the project's name in the page's title and header",
    ("report.css", "quaternity"): "the class of quartets' grid (quaternity-grid) in the report's one stylesheet, "
                                  "which quaternity_cp.report inlines: to move with a report style part per game",
}


def _page_words(path: Path, names: set[str], allowed=PAGE_ALLOWED) -> list[str]:
    """The words of a shared page file (JavaScript, HTML, CSS: code, strings and comments alike) that are a
    game's or a preset's name, in any case, not in ``allowed``; a name is found inside a hyphenated word too
    (``rules-quartets``), not inside an identifier (``quaternity_cp``)."""
    import re

    found: set[str] = set()
    for compound in re.findall(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*", path.read_text(encoding="utf-8")):
        parts = compound.split("-")
        runs = {"-".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)}
        found.update(w for w in runs if w.lower() in names and (path.name, w) not in allowed)
    return sorted(found)


def test_the_shared_page_files_name_no_game():
    """app.js, index.html and the shared CSS draw every game from the view and the game's script part: they
    test no game (``v.classic``), word no game's moves, and default to none."""
    names = _game_names()
    files = sorted(p for p in STATIC.iterdir() if p.suffix in (".js", ".html", ".css"))
    assert {"app.js", "index.html", "style.css", "report.js"} <= {p.name for p in files}
    found = {p.name: _page_words(p, names) for p in files}
    assert not any(found.values()), {k: v for k, v in found.items() if v}
    for file, word in PAGE_ALLOWED:  # every exception is still needed
        assert word in _page_words(STATIC / file, names, allowed={}), ("no longer needed in PAGE_ALLOWED", file, word)
    # the check reads every word, whatever the case, inside strings, comments and hyphenated words too
    probe = STATIC.parent / "probe-page.js"
    try:
        probe.write_text('// Quarto\nconst x = v.classic ? "/static/rules-quartets.html" : quaternity_cp;\n',
                         encoding="utf-8")
        assert _page_words(probe, names) == ["Quarto", "classic", "quartets"]
    finally:
        probe.unlink()


def test_each_game_owns_its_page_parts():
    """The page parts a game declares (its rules page, the script that draws its table, its style) are files in
    its own package's static/ folder, and a script registers itself under the game's name; quartets and Quarto
    have both (a game without them is played with a button per legal move)."""
    from importlib.resources import files

    from quaternity_cp.web.session import page_files, web_games

    assert {"quartets", "quarto"} <= set(web_games())
    for name, spec in web_games().items():
        declared = page_files(spec)
        if "page" not in spec.parts:
            continue
        package = spec.parts["page"].partition(":")[0].rpartition(".")[0]
        assert _in_package(package, _game_packages()), (name, package)
        for file in declared.values():
            assert (files(package) / "static" / file).is_file(), (name, file)
        if "script" in declared:  # (without one, the page offers a button per legal move)
            script = (files(package) / "static" / declared["script"]).read_text(encoding="utf-8")
            assert f'Quaternity.registerGame("{name}",' in script, name
        assert not (STATIC / f"rules-{name}.html").exists(), "a game's rules page lives in its package"
    assert all("script" in page_files(web_games()[name]) for name in ("quartets", "quarto"))


# -- importing one game loads only what it needs --------------------------------------------------------
CORE = ("position", "engines", "constraints", "solver", "explain", "count", "knowledge", "rules", "game", "formats",
        "replay", "classic", "effects", "outcome", "quartets", "agents")


def _loaded(code: str) -> list[str]:
    script = code + "\nimport json, sys\nprint(json.dumps([m for m in sys.modules if m.startswith('quaternity_cp')]))\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", ["import quaternity_cp.quarto.game", "import quaternity_cp.quarto",
                                  "from quaternity_cp.registry import GAMES; import quaternity_cp.quarto.game; "
                                  "GAMES['quarto'].new_state(0)"])
def test_importing_the_quarto_game_loads_no_module_of_the_quaternity_core(code):
    loaded = _loaded(code)
    assert "quaternity_cp.quarto.game" in loaded or "quaternity_cp.quarto" in loaded
    core = [m for m in loaded if m.split(".")[1:2] and m.split(".")[1] in CORE]
    assert not core, core


def test_the_quaternity_core_still_loads_with_its_names():
    loaded = _loaded("from quaternity_cp import Position")
    assert "quaternity_cp.quartets.position" in loaded and not [m for m in loaded if m.startswith("quaternity_cp.quarto")]


def test_every_part_a_game_declares_is_known_and_importable():
    """A game's parts are those of the registry's list (or the game's own, named here), and each one loads."""
    from quaternity_cp.registry import PARTS, load_all

    own = {"html", "grid"}  # quartets' own: a Position in a notebook, `analyze --svg`
    for name, spec in load_all().items():
        for part in spec.parts:
            assert part in PARTS or part in own, (name, part)
            assert spec.part(part) is not None, (name, part)
