"""The workspace file: one SQLite database per study holding every evaluation, tag and note.

Holds the store itself (store: schema, migrations, transactions, results, views, refusing foreign files),
reading without writing (reading), and the `Workspace` methods of each concern: tags, notes and their
undo logs (triage_records), annotators and adjudications (team_records, the final-tags rule in
annotators), the alternative golds accepted in the app (gold_records, accepted); merging two copies
(merge). Only this package touches the workspace's SQLite connection: the other rooms call its methods.

May import: core.datasets, core.model, core.errors. Nothing that computes a metric: the workspace keeps
results, it does not make them.
"""
