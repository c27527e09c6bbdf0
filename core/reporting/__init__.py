"""Reading evaluations for people: the frame, facets, reports and exports.

Holds the evaluation frame and the metrics tables (report), the workspace's `evaluations` view (views,
made by what evaluates, never by a read), the export's columns both share (columns), a loaded frame
patched after a change (patches),
the facets and filters of the app (facets; their names and the filter choices without polars in
facet_names), the exports (export, export_formats), the findings one
publishes: the worst slices (slices, slice_features), whether a difference is real (significance),
and the shareable HTML report with its figures (html_report, figures; matplotlib, extra `report`).

May import: core.workspace, core.verdicts (review, gold audit reasons), core.sql (the report's diffs),
core.model, core.errors. It reads what the pipeline stored; it never evaluates.
"""
