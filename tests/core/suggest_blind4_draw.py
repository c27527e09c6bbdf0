"""Draw the fourth blind batch of the suggestion engine, printed for labelling by hand under the guide.

`python -m tests.core.suggest_blind4_draw` prints the drawn rows (question, evidence, gold, prediction);
`--more` prints the extra BIRD rows read to bring BIRD near half right. The draw is reproducible (seed 2028)
and leaves out every row of the older set and of the three earlier blind batches. It is weighted to BIRD dev:
96 rows of the ChatGPT + knowledge baseline at random (more than half of them fail), then the right ones among
the first rows of a second seeded order (`MORE_BIRD_RIGHT`, chosen by reading them; the wrong ones read there
were left out), so BIRD comes near half wrong, half right. The rest are Spider dev (13 rows the official EX
fails, 12 it passes but EM fails, 7 systems) and 20 Archer rows (gold with a random mutation, a quarter of
them only renaming aliases). The engine's suggestions are never shown: labels come from reading the queries
against the labelling guide of docs/suggestions.md.
"""

from __future__ import annotations

import sys

from tests.core.blind_draws import more_bird, print_rows, taken_by, weighted_draw, with_right_ones
from tests.core.test_suggest_blind import BLIND, BLIND2, BLIND3

SEED = 2028
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 13, 12, 96, 20
N_MORE_BIRD = 40  # rows of the second seeded order that were read for right predictions
# The right predictions among the first N_MORE_BIRD rows of the second order, chosen by reading them (see above).
MORE_BIRD_RIGHT = (395, 724, 322, 1019, 312, 784, 1133, 578, 1371, 638, 932, 1378, 1447, 1467, 843, 1182, 579)
TAKEN = (BLIND, BLIND2, BLIND3)


def first_draw() -> list[tuple[str, str, int]]:
    return weighted_draw(SEED, taken_by(*TAKEN), N_BIRD, N_SPIDER_WRONG, N_SPIDER_RIGHT, N_ARCHER)


def draw() -> list[tuple[str, str, int]]:
    """Every row of the batch, in the file's order."""
    first = first_draw()
    read = more_bird(SEED, taken_by(*TAKEN), first, N_MORE_BIRD)
    return with_right_ones(first, read, MORE_BIRD_RIGHT)


if __name__ == "__main__":
    first = first_draw()
    print_rows(more_bird(SEED, taken_by(*TAKEN), first, N_MORE_BIRD) if "--more" in sys.argv else draw())
    sys.exit(0)
