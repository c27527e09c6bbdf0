"""Reading evaluations for people: the frame, facets, reports and exports.

Holds the evaluation frame and the metrics tables (report), the workspace's `evaluations` view (views),
the facets and filters of the app (facets), and the exports (export, export_formats).

May import: core.workspace, core.verdicts (review, gold audit reasons), core.model, core.errors. It
reads what the pipeline stored; it never evaluates.
"""
