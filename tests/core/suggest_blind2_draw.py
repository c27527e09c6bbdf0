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

import random
import sys

from tests.core.blind_draws import archer_mutations, bird_keys, print_rows, spider_pools, taken_by
from tests.core.test_suggest_blind import BLIND

SEED = 2026
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 36, 40, 50, 30
N_SPIDER_RIGHT_MORE = 10  # drawn last, after the first 156 rows proved 61 % wrong: brings the batch near half


def draw() -> list[tuple[str, str, int]]:
    rng = random.Random(SEED)
    taken = taken_by(BLIND)
    wrong, right = spider_pools(taken)
    rows = rng.sample(wrong, N_SPIDER_WRONG) + rng.sample(right, N_SPIDER_RIGHT)
    rows += rng.sample(bird_keys(taken), N_BIRD)
    picked = archer_mutations(rng, taken, N_ARCHER, rename_every=3)
    rest = sorted(set(right) - set(rows))
    return rows + picked + rng.sample(rest, N_SPIDER_RIGHT_MORE)


if __name__ == "__main__":
    print_rows(draw())
    sys.exit(0)
