"""Loading one model's predictions in the formats papers publish, aligned one-to-one with a dataset.

An empty line is an empty prediction (scored as an error), never a shift of the rest; a file that does not
line up with the dataset is refused whole with both counts, so a result is never silently misaligned.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sqltriage.core.datasets.alignment import check_count, check_db, norm, split_db
from sqltriage.core.datasets.jsonio import loads, read_text
from sqltriage.core.datasets.tabular import read_csv, read_jsonl
from sqltriage.core.errors import PredictionsError
from sqltriage.core.model import Dataset, Prediction, PredictionSet

PREDICTION_FORMATS = ("auto", "lines", "bird", "json", "jsonl", "csv")
SQL_COLUMNS = (
    "predictedsql",
    "predsql",
    "predictedquery",
    "predquery",
    "prediction",
    "predicted",
    "pred",
    "generatedsql",
    "generated",
    "output",
    "sql",
    "query",
)
# columns that hold a model's whole response (after SQL_COLUMNS: a file with both names its SQL column)
RESPONSE_COLUMNS = (
    "response",
    "responses",
    "completion",
    "completions",
    "generation",
    "generations",
    "generatedtext",
    "outputs",
    "predictions",
    "candidates",
    "samples",
    "choices",
    "modeloutput",
    "rawresponse",
    "answer",
    "text",
    "content",
)
ID_COLUMNS = ("index", "idx", "questionid", "exampleid", "id", "qid")
DB_COLUMNS = ("dbid", "db", "database", "dbname")


def load_predictions(
    path: Path | str,
    dataset: Dataset,
    *,
    name: str | None = None,
    fmt: str = "auto",
    sql_column: str | None = None,
    id_column: str | None = None,
) -> PredictionSet:
    """Read a predictions file and align it with `dataset`; a PredictionsError says what and where."""
    path = Path(path)
    if fmt not in PREDICTION_FORMATS:
        raise PredictionsError(
            f"unknown predictions format {fmt!r}", hint=f"choose one of: {', '.join(PREDICTION_FORMATS)}"
        )
    text = read_text(path, error=PredictionsError)
    kind = fmt if fmt != "auto" else _sniff(path, text)
    if kind == "lines":
        preds = _from_lines(path, text, dataset)
    elif kind in ("bird", "json"):
        preds = _from_json(path, text, dataset)
        kind = "bird" if text.lstrip().startswith("{") else "json"
    elif kind in ("jsonl", "csv"):
        rows = (
            read_jsonl(path, error=PredictionsError)
            if kind == "jsonl"
            else read_csv(path, error=PredictionsError)
        )
        preds = _from_rows(path, rows, dataset, sql_column=sql_column, id_column=id_column)
    else:  # pragma: no cover - _sniff only returns the kinds above
        raise PredictionsError(f"unknown predictions format {kind!r}", path=path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    problems = tuple(p.problem for p in preds if p.index < 0 and p.problem)
    kept = tuple(p for p in preds if p.index >= 0)
    return PredictionSet(name or path.stem, path, kind, digest, kept, problems)


def parse_pred_arg(arg: str) -> tuple[str, Path]:
    """`NAME=FILE` (or just FILE, named after its stem) as given to --pred."""
    name, sep, file = arg.partition("=")
    if not sep:
        return Path(arg).stem, Path(arg)
    if not name.strip() or not file.strip():
        raise PredictionsError(
            f"--pred {arg!r} is not NAME=FILE", hint="for example --pred gpt4=preds/gpt4.sql"
        )
    return name.strip(), Path(file.strip())


def _sniff(path: Path, text: str) -> str:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix == ".json" or text.lstrip().startswith(("{", "[")):
        return "json"
    return "lines"


def _from_lines(path: Path, text: str, dataset: Dataset) -> list[Prediction]:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()  # the newline that ends the last line
    n = len(dataset.examples)
    while len(lines) > n and not lines[-1].strip():
        lines.pop()  # trailing newlines are not predictions
    check_count(path, len(lines), dataset, "lines")
    return _positional(path, lines, dataset, unit="line", first=1)


def _positional(
    path: Path, texts: Sequence[str], dataset: Dataset, *, unit: str, first: int
) -> list[Prediction]:
    """One prediction per text in dataset order, each optionally naming its database."""
    preds = []
    for i, raw in enumerate(texts):
        sql, db_id = split_db(raw)
        check_db(path, f"{unit} {i + first}", db_id, dataset, i)
        preds.append(Prediction(i, sql, i + 1, db_id))
    return preds


def _from_json(path: Path, text: str, dataset: Dataset) -> list[Prediction]:
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise PredictionsError(
            f"is not valid JSON: {exc.msg}", path=path, where=f"line {exc.lineno}, column {exc.colno}"
        ) from None
    if isinstance(data, dict):
        return _from_keyed(path, data, dataset)
    if isinstance(data, list) and data and _listed_responses(data):
        # [[candidates of example 0], "response of example 1", …]: one entry per example, in order
        rows = [{"response": v, "__line__": i} for i, v in enumerate(data)]
        return _from_rows(path, rows, dataset, sql_column="response", id_column=None, unit="item")
    if isinstance(data, list) and all(isinstance(v, str) for v in data):
        check_count(path, len(data), dataset, "predictions")
        return _positional(path, data, dataset, unit="item", first=0)
    if isinstance(data, list) and all(isinstance(v, dict) for v in data):
        rows = [dict(v) | {"__line__": i + 1} for i, v in enumerate(data)]
        return _from_rows(path, rows, dataset, sql_column=None, id_column=None, unit="item")
    raise PredictionsError(
        "expected a JSON object {index: SQL} (BIRD), a list of SQL strings, or a list of objects",
        path=path,
        hint="see the README's list of prediction formats",
    )


def _from_keyed(path: Path, data: Mapping[str, Any], dataset: Dataset) -> list[Prediction]:
    """BIRD's `{"0": "SQL\t----- bird -----\tdb_id", ...}` keyed by dataset position."""
    n = len(dataset.examples)
    slots: list[Prediction | None] = [None] * n
    for key, value in data.items():
        try:
            i = int(key)
        except ValueError:
            raise PredictionsError(
                f"key {key!r} is not an example index", path=path, where=f"key {key!r}"
            ) from None
        if not 0 <= i < n:
            raise PredictionsError(
                f"key {key!r} is outside the dataset's {n} examples", path=path, where=f"key {key!r}"
            )
        if isinstance(value, (list, dict)):
            raise PredictionsError("value should be the SQL text", path=path, where=f"key {key!r}")
        # BIRD's published files hold a bare 0 where the model produced nothing: an empty prediction.
        sql, db_id = split_db(value) if isinstance(value, str) else ("", None)
        check_db(path, f"key {key!r}", db_id, dataset, i)
        slots[i] = Prediction(i, sql, None, db_id)
    missing = [i for i, p in enumerate(slots) if p is None]
    if missing:
        shown = ", ".join(map(str, missing[:10])) + (" …" if len(missing) > 10 else "")
        raise PredictionsError(
            f"has {n - len(missing)} predictions but the dataset {dataset.name} has {n} examples; "
            f"missing keys: {shown}",
            path=path,
            hint="give a prediction for every example (an empty string is an empty prediction)",
        )
    return [p for p in slots if p is not None]


def _find_column(columns: Sequence[str], wanted: str | None, candidates: Sequence[str]) -> str | None:
    if wanted is not None:
        return wanted if wanted in columns else None
    by_norm = {norm(c): c for c in columns}
    for cand in candidates:
        if cand in by_norm:
            return by_norm[cand]
    return None


def _from_rows(
    path: Path,
    rows: list[dict[str, Any]],
    dataset: Dataset,
    *,
    sql_column: str | None,
    id_column: str | None,
    unit: str = "line",
) -> list[Prediction]:
    columns = [c for c in rows[0] if c != "__line__"]
    sql_col = _find_column(columns, sql_column, SQL_COLUMNS + RESPONSE_COLUMNS)
    if sql_col is None:
        raise PredictionsError(
            f"no predicted-SQL column ({'named ' + repr(sql_column) if sql_column else 'recognised'})",
            path=path,
            where="header",
            hint=f"columns present: {', '.join(columns)}; name the SQL column with --sql-column",
        )
    id_col = _find_column(columns, id_column, ID_COLUMNS)
    if id_column is not None and id_col is None:
        raise PredictionsError(f"no column named {id_column!r}", path=path, where="header")
    db_col = _find_column(columns, None, DB_COLUMNS)
    if _holds_responses(rows, sql_col):
        from sqltriage.core.datasets.response_rows import from_responses

        return from_responses(path, rows, dataset, sql_col, id_col, db_col, unit)
    if id_col is None:
        check_count(path, len(rows), dataset, f"{unit}s")
        positions = list(range(len(rows)))
    else:
        positions = _align_by_id(path, rows, id_col, dataset, unit)
    preds = []
    for pos, row in zip(positions, rows, strict=True):
        where = f"{unit} {row['__line__']}"
        raw = row.get(sql_col)
        sql, db_in_sql = split_db("" if raw is None else str(raw))
        db_id = str(row[db_col]).strip() if db_col and row.get(db_col) not in (None, "") else db_in_sql
        check_db(path, where, db_id, dataset, pos)
        preds.append(Prediction(pos, sql, row["__line__"], db_id))
    preds.sort(key=lambda p: p.index)
    return preds


def _listed_responses(data: list[Any]) -> bool:
    """A JSON list of responses or candidate lists, one per example (not a list of bare SQL strings)."""
    from sqltriage.core.datasets.responses import looks_like_response

    if not all(isinstance(v, (str, list)) for v in data):
        return False
    return any(isinstance(v, list) or looks_like_response(v) for v in data)


def _holds_responses(rows: list[dict[str, Any]], sql_col: str) -> bool:
    """Whether the column holds whole responses (or lists of candidates) rather than bare SQL: a response
    column's name, or any value that is a list or reads as a response. A file of bare SQL is read as always."""
    from sqltriage.core.datasets.responses import looks_like_response

    if norm(sql_col) in RESPONSE_COLUMNS:
        return True
    for row in rows:
        value = row.get(sql_col)
        if isinstance(value, list) or (isinstance(value, str) and looks_like_response(value)):
            return True
    return False


def _align_by_id(
    path: Path, rows: list[dict[str, Any]], id_col: str, dataset: Dataset, unit: str
) -> list[int]:
    """Match rows to examples by the dataset's own id, or by 0-based index when the ids are positions."""
    by_id = {e.example_id: e.index for e in dataset.examples}
    positions: list[int] = []
    seen: dict[int, int] = {}
    for row in rows:
        where = f"{unit} {row['__line__']}"
        key = str(row.get(id_col, "")).strip()
        if key.endswith(".0") and key[:-2].isdigit():
            key = key[:-2]
        pos = by_id.get(key)
        if pos is None and key.isdigit() and int(key) < len(dataset.examples):
            pos = int(key)
        if pos is None:
            raise PredictionsError(
                f"{id_col} {key!r} is not an example of the dataset {dataset.name}",
                path=path,
                where=where,
                hint="ids must be the dataset's own ids or 0-based positions",
            )
        if pos in seen:
            raise PredictionsError(
                f"{id_col} {key!r} appears twice (also {unit} {seen[pos]})", path=path, where=where
            )
        seen[pos] = row["__line__"]
        positions.append(pos)
    check_count(path, len(positions), dataset, f"predictions (by {id_col})")
    return positions
