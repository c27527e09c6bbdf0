"""The browse screen's state has one writer per field, and the screen takes what it needs of the app from
its session: read from the source of `tui/screens/browse/`, without running the app."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from textual.app import App

from sqltriage.tui.screens.browse import BrowseScreen, state
from sqltriage.tui.screens.browse import session as session_module

PACKAGE = Path(state.__file__).parent
MODULES = sorted(PACKAGE.glob("*.py"))
SCREEN_CLASSES = frozenset(  # BrowseState, its mixins and BrowseScreen: what `self` is in them
    c.__name__ for c in BrowseScreen.__mro__ if c.__module__.startswith(state.__package__ or "")
)
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "popitem",
        "clear",
        "update",
        "remove",
        "setdefault",
        "add",
        "discard",
    }
)


def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _self_attr(node: ast.AST) -> str | None:
    """`x` for `self.x`, else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _session_attr(node: ast.AST) -> str | None:
    """`x` for `self.session.x`, else None."""
    if isinstance(node, ast.Attribute) and _self_attr(node.value) == "session":
        return node.attr
    return None


def _targets(node: ast.AST) -> Iterator[ast.AST]:
    """What an assignment writes: each name of a tuple target, and the container of a subscript."""
    if isinstance(node, (ast.Tuple, ast.List)):
        for element in node.elts:
            yield from _targets(element)
    elif isinstance(node, ast.Starred):
        yield from _targets(node.value)
    elif isinstance(node, ast.Subscript):
        yield node.value
    else:
        yield node


def _writes(tree: ast.Module) -> Iterator[tuple[ast.AST, int, ast.AST | None]]:
    """(written expression, line, enclosing function) for every assignment and in-place change made in a
    class of the screen (`SCREEN_CLASSES`: its messages' own fields are not the screen's)."""

    def visit(node: ast.AST, function: ast.AST | None, in_screen: bool) -> Iterator:
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            screen = child.name in SCREEN_CLASSES if isinstance(child, ast.ClassDef) else in_screen
            written: list[ast.AST] = []
            if isinstance(child, (ast.Assign, ast.Delete)):
                written = [w for target in child.targets for w in _targets(target)]
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign)):
                written = list(_targets(child.target))
            elif (
                isinstance(child, ast.Call)
                and isinstance(child.func, ast.Attribute)
                and child.func.attr in MUTATORS
            ):
                written = [child.func.value]
            if screen:
                for expression in written:
                    yield expression, getattr(child, "lineno", 0), inner
            yield from visit(child, inner, screen)

    yield from visit(tree, None, False)


def _in_state_init(path: Path, function: ast.AST | None) -> bool:
    """The fields' declarations: `BrowseState.__init__`, which sets each once."""
    return path.stem == "state" and isinstance(function, ast.FunctionDef) and function.name == "__init__"


def test_every_field_is_declared_with_its_owner() -> None:
    tree = _parsed(PACKAGE / "state.py")
    init = next(
        node
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "BrowseState"
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    declared = {
        name for written, _, function in _writes(tree) if function is init and (name := _self_attr(written))
    }
    assert declared == set(state.OWNERS)
    modules = {path.stem for path in MODULES}
    assert set(state.OWNERS.values()) <= modules
    assert set(session_module.CHANGED_BY.values()) <= modules
    fields = set(session_module.BrowseSession.__dataclass_fields__)
    assert set(session_module.CHANGED_BY) <= fields


def test_each_field_is_written_by_its_owner_only() -> None:
    wrong: list[str] = []
    for path in MODULES:
        for written, line, function in _writes(_parsed(path)):
            where = f"{path.name}:{line}"
            if (name := _self_attr(written)) is not None:
                if _in_state_init(path, function):
                    continue
                owner = state.OWNERS.get(name)
                if owner is None:
                    wrong.append(f"{where}: self.{name} is not a field of BrowseState (declare it in OWNERS)")
                elif owner != path.stem:
                    wrong.append(f"{where}: self.{name} is written here, but owned by {owner}")
            elif (name := _session_attr(written)) is not None:
                owner = session_module.CHANGED_BY.get(name)
                if owner != path.stem:
                    wrong.append(f"{where}: self.session.{name} is changed here (changed by: {owner})")
    assert not wrong, "\n".join(wrong)


def test_the_app_is_used_only_through_textual() -> None:
    """`self.app` only as Textual's App (push_screen, batch_update, notify…): what else the screen needs
    of the app is in its session."""
    wrong: list[str] = []
    for path in MODULES:
        tree = _parsed(path)
        used = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _self_attr(node.value) == "app":
                used.add(id(node.value))
                if not hasattr(App, node.attr):
                    wrong.append(f"{path.name}:{node.lineno}: self.app.{node.attr} is not Textual's")
        for node in ast.walk(tree):
            if _self_attr(node) == "app" and id(node) not in used:
                wrong.append(f"{path.name}:{node.lineno}: self.app used otherwise than as Textual's App")
    assert not wrong, "\n".join(wrong)


def test_the_scan_sees_a_write_elsewhere() -> None:
    """The scan itself: a field written outside its owner, through a tuple or in place, is found."""
    source = "class BrowseState:\n    def f(self):\n        self.a, (self.b, self.c[0]) = 1, (2, 3)\n        self.d.append(4)\n"
    tree = ast.parse(source)
    found = {_self_attr(written) for written, _, _ in _writes(tree)}
    assert found == {"a", "b", "c", "d"}
