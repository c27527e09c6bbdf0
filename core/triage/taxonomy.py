"""The taxonomy of error causes the tag picker offers: a plain TOML file the user can replace.

The default (`taxonomy.toml`, shipped with the package) follows NL2SQL-Bugs' 9 categories and 31
subcategories plus the evaluation-side causes. A tag is stored in the workspace as "Category: name",
so tags stay readable in an export without the taxonomy at hand.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqltriage.core.errors import UsageError

DEFAULT_FILE = "taxonomy.toml"


@dataclass(frozen=True, slots=True)
class Cause:
    category: str
    name: str
    key: str  # quick key typed in the picker, unique in the taxonomy ("" when the file gives none)
    description: str = ""

    @property
    def tag(self) -> str:
        return f"{self.category}: {self.name}"


@dataclass(frozen=True, slots=True)
class Taxonomy:
    causes: tuple[Cause, ...]
    source: str  # where it was read from, for messages

    @property
    def categories(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.category for c in self.causes))

    def by_key(self, key: str) -> Cause | None:
        key = key.strip().lower()
        return next((c for c in self.causes if c.key and c.key.lower() == key), None)

    def by_tag(self, tag: str) -> Cause | None:
        return next((c for c in self.causes if c.tag == tag), None)

    def search(self, text: str) -> list[Cause]:
        """Causes whose quick key, category, name or description contains every word of `text`."""
        words = text.lower().split()
        return [c for c in self.causes if all(w in f"{c.key} {c.tag} {c.description}".lower() for w in words)]


def default_taxonomy() -> Taxonomy:
    text = (resources.files("sqltriage.core.triage") / DEFAULT_FILE).read_text(encoding="utf-8")
    return parse_taxonomy(text, source=f"built-in {DEFAULT_FILE}")


def load_taxonomy(path: Path | str | None = None) -> Taxonomy:
    """The file at `path`, or the built-in default when `path` is None."""
    if path is None:
        return default_taxonomy()
    path = Path(path).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(
            f"cannot read the taxonomy ({exc.strerror})", path=path, hint="fix `taxonomy` in config.toml"
        ) from None
    return parse_taxonomy(text, source=str(path))


def parse_taxonomy(text: str, *, source: str = "taxonomy") -> Taxonomy:
    """`[[category]]` tables with a `name` and `[[category.tag]]` entries (`name`, optional `key`, `description`)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"the taxonomy is not valid TOML ({exc})", where=source) from None
    categories = data.get("category")
    if not isinstance(categories, list) or not categories:
        raise UsageError(
            "the taxonomy has no [[category]] table", where=source, hint="see docs/config.md for the format"
        )
    causes: list[Cause] = []
    keys: dict[str, str] = {}
    for i, cat in enumerate(categories):
        cat_name = _text(cat, "name", f"category #{i + 1}", source)
        tags = cat.get("tag", []) if isinstance(cat, dict) else []
        if not isinstance(tags, list) or not tags:
            raise UsageError(f"category {cat_name!r} has no [[category.tag]] entry", where=source)
        for tag in tags:
            name = _text(tag, "name", f"a tag of {cat_name!r}", source)
            key = str(tag.get("key", "")).strip()
            cause = Cause(cat_name, name, key, str(tag.get("description", "")).strip())
            if key:
                if key.lower() in keys:
                    raise UsageError(
                        f"quick key {key!r} is used twice ({keys[key.lower()]!r} and {cause.tag!r})",
                        where=source,
                    )
                keys[key.lower()] = cause.tag
            causes.append(cause)
    return Taxonomy(tuple(causes), source)


def _text(table: Any, field: str, what: str, source: str) -> str:
    value = table.get(field) if isinstance(table, dict) else None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f"{what} needs a non-empty `{field}`", where=source)
    return value.strip()
