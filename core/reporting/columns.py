"""The export's columns, in the export's order: shared by the frame (report.py) and the `evaluations`
view (views.py), which import this module and not each other.

`EXPORT_COLUMNS` is the export contract (README, "Usage"); `EXTRA_COLUMNS` follow them, to help a reader.
"""

from __future__ import annotations

EXPORT_COLUMNS = (
    "index",
    "example_id",
    "db_id",
    "question",
    "gold_sql",
    "model",
    "pred_sql",
    "va",
    "ex",
    "ex_spider",
    "ex_bird",
    "ex_archer",
    "ex_official",
    "ex_reviewed",
    "em",
    "em_spider",
    "sm",
    "om",
    "vm",
    "pm",
    "ex_ts",
    "ex_ts_bird",
    "ex_ts_archer",
    "ts_databases",
    "ts_witness",
    "ts_witness_rows",
    "equivalence",
    "equivalence_bound",
    "equivalence_note",
    "gold_suspect",
    "tie_sensitive",
    "gold_match",
    "structural",
    "operators",
    "hardness",
    "reasoning",
    "error",
    "tags",
    "tags_by",
    "note",
    "suggested",
    # the judgement (docs/judgement.md): the tool's call for a person, built on the raw verdicts above
    "judgement",
    "judgement_why",
    "refutation_assumption",
    "refutation_detail",
    "fragile_side",
    "gold_flags",
    "gold_lints",
    "pred_lints",
)
EXTRA_COLUMNS = (
    "adjudicated_by",  # who set the row's final tags (docs/workspace.md, "Team triage"), else empty
    "sm_authors",
    "om_authors",
    "vm_authors",
    "pm_authors",
    "authors_note",
    "official_quirk",
    "gold_suspect_detail",
    "error_kind",
    "parse_ok",
    "pred_structural",
    "pred_operators",
    "difficulty",
    "evidence",
    "commonsense",
    "reasoning_inferred",
    "db_missing",
    "gold_error",
    "gold_error_kind",
    "suggested_why",
    "difference",  # a difference a reader may forgive (the judgement's `unsure`)
    "refutation_witness",  # the realistic database the call rests on, when not ts_witness (docs/judgement.md)
    "ts_note",  # where ex_ts was found when not on SQLite (neighbours replayed on a server)
    "schema_verdict",  # no database file: what the databases generated from the schema show
    "values_match",  # no database file: both queries name the same literal values
    "soft_f1",
    "r_ves",
    "ves_ratio",
    "ves_ratio_sd",
    # from raw responses and k candidates (docs/formats.md, "Raw responses")
    "extraction",
    "candidates",
    "candidates_right",
    "ex_majority",
    "chosen",
    "tokens",
    "latency",
    "cost",
    "confidence",
    "candidate_clusters",
    "pred_raw",
)
