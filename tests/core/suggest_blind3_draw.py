"""Draw the third blind batch of the suggestion engine, printed for labelling by hand.

`python -m tests.core.suggest_blind3_draw` prints the drawn rows (question, evidence, gold, prediction).
The draw is reproducible (seed 2027) and leaves out every row of the older set and of both earlier blind
batches. It is weighted to BIRD dev (100 rows of the ChatGPT + knowledge baseline, at random: about half
of them fail), because the check that matters most runs on BIRD; the rest are Spider dev (15 rows the
official EX fails, 15 it passes but EM fails, 7 systems) and 20 Archer rows (gold with a random mutation,
a quarter of them only renaming aliases). The first 100 BIRD rows proved 62 % wrong, so BIRD was brought
near half: the next 38 BIRD rows of a second seeded order were read and the 12 right ones among them kept
(`MORE_BIRD_RIGHT`; the wrong ones were left out). The engine's suggestions are never shown: labels come
from reading the queries against the taxonomy's definitions.
"""

from __future__ import annotations

import csv
import json
import random
import sys

from tests.conftest import SHARED_DATA
from tests.core.suggest_set import MUTATIONS, mutate, read_label_file
from tests.core.test_suggest_blind import BLIND, BLIND2

SEED = 2027
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 15, 15, 100, 20
# The right predictions among the first 38 BIRD rows of `more_bird()`, chosen by reading them (see above).
MORE_BIRD_RIGHT = (362, 1101, 332, 821, 916, 1129, 325, 391, 510, 482, 727, 204)


def draw() -> list[tuple[str, str, int]]:
    rng = random.Random(SEED)
    earlier = read_label_file() + read_label_file(BLIND) + read_label_file(BLIND2)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in earlier}
    bird = json.loads((SHARED_DATA / "bird_dev" / "predict_dev_chatgpt_kg.json").read_text())
    bird_keys = [  # (14 entries of the file are the number 0, not SQL: no prediction to label)
        ("bird", "chatgpt_kg", int(i))
        for i, sql in bird.items()
        if isinstance(sql, str) and ("bird", "chatgpt_kg", int(i)) not in taken
    ]
    rows = rng.sample(sorted(bird_keys), N_BIRD)
    spider = SHARED_DATA / "spider_dev"
    wrong, right = [], []
    for ref in sorted((spider / "reference").glob("*.tsv")):
        if ref.stem == "spider_repo_pred_example":
            continue  # placeholder values ('terminal'): not a system's real output
        with ref.open() as fh:
            for r in csv.DictReader(fh, delimiter="\t"):
                key = ("spider", ref.stem, int(r["index"]))
                if key in taken:
                    continue
                if r["ex"] == "0":
                    wrong.append(key)
                elif r["ex"] == "1" and r["em"] == "0":  # exact copies of gold say nothing
                    right.append(key)
    rows += rng.sample(wrong, N_SPIDER_WRONG) + rng.sample(right, N_SPIDER_RIGHT)
    archer = json.loads((SHARED_DATA / "archer" / "train.json").read_text())
    names = sorted(MUTATIONS)
    order = list(range(len(archer)))
    rng.shuffle(order)
    picked: list[tuple[str, str, int]] = []
    for i in order:
        if len(picked) == N_ARCHER:
            break
        errors = [n for n in names if n != "rename_aliases"]
        name = "rename_aliases" if len(picked) % 4 == 3 else rng.choice(errors)
        key = ("archer", f"mutate:{name}", i)
        if key in taken or not (SHARED_DATA / "archer" / "database" / archer[i]["db_id"]).is_dir():
            continue
        try:
            mutate(archer[i]["query"], name)
        except ValueError:
            continue
        picked.append(key)
    return rows + picked + [("bird", "chatgpt_kg", i) for i in MORE_BIRD_RIGHT]


def more_bird(first: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The BIRD rows read after the first draw, in a second seeded order."""
    earlier = read_label_file() + read_label_file(BLIND) + read_label_file(BLIND2)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in earlier} | set(first)
    bird = json.loads((SHARED_DATA / "bird_dev" / "predict_dev_chatgpt_kg.json").read_text())
    keys = sorted(
        ("bird", "chatgpt_kg", int(i))
        for i, sql in bird.items()
        if isinstance(sql, str) and ("bird", "chatgpt_kg", int(i)) not in taken
    )
    random.Random(SEED + 1).shuffle(keys)
    return keys[:38]


def main() -> int:
    from tests.core.suggest_blind_draw import _question
    from tests.core.suggest_set import _resolve

    for n, (ds, src, idx) in enumerate(draw()):
        gold, pred, evidence, _, _ = _resolve(SHARED_DATA, ds, src, idx)
        print(
            f"#{n} {ds}\t{src}\t{idx}\nQ: {_question(ds, idx)}\nE: {evidence or ''}\nG: {gold}\nP: {pred}\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
