"""`judgement` (right | wrong | unsure) and `judgement_why`: the tool's call on a prediction, for a person.

The decision table of docs/judgement.md, first matching line wins. `wrong` needs evidence a person
accepts: a failure on the original database against a gold that is not doubted and not forgiven, or a
refutation on a realistic database. `right` needs EX on the original and nothing realistic against it (a
refutation that needs a world the question never meant is not against it), or a proof. Everything else is
`unsure`, saying what is missing. The raw verdicts it reads stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqltriage.core.verdicts.judgement.assumption import NAMED_BY_GOLD
from sqltriage.core.verdicts.judgement.gold_flags import SEPARATOR, WEAK_AUDIT, strong

RIGHT, WRONG, UNSURE = "right", "wrong", "unsure"
JUDGEMENTS = (UNSURE, WRONG, RIGHT)  # the order a sort by judgement shows them in: unsure first
TS_COLUMN = {"spider": "ex_ts", "bird": "ex_ts_bird", "archer": "ex_ts_archer"}


def judge(row: Mapping[str, Any], flags: str | None, mode: str = "spider") -> tuple[str, str]:
    """(judgement, why) of one row: its stored columns, the example's `db_missing` and `gold_error`, and
    the example's `gold_flags`."""
    ex = row.get(f"ex_{mode}")
    if row.get("db_missing"):
        return _from_schema(row, flags)
    if row.get("gold_error"):
        return UNSURE, f"the gold itself fails: {_first_line(row['gold_error'])}"
    if ex is None or row.get("error"):
        return WRONG, f"the prediction does not run: {_first_line(row.get('error') or 'no result')}"
    doubts = strong(flags, row)
    if ex == 1:
        return _passed(row, flags, mode)
    if row.get("tie_sensitive"):
        return UNSURE, "differs from the gold only by which rows tied at the gold's LIMIT it keeps"
    if doubts:
        return UNSURE, f"fails EX against a doubted gold ({', '.join(doubts)})"
    if row.get("difference"):
        return UNSURE, f"fails EX by a difference a reader may forgive: {row['difference']}"
    return WRONG, "returns other rows than the gold on the original database"


def _from_schema(row: Mapping[str, Any], flags: str | None) -> tuple[str, str]:
    """No database file: exact match, and what the databases generated from the schema show
    (`schema_verdict`, verdicts/judgement/schema_only.py). Said plainly: from the schema, not from data."""
    verdict, detail = row.get("schema_verdict"), row.get("refutation_detail") or ""
    exact = row.get("em") == 1 and row.get("values_match") != 0
    if verdict == "agrees" and row.get("equivalence") == "verified":
        return RIGHT, (
            "no database file; proved equal to the gold on every database the schema allows of up to "
            f"{row.get('equivalence_bound')} rows a table (its declared keys only: no data)"
        )
    if exact and verdict not in ("prediction fails", "differs"):  # a generated database outweighs the text
        return RIGHT, "no database to run: the prediction matches the gold exactly (exact-set match)"
    if verdict == "prediction fails":
        return WRONG, f"no database file; {detail}"
    if verdict == "differs":
        assumption = row.get("refutation_assumption")
        if assumption is None:
            return (
                UNSURE,
                "no database file; a database generated from the schema tells them apart, but its witness could not be read",
            )
        if assumption == "duplicate" and NAMED_BY_GOLD in detail and not strong(flags, row):
            # the question names one thing by that value: a second one is a world it never meant
            return RIGHT, f"no database file; {detail}, a world the question never meant"
        if assumption != "none":
            return UNSURE, f"no database file; {detail}"
        if row.get("difference"):
            return (
                UNSURE,
                f"no database file; {detail}, but only by a difference a reader may forgive: {row['difference']}",
            )
        if doubts := strong(flags, row):
            return UNSURE, f"no database file; {detail}, against a doubted gold ({', '.join(doubts)})"
        return WRONG, f"no database file; {detail}"
    if verdict == "agrees":
        n = row.get("ts_databases") or 0
        return UNSURE, (
            f"no database file; agrees with the gold on {n} database(s) generated from the schema, which "
            "proves nothing"
        )
    if verdict == "gold fails":
        return UNSURE, f"no database file; {detail or 'the gold fails on every database of the schema'}"
    return UNSURE, "no database to run either query: only the structure can be compared"


def _passed(row: Mapping[str, Any], flags: str | None, mode: str) -> tuple[str, str]:
    refuted = row.get(TS_COLUMN.get(mode, "ex_ts")) == 0 or row.get("equivalence") == "refuted"
    assumption, detail = row.get("refutation_assumption"), row.get("refutation_detail") or ""
    if refuted:
        if assumption is None:
            return UNSURE, "passes EX but a generated database refutes it, and its witness could not be read"
        if assumption != "none":
            side = row.get("fragile_side")
            tail = f"; the {side} is the fragile side" if side in ("gold", "prediction") else ""
            return RIGHT, f"passes EX; {detail}, a world the question never meant{tail}"
        if row.get("difference"):
            return UNSURE, f"{detail}, but only by a difference a reader may forgive: {row['difference']}"
        if doubts := strong(flags, row):
            return UNSURE, f"{detail}, against a doubted gold ({', '.join(doubts)})"
        return WRONG, f"passes EX by chance: {detail}"
    if row.get("equivalence") == "verified":
        bound = row.get("equivalence_bound")
        return (
            RIGHT,
            f"passes EX and is proved equal to the gold on every database of up to {bound} rows a table",
        )
    weak = [x for x in (row.get("gold_suspect") or "").split(SEPARATOR) if x in WEAK_AUDIT]
    survived = row.get(TS_COLUMN.get(mode, "ex_ts")) == 1
    if weak and not survived:
        return UNSURE, "passes EX only against a gold that finds nothing: any query finding nothing passes"
    lints = _new_lints(row)
    if lints:
        return UNSURE, f"passes EX, but the prediction has a likely mistake the data does not show ({lints})"
    if survived:
        return RIGHT, f"passes EX and every one of {row.get('ts_databases') or 'the'} neighbour databases"
    return RIGHT, "passes EX on the original database"


def _new_lints(row: Mapping[str, Any]) -> str:
    """The prediction's lints that doubt it and that the gold does not share."""
    from sqltriage.core.sql.lints import DOUBTING

    gold = set((row.get("gold_lints") or "").split(SEPARATOR))
    found = (row.get("pred_lints") or "").split(SEPARATOR)
    return ", ".join(i for i in found if i in DOUBTING and i not in gold)


def _first_line(text: str) -> str:
    line = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return line if len(line) <= 120 else line[:117] + "…"
