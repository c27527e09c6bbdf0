"""The reference for the launch figure: a minimal Textual app that shows one line in the row-count form.

`python -m tests.bench.minimal_app` starts the interpreter, imports Textual and draws a screen saying
"1 of 1 (example, model) rows": what any Textual app pays before it shows anything, on the same machine
and under the same load as the real app's starts it is interleaved with.
"""

from textual.app import App, ComposeResult
from textual.widgets import Static


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("1 of 1 (example, model) rows")


if __name__ == "__main__":
    Minimal().run()
