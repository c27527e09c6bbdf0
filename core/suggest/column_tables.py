"""A column read from a table that does not hold it, or from another table than gold's: the labelling guide's
"Attribute: mismatch" beside the table tag.

The guide (docs/suggestions.md, "Attribute vs table vs join condition") reads such a prediction as two
differing elements: the column in place of gold's, and the table it brings. The table rules (`tree_diff.py`)
already name the table; these rules name the column:

- the prediction reads a column from a table the schema says lacks it, while another table has it
  (`SELECT County FROM satscores` where `County` is a column of `schools`): "Attribute: mismatch", and
  "Table: missing" when the prediction reads no table that has it and reads nothing gold does not (else
  the table rule's "Table: mismatch" names the table);
- gold reads a column from a table only gold reads, the prediction the same-named column from a table
  only it reads (`Model` of `model_list` for `Model` of `car_names`): "Attribute: mismatch" beside the
  table rule's "Table: mismatch" (the guide's convention for a same-named column of a replacing table).

A lookup's link column read where it is not is a join condition instead (`link_columns.py`).
"""

from __future__ import annotations

from sqlglot import exp

from sqltriage.core.model import Schema
from sqltriage.core.suggest.facts import QueryFacts
from sqltriage.core.suggest.link_columns import link_column_names
from sqltriage.core.suggest.suggestion import Suggestion

_COLUMNS: dict[int, tuple[Schema, dict[str, frozenset[str]]]] = {}


def schema_columns(schema: Schema) -> dict[str, frozenset[str]]:
    """{table: its columns}, lower-case, read once per schema object (an evaluation meets few of them)."""
    hit = _COLUMNS.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    columns = {t.name.lower(): frozenset(c.name.lower() for c in t.columns) for t in schema.tables}
    if len(_COLUMNS) > 64:
        _COLUMNS.clear()
    _COLUMNS[id(schema)] = (schema, columns)
    return columns


def column_table_findings(g: QueryFacts, p: QueryFacts, schema: Schema | None) -> list[Suggestion]:
    """The column errors that come with a table error (see the module's docstring)."""
    return [*_read_where_absent(g, p, schema), *_same_name_elsewhere(g, p)]


def _read_where_absent(g: QueryFacts, p: QueryFacts, schema: Schema | None) -> list[Suggestion]:
    """A column of the prediction resolved to a table that lacks it, while another schema table has it."""
    if schema is None:
        return []
    tables = schema_columns(schema)
    # a name the SELECT list gives (`COUNT(*) AS num … ORDER BY num`) is read as a column of the table
    aliases = {x.node.parent.alias.lower() for x in p.select if isinstance(x.node.parent, exp.Alias)}
    for table, used in sorted(p.table_columns.items()):
        have = tables.get(table)
        if have is None:
            continue  # a derived table, a CTE, or a table the schema does not know
        for column in sorted(used - have - aliases - {"*"}):
            owners = sorted(t for t, cols in tables.items() if column in cols)
            if not owners:
                continue  # a column no table has (misspelled, or an alias): the error says it when run
            why = f"the prediction reads {column} from {table}, which has no such column ({', '.join(owners)} has it)"
            selected = any(column in x.columns for x in p.select)  # (returned too: a wrong attribute)
            if column in link_column_names(p) and not selected:  # a lookup's link column: join condition
                return [Suggestion("Table: join condition", f"{why}, to link its lookup", 0.85)]
            out = [Suggestion("Attribute: mismatch", why, 0.85)]
            replacing = set(p.tables) - set(g.tables)
            if not any(t in p.tables for t in owners) and not replacing:
                out.append(Suggestion("Table: missing", why, 0.85))
            return out
    return []


def _same_name_elsewhere(g: QueryFacts, p: QueryFacts) -> list[Suggestion]:
    """Gold reads a column from a table only it reads, the prediction that column from a table only it reads."""
    gold_only, pred_only = set(g.tables) - set(p.tables), set(p.tables) - set(g.tables)
    if not gold_only or not pred_only:
        return []
    joined = {c for f in (g, p) for j in f.joins for pair in j.bare_pairs for c in pair}
    for gt in sorted(gold_only):
        for pt in sorted(pred_only):
            shared = (g.table_columns.get(gt, set()) & p.table_columns.get(pt, set())) - joined - {"*"}
            if shared:
                column = sorted(shared)[0]
                why = f"gold reads {column} from {gt}, the prediction from {pt}"
                return [Suggestion("Attribute: mismatch", why, 0.75)]
    return []
