"""The workspace file: one SQLite database per study holding every evaluation, tag and note.

Holds the store itself (store: schema, migrations, transactions, refusing foreign files) and the
alternative golds accepted in the app (accepted).

May import: core.datasets, core.model, core.errors. Nothing that computes a metric: the workspace keeps
results, it does not make them.
"""
