"""A person's changes to a workspace: tags and notes, accepted golds, their undo, the error taxonomy.

Holds tags and notes with their log (tags), accepting and withdrawing an alternative gold with its
re-scoring (accepted_gold), undo across sessions (history), adjudication, annotator agreement
(agreement), labels made elsewhere (import_tags), and the error-cause taxonomy (taxonomy, taxonomy.toml).
It decides what a change is; the workspace's methods read and write the rows (never its connection).

May import: core.workspace, core.verdicts, core.pipeline (re-scoring after an accepted gold uses the
evaluation's own pair code), core.datasets, core.model, core.errors.
"""
