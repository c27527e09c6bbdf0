"""Aggregates over a workspace's evaluations (polars), shared by the CLI and the app."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

import polars as pl

from sqltriage.core.reporting.columns import EXPORT_COLUMNS, EXTRA_COLUMNS
from sqltriage.core.verdicts.review import REVIEW_COLUMN, marks_sql, reviewed_columns
from sqltriage.core.workspace.store import EXAMPLE_COLUMNS, RESULT_COLUMNS, Workspace

EXEC_METRICS = (
    "va",
    "ex",
    "ex_spider",
    "ex_bird",
    "ex_archer",
    "ex_official",
    "ex_ts",
    "ex_ts_bird",
    "ex_ts_archer",
    "soft_f1",
)
MATCH_METRICS = ("em", "em_spider", "pm", "sm", "om", "vm")
AUTHORS_METRICS = (
    "pm_authors",
    "sm_authors",
    "om_authors",
    "vm_authors",
)  # the paper's code; None where it raises
FACETS = ("hardness", "structural", "operators", "reasoning")
TOP_CATEGORIES = 8
HARDNESS_ORDER = ("easy", "medium", "hard", "extra")

_PL_TYPES = {int: pl.Int64, float: pl.Float64, str: pl.Utf8}


def load_frame(
    workspace: Workspace, models: Sequence[str] | None = None, *, columns: Collection[str] | None = None
) -> pl.DataFrame:
    """One row per (example, model): results joined with their example, tags (joined by ', ') and note.

    Each table is read once and joined in polars: an example's text is fetched once, not once per
    model, which is most of the cost of opening a workspace with many models. `columns` reads only
    these stored columns (the keys, `ex`, tags, note and model order always come): a command that
    needs a few columns of tens of thousands of rows skips the texts, and a first screen reads the
    others later with `load_rest`. Reading writes nothing, whatever way the workspace was opened: the
    `evaluations` view is made by what evaluates (views.ensure_views).
    """
    keep = None if columns is None else {*columns, "model", "ex"}
    ex_cols = [c for c in EXAMPLE_COLUMNS if c != "idx" and (keep is None or c in keep)]
    res_cols = [c for c in RESULT_COLUMNS if c not in ("idx", "model") and (keep is None or c in keep)]
    with workspace.snapshot() as db:
        results = _read_results(db, res_cols, models)
        examples = _read_examples(db, ex_cols)
        tags = _read(
            db,
            TAGS_SQL,
            [],
            {"idx": pl.Int64, "model": pl.Utf8, "tags": pl.Utf8, REVIEW_COLUMN: pl.Int64},
        )
        tags_by = _read(db, TAGS_BY_SQL, [], {"idx": pl.Int64, "model": pl.Utf8, "tags_by": pl.Utf8})
        adjudicated = _read(
            db,
            "SELECT idx, model, annotator AS adjudicated_by FROM adjudications",
            [],
            {"idx": pl.Int64, "model": pl.Utf8, "adjudicated_by": pl.Utf8},
        )
        deciders = _read(
            db, DECIDERS_SQL, [], {"idx": pl.Int64, "model": pl.Utf8, "annotators": pl.Utf8, "k": pl.Int64}
        )
        given = _read(
            db, GIVEN_SQL, [], {"idx": pl.Int64, "model": pl.Utf8, "given": pl.Int64, "n_tags": pl.Int64}
        )
        notes = _read(
            db,
            "SELECT idx, model, note FROM notes",
            [],
            {"idx": pl.Int64, "model": pl.Utf8, "note": pl.Utf8},
        )
        positions = _read(
            db,
            "SELECT name AS model, position AS model_position FROM models",
            [],
            {"model": pl.Utf8, "model_position": pl.Int64},
        )
    frame = (
        results.join(examples, on="idx", how="inner")
        .join(positions, on="model", how="inner")
        .join(tags, on=["idx", "model"], how="left")
        .join(tags_by, on=["idx", "model"], how="left")
        .join(_team(deciders, given), on=["idx", "model"], how="left")
        .join(adjudicated, on=["idx", "model"], how="left")
        .join(notes, on=["idx", "model"], how="left")
        .sort(["model_position", "idx"], maintain_order=True)
    )
    frame = frame.with_columns(pl.col("disagree").fill_null(0))
    order = [c for c in _STORED_ORDER if c in frame.columns or c == "index"]
    return reviewed_columns(frame.rename({"idx": "index"}).select(order))


# A full frame's stored columns, in order (computed ones such as ex_reviewed follow them).
_STORED_ORDER = (
    "index",
    *(c for c in RESULT_COLUMNS if c != "idx"),
    *(c for c in EXAMPLE_COLUMNS if c != "idx"),
    "tags",
    REVIEW_COLUMN,
    "tags_by",
    "annotators",
    "disagree",
    "adjudicated_by",
    "note",
    "model_position",
)
# each row's final tags joined by ", " (in order), and their review marks (core/verdicts/review.py)
TAGS_SQL = (
    f"SELECT idx, model, group_concat(tag, ', ') AS tags, {marks_sql('tag')} AS [{REVIEW_COLUMN}] FROM "
    "(SELECT idx, model, tag FROM tags ORDER BY idx, model, tag) GROUP BY idx, model"
)
# who gave which tag: "annotator: tag" pairs, "; "-joined, by annotator then tag (the export's `tags_by`)
TAGS_BY_SQL = (
    "SELECT idx, model, group_concat(annotator || ': ' || tag, '; ') AS tags_by FROM "
    "(SELECT idx, model, annotator, tag FROM annotations ORDER BY idx, model, annotator, tag) "
    "GROUP BY idx, model"
)
# who decided each row (names space-joined, a space inside a name written "_": the `annotators` facet), and
# how many (k); with how many (annotator, tag) pairs the row has (given) over how many distinct tags
DECIDERS_SQL = (
    "SELECT idx, model, group_concat(replace(annotator, ' ', '_'), ' ') AS annotators, count(*) AS k FROM "
    "(SELECT idx, model, annotator FROM annotated ORDER BY idx, model, annotator) GROUP BY idx, model"
)
GIVEN_SQL = (
    "SELECT idx, model, count(*) AS given, count(DISTINCT tag) AS n_tags FROM annotations GROUP BY idx, model"
)


def row_team(by: Mapping[str, Sequence[str]]) -> tuple[str | None, int]:
    """One row's (`annotators`, `disagree`) from each decider's tags (`annotator_tags`), by `_team`'s rule:
    what the browse screen patches in after a change, so the facet and the outcome follow at once."""
    names = " ".join(a.replace(" ", "_") for a in sorted(by)) or None
    given = sum(len(t) for t in by.values())
    n_tags = len({t for tags in by.values() for t in tags})
    return names, int(len(by) >= 2 and given < n_tags * len(by))


def _team(deciders: pl.DataFrame, given: pl.DataFrame) -> pl.DataFrame:
    """`annotators` and `disagree` per row: 1 when two or more decided it and some tag was not given by all
    (every tag given by all k of them makes given = n_tags × k)."""
    joined = deciders.join(given, on=["idx", "model"], how="left")
    short = pl.col("given").fill_null(0) < pl.col("n_tags").fill_null(0) * pl.col("k")
    return joined.select(
        "idx", "model", "annotators", ((pl.col("k") >= 2) & short).cast(pl.Int64).alias("disagree")
    )


def _read_results(
    db: sqlite3.Connection, columns: Sequence[str], models: Sequence[str] | None
) -> pl.DataFrame:
    """`columns` of the results of `models` (every model for None), with their keys `model` and `idx`."""
    where, params = "", []
    if models:
        where = f" WHERE model IN ({', '.join('?' for _ in models)})"
        params = list(models)
    return _read(
        db,
        "SELECT idx, model" + "".join(f", [{c}]" for c in columns) + " FROM results" + where,
        params,
        {"idx": pl.Int64, "model": pl.Utf8} | {c: _PL_TYPES[RESULT_COLUMNS[c]] for c in columns},
    )


def _read_examples(db: sqlite3.Connection, columns: Sequence[str]) -> pl.DataFrame:
    return _read(
        db,
        "SELECT idx" + "".join(f", [{c}]" for c in columns) + " FROM examples",
        [],
        {"idx": pl.Int64} | {c: _PL_TYPES[EXAMPLE_COLUMNS[c]] for c in columns},
    )


def missing_columns(frame: pl.DataFrame) -> list[str]:
    """The stored columns a frame from `load_frame(..., columns=...)` lacks: what `load_rest` reads."""
    return [c for c in _STORED_ORDER if c not in frame.columns]


def load_rest(workspace: Workspace, frame: pl.DataFrame) -> pl.DataFrame:
    """The stored columns `frame` lacks, for its rows in its order, with its keys `index` and `model`.

    Read apart from the frame it completes (`with_rest`), so that the frame may change meanwhile (tags,
    notes) without either change being lost.
    """
    missing = set(missing_columns(frame))
    res_cols = [c for c in RESULT_COLUMNS if c in missing]
    ex_cols = [c for c in EXAMPLE_COLUMNS if c in missing]
    keys = frame.select("index", "model")
    with workspace.snapshot() as db:
        if res_cols:
            models = keys.get_column("model").unique(maintain_order=True).to_list()
            results = _read_results(db, res_cols, models).rename({"idx": "index"})
            # where each of the frame's rows is among those read (null: gone meanwhile), then each column
            # put in the frame's order and dropped as read, so that only one column is ever held twice
            where = keys.join(
                results.select("index", "model").with_row_index("_at"),
                on=["index", "model"],
                how="left",
                maintain_order="left",
            ).get_column("_at")
            keys = keys.hstack([results.drop_in_place(c).gather(where) for c in res_cols])
            del results
        if ex_cols:
            examples = _read_examples(db, ex_cols).rename({"idx": "index"})
            keys = keys.join(examples, on="index", how="left", maintain_order="left")
    return keys


def with_rest(frame: pl.DataFrame, rest: pl.DataFrame) -> pl.DataFrame | None:
    """`frame` with the columns `load_rest` read for it, in the order a full `load_frame` gives them.

    None when `rest` was read for other rows (the frame was read again meanwhile) or adds nothing.
    """
    added = [c for c in rest.columns if c not in frame.columns]
    if not added or rest.height != frame.height:
        return None
    if not rest.select("index", "model").equals(frame.select("index", "model")):
        return None
    merged = frame.hstack(rest.select(added).get_columns())
    stored = [c for c in _STORED_ORDER if c in merged.columns]
    return merged.select([*stored, *(c for c in frame.columns if c not in stored)])


def _read(db: sqlite3.Connection, sql: str, params: list[Any], schema: dict[str, Any]) -> pl.DataFrame:
    """A query's rows as a frame with the given column types, read column by column.

    Fetching rows makes a Python object per value (about 1 s per 100k rows of a results table); instead
    SQLite builds one JSON array per integer or text column and polars decodes it, with no Python object
    per row. REAL columns are fetched through the cursor, by a second pass of the same query: SQLite's
    text form of a double does not always give the same double back. `db` is a `Workspace.snapshot`, so
    that both passes see the same rows in the same order.
    """
    floats = [c for c, t in schema.items() if t == pl.Float64]
    others = [c for c in schema if c not in floats]
    frame = pl.DataFrame()
    if others:
        # the bulkiest texts each in a pass of their own: SQLite's array of one, its Python copy and its
        # decoded column are all held at once, which for every column together would double the peak
        groups = [[c for c in others if c not in _APART], *([c] for c in others if c in _APART)]
        columns: dict[str, pl.Series] = {}
        for group in filter(None, groups):
            cursor = db.execute(
                "SELECT " + ", ".join(f"json_group_array([{c}])" for c in group) + f" FROM ({sql})", params
            )
            arrays = list(cursor.fetchone())
            cursor.close()  # SQLite's copy of the arrays goes now, each Python one once decoded
            for i, name in enumerate(group):
                columns[name] = _decoded(name, arrays[i], schema[name])
                arrays[i] = None
        frame = pl.DataFrame([columns[c] for c in others], schema={c: schema[c] for c in others})
    if floats:
        cursor = db.execute("SELECT " + ", ".join(f"[{c}]" for c in floats) + f" FROM ({sql})", params)
        kinds = {c: schema[c] for c in floats}
        chunks = [
            pl.DataFrame(rows, schema=kinds, orient="row")
            for rows in iter(lambda: cursor.fetchmany(_BATCH), [])
        ]
        reals = pl.concat(chunks, rechunk=True) if chunks else pl.DataFrame(schema=kinds)
        if others and reals.height != frame.height:
            raise RuntimeError("two passes of one query inside one read transaction gave different rows")
        frame = frame.hstack(reals.get_columns()) if others else reals
    return frame.select(list(schema))


_APART = ("pred_sql", "suggested_why")  # most of a results table's bytes: read in passes of their own
_BATCH = 20_000  # rows of REAL columns fetched at a time: never a Python tuple for every row at once


def _decoded(name: str, text: str | None, dtype: Any) -> pl.Series:
    """A column from the JSON array SQLite made of it."""
    if not text or text == "[]":
        return pl.Series(name, [], dtype=dtype)
    return pl.Series(name, [text]).str.json_decode(pl.List(dtype)).explode().alias(name)


def export_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """The export contract's columns first, then the extras that help a reader.

    `ex_reviewed` is recomputed from the tags the frame holds now, so an export follows every triage change.
    """
    frame = reviewed_columns(frame)
    cols = [c for c in (*EXPORT_COLUMNS, *EXTRA_COLUMNS) if c in frame.columns]
    return frame.select(cols)


def _aggregations() -> list[pl.Expr]:
    aggs = [pl.len().alias("n"), pl.col("ex").is_not_null().sum().alias("n_exec")]
    for m in (*EXEC_METRICS, *MATCH_METRICS, *AUTHORS_METRICS):
        aggs += [pl.col(m).cast(pl.Float64).mean().alias(m), pl.col(m).count().alias(f"{m}_n")]
    # Mini-Dev's R-VES: the mean of √reward × 100 over the rows timed, and how many of them have a ratio
    # whose spread over the runs reaches the next reward bucket (the timing could have scored otherwise)
    aggs += [
        (pl.col("r_ves").cast(pl.Float64).sqrt().mean() * 100).alias("r_ves"),
        pl.col("r_ves").count().alias("r_ves_n"),
        _ves_unsteady().sum().alias("r_ves_unsteady"),
    ]
    # rows where the official evaluator's verdict is not ex_spider's (a verdict against none counts)
    aggs.append(pl.col("ex_official").ne_missing(pl.col("ex_spider")).sum().alias("official_differs"))
    # reviewed EX: after the triage tags (core/verdicts/review.py), with how many rows a person reviewed
    aggs += [
        pl.col("ex_reviewed").cast(pl.Float64).mean().alias("ex_reviewed"),
        pl.col("ex_reviewed").count().alias("ex_reviewed_n"),
        pl.col("reviewed").sum().alias("reviewed"),
    ]
    return aggs


def _ves_unsteady() -> pl.Expr:
    """A timed row whose ratio ± its standard deviation crosses a reward boundary (0.25, 0.5, 1, 2)."""
    lo = pl.col("ves_ratio") - pl.col("ves_ratio_sd").fill_null(0)
    hi = pl.col("ves_ratio") + pl.col("ves_ratio_sd").fill_null(0)
    crosses = pl.lit(False)
    for edge in (0.25, 0.5, 1.0, 2.0):
        crosses = crosses | ((lo < edge) & (hi >= edge))
    return crosses.fill_null(False)


def _verified_aggregations() -> list[pl.Expr]:
    """`ex_verified`: the share of executed rows that pass EX and are verified equivalent to the gold up to
    the bound (`eval --verify`); `equivalence_n` rows were checked, `refuted` of them refuted."""
    verified = (pl.col("ex") == 1) & (pl.col("equivalence") == "verified")
    return [
        pl.when(pl.col("ex").is_null())
        .then(None)
        .otherwise(verified.fill_null(False))
        .cast(pl.Float64)
        .mean()
        .alias("ex_verified"),
        pl.col("equivalence").count().alias("equivalence_n"),
        (pl.col("equivalence") == "refuted").sum().alias("refuted"),
    ]


ASSUMPTIONS = ("none", "tie", "duplicate", "dangling", "null", "empty", "domain")  # docs/judgement.md


def _judgement_aggregations() -> list[pl.Expr]:
    """Per group: how many rows the judgement calls right, wrong and unsure (`judged_<call>`, of
    `judged_n`), and how many refutations of EX passes need each assumption (`assumes_<kind>`)."""
    call = pl.col("judgement")
    out = [call.count().alias("judged_n")]
    out += [(call == c).sum().alias(f"judged_{c}") for c in ("right", "wrong", "unsure")]
    # of EX passes only: a row without its database file is refuted on generated ones (schema_verdict)
    assumed = pl.when(pl.col("ex") == 1).then(pl.col("refutation_assumption"))
    out.append(assumed.count().alias("assumes_n"))
    out += [(assumed == a).sum().alias(f"assumes_{a}") for a in ASSUMPTIONS]
    return out


def _grouped(frame: pl.DataFrame, keys: list[str]) -> list[dict[str, Any]]:
    """Means of every metric per group (nulls left out, each with its denominator), in one polars pass."""
    if frame.is_empty():
        return []
    frame = reviewed_columns(frame)  # from the tags as they are now
    aggs = _aggregations()
    if "equivalence" in frame.columns and frame.get_column("equivalence").null_count() < frame.height:
        aggs += _verified_aggregations()
    judged = {"judgement", "refutation_assumption"} <= set(frame.columns)
    if judged and frame.get_column("judgement").null_count() < frame.height:
        aggs += _judgement_aggregations()
    return frame.group_by(keys, maintain_order=True).agg(aggs).to_dicts()


def model_summary(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Per model: n, VA, EX in every mode, EM, EM (Spider), PM, SM, OM, VM, each with its denominator."""
    rows = {r["model"]: r for r in _grouped(frame, ["model"])}
    return [rows[m] for m in _models_in_order(frame) if m in rows]


def _models_in_order(frame: pl.DataFrame) -> list[str]:
    if "model_position" in frame.columns:
        return frame.sort("model_position").get_column("model").unique(maintain_order=True).to_list()
    return frame.get_column("model").unique(maintain_order=True).to_list()


def top_categories(frame: pl.DataFrame, facet: str, k: int = TOP_CATEGORIES) -> pl.Series:
    """Facet values with the k most frequent kept and the rest grouped as "other", as in the paper's figures."""
    values = frame.get_column(facet).fill_null("").replace("", "(none)")
    counts = values.value_counts(sort=True)
    if counts.height <= k + 1:
        return values
    keep = counts.get_column(facet).head(k).to_list()
    return (
        pl.select(pl.when(values.is_in(keep)).then(values).otherwise(pl.lit("other")))
        .to_series()
        .alias(facet)
    )


def breakdown(frame: pl.DataFrame, facet: str, k: int = TOP_CATEGORIES) -> list[dict[str, Any]]:
    """Metrics per (facet value, model), the rarest values grouped as "other"."""
    if frame.is_empty():
        return []
    grouped = frame.with_columns(top_categories(frame, facet, k).alias("value"))
    order = grouped.get_column("value").value_counts(sort=True).get_column("value").to_list()
    if facet == "hardness":
        order.sort(key=lambda v: HARDNESS_ORDER.index(v) if v in HARDNESS_ORDER else len(HARDNESS_ORDER))
    if "other" in order:
        order = [v for v in order if v != "other"] + ["other"]
    rows = {(r["value"], r["model"]): r for r in _grouped(grouped, ["value", "model"])}
    out = []
    models = _models_in_order(frame)  # once: it sorts the whole frame
    for value in order:
        for model in models:
            if (r := rows.get((value, model))) is not None:
                out.append({"facet": facet, **r})
    return out


def error_sources(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Among each model's errors, the share with a structural, operator and variable mismatch (the paper's view).

    An error is EX = 0 where execution was possible, else EM = 0.
    """
    out = []
    for model in _models_in_order(frame):
        sub = frame.filter(pl.col("model") == model)
        wrong = sub.filter(
            pl.when(pl.col("ex").is_not_null())
            .then(pl.col("ex") == 0)
            .otherwise(pl.col("em") == 0)
            .fill_null(False)
        )
        n = wrong.height
        row: dict[str, Any] = {"model": model, "errors": n}
        for metric, name in (("sm", "structural"), ("om", "operator"), ("vm", "variable")):
            row[name] = (wrong.filter(pl.col(metric).fill_null(0.0) < 1.0).height / n) if n else None
        out.append(row)
    return out


def official_quirks(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """Per model and quirk of the official evaluator: how many rows it decides differently from ex_spider."""
    differs = frame.filter(pl.col("official_quirk").is_not_null() & (pl.col("official_quirk") != ""))
    if differs.is_empty():
        return []
    counts = differs.group_by(["model", "official_quirk"]).agg(pl.len().alias("rows"))
    order = {m: i for i, m in enumerate(_models_in_order(frame))}
    rows = counts.to_dicts()
    rows.sort(key=lambda r: (order.get(r["model"], len(order)), -r["rows"], r["official_quirk"]))
    return [{"model": r["model"], "quirk": r["official_quirk"], "rows": r["rows"]} for r in rows]


def schema_only(frame: pl.DataFrame) -> dict[str, Any] | None:
    """The rows judged from the schema, not from data (no database file): how many, of which databases,
    how the judgement calls them and how many rest on a proof. None when every database has its file."""
    if "db_missing" not in frame.columns:
        return None
    missing = frame.filter(pl.col("db_missing") == 1)
    if missing.is_empty():
        return None
    out: dict[str, Any] = {
        "rows": missing.height,
        "databases": missing.get_column("db_id").n_unique() if "db_id" in missing.columns else None,
        "run_on_generated": 0,
        "proved": 0,
        "calls": {},
    }
    if "schema_verdict" in missing.columns:
        out["run_on_generated"] = missing.get_column("schema_verdict").is_not_null().sum()
    if "equivalence" in missing.columns:
        out["proved"] = (missing.get_column("equivalence") == "verified").sum()
    if "judgement" in missing.columns:
        counts = missing.group_by("judgement").agg(pl.len().alias("n")).to_dicts()
        out["calls"] = {str(r["judgement"]): r["n"] for r in counts if r["judgement"] is not None}
    return out


def schema_only_line(found: dict[str, Any], verify: bool | None = None) -> str:
    """Said plainly, for the eval report and the app: the judgement of rows without a database file comes
    from the schema, not from data. `verify`: whether the run asked for proofs (None: not known)."""
    where = f"{found['rows']} row(s) of {found['databases']} database(s) have no database file"
    if not found["run_on_generated"]:
        return (
            f"{where}: no EX, and only exact match to judge them by; add --neighbours 3 --verify to judge "
            "them on databases generated from the schema (docs/judgement.md)"
        )
    calls = found["calls"]
    if verify is False:
        proofs = "; add --verify for proofs on its declared keys"
    else:
        proofs = f", {found['proved']} by a proof on its declared keys"
    return (
        f"{where}: their judgement comes from the schema, not from data — run on databases generated "
        f"from it{proofs}: {calls.get('right', 0)} right, {calls.get('wrong', 0)} wrong, "
        f"{calls.get('unsure', 0)} unsure (docs/judgement.md)"
    )


def full_report(frame: pl.DataFrame) -> dict[str, Any]:
    return {
        "models": model_summary(frame),
        "official_quirks": official_quirks(frame),
        "breakdowns": {facet: breakdown(frame, facet) for facet in FACETS},
        "error_sources": error_sources(frame),
        "schema_only": schema_only(frame),
    }


def workspace_frame(
    path: Path, models: Sequence[str] | None = None, *, columns: Sequence[str] | None = None
) -> pl.DataFrame:
    """The frame of an existing workspace file, for the commands that only read it (slices, compare, report)."""
    with Workspace.open_for_reading(path) as ws:  # reading changes nothing (docs/workspace.md)
        return load_frame(ws, models, columns=columns)
