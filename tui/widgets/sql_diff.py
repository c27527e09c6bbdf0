"""Gold and predicted SQL side by side: pretty-printed, highlighted, the differing tokens marked.

Tokens are compared (sqlglot's SQLite tokenizer, case-insensitive) rather than characters, so a renamed
alias or a changed value is marked as one unit. SQL that does not even tokenize is shown as written and
compared word by word: a bad prediction is something to look at, never a crash.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from sqlglot.dialects.dialect import Dialect
from sqlglot.tokens import TokenType

from sqltriage.core.sql.parse import pretty

GOLD_ONLY_STYLE = "bold white on dark_red"
PRED_ONLY_STYLE = "bold white on dark_green"
_KEYWORD_STYLE = "bold cyan"
_STRING_STYLE = "green"
_NUMBER_STYLE = "magenta"
_LITERAL_TYPES = {TokenType.STRING: _STRING_STYLE, TokenType.NUMBER: _NUMBER_STYLE}
_PLAIN_TYPES = {
    TokenType.VAR,
    TokenType.IDENTIFIER,
    TokenType.DOT,
    TokenType.COMMA,
    TokenType.L_PAREN,
    TokenType.R_PAREN,
    TokenType.STAR,
}


@dataclass(frozen=True, slots=True)
class _Token:
    key: str  # what is compared
    start: int  # span in the pretty text, end exclusive
    end: int
    style: str


@dataclass(frozen=True, slots=True)
class SqlDiff:
    gold: Text
    pred: Text
    gold_only: tuple[str, ...]  # tokens, in order, present in gold and not in the prediction
    pred_only: tuple[str, ...]


def _tokens(text: str) -> list[_Token]:
    try:
        raw = Dialect.get_or_raise("sqlite").tokenize(text)
    except Exception:  # untrusted text: fall back to words
        out, pos = [], 0
        for word in text.split():
            start = text.index(word, pos)
            pos = start + len(word)
            out.append(_Token(word.lower(), start, pos, ""))
        return out
    out = []
    for t in raw:
        style = _LITERAL_TYPES.get(t.token_type, "" if t.token_type in _PLAIN_TYPES else _KEYWORD_STYLE)
        key = t.text if t.token_type == TokenType.STRING else t.text.lower()
        out.append(_Token(f"{t.token_type.name}:{key}", t.start, t.end + 1, style))
    return out


def _styled(text: str, tokens: list[_Token], marked: set[int], mark_style: str) -> Text:
    out = Text(text)
    for i, tok in enumerate(tokens):
        if tok.style:
            out.stylize(tok.style, tok.start, tok.end)
        if i in marked:
            out.stylize(mark_style, tok.start, tok.end)
    return out


def sql_diff(gold_sql: str, pred_sql: str) -> SqlDiff:
    """Both queries pretty-printed, with the tokens only one side has marked."""
    gold_text, pred_text = pretty(gold_sql or ""), pretty(pred_sql or "")
    g, p = _tokens(gold_text), _tokens(pred_text)
    matcher = difflib.SequenceMatcher(a=[t.key for t in g], b=[t.key for t in p], autojunk=False)
    g_marked: set[int] = set()
    p_marked: set[int] = set()
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op in ("replace", "delete"):
            g_marked.update(range(i1, i2))
        if op in ("replace", "insert"):
            p_marked.update(range(j1, j2))
    return SqlDiff(
        gold=_styled(gold_text, g, g_marked, GOLD_ONLY_STYLE),
        pred=_styled(pred_text, p, p_marked, PRED_ONLY_STYLE),
        gold_only=tuple(gold_text[g[i].start : g[i].end] for i in sorted(g_marked)),
        pred_only=tuple(pred_text[p[i].start : p[i].end] for i in sorted(p_marked)),
    )


def render_sql_diff(diff: SqlDiff, *, error: str | None = None) -> RenderableType:
    """Two columns (gold | prediction) and a line listing what differs."""
    grid = Table.grid(expand=True, padding=(0, 2))
    grid.add_column(ratio=1)
    grid.add_column(ratio=1)
    grid.add_row(Text("gold", style="bold underline"), Text("prediction", style="bold underline"))
    grid.add_row(diff.gold, diff.pred if diff.pred.plain else Text("(empty prediction)", style="italic"))
    parts: list[RenderableType] = [grid, Text("")]
    if not diff.gold_only and not diff.pred_only:
        parts.append(Text("same tokens", style="green"))
    else:
        summary = Text()
        summary.append("only in gold: ", style="bold")
        summary.append(" ".join(diff.gold_only) or "—", style=GOLD_ONLY_STYLE if diff.gold_only else "")
        summary.append("\nonly in prediction: ", style="bold")
        summary.append(" ".join(diff.pred_only) or "—", style=PRED_ONLY_STYLE if diff.pred_only else "")
        parts.append(summary)
    if error:
        parts.append(Text(f"\nerror: {error}", style="bold red"))
    return Group(*parts)
