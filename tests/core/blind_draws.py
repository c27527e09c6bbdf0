"""The seeded pieces every blind batch is drawn from (tests/core/suggest_blind*_draw.py): the same pools in
the same order, and the random generator called in the same order, so each batch's draw reproduces its frozen
rows; and the printout a labeller reads."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

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


def taken_by(*batches: Path) -> set[Key]:
    """The rows of the older set and of these batches: a new batch leaves them out."""
    from tests.core.suggest_set import read_label_file

    rows = read_label_file() + [r for b in batches for r in read_label_file(b)]
    return {(r["dataset"], r["source"], int(r["index"])) for r in rows}


def archer_mutations(rng: random.Random, taken: set[Key], n: int, rename_every: int = 4) -> list[Key]:
    """`n` Archer golds with a random mutation each, one in `rename_every` only renaming aliases (the first
    two batches: one in three)."""
    archer = json.loads((SHARED_DATA / "archer" / "train.json").read_text())
    names = sorted(MUTATIONS)
    order = list(range(len(archer)))
    rng.shuffle(order)
    picked: list[Key] = []
    for i in order:
        if len(picked) == n:
            break
        errors = [m for m in names if m != "rename_aliases"]
        name = "rename_aliases" if len(picked) % rename_every == rename_every - 1 else rng.choice(errors)
        key = ("archer", f"mutate:{name}", i)
        if key in taken or not (SHARED_DATA / "archer" / "database" / archer[i]["db_id"]).is_dir():
            continue
        try:
            mutate(archer[i]["query"], name)
        except ValueError:
            continue
        picked.append(key)
    return picked


def weighted_draw(
    seed: int, taken: set[Key], n_bird: int, n_spider_wrong: int, n_spider_right: int, n_archer: int
) -> list[Key]:
    """The later batches' seeded rows: BIRD at random, Spider wrong and right, Archer mutations."""
    rng = random.Random(seed)
    rows = rng.sample(bird_keys(taken), n_bird)
    wrong, right = spider_pools(taken)
    rows += rng.sample(wrong, n_spider_wrong) + rng.sample(right, n_spider_right)
    return rows + archer_mutations(rng, taken, n_archer)


def more_bird(seed: int, taken: set[Key], first: list[Key], n: int) -> list[Key]:
    """The BIRD rows read after the first draw for right predictions, in a second seeded order."""
    keys = bird_keys(taken | set(first))
    random.Random(seed + 1).shuffle(keys)
    return keys[:n]


def with_right_ones(first: list[Key], read: list[Key], right: tuple[int, ...]) -> list[Key]:
    """The first draw, then the right predictions chosen among the extra BIRD rows read."""
    assert set(right) <= {k[2] for k in read}, "the right ones must come from the rows read"
    return first + [("bird", "chatgpt_kg", i) for i in right]


def print_rows(rows: list[Key], start: int = 0) -> None:
    """Each row as a labeller reads it: question, evidence, gold, prediction."""
    from tests.core.suggest_set import _resolve, question_of

    for n, (ds, src, idx) in enumerate(rows, start):
        gold, pred, evidence, _, _ = _resolve(SHARED_DATA, ds, src, idx)
        question = question_of(SHARED_DATA, ds, idx)
        print(f"#{n} {ds}\t{src}\t{idx}\nQ: {question}\nE: {evidence or ''}\nG: {gold}\nP: {pred}\n")
