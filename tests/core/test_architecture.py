"""The layout docs/architecture.md draws: which core package may import which, and rooms of a readable size.

Every import counts, at module level or inside a function (a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
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
