"""Semantic execution match on generated neighbour databases (after Zhong, Yu and Klein, 2020).

`ensure_neighbours` builds (once, in a cache) K databases with the schema of an original one and values
generated from its own and its gold queries' values, distilled to those that tell gold queries from
near-miss variants; `match.ts_columns` scores a prediction on them as `ex_spider` does.

May import: the rest of core.verdicts (execution and its comparison), core.sql, core.model, core.errors.
"""

from sqltriage.core.verdicts.testsuite.cache import (
    DEFAULT_K,
    DEFAULT_SEED,
    NeighbourError,
    default_cache_root,
    ensure_neighbours,
)

__all__ = ["DEFAULT_K", "DEFAULT_SEED", "NeighbourError", "default_cache_root", "ensure_neighbours"]
