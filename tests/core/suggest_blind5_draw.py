"""Draw the fifth blind batch of the suggestion engine, printed for labelling by hand under the guide.

`python -m tests.core.suggest_blind5_draw [--from N] [--to M]` prints the drawn rows (question, evidence, gold,
prediction); `--more` prints the extra BIRD rows read for right predictions. The draw is reproducible (seed 2029)
and leaves out every row of the older set and of the four earlier blind batches. Like the fourth, it is weighted
to BIRD dev: 110 rows of the ChatGPT + knowledge baseline at random (more than half of them fail), then the
right ones among the first rows of a second seeded order (`MORE_BIRD_RIGHT`, chosen by reading them; the wrong
ones read there are left out; all 40 were read and every right one is kept), so BIRD comes near half wrong. The rest are Spider dev (13 rows the official EX
fails, 12 it passes but EM fails) and 20 Archer rows (gold with a random mutation, a quarter of them only
renaming aliases). The engine's suggestions are never shown: labels come from reading the queries against the
labelling guide of docs/suggestions.md, as it stood when the batch was drawn.
"""

from __future__ import annotations

import random
import sys

from tests.conftest import SHARED_DATA
from tests.core.blind_draws import archer_mutations, bird_keys, spider_pools
from tests.core.suggest_set import read_label_file
from tests.core.test_suggest_blind import BLIND, BLIND2, BLIND3, BLIND4

SEED = 2029
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 13, 12, 110, 20
N_MORE_BIRD = 40  # rows of the second seeded order that are read for right predictions
# The right predictions among the first N_MORE_BIRD rows of `more_bird()`, chosen by reading them (see above).
MORE_BIRD_RIGHT = (657, 976, 331, 882, 832, 1518, 160, 1317, 339, 781, 158, 740, 697, 914)


def _taken() -> set[tuple[str, str, int]]:
    earlier = [read_label_file()] + [read_label_file(b) for b in (BLIND, BLIND2, BLIND3, BLIND4)]
    return {(r["dataset"], r["source"], int(r["index"])) for rows in earlier for r in rows}


def first_draw() -> list[tuple[str, str, int]]:
    """The seeded rows: BIRD at random, Spider wrong and right, Archer mutations."""
    rng = random.Random(SEED)
    taken = _taken()
    rows = rng.sample(bird_keys(taken), N_BIRD)
    wrong, right = spider_pools(taken)
    rows += rng.sample(wrong, N_SPIDER_WRONG) + rng.sample(right, N_SPIDER_RIGHT)
    return rows + archer_mutations(rng, taken, N_ARCHER)


def more_bird(first: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The BIRD rows read after the first draw, in a second seeded order."""
    keys = bird_keys(_taken() | set(first))
    random.Random(SEED + 1).shuffle(keys)
    return keys[:N_MORE_BIRD]


def draw() -> list[tuple[str, str, int]]:
    """Every row of the batch, in the file's order."""
    first = first_draw()
    read = {k[2] for k in more_bird(first)}
    assert set(MORE_BIRD_RIGHT) <= read, "MORE_BIRD_RIGHT must come from the rows more_bird() returns"
    return first + [("bird", "chatgpt_kg", i) for i in MORE_BIRD_RIGHT]


def _option(argv: list[str], name: str, default: int) -> int:
    return int(argv[argv.index(name) + 1]) if name in argv else default


def main(argv: list[str]) -> int:
    from tests.core.suggest_blind_draw import _question
    from tests.core.suggest_set import _resolve

    first = first_draw()
    rows = more_bird(first) if "--more" in argv else draw()
    start, stop = _option(argv, "--from", 0), _option(argv, "--to", len(rows))
    for n, (ds, src, idx) in enumerate(rows[start:stop], start):
        gold, pred, evidence, _, _ = _resolve(SHARED_DATA, ds, src, idx)
        print(
            f"#{n} {ds}\t{src}\t{idx}\nQ: {_question(ds, idx)}\nE: {evidence or ''}\nG: {gold}\nP: {pred}\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
