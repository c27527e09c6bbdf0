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

import sys

from tests.core.blind_draws import more_bird, print_rows, taken_by, weighted_draw, with_right_ones
from tests.core.test_suggest_blind import BLIND, BLIND2

SEED = 2027
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 15, 15, 100, 20
N_MORE_BIRD = 38  # rows of the second seeded order that were read for right predictions
# The right predictions among the first 38 BIRD rows of `more_bird()`, chosen by reading them (see above).
MORE_BIRD_RIGHT = (362, 1101, 332, 821, 916, 1129, 325, 391, 510, 482, 727, 204)
TAKEN = (BLIND, BLIND2)


def first_draw() -> list[tuple[str, str, int]]:
    return weighted_draw(SEED, taken_by(*TAKEN), N_BIRD, N_SPIDER_WRONG, N_SPIDER_RIGHT, N_ARCHER)


def draw() -> list[tuple[str, str, int]]:
    """Every row of the batch, in the file's order."""
    first = first_draw()
    read = more_bird(SEED, taken_by(*TAKEN), first, N_MORE_BIRD)
    return with_right_ones(first, read, MORE_BIRD_RIGHT)


if __name__ == "__main__":
    print_rows(draw())
    sys.exit(0)
