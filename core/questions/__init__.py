"""What a question and its database are like: the axes of the dataset-analysis paper.

Holds the question features read with spaCy (nl) and their cache (feature_cache), Archer's reasoning types
(reasoning), the database axes (db_analysis) and the dataset-analysis report that puts query, database and
question axes together (analysis).

May import: core.sql, core.workspace (the feature cache copies features into a workspace), core.model,
core.errors, core.processes.
"""
