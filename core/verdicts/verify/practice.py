"""The keys a database keeps in practice, read as the neighbour generator reads them.

A proof covers the databases its constraints admit. The neighbours keep more than the schema file declares
(testsuite/mine.py): a column whose values are all distinct over enough rows stays unique, a column the
golds join on whose values all occur in its partner's draws only from them (an inclusion link, kept like a
foreign key), the `tables.json` primary keys of tables whose file declares none stay keys, a categorical
column draws from its values and the golds' literals compared with it, and a table the original fills is
never empty. A proof that left these out would call two queries different because a country may share its
name with another, which no neighbour (and no version of the data) holds; one that kept more than the
neighbours would be refuted by one of them. So the solver keeps exactly these, mined from the same golds:
the database's gold queries in an evaluation, the pair's own gold in `diff`.

A number's mined range is left out: bounds on real columns made z3 ten times slower on some schemas and
changed no verdict of Spider dev x 8. Admitting more databases than the neighbours is sound, only less
often `verified`.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass
from pathlib import Path

_MEMO_SIZE = 64


@dataclass(frozen=True, slots=True, eq=False)
class Practice:
    digest: str = ""  # what the rest says, hashed: a Practice is a cache key of every table it shapes
    primary: tuple[tuple[str, str], ...] = ()  # tables.json primary keys (table, column)
    unique: frozenset[tuple[str, str]] = frozenset()  # (table, column), lower case: unique in practice
    # (child table, column, parent table, column), lower case: inclusion links, kept like foreign keys
    links: tuple[tuple[str, str, str, str], ...] = ()
    joined: frozenset[tuple[str, str]] = frozenset()  # every link's child: drawn from its partner, no domain
    # (table, column) → its categorical domain (the values seen and the golds' literals compared with it)
    domains: tuple[tuple[tuple[str, str], tuple], ...] = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Practice) and other.digest == self.digest

    def __hash__(self) -> int:
        return hash(self.digest)


NONE = Practice()


@functools.lru_cache(maxsize=_MEMO_SIZE)
def practice_of(
    db_path: Path, golds: tuple[str, ...], extra_fks: tuple = (), extra_pks: tuple = ()
) -> Practice:
    """What the neighbours of `db_path` built from `golds` keep beyond the declared keys."""
    from sqltriage.core.verdicts.testsuite.literals import gold_literals
    from sqltriage.core.verdicts.testsuite.mine import gold_shapes, mine
    from sqltriage.core.verdicts.testsuite.schema import read_db

    info = read_db(db_path, extra_fks, extra_pks)
    ordered = sorted(set(golds))
    trees = _parses(ordered)  # one parse per gold for both readings
    literals = gold_literals(ordered, {c.name.lower() for t in info.tables for c in t.columns}, trees)
    shapes = gold_shapes(info, ordered, trees)
    mined = mine(info, literals, [s for found, _ in shapes.values() for s in found])
    unique = frozenset(k for k, rule in mined.rules.items() if rule.unique)
    links = tuple(
        sorted(
            {
                (lk.child[0].lower(), lk.child[1].lower(), lk.parent[0].lower(), lk.parent[1].lower())
                for lk in mined.links
                if lk.inclusion
            }
        )
    )
    joined = frozenset((lk.child[0].lower(), lk.child[1].lower()) for lk in mined.links)
    rules = sorted(mined.rules.items())
    domains = tuple((k, tuple(r.domain)) for k, r in rules if r.domain is not None)
    parts = (tuple(extra_pks), unique, links, joined, domains)
    digest = hashlib.sha256(repr((sorted(unique), sorted(joined), parts[0], links, domains)).encode())
    return Practice(digest.hexdigest()[:16], *parts)


def declared_practice(extra_pks: tuple = ()) -> Practice:
    """The schema's declared keys alone, for a database without data (one generated from the schema):
    nothing is mined, so a proof holds on every database the schema allows up to the bound."""
    digest = hashlib.sha256(repr(("declared", tuple(extra_pks))).encode()).hexdigest()[:16]
    return Practice(digest, tuple(extra_pks))


def _parses(golds: list[str]) -> dict[str, object]:
    import sqlglot
    from sqlglot.errors import SqlglotError

    out: dict[str, object] = {}
    for sql in golds:
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except (SqlglotError, ValueError, RecursionError):
            continue  # each reading reports it as it would
        if tree is not None:
            out[sql] = tree
    return out
