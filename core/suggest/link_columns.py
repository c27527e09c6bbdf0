"""A lookup's link column is a join condition: the labelling guide's rule for `x IN (SELECT y …)`, `x NOT IN
(SELECT y …)` and `x = (SELECT y …)`, which are joins written another way.

- SQLite's `no such column` on a link column (`district_id IN (SELECT district_id FROM district)` on a
  table without `district_id`): "Table: join condition", not "Attribute: mismatch" (nor a missing table:
  the lookup reads the table, through the wrong column);
- a link column the table lacks, which SQLite reads from the outer query instead of failing
  (`id IN (SELECT id FROM friend)`): the same;
- a lookup linking two tables that gold links on other columns (`id NOT IN (SELECT id FROM cartoon …)`
  where gold links `id` with `cartoon.channel`): the same; not a column named alike in both tables other
  than a bare `id` (`player_api_id` links Player and Player_Attributes as `player_fifa_api_id` does).
"""

from __future__ import annotations

import re

from sqltriage.core.suggest.facts import QueryFacts
from sqltriage.core.suggest.suggestion import Suggestion

_NO_SUCH_COLUMN = re.compile(r"no such column: (?:[\w\"`\[\] ]+\.)?[\"`\[]?([^\"`\]]+?)[\"`\]]?$", re.I)


_ID = frozenset(("id",))  # two tables' own keys, named alike, link nothing


def link_column_names(f: QueryFacts) -> set[str]:
    """The bare names of the columns the query's lookups link."""
    return {c.split(".", 1)[1] for pair in f.link_pairs for c in pair}


def link_error(error: str | None, p: QueryFacts) -> Suggestion | None:
    """SQLite's `no such column` naming a column a lookup of the prediction links on."""
    if not error or not p.link_pairs:
        return None
    m = _NO_SUCH_COLUMN.search(error)
    name = m.group(1).strip().lower() if m is not None else ""
    if name not in link_column_names(p) or any(name in x.columns for x in p.select):
        return None  # (a column the prediction also returns is a wrong attribute too: the error says so)
    why = f"execution failed: {error}; the lookup links on a column its table does not have"
    return Suggestion("Table: join condition", why, 0.9)


def other_link_findings(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """A lookup of the prediction linking two tables on a pair of columns that gold, linking the same two
    tables (by a join or a lookup), does not use."""
    if not p.link_pairs:
        return []
    gold_pairs: dict[frozenset[str], set[frozenset[str]]] = {}  # {tables: {bare column pairs}}
    for pair in [*(tuple(x) for j in g.joins for x in j.pairs), *g.link_pairs]:
        if len(pair) != 2:
            continue
        tables = frozenset(c.split(".", 1)[0] for c in pair)
        if len(tables) == 2 and "" not in tables:
            gold_pairs.setdefault(tables, set()).add(frozenset(c.split(".", 1)[1] for c in pair))
    pred_pairs: dict[frozenset[str], list[tuple[str, str]]] = {}
    for a, b in p.link_pairs:
        pred_pairs.setdefault(frozenset((a.split(".", 1)[0], b.split(".", 1)[0])), []).append((a, b))
    for tables, pairs in pred_pairs.items():
        linked = gold_pairs.get(tables)
        columns = {frozenset((a.split(".", 1)[1], b.split(".", 1)[1])) for a, b in pairs}
        if any(len(c) == 1 and c != _ID for c in columns):
            continue  # a column named alike in both (`player_api_id`, `setCode`) is a link the data holds too
        if linked and not columns & linked:  # (one of several lookups linking as gold does: a UNION of both)
            a, b = pairs[0]
            why = f"the prediction's lookup links {a} with {b}, gold links those tables otherwise"
            return [Suggestion("Table: join condition", why, 0.8)]
    return []
