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

import random
import sys

from tests.conftest import SHARED_DATA
from tests.core.blind_draws import archer_mutations, bird_keys, spider_pools
from tests.core.suggest_set import read_label_file
from tests.core.test_suggest_blind import BLIND, BLIND2

SEED = 2027
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 15, 15, 100, 20
# The right predictions among the first 38 BIRD rows of `more_bird()`, chosen by reading them (see above).
MORE_BIRD_RIGHT = (362, 1101, 332, 821, 916, 1129, 325, 391, 510, 482, 727, 204)


def draw() -> list[tuple[str, str, int]]:
    rng = random.Random(SEED)
    earlier = read_label_file() + read_label_file(BLIND) + read_label_file(BLIND2)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in earlier}
    rows = rng.sample(bird_keys(taken), N_BIRD)
    wrong, right = spider_pools(taken)
    rows += rng.sample(wrong, N_SPIDER_WRONG) + rng.sample(right, N_SPIDER_RIGHT)
    picked = archer_mutations(rng, taken, N_ARCHER)
    return rows + picked + [("bird", "chatgpt_kg", i) for i in MORE_BIRD_RIGHT]


def more_bird(first: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The BIRD rows read after the first draw, in a second seeded order."""
    earlier = read_label_file() + read_label_file(BLIND) + read_label_file(BLIND2)
    taken = {(r["dataset"], r["source"], int(r["index"])) for r in earlier} | set(first)
    keys = bird_keys(taken)
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
