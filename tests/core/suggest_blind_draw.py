"""Draw the blind batch of the suggestion engine: a seeded random sample, printed for labelling by hand.

`python -m tests.core.suggest_blind_draw` prints the drawn rows (question, evidence, gold, prediction) and
a skeleton of `fixtures/suggest_blind.tsv`. The draw is reproducible (seed 26) and leaves out rows of the
older set. Spider rows are drawn half from predictions the official EX fails and half from those it
passes; BIRD rows at random from the ChatGPT + knowledge baseline; Archer rows are gold with a mutation
drawn at random (a third of them `rename_aliases`, which changes nothing). The engine's suggestions are
never shown here: labels come from reading the queries alone.
"""

from __future__ import annotations

import csv
import json
import random
import sys

from tests.conftest import SHARED_DATA
from tests.core.suggest_set import MUTATIONS, mutate, read_label_file

SEED = 26
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 30, 30, 60, 36
N_SPIDER_RIGHT_MORE = 30  # drawn last, after the first 156 rows proved 63 % wrong: brings the batch near half


def draw() -> list[tuple[str, str, int]]:
    rng = random.Random(SEED)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in read_label_file()}
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
    rows = rng.sample(wrong, N_SPIDER_WRONG) + rng.sample(right, N_SPIDER_RIGHT)
    bird = json.loads((SHARED_DATA / "bird_dev" / "predict_dev_chatgpt_kg.json").read_text())
    bird_keys = [  # (14 entries of the file are the number 0, not SQL: no prediction to label)
        ("bird", "chatgpt_kg", int(i))
        for i, sql in bird.items()
        if isinstance(sql, str) and ("bird", "chatgpt_kg", int(i)) not in taken
    ]
    rows += rng.sample(sorted(bird_keys), N_BIRD)
    archer = json.loads((SHARED_DATA / "archer" / "train.json").read_text())
    names = sorted(MUTATIONS)
    picked: list[tuple[str, str, int]] = []
    order = list(range(len(archer)))
    rng.shuffle(order)
    for i in order:
        if len(picked) == N_ARCHER:
            break
        errors = [n for n in names if n != "rename_aliases"]
        name = "rename_aliases" if len(picked) % 3 == 2 else rng.choice(errors)
        key = ("archer", f"mutate:{name}", i)
        if key in taken or not (SHARED_DATA / "archer" / "database" / archer[i]["db_id"]).is_dir():
            continue
        try:
            mutate(archer[i]["query"], name)
        except ValueError:
            continue
        picked.append(key)
    rest = sorted(set(right) - set(rows))
    return rows + picked + rng.sample(rest, N_SPIDER_RIGHT_MORE)


def main() -> int:
    from tests.core.suggest_set import _resolve

    rows = draw()
    for n, (ds, src, idx) in enumerate(rows):
        gold, pred, evidence, _, _ = _resolve(SHARED_DATA, ds, src, idx)
        q = _question(ds, idx)
        print(f"#{n} {ds}\t{src}\t{idx}\nQ: {q}\nE: {evidence or ''}\nG: {gold}\nP: {pred}\n")
    return 0


def _question(ds: str, idx: int) -> str:
    path = {"spider": "spider_dev/dev.json", "bird": "bird_dev/dev.json", "archer": "archer/train.json"}[ds]
    return json.loads((SHARED_DATA / path).read_text())[idx]["question"]


if __name__ == "__main__":
    sys.exit(main())
