"""What every prediction reader checks and splits the same way: counts against the dataset, a db_id named
beside the SQL, column names compared loosely. Shared by the SQL and response readers of predictions."""

from __future__ import annotations

import re
from pathlib import Path

from sqltriage.core.errors import PredictionsError
from sqltriage.core.model import Dataset

BIRD_SEPARATOR = "\t----- bird -----\t"
_DB_ID = re.compile(r"^[A-Za-z_][\w-]*$")


def check_count(path: Path, found: int, dataset: Dataset, unit: str) -> None:
    expected = len(dataset.examples)
    if found != expected:
        raise PredictionsError(
            f"has {found} {unit} but the dataset {dataset.name} has {expected} examples",
            path=path,
            hint="give one prediction per example, in dataset order (an empty line is an empty prediction)",
        )


def split_db(raw: str) -> tuple[str, str | None]:
    """`SQL<TAB>db_id` or BIRD's `SQL\t----- bird -----\tdb_id`; a tab not followed by an id stays SQL."""
    if BIRD_SEPARATOR in raw:
        sql, _, db = raw.rpartition(BIRD_SEPARATOR)
        return sql.strip(), db.strip() or None
    if "\t" in raw:
        sql, _, tail = raw.rstrip().rpartition("\t")
        if _DB_ID.match(tail.strip()):
            return sql.strip(), tail.strip()
    return raw.strip(), None


def check_db(path: Path, where: str, db_id: str | None, dataset: Dataset, index: int) -> None:
    expected = dataset.examples[index].db_id
    if db_id is not None and db_id != expected:
        raise PredictionsError(
            f"names database {db_id!r} but example {index} of the dataset is on {expected!r}",
            path=path,
            where=where,
            hint="the predictions are probably for another dataset or in another order",
        )


def norm(name: str) -> str:
    return re.sub(r"[\s_\-]", "", name.lower())
