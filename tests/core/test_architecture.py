"""The layout docs/architecture.md draws: which core package may import which, and rooms of a readable size.

Every import counts, at module level or inside a function (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = REPO / "core"
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
    "questions": {"sql", "workspace", "processes", "cache"},
    "suggest": {"sql", "verdicts"},
    "pipeline": {"sql", "datasets", "workspace", "verdicts", "questions", "suggest", "processes", "cache"},
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
