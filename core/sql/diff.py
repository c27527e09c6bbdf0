"""Gold vs predicted SQL as display-ready data: same formatting, aligned clause by clause.

Both queries are printed by the same generator (so spacing, case and quoting never show up as a
difference), cut into top-level clauses (SELECT, FROM, WHERE, GROUP BY, HAVING, ORDER BY, LIMIT and set
operators), the clause sequences aligned, and each aligned pair diffed token by token. Keywords and
names compare case-insensitively; string literals compare exactly, as SQLite's `=` does. The core
returns data; rendering is the interface's business.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher

from sqlglot import tokens as sqltokens
from sqlglot.dialects.sqlite import SQLite

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import (
    ParsedQuery,
    TableAlias,
    ensure_parsed,
    pretty_tree,
    resolve_aliases,
    table_aliases,
)

EQUAL, GOLD_ONLY, PRED_ONLY = "equal", "gold_only", "pred_only"

_CLAUSE_STARTS = {
    "SELECT": "SELECT",
    "FROM": "FROM",
    "WHERE": "WHERE",
    "GROUP": "GROUP BY",
    "HAVING": "HAVING",
    "ORDER": "ORDER BY",
    "LIMIT": "LIMIT",
    "OFFSET": "OFFSET",
    "UNION": "UNION",
    "INTERSECT": "INTERSECT",
    "EXCEPT": "EXCEPT",
    "WITH": "WITH",
}


@dataclass(frozen=True, slots=True)
class DiffToken:
    text: str
    kind: str  # equal | gold_only | pred_only
    space: bool  # preceded by a space when rendered on one line


@dataclass(frozen=True, slots=True)
class ClauseDiff:
    """One aligned clause; a side is empty when only the other query has this clause."""

    clause: str  # "SELECT", "WHERE", "ORDER BY", "UNION", ...
    gold: tuple[DiffToken, ...]
    pred: tuple[DiffToken, ...]

    @property
    def equal(self) -> bool:
        return all(t.kind == EQUAL for t in (*self.gold, *self.pred)) and bool(self.gold) == bool(self.pred)


@dataclass(frozen=True, slots=True)
class SqlDiff:
    gold_pretty: str  # multi-line canonical form (the input itself when it does not parse)
    pred_pretty: str
    clauses: tuple[ClauseDiff, ...]
    gold_error: str | None = None
    pred_error: str | None = None
    # each query's table aliases as written, whether or not the diff resolved them: the display says
    # which aliases resolving replaced (or kept), rather than a generic example
    gold_aliases: tuple[TableAlias, ...] = ()
    pred_aliases: tuple[TableAlias, ...] = ()

    @property
    def identical(self) -> bool:
        return all(c.equal for c in self.clauses)


def sql_diff(
    gold_sql: str | ParsedQuery,
    pred_sql: str | ParsedQuery,
    schema: Schema | None = None,
    *,
    resolve: bool = False,
) -> SqlDiff:
    """Compare two queries for display; never raises (unparseable text is diffed as written).

    `resolve=True` prints both with aliases resolved (`T1.name` → `singer.name`), so that a different
    choice of aliases does not show up as a difference. Either way the diff lists each query's table
    aliases (`gold_aliases`, `pred_aliases`), so that a display can say what resolving did.
    """
    gold, pred = ensure_parsed(gold_sql, schema), ensure_parsed(pred_sql, schema)
    aliases = (table_aliases(gold.tree), table_aliases(pred.tree))
    if resolve:
        gold, pred = _resolved(gold, schema), _resolved(pred, schema)
    g_line, g_pretty = _canonical(gold)
    p_line, p_pretty = _canonical(pred)
    g_clauses, p_clauses = _clauses(g_line), _clauses(p_line)
    out: list[ClauseDiff] = []
    matcher = SequenceMatcher(None, [c for c, _ in g_clauses], [c for c, _ in p_clauses], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            for (name, g_toks), (_, p_toks) in zip(g_clauses[i1:i2], p_clauses[j1:j2], strict=True):
                out.append(_token_diff(name, g_toks, p_toks))
            continue
        # replaced, deleted or inserted clauses: pair same-named ones, the rest stand alone
        g_rest, p_rest = list(g_clauses[i1:i2]), list(p_clauses[j1:j2])
        while g_rest or p_rest:
            if g_rest and p_rest and g_rest[0][0] == p_rest[0][0]:
                (name, g_toks), (_, p_toks) = g_rest.pop(0), p_rest.pop(0)
                out.append(_token_diff(name, g_toks, p_toks))
            elif g_rest:
                name, g_toks = g_rest.pop(0)
                out.append(ClauseDiff(name, tuple(_mark(g_toks, GOLD_ONLY)), ()))
            else:
                name, p_toks = p_rest.pop(0)
                out.append(ClauseDiff(name, (), tuple(_mark(p_toks, PRED_ONLY))))
    return SqlDiff(g_pretty, p_pretty, tuple(out), gold.error, pred.error, *aliases)


def _resolved(parsed: ParsedQuery, schema: Schema | None) -> ParsedQuery:
    if not parsed.ok or parsed.tree is None:
        return parsed
    try:
        return ParsedQuery(parsed.sql, resolve_aliases(parsed.tree, schema), None)
    except Exception:  # resolution is a display nicety; never lose the diff over it
        return parsed


_Tok = tuple[str, str, bool]  # (text, comparison key, preceded by space)


def _canonical(parsed: ParsedQuery) -> tuple[str, str]:
    """(one-line form to diff, multi-line form to show)."""
    if not parsed.ok or parsed.tree is None:
        text = " ".join(parsed.sql.split())
        return text, parsed.sql
    line = pretty_tree(parsed.tree, fallback="") or " ".join(parsed.sql.split())
    line = " ".join(line.split())
    return line, pretty_tree(parsed.tree, fallback=parsed.sql)


def _tokens(text: str) -> list[_Tok]:
    try:
        raw = SQLite().tokenize(text)
    except Exception:  # text that does not even tokenize: words are the best we have
        return [(w, w.lower(), i > 0) for i, w in enumerate(text.split())]
    out: list[_Tok] = []
    prev_end = -1
    for tok in raw:
        piece = text[tok.start : tok.end + 1]
        key = piece if tok.token_type == sqltokens.TokenType.STRING else piece.lower()
        out.append((piece, key, tok.start > prev_end + 1 and prev_end >= 0))
        prev_end = tok.end
    return out


def _clauses(text: str) -> list[tuple[str, list[_Tok]]]:
    """Cut at clause keywords that are not inside brackets."""
    clauses: list[tuple[str, list[_Tok]]] = []
    depth = 0
    for tok in _tokens(text):
        word = tok[0].upper().split()[0] if tok[0].strip() else ""
        if depth == 0 and word in _CLAUSE_STARTS:
            clauses.append((_CLAUSE_STARTS[word], [tok]))
        else:
            if not clauses:
                clauses.append(("", []))
            clauses[-1][1].append(tok)
        depth = max(depth + (tok[0] == "(") - (tok[0] == ")"), 0)
    return clauses


def _token_diff(name: str, gold: list[_Tok], pred: list[_Tok]) -> ClauseDiff:
    g_out: list[DiffToken] = []
    p_out: list[DiffToken] = []
    matcher = SequenceMatcher(None, [t[1] for t in gold], [t[1] for t in pred], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            g_out += _mark(gold[i1:i2], EQUAL)
            p_out += _mark(pred[j1:j2], EQUAL)
        else:
            g_out += _mark(gold[i1:i2], GOLD_ONLY)
            p_out += _mark(pred[j1:j2], PRED_ONLY)
    return ClauseDiff(name, tuple(g_out), tuple(p_out))


def _mark(toks: list[_Tok], kind: str) -> list[DiffToken]:
    return [DiffToken(text, kind, space) for text, _, space in toks]
