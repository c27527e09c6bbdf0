"""Running evaluations: dataset × models → one row per (example, model), streamed into a workspace.

Holds the run (evaluate: chunks, resuming, executors), its options as a caller gives them (run_options),
one pair's metrics (pair), queries compared on demand for `diff` and the app's live results
(compare_queries), the Dask cluster executor (cluster), the process pool's start-up (pool_start), the
garbage-collection budget of a chunk (gc_budget) and the analyses shared between examples of a chunk
(shared_analyses).

May import every core package below it: sql, datasets, workspace, verdicts, questions, suggest. Never
core.triage or core.reporting (they import the pipeline, not the other way).
"""
