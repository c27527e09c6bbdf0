"""The evaluation options as the command line and the API give them: one check, spelled for each caller."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqltriage.core.errors import UsageError
from sqltriage.core.pipeline.evaluate import NEIGHBOURS_META, EvalOptions
from sqltriage.core.pipeline.run_options import eval_options, with_remembered_neighbours
from sqltriage.core.workspace.store import Workspace
from sqltriage.tui.cli import main


def test_nothing_set_gives_the_defaults_and_none_means_unset() -> None:
    assert eval_options({}) == EvalOptions()
    assert eval_options({"timeout": None, "jobs": None, "seed": None}) == EvalOptions()
    assert eval_options({"timeout": 2, "max_rows": 50}) == EvalOptions(timeout=2, max_rows=50)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"timeout": 0}, "timeout must be a positive number of seconds"),
        ({"jobs": 0}, "jobs must be at least 1"),
        ({"neighbours": -1}, "neighbours must be 0 (off)"),
        ({"timeout": "5"}, "timeout must be a number, not '5'"),
        ({"jobs": True}, "jobs must be a whole number"),
        ({"start_method": "thread"}, "start_method must be one of fork, spawn"),
        ({"chunk_size": 0}, "chunk_size must be at least 1"),
    ],
)
def test_a_bad_value_names_the_option(given: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        eval_options(given)


def test_an_unknown_option_is_named_with_the_valid_ones() -> None:
    with pytest.raises(UsageError) as err:
        eval_options({"timout": 3, "neighbors": 2})
    text = str(err.value)
    assert "unknown options 'neighbors', 'timout'" in text
    assert "timeout" in err.value.hint and "neighbours" in err.value.hint and "max_rows" in err.value.hint


def test_the_command_line_spells_the_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from sqltriage.samples import SAMPLE_DIR

    pred = SAMPLE_DIR / "predictions" / "atlas-7b.sql"
    args = ["eval", str(SAMPLE_DIR), "--pred", f"a={pred}", "--workspace", str(tmp_path / "w.db")]
    assert main([*args, "--timeout", "0"]) == 2
    assert "--timeout must be a positive number of seconds" in capsys.readouterr().err
    assert main([*args, "--neighbours", "-2"]) == 2
    assert "--neighbours must be 0 (off)" in capsys.readouterr().err


def test_a_workspace_remembers_its_neighbours_unless_told(tmp_path: Path) -> None:
    ws_path = tmp_path / "w.db"
    assert with_remembered_neighbours({"neighbours": None}, ws_path) == {"neighbours": None}  # no file yet
    with Workspace.open(ws_path) as ws:
        ws.set_meta(NEIGHBOURS_META, "4:7")
    assert with_remembered_neighbours({}, ws_path) == {"neighbours": 4, "seed": 7}
    assert with_remembered_neighbours({"seed": 1}, ws_path) == {"neighbours": 4, "seed": 1}
    assert with_remembered_neighbours({"neighbours": 0}, ws_path) == {"neighbours": 0}
    with Workspace.open(ws_path) as ws:
        ws.set_meta(NEIGHBOURS_META, "0:7")  # a last run with ex_ts off: nothing to keep
    assert with_remembered_neighbours({}, ws_path) == {}


def test_scratch_url_names_the_db_urls_server_and_database_with_another_login() -> None:
    db = "postgresql://reader:pw@localhost:5432/spider_{db_id}"
    ok = eval_options(
        {"db_url": db, "scratch_url": "postgresql://loader:secret@localhost:5432/spider_{db_id}"}
    )
    assert ok.scratch_url is not None
    with pytest.raises(UsageError, match="scratch_url goes with db_url"):
        eval_options({"scratch_url": "postgresql://loader@localhost/x"})
    with pytest.raises(UsageError, match="must name the server and database") as err:
        eval_options({"db_url": db, "scratch_url": "postgresql://loader:secret@localhost:5432/other"})
    assert "secret" not in str(err.value) and "pw" not in str(err.value)
