"""The user's config file: key remapping, the EX mode the screens use, the taxonomy, the theme.

`$XDG_CONFIG_HOME/sqltriage/config.toml` (else `~/.config/sqltriage/config.toml`); no file means the
defaults. Documented in docs/config.md.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqltriage.core.errors import UsageError
from sqltriage.core.verdicts.ex_modes import EX_MODES

DEFAULT_THEME = "textual-dark"
DEFAULT_CACHE_MAX_SIZE = "1GB"  # the user cache is pruned to this after a run that wrote to it


@dataclass(frozen=True, slots=True)
class Config:
    keys: dict[str, str] = field(default_factory=dict)  # binding id → keys ("browse.tag" = "ctrl+t")
    default_ex_mode: str = "spider"
    taxonomy: Path | None = None  # a replacement for the built-in taxonomy
    theme: str = DEFAULT_THEME
    facets_open: tuple[str, ...] = ()  # facet sections the user opened / closed in the sidebar
    facets_closed: tuple[str, ...] = ()
    cache_max_size: int | None = 1024**3  # bytes; None = never pruned on its own ([cache] max_size = "off")
    annotator: str | None = None  # [triage] annotator: who this user's tags are by (default: the OS user)


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "sqltriage" / "config.toml"


def load_config(path: Path | None = None) -> Config:
    """The config at `path` (default: `config_path()`); a bad file is a usage error naming the key."""
    path = path or config_path()
    if not path.exists():
        return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(
            f"cannot read the config ({exc})", path=path, hint="fix or remove the file"
        ) from None
    unknown = sorted(
        set(data) - {"keys", "default_ex_mode", "taxonomy", "theme", "facets", "cache", "triage"}
    )
    if unknown:
        raise UsageError(
            f"unknown setting(s) {', '.join(unknown)}",
            path=path,
            hint="known: [keys], [facets], [cache], [triage], default_ex_mode, taxonomy, theme (see docs/config.md)",
        )
    keys = data.get("keys", {})
    if not isinstance(keys, dict) or not all(isinstance(v, str) for v in keys.values()):
        raise UsageError("[keys] must map binding ids to key strings", path=path, where="keys")
    mode = data.get("default_ex_mode", "spider")
    if mode not in EX_MODES:
        raise UsageError(f"default_ex_mode is {mode!r}", path=path, hint=f"use one of {', '.join(EX_MODES)}")
    taxonomy = data.get("taxonomy")
    if taxonomy is not None and not isinstance(taxonomy, str):
        raise UsageError("taxonomy must be a path (a string)", path=path, where="taxonomy")
    theme = data.get("theme", DEFAULT_THEME)
    if not isinstance(theme, str):
        raise UsageError("theme must be a theme name", path=path, where="theme")
    tax_path = None
    if taxonomy:
        tax_path = Path(taxonomy).expanduser()
        if not tax_path.is_absolute():
            tax_path = path.parent / tax_path  # relative to the config file, not to the working folder
    opened, closed = _facet_sections(data.get("facets", {}), path)
    limit = _cache_limit(data.get("cache", {}), path)
    annotator = _annotator(data.get("triage", {}), path)
    return Config(
        {str(k): v for k, v in keys.items()}, mode, tax_path, theme, opened, closed, limit, annotator
    )


def _annotator(table: object, path: Path) -> str | None:
    """`[triage] annotator = "NAME"`: the name the user's changes are recorded under."""
    if not isinstance(table, dict) or set(table) - {"annotator"}:
        raise UsageError('[triage] holds only annotator = "NAME"', path=path, where="triage")
    value = table.get("annotator")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(
            "triage.annotator must be a non-empty name in quotes", path=path, where="triage.annotator"
        )
    return " ".join(value.split())


def resolve_annotator(given: str | None, config: Config | None = None) -> str:
    """Who the changes are by: --annotator, else `[triage] annotator` in config.toml, else the OS user."""
    from sqltriage.core.workspace.annotators import clean_name, os_user

    if given is not None:
        name = clean_name(given)
        if not name:
            raise UsageError("--annotator needs a non-empty name")
        return name
    if config is None:
        config = load_config()
    return config.annotator or os_user()


def _cache_limit(table: object, path: Path) -> int | None:
    """`[cache] max_size = "2GB"` in bytes; "off" for no limit. The default when not set."""
    from sqltriage.core.cache import parse_size

    if not isinstance(table, dict) or set(table) - {"max_size"}:
        raise UsageError('[cache] holds only max_size = "SIZE"', path=path, where="cache")
    value = table.get("max_size", DEFAULT_CACHE_MAX_SIZE)
    if isinstance(value, str) and value.strip().lower() == "off":
        return None
    if not isinstance(value, str):
        raise UsageError(
            'cache.max_size must be a size in quotes, e.g. "2GB" (or "off")',
            path=path,
            where="cache.max_size",
        )
    try:
        return parse_size(value, where="cache.max_size")
    except UsageError as exc:
        raise UsageError(exc.what, path=path, where="cache.max_size", hint=exc.hint) from None


def _facet_sections(table: object, path: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if not isinstance(table, dict) or set(table) - {"open", "closed"}:
        raise UsageError("[facets] holds only open = [...] and closed = [...]", path=path, where="facets")
    out = []
    for key in ("open", "closed"):
        names = table.get(key, [])
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UsageError(f"facets.{key} must be a list of facet names", path=path, where=f"facets.{key}")
        out.append(tuple(names))
    return out[0], out[1]


def save_facet_sections(path: Path, opened: Iterable[str], closed: Iterable[str]) -> None:
    """Write the `[facets]` table into the config, leaving every other line of the file as it was.

    The app calls this when the user opens or closes a sidebar section, so the next launch shows the
    sidebar the way it was left. The file is replaced atomically.
    """
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    kept: list[str] = []
    inside = False
    for line in lines:
        header = _TABLE_HEADER.match(line)
        if header:
            inside = header.group(1).strip() == "facets"
        if not inside:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    table = [
        "[facets]",
        f"open = {_toml_list(opened)}",
        f"closed = {_toml_list(closed)}",
    ]
    text = "\n".join([*kept, *([""] if kept else []), *table]) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


_TABLE_HEADER = re.compile(r"^\s*\[\[?([^\]]+)\]\]?\s*(#.*)?$")


def _toml_list(names: Iterable[str]) -> str:
    return "[" + ", ".join(json.dumps(n) for n in sorted(set(names))) + "]"
