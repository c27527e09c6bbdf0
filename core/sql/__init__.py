"""SQL analysis: parsing, categories, hardness, exact-set and partial match, the authors' measures, diff.

May import: core.model, core.errors only. Everything else builds on it.
"""
