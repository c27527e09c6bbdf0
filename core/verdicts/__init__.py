"""Verdicts on one prediction: is it right, and can that verdict be trusted.

Holds the sandboxed execution of a query (execution) and its result record (exec_result, a leaf), the
comparison of results in each EX mode (exec_compare; the modes' names in the leaf ex_modes), the official
Spider evaluator's verdict quirk for quirk (official_ex), a pair run and scored in every mode (pair_run),
why a gold query is suspect (gold_audit), EX after a person's review (review), the neighbour databases
behind `ex_ts` (testsuite/) and bounded equivalence (verify/).

May import: core.sql, core.datasets, core.model, core.errors, core.processes. Never the workspace, the
pipeline or anything that reads evaluations for people: a verdict depends on the queries and databases only.
"""
