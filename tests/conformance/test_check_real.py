"""`sqltriage check` on the real public releases gives the figures a user can verify by hand."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from sqltriage.tui.cli import main


def run_check(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["check", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_spider_dev_with_dinsql(spider_dev: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_check(
        capsys, str(spider_dev), "--pred", f"din={spider_dev / 'predictions' / 'dinsql_gpt4.sql'}"
    )
    ds = doc["dataset"]
    assert ds["examples"] == 1034
    assert ds["databases_referenced"] == 20
    assert ds["databases_missing"] == {"wta_1": 62}
    (pred,) = doc["predictions"]
    assert (pred["aligned"], pred["expected"]) == (1034, 1034)


def test_every_spider_system_aligns(spider_dev: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = [str(spider_dev)]
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    for f in files:
        args += ["--pred", f"{f.stem}={f}"]
    doc = run_check(capsys, *args)
    assert [p["name"] for p in doc["predictions"]] == [f.stem for f in files]
    assert all(p["aligned"] == 1034 for p in doc["predictions"])


def test_bird_dev_without_databases(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bird = shared_data / "bird_dev"
    doc = run_check(capsys, str(bird), "--pred", f"kg={bird / 'predict_dev_chatgpt_kg.json'}")
    ds = doc["dataset"]
    assert ds["examples"] == 1534
    assert ds["databases_referenced"] == 11 and ds["databases_found"] == 0
    assert sum(ds["databases_missing"].values()) == 1534
    assert ds["with_evidence"] == 1386
    raw = json.loads((bird / "dev.json").read_text())
    assert ds["difficulty"] == dict(Counter(r["difficulty"] for r in raw))
    assert doc["predictions"][0]["aligned"] == 1534


def test_archer_train_reasoning_tally(shared_data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    archer = shared_data / "archer"
    doc = run_check(capsys, str(archer / "train.json"), "--db-dir", str(archer / "database"))
    ds = doc["dataset"]
    assert ds["examples"] == 414
    assert ds["databases_missing"] == {"soccer_1": 52}
    raw = json.loads((archer / "train.json").read_text())
    assert ds["reasoning_tokens"] == dict(Counter(t for r in raw for t in r["reasoning_type"].split()))


def test_bad_input_exits_2_with_message(
    tmp_path: Path, spider_dev: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    short = tmp_path / "short.sql"
    short.write_text("SELECT 1\n" * 10)
    assert main(["check", str(spider_dev), "--pred", f"x={short}"]) == 2
    err = capsys.readouterr().err
    assert "has 10 lines but the dataset spider_dev has 1034 examples" in err and str(short) in err
