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

import sys

from tests.core.blind_draws import more_bird, print_rows, taken_by, weighted_draw, with_right_ones
from tests.core.test_suggest_blind import BLIND, BLIND2, BLIND3, BLIND4

SEED = 2029
N_SPIDER_WRONG, N_SPIDER_RIGHT, N_BIRD, N_ARCHER = 13, 12, 110, 20
N_MORE_BIRD = 40  # rows of the second seeded order that are read for right predictions
# The right predictions among the first N_MORE_BIRD rows of the second order, chosen by reading them (see above).
MORE_BIRD_RIGHT = (657, 976, 331, 882, 832, 1518, 160, 1317, 339, 781, 158, 740, 697, 914)
TAKEN = (BLIND, BLIND2, BLIND3, BLIND4)


def first_draw() -> list[tuple[str, str, int]]:
    return weighted_draw(SEED, taken_by(*TAKEN), N_BIRD, N_SPIDER_WRONG, N_SPIDER_RIGHT, N_ARCHER)


def draw() -> list[tuple[str, str, int]]:
    """Every row of the batch, in the file's order."""
    first = first_draw()
    read = more_bird(SEED, taken_by(*TAKEN), first, N_MORE_BIRD)
    return with_right_ones(first, read, MORE_BIRD_RIGHT)


def _option(argv: list[str], name: str, default: int) -> int:
    return int(argv[argv.index(name) + 1]) if name in argv else default


if __name__ == "__main__":
    first = first_draw()
    rows = more_bird(SEED, taken_by(*TAKEN), first, N_MORE_BIRD) if "--more" in sys.argv else draw()
    start, stop = _option(sys.argv, "--from", 0), _option(sys.argv, "--to", len(rows))
    print_rows(rows[start:stop], start)
    sys.exit(0)
