"""The seeded pieces the third and fourth blind batches are drawn from (tests/core/suggest_blind3_draw.py,
suggest_blind4_draw.py): the same pools in the same order, and the random generator called in the same
order, so each batch's draw reproduces its frozen rows."""

from __future__ import annotations

import csv
import json
import random

from tests.conftest import SHARED_DATA
from tests.core.suggest_set import MUTATIONS, mutate

Key = tuple[str, str, int]


def bird_keys(taken: set[Key]) -> list[Key]:
    """The baseline's BIRD dev predictions not yet taken, sorted (14 entries of the file are the number 0,
    not SQL: no prediction to label)."""
    bird = json.loads((SHARED_DATA / "bird_dev" / "predict_dev_chatgpt_kg.json").read_text())
    return sorted(
        ("bird", "chatgpt_kg", int(i))
        for i, sql in bird.items()
        if isinstance(sql, str) and ("bird", "chatgpt_kg", int(i)) not in taken
    )


def spider_pools(taken: set[Key]) -> tuple[list[Key], list[Key]]:
    """Spider dev rows not yet taken: those the official EX fails, and those it passes but EM fails (exact
    copies of gold say nothing)."""
    wrong: list[Key] = []
    right: list[Key] = []
    for ref in sorted((SHARED_DATA / "spider_dev" / "reference").glob("*.tsv")):
        if ref.stem == "spider_repo_pred_example":
            continue  # placeholder values ('terminal'): not a system's real output
        with ref.open() as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                key = ("spider", ref.stem, int(r["index"]))
                if key in taken:
                    continue
                if r["ex"] == "0":
                    wrong.append(key)
                elif r["ex"] == "1" and r["em"] == "0":
                    right.append(key)
    return wrong, right


def archer_mutations(rng: random.Random, taken: set[Key], n: int) -> list[Key]:
    """`n` Archer golds with a random mutation each, a quarter of them only renaming aliases."""
    archer = json.loads((SHARED_DATA / "archer" / "train.json").read_text())
    names = sorted(MUTATIONS)
    order = list(range(len(archer)))
    rng.shuffle(order)
    picked: list[Key] = []
    for i in order:
        if len(picked) == n:
            break
        errors = [m for m in names if m != "rename_aliases"]
        name = "rename_aliases" if len(picked) % 4 == 3 else rng.choice(errors)
        key = ("archer", f"mutate:{name}", i)
        if key in taken or not (SHARED_DATA / "archer" / "database" / archer[i]["db_id"]).is_dir():
            continue
        try:
            mutate(archer[i]["query"], name)
        except ValueError:
            continue
        picked.append(key)
    return picked
