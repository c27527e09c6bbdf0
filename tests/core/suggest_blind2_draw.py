"""Draw the second blind batch of the suggestion engine, printed for labelling by hand.

`python -m tests.core.suggest_blind2_draw` prints the drawn rows (question, evidence, gold, prediction).
The draw is reproducible (seed 2026) and leaves out every row of the older set and of the first blind batch
(`fixtures/suggest_blind.tsv`, read and tuned on once it had been scored). Spider rows are drawn half from
predictions the official EX fails and half from those it passes but EM fails; BIRD rows at random from the
ChatGPT + knowledge baseline; Archer rows are gold with a mutation drawn at random (a third of them
`rename_aliases`, which changes nothing). The engine's suggestions are never shown: labels come from reading
the queries against the taxonomy's definitions.
"""

from __future__ import annotations

import csv
import json
import random
import sys

from tests.conftest import SHARED_DATA
from tests.core.suggest_set import MUTATIONS, mutate, read_label_file
from tests.core.test_suggest_blind import BLIND

SEED = 2026
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 36, 40, 50, 30
N_SPIDER_RIGHT_MORE = 10  # drawn last, after the first 156 rows proved 61 % wrong: brings the batch near half


def draw() -> list[tuple[str, str, int]]:
    rng = random.Random(SEED)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in read_label_file() + read_label_file(BLIND)}
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
    order = list(range(len(archer)))
    rng.shuffle(order)
    picked: list[tuple[str, str, int]] = []
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
