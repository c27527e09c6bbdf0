"""The wheel carries every package: a folder with an __init__.py missing from pyproject's list would be
importable from a clone (editable install) and absent from `pip install .` — a break only users see."""

from __future__ import annotations

import tomllib

from tests.conftest import REPO

ROOTS = {"core": "sqltriage.core", "tui": "sqltriage.tui", "samples": "sqltriage.samples"}


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = set()
    for folder, name in ROOTS.items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            on_disk.add(".".join([name, *rel.parts]))
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - on_disk == set(), "listed packages with no folder"
