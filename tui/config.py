"""The user's config file: key remapping, the EX mode the screens use, the taxonomy, the theme.

`$XDG_CONFIG_HOME/sqltriage/config.toml` (else `~/.config/sqltriage/config.toml`); no file means the
defaults. Documented in docs/config.md.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from sqltriage.core.errors import UsageError
from sqltriage.core.facets import EX_MODES

DEFAULT_THEME = "textual-dark"


@dataclass(frozen=True, slots=True)
class Config:
    keys: dict[str, str] = field(default_factory=dict)  # binding id → keys ("browse.tag" = "ctrl+t")
    default_ex_mode: str = "spider"
    taxonomy: Path | None = None  # a replacement for the built-in taxonomy
    theme: str = DEFAULT_THEME


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
    unknown = sorted(set(data) - {"keys", "default_ex_mode", "taxonomy", "theme"})
    if unknown:
        raise UsageError(
            f"unknown setting(s) {', '.join(unknown)}",
            path=path,
            hint="known: [keys], default_ex_mode, taxonomy, theme (see docs/config.md)",
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
    return Config({str(k): v for k, v in keys.items()}, mode, tax_path, theme)
