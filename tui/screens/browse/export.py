"""Exporting the browse screen's filtered rows: the dialog, a default file name, and the writing worker.

The file name's extension picks the format (csv, jsonl, parquet, sqlite); the rows are written in a
thread worker and `Exported` says how many, or why none.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
from textual import work

from sqltriage.core.reporting import facets
from sqltriage.tui.screens.browse.messages import Exported
from sqltriage.tui.screens.browse.state import BrowseState
from sqltriage.tui.screens.modals import ExportDialog


class ExportMixin(BrowseState):
    """`e`: the rows of the current filter, in their table order, to a file."""

    def default_export_name(self) -> str:
        name = self.session.dataset
        base = re.sub(r"[^A-Za-z0-9]+", "-", getattr(name, "name", "") or "sqltriage").strip("-")
        what = "all" if not self.filters.active else re.sub(r"[^A-Za-z0-9]+", "-", self.filters.describe())
        return f"{base}-{what.strip('-')[:60]}.csv"

    def action_export(self) -> None:
        if self.wait_for_rest(self.action_export):  # every exported column, once it is read
            return
        view = self.view
        if view.is_empty():
            self.notify("no row matches the filter: nothing to export", severity="warning")
            return

        def chosen(path: str | None) -> None:
            if path:
                self._export_worker(view, Path(path).expanduser())

        self.app.push_screen(ExportDialog(view.height, self.default_export_name()), chosen)

    @work(thread=True, group="export")
    def _export_worker(self, view: pl.DataFrame, path: Path) -> None:
        from sqltriage.core.reporting.export_formats import write_export

        try:  # the file name says the format: .csv, .jsonl, .parquet or .sqlite
            n = write_export(facets.for_export(view), path)
        except Exception as exc:
            self.post_message(Exported(path, 0, str(exc)))
            return
        self.post_message(Exported(path.resolve(), n))

    def on_exported(self, message: Exported) -> None:
        if message.error:
            self.notify(f"export failed ({message.path}): {message.error}", severity="error", timeout=10)
        else:
            self.notify(f"exported {message.rows:,} rows to {message.path}", timeout=8)
