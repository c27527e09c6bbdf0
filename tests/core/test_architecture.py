"""The layout docs/architecture.md draws: which core package may import which, no import cycle between
modules, and rooms of a readable size.

Every import counts, at module level, inside a function or under TYPE_CHECKING (a lazy import is still a
dependency, and a type-only one still couples the two modules).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = REPO / "core"
PACKAGES = {"core": "sqltriage.core", "tui": "sqltriage.tui"}  # source folder -> the name it is installed as
BASE = {"model", "errors"}  # the shared records and the error hierarchy: every package may use them
# package (or top-level module) -> the core packages it may import besides itself and BASE
ALLOWED: dict[str, set[str]] = {
    "model": set(),
    "errors": set(),
    "processes": set(),
    "cache": set(),
    "sql": set(),
    "datasets": set(),
    "workspace": {"datasets"},
    "verdicts": {"sql", "datasets", "processes"},
    "engines": {"verdicts", "datasets"},
    "questions": {"sql", "workspace", "processes", "cache"},
    "suggest": {"sql", "verdicts"},
    "pipeline": {
        "sql",
        "datasets",
        "workspace",
        "verdicts",
        "engines",
        "questions",
        "suggest",
        "processes",
        "cache",
    },
    "triage": {"datasets", "workspace", "verdicts", "pipeline"},
    "reporting": {"workspace", "verdicts", "sql"},
    "api": {"datasets", "workspace", "verdicts", "pipeline", "reporting"},
}
MAX_LINES = 700
MAX_TOP_MODULES = 6


def _room(path: Path) -> str:
    rel = path.relative_to(CORE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _core_imports(path: Path) -> set[str]:
    """The core rooms a module imports (`sqltriage.core.X…` and `from sqltriage.core import X`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "sqltriage.core":
                names = [f"sqltriage.core.{a.name}" for a in node.names if a.name != "__version__"]
            else:
                names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["sqltriage", "core"] and len(parts) > 2:
                found.add(parts[2])
    return found


def core_files() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py") if p.name != "__init__.py" or p.parent != CORE)


def test_every_room_is_on_the_map() -> None:
    rooms = {_room(p) for p in core_files()}
    assert rooms <= set(ALLOWED), f"add to ALLOWED and docs/architecture.md: {sorted(rooms - set(ALLOWED))}"
    assert {"sql", "datasets", "workspace", "verdicts", "pipeline", "reporting"} <= rooms


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(CORE)))
def test_imports_follow_the_map(path: Path) -> None:
    room = _room(path)
    allowed = ALLOWED[room] | BASE | {room}
    wrong = _core_imports(path) - allowed
    assert not wrong, (
        f"core/{path.relative_to(CORE)} ({room}) imports {sorted(wrong)}: see docs/architecture.md"
    )


def test_the_map_has_no_cycle() -> None:
    """The allowed directions alone are acyclic, so no change within them can close a loop between rooms."""
    seen: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(room: str, path: tuple[str, ...]) -> None:
        assert seen.get(room) != 1, f"cycle: {' -> '.join((*path, room))}"
        if seen.get(room) == 2:
            return
        seen[room] = 1
        for dep in ALLOWED[room]:
            visit(dep, (*path, room))
        seen[room] = 2

    for room in ALLOWED:
        visit(room, ())


def test_the_map_in_the_docs_matches() -> None:
    """docs/architecture.md lists each room with what it may import, as enforced here."""
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    for room, deps in ALLOWED.items():
        line = next((ln for ln in text.splitlines() if ln.startswith(f"| `{room}")), None)
        assert line is not None, f"docs/architecture.md has no row for {room}"
        cells = [c.strip() for c in line.strip("|").split("|")]
        listed = {d.strip(" `") for d in cells[2].split(",") if d.strip(" `—-")}
        assert listed == deps, f"{room}: the docs say {sorted(listed)}, the test allows {sorted(deps)}"


def test_no_module_is_over_700_lines() -> None:
    long = {
        str(p.relative_to(REPO)): n
        for root in ("core", "tui")
        for p in (REPO / root).rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"split these by concern: {long}"


def test_the_top_of_core_stays_small() -> None:
    top = sorted(p.name for p in CORE.glob("*.py"))
    assert len(top) <= MAX_TOP_MODULES, f"core/ holds {top}: move modules into a package"


# --- the module graph -------------------------------------------------------------------------------------


def module_files(folders: dict[Path, str]) -> dict[str, Path]:
    """Every module under each folder (installed as the dotted name given) by its dotted name; a package
    by its `__init__.py`."""
    found: dict[str, Path] = {}
    for folder, name in folders.items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            dotted = ".".join((name, *(parts[:-1] if parts[-1] == "__init__" else parts)))
            found[dotted] = path
    return found


def _imported_names(module: str, path: Path) -> Iterator[str]:
    """The dotted names each import statement of a module reads, relative imports resolved.

    `import a.b` and `from a.b import x` read `a.b` (and `a.b.x`, when x is a module); `from a import b`
    reads the package `a` itself too, as Python looks b up in its namespace. The parents Python
    initialises first (`a` for `import a.b`) are not counted: they run whoever imports first.
    """
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            yield target
            yield from (f"{target}.{a.name}" for a in node.names)


def module_graph(files: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the modules among `files` it imports (each name cut to the module that holds it)."""
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        deps: set[str] = set()
        for name in _imported_names(module, path):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module:
                deps.add(name)
        graph[module] = deps
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted: every module of
    one reaches every other by imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def shortest_loop(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One shortest loop through the component's first module: the imports to look at first."""
    start = component[0]
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        step = []
        for v in frontier:
            for w in sorted(graph[v] & set(component)):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [*reversed(path), start]
                if w not in came_from:
                    came_from[w] = v
                    step.append(w)
        frontier = step
    return []


def _short(module: str) -> str:
    return module.removeprefix("sqltriage.")


def test_the_graph_reads_every_kind_of_import(tmp_path: Path) -> None:
    """A function's import, a TYPE_CHECKING one, a relative one and `from package import module` are all
    edges; the parent package Python initialises first is not."""
    sources = {
        "__init__.py": "from pkg.a import A\n",
        "a.py": "def f():\n    from pkg import b\n",
        "b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .sub.c import C\n",
        "sub/__init__.py": "",
        "sub/c.py": "import pkg.a as a\nfrom .. import d\n",
        "d.py": "import os\n",
    }
    for name, text in sources.items():
        (tmp_path / "pkg" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / name).write_text(text, encoding="utf-8")
    graph = module_graph(module_files({tmp_path / "pkg": "pkg"}))
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg", "pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.sub": set(),
        "pkg.sub.c": {"pkg", "pkg.a", "pkg.d"},
        "pkg.d": set(),
    }
    assert import_cycles(graph) == [["pkg", "pkg.a", "pkg.b", "pkg.sub.c"]]
    assert shortest_loop(graph, ["pkg", "pkg.a", "pkg.b", "pkg.sub.c"]) == [
        "pkg",
        "pkg.a",
        "pkg",
    ]


def test_no_import_cycle() -> None:
    """Modules of core/ and tui/ import one another without a loop, so each can be read (and imported) from
    the bottom up. Records two modules share go to a leaf module below both; a package's `__init__` that
    re-exports its modules is never imported back by them (they import `package.module` itself)."""
    graph = module_graph(module_files({REPO / folder: name for folder, name in PACKAGES.items()}))
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join(
        f"{', '.join(map(_short, c))} (e.g. {' -> '.join(map(_short, shortest_loop(graph, c)))})"
        for c in cycles
    )


def test_the_ex_modes_are_defined_once() -> None:
    """`EX_MODES` is assigned in one module (core/verdicts/ex_modes.py); every other imports it."""
    assigning = sorted(
        _short(module)
        for module, path in module_files({REPO / f: n for f, n in PACKAGES.items()}).items()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assign | ast.AnnAssign)
        and any(isinstance(t, ast.Name) and t.id == "EX_MODES" for t in _targets(node))
    )
    assert assigning == ["core.verdicts.ex_modes"], f"EX_MODES is assigned in {assigning}"


def _targets(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]


# --- the workspace's connection stays inside core/workspace/ --------------------------------------------

WORKSPACE_ROOM = CORE / "workspace"
_CONNECTION_ATTRS = {"db", "_db", "_retired"}  # the store's connection(s): `Workspace.db` and what it keeps
_WORKSPACE_NAME = re.compile(r"(?i)^(ws|w|workspace)$|_ws$|^ws_|workspace")
_OPENERS = {"open", "open_for_reading"}


def _workspace_names(tree: ast.AST) -> set[str]:
    """Names that hold a workspace in a module: by their name (`ws`, `workspace`, `app.workspace`), by their
    annotation (`x: Workspace`), or because they are bound to `Workspace.open…(…)`."""
    names: set[str] = set()

    def opened(value: ast.AST | None) -> bool:
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute)
            and value.func.attr in _OPENERS
            and isinstance(value.func.value, ast.Name)
            and value.func.value.id == "Workspace"
        )

    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            if "Workspace" in ast.unparse(node.annotation):
                names.add(node.arg)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            if "Workspace" in ast.unparse(node.annotation) or opened(node.value):
                names.add(node.target.id)
        elif isinstance(node, ast.Assign) and opened(node.value):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif (
            isinstance(node, ast.withitem)
            and opened(node.context_expr)
            and isinstance(node.optional_vars, ast.Name)
        ):
            names.add(node.optional_vars.id)
    return names


def _holds_workspace(node: ast.AST, names: set[str]) -> bool:
    """Whether an expression is a workspace: a name known to hold one, or one named like one."""
    if isinstance(node, ast.Name):
        return node.id in names or bool(_WORKSPACE_NAME.search(node.id))
    if isinstance(node, ast.Attribute):
        return bool(_WORKSPACE_NAME.search(node.attr))
    return False


def connection_uses(path: Path, root: Path = REPO) -> list[str]:
    """Where a module reaches a workspace's raw connection (`ws.db`, `getattr(ws, "db")`, …), as
    `file:line: code` in line order: everything but core/workspace/ asks the workspace's methods instead."""
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    names = _workspace_names(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        reached: ast.AST | None = None
        if isinstance(node, ast.Attribute) and node.attr in _CONNECTION_ATTRS:
            reached = node.value
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in _CONNECTION_ATTRS
        ):
            reached = node.args[0]
        if reached is not None and _holds_workspace(reached, names):
            code = ast.get_source_segment(source, node) or ast.unparse(node)
            found.append((node.lineno, f"{path.relative_to(root)}:{node.lineno}: {code}"))
    return [hit for _, hit in sorted(found)]


def test_only_the_workspace_touches_its_connection() -> None:
    """Every other room reads and writes the workspace through its methods (docs/workspace.md, "Its
    methods"), so transactions, undo logs and the reading-only guarantee stay in one place."""
    modules = [
        p
        for root in ("core", "tui")
        for p in sorted((REPO / root).rglob("*.py"))
        if not p.is_relative_to(WORKSPACE_ROOM)
    ]
    found = [hit for p in modules for hit in connection_uses(p)]
    assert not found, "use (or add) a Workspace method instead of its connection:\n  " + "\n  ".join(found)


def test_the_connection_check_sees_each_way_in(tmp_path: Path) -> None:
    """The scan above finds the usual ways to the connection, and not another object's `db`."""
    sample = tmp_path / "probe.py"
    sample.write_text(
        "def f(ws, store: Workspace, enc):\n"
        "    ws.db.execute('SELECT 1')\n"
        "    store.db.commit()\n"
        "    getattr(ws, 'db')\n"
        "    self.app.workspace.db.execute('x')\n"
        "    enc.db.table('t')\n"  # a solver's database, not a workspace
        "    with Workspace.open(p) as opened:\n"
        "        opened.db.executemany('x', [])\n",
        encoding="utf-8",
    )
    hits = [h.split(":")[1] for h in connection_uses(sample, tmp_path)]
    assert hits == ["2", "3", "4", "5", "8"]
