"""The workspace's tables and their columns: what every workspace file holds, and what an older one lacks.

store.py creates them (and adds the columns a file from an older version lacks); reading.py stands in for
the missing ones on a connection that only reads. Documented table by table in docs/workspace.md.
"""

from __future__ import annotations

from collections.abc import Mapping

from sqltriage.core.workspace import annotators

EXAMPLE_COLUMNS: dict[str, type] = {
    "idx": int,
    "example_id": str,
    "db_id": str,
    "question": str,
    "gold_sql": str,
    "evidence": str,
    "difficulty": str,
    "reasoning": str,
    "reasoning_inferred": int,
    "external_knowledge": int,
    "commonsense": str,
    "db_missing": int,
    "gold_done": int,
    "structural": str,
    "operators": str,
    "hardness": str,
    "n_operators": int,
    "n_tables": int,
    "n_columns": int,
    "n_values": int,
    "nesting_depth": int,
    "sql_length": int,
    "gold_error": str,
    "gold_error_kind": str,
    "gold_elapsed": float,
    "gold_rows": int,
    "gold_suspect": str,  # why the gold is doubtful (gold_audit.REASONS labels, "; "-joined), else NULL
    "gold_suspect_detail": str,  # the same in sentences, with the tie at its LIMIT when there is one
    "gold_lints": str,  # semantic lints of the gold (docs/lints.md), '; '-separated ids, else empty
    "gold_flags": str,  # every reason to doubt the gold (docs/judgement.md), '; '-separated ids, else empty
    "q_words": int,
    "q_tree_depth": int,
    "q_lexical_density": float,
    "q_rarity": float,
    "q_flesch": float,
    "q_schema_linkage": float,
}

RESULT_COLUMNS: dict[str, type] = {
    "model": str,
    "idx": int,
    "pred_sql": str,
    "va": int,
    "ex": int,
    "ex_spider": int,
    "ex_bird": int,
    "ex_archer": int,
    "ex_official": int,  # the official Spider evaluator's verdict, quirk for quirk
    "official_quirk": str,  # what makes ex_official differ from ex_spider on this row
    "tie_sensitive": int,  # 1: differs from gold only by which rows tied at gold's LIMIT it kept
    "gold_match": str,  # which gold `ex` matched: "gold", "alternative N" (dataset) or "accepted N" (app)
    "em": int,
    "em_spider": int,
    "sm": float,
    "om": float,
    "vm": float,
    "pm": float,
    "sm_authors": float,  # partial match as the paper's published code computes it (None where it raises)
    "om_authors": float,
    "vm_authors": float,
    "pm_authors": float,
    "authors_note": str,  # why the *_authors columns are empty ("their code would raise: …")
    "pred_structural": str,
    "pred_operators": str,
    "parse_ok": int,
    "error": str,
    "error_kind": str,
    "pred_elapsed": float,
    "truncated": int,
    "ex_ts": int,  # ex_spider on every neighbour database (docs/testsuite.md)
    "ex_ts_bird": int,  # ex_bird on the same neighbours
    "ex_ts_archer": int,  # ex_archer on the same neighbours
    "ts_databases": int,
    "ts_witness": str,  # the minimal witness of a refuted ex_ts (a small SQLite file), or "original"
    "ts_witness_rows": int,  # rows in all the witness's tables
    "ts_note": str,  # where ex_ts's verdict was found when not on SQLite: neighbours replayed on a server
    "equivalence": str,  # verified | refuted | unknown: bounded equivalence of an EX pass (docs/verification.md)
    "equivalence_bound": int,  # rows per table up to which it was checked
    "equivalence_note": str,  # why unknown: the construct outside the fragment, "timeout", …
    "suggested": str,  # suggested causes in rank order, "; "-separated
    "suggested_why": str,  # the same as JSON: [{tag, confidence, reason}]
    "pred_lints": str,  # semantic lints of the prediction (docs/lints.md), '; '-separated ids
    "refutation_assumption": str,  # what the refuting witness needs that the data never shows (docs/judgement.md)
    "refutation_detail": str,  # the same in one line a person reads
    "fragile_side": str,  # gold | prediction | both: which query the assumption breaks
    "refutation_witness": str,
    "values_match": int,  # no database file: gold and prediction name the same literal values
    "schema_verdict": str,  # no database file: agrees | differs | prediction fails | gold fails, on generated ones  # a realistic witness of another neighbour, when the row's own needs more
    "difference": str,  # a difference a reader may forgive: repeated rows, extra columns, rounding
    "result_digest": str,  # the prediction's rows, digested: models failing an example the same way share it
    "judgement": str,  # right | wrong | unsure: the tool's call for a person (docs/judgement.md)
    "judgement_why": str,  # the reason, in one line
    "soft_f1": float,  # BIRD Mini-Dev's Soft F1: rows paired by position, values by equality (docs/engines.md)
    "r_ves": float,  # Mini-Dev's R-VES reward (0 … 1.25) over `eval --ves N` runs; empty without --ves
    "ves_ratio": float,  # gold time / predicted time, mean of the runs within 3 sd
    "ves_ratio_sd": float,  # its standard deviation over the runs: R-VES is a timing
    # from raw responses and k candidates (docs/formats.md, "Raw responses"; core/pipeline/candidates.py)
    "pred_raw": str,  # the response as given, reasoning included
    "extraction": str,  # how its SQL was found: fence-sql | fence | tag | sql-line | bare | failed: <why>
    "candidates": int,  # k: the candidates of this example
    "candidates_right": int,  # how many pass EX in the dataset's mode
    "ex_majority": int,  # EX of the execution majority's earliest candidate
    "chosen": int,  # which candidate the row scores (1 unless --choose majority)
    "candidate_clusters": str,  # JSON: candidates grouped by equal results, the majority first
    "tokens": float,  # per-row figures given with the responses, when present
    "latency": float,  # seconds
    "cost": float,
    "confidence": float,
}

SQL_TYPES = {int: "INTEGER", float: "REAL", str: "TEXT"}


def _columns_sql(columns: Mapping[str, type]) -> str:
    return ", ".join(f"[{name}] {SQL_TYPES[t]}" for name, t in columns.items())


TABLES: dict[str, str] = {  # name → column definitions: the tables every workspace has
    "meta": "key TEXT PRIMARY KEY, value TEXT",
    "examples": f"{_columns_sql(EXAMPLE_COLUMNS)}, PRIMARY KEY (idx)",
    "models": "name TEXT PRIMARY KEY, path TEXT, format TEXT, sha256 TEXT, result_key TEXT, position INTEGER, "
    "added REAL",
    "results": f"{_columns_sql(RESULT_COLUMNS)}, PRIMARY KEY (model, idx)",
    "tags": "idx INTEGER, model TEXT, tag TEXT, created REAL, PRIMARY KEY (idx, model, tag)",  # final tags
    "notes": "idx INTEGER, model TEXT, note TEXT, updated REAL, annotator TEXT, PRIMARY KEY (idx, model)",
    "tag_log": "seq INTEGER PRIMARY KEY AUTOINCREMENT, action TEXT, idx INTEGER, model TEXT, tag TEXT, "
    "created REAL, annotator TEXT",
    "note_log": "seq INTEGER PRIMARY KEY AUTOINCREMENT, idx INTEGER, model TEXT, before TEXT, after TEXT, "
    "created REAL, annotator TEXT",
    "undo_log": "undone TEXT PRIMARY KEY, undone_by TEXT, created REAL",
    **annotators.TABLES,
}
LOGGED_COLUMNS = {table: {"annotator": "TEXT"} for table in annotators.LOGGED}
SCHEMA = (
    "".join(f"CREATE TABLE IF NOT EXISTS {name} ({columns});\n" for name, columns in TABLES.items())
    + "CREATE INDEX IF NOT EXISTS results_idx ON results (idx);\n"
    + "CREATE INDEX IF NOT EXISTS tags_tag ON tags (tag);\n"
)

# the columns a reading connection adds as NULL where an older file lacks them (reading.stand_in_for_missing)
STAND_IN_COLUMNS = {
    "examples": {name: SQL_TYPES[kind] for name, kind in EXAMPLE_COLUMNS.items()},
    "results": {name: SQL_TYPES[kind] for name, kind in RESULT_COLUMNS.items()},
    **LOGGED_COLUMNS,
}
