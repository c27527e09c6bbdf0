"""Rules for causes the engine found least, each read from what its NL2SQL-Bugs category means.

- Table mismatch: the same column read from another table (`url` of races where gold reads circuits').
- Clause missing: gold groups (or filters groups) in more queries than the prediction: a nested query or a
  part of a set operation lost its GROUP BY / HAVING.
- Other: an unqualified column that two joined tables both have is ambiguous; SQLite refuses the query.
- Operator comparison at a boundary (`>` against `>=` on the same value), which databases generated from
  the schema rarely hold: their agreement does not clear it.
"""

from __future__ import annotations

from sqltriage.core.suggest.facts import QueryFacts
from sqltriage.core.suggest.suggestion import Suggestion

BOUNDARY = ({">", ">="}, {"<", "<="})


def weak_category_findings(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    return [*_column_tables(g, p), *_nested_clauses(g, p), *_ambiguous(g, p)]


def _joined_columns(f: QueryFacts) -> set[str]:
    return {c.split(".", 1)[-1] for j in f.joins for pair in j.pairs for c in pair}


def _owners(f: QueryFacts, column: str) -> set[str]:
    return {t for t, cols in f.table_columns.items() if column in cols}


def _column_tables(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """A column gold reads from one table and the prediction from another, both tables being read by both
    queries and the column joining neither: the value comes from the wrong table."""
    both = set(g.tables) & set(p.tables)
    joined = _joined_columns(g) | _joined_columns(p)
    out = []
    for column in sorted(g.columns & p.columns - joined - {"*"}):
        gold_from, pred_from = _owners(g, column), _owners(p, column)
        if gold_from and pred_from and not gold_from & pred_from and gold_from | pred_from <= both:
            why = f"gold reads {column} from {', '.join(sorted(gold_from))}, the prediction from {', '.join(sorted(pred_from))}"
            out.append(Suggestion("Table: mismatch", why, 0.75))
    return out[:1]


def _nested_clauses(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Both group somewhere, gold in more queries (the clause rule covers a side with none)."""
    lost = [
        name
        for name, gold_n, pred_n in (("GROUP BY", g.group_by, p.group_by), ("HAVING", g.having, p.having))
        if pred_n and gold_n > pred_n
    ]
    if not lost:
        return []
    why = f"gold has {' and '.join(lost)} in more of its queries than the prediction"
    return [Suggestion("Clause: missing", why, 0.7)]


def _ambiguous(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    names = sorted(set(p.ambiguous) - set(g.ambiguous))
    if not names:
        return []
    why = f"the prediction names {names[0]} without its table, and two of the tables it reads have it"
    return [Suggestion("Other: other", f"{why} (SQLite refuses an ambiguous column)", 0.85)]


def boundary_findings(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Conditions that differ only at the boundary value (`x > 5` against `x >= 5`): generated rows rarely
    hold that value, so their agreement does not clear the difference."""
    out = []
    for c in g.conjuncts:
        for x in p.conjuncts:
            if c.column == x.column and c.value == x.value and c.kind == x.kind and {c.op, x.op} in BOUNDARY:
                why = f"gold tests {c.text}, the prediction {x.text}: they differ on the boundary value alone"
                out.append(Suggestion("Operator: comparison", why, 0.8))
    return out[:1]
