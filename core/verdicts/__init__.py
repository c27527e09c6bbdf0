"""Verdicts on one prediction: is it right, and can that verdict be trusted.

Holds the sandboxed execution of a query and the comparison of results in each EX mode (execution,
exec_compare), the official Spider evaluator's verdict quirk for quirk (official_ex), why a gold query is
suspect (gold_audit), EX after a person's review (review), and the neighbour databases behind `ex_ts`
(testsuite/).

May import: core.sql, core.datasets, core.model, core.errors, core.processes. Never the workspace, the
pipeline or anything that reads evaluations for people: a verdict depends on the queries and databases only.
"""
