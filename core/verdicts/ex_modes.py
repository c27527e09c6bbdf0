"""The EX modes' names, defined here once and importing nothing.

The app's config and first screen, the facets and the re-scoring of accepted golds read them without
loading the comparison behind them (exec_compare, which parses with sqlglot).
"""

EX_MODES = ("spider", "bird", "archer")  # each community's sense of "the same result" (exec_compare)
DEFAULT_MODE = "spider"  # the mode `ex` reports
