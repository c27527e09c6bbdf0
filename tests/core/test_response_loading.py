"""Prediction files of raw responses and of k candidates (core/datasets/response_rows.py), on Spider dev with
real systems' SQL: candidates in their order, extras read, and every bad row a clear per-row problem (file,
line, id) with nothing lost and nothing refused."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from sqltriage.core.datasets import load_dataset
from sqltriage.core.datasets.predictions import load_predictions
from sqltriage.core.datasets.responses import first_statement
from sqltriage.core.model import Dataset


@pytest.fixture(scope="module")
def spider(spider_dev: Path) -> Dataset:
    return load_dataset(spider_dev)


@pytest.fixture(scope="module")
def systems(spider_dev: Path) -> list[list[str]]:
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    return [[line.strip() for line in f.read_text(encoding="utf-8").split("\n")[:1034]] for f in files]


def _jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_list_of_responses_per_question_is_k_candidates_in_order(
    tmp_path: Path, spider: Dataset, systems: list[list[str]]
) -> None:
    records = [
        {"question_id": e.index, "responses": [f"Reasoning.\n```sql\n{s[e.index]}\n```" for s in systems]}
        for e in spider.examples
    ]
    preds = load_predictions(_jsonl(tmp_path / "k8.jsonl", records), spider)
    assert len(preds.predictions) == 1034 and preds.problems == ()
    for p in preds.predictions:
        assert p.candidates == tuple(first_statement(s[p.index]) for s in systems)
        assert p.sql == systems[0][p.index] and p.extraction == "fence-sql"
        assert p.raw == records[p.index]["responses"][0]


def test_rows_per_question_are_candidates_by_their_sample_number(
    tmp_path: Path, spider: Dataset, systems: list[list[str]]
) -> None:
    records = [
        {
            "id": e.index,
            "sample": k,
            "completion": f"<answer>{systems[k][e.index]}</answer>",
            "latency_ms": 250,
        }
        for e in spider.examples[:40]
        for k in reversed(range(3))  # written last sample first: the sample column orders them
    ]
    records += [{"id": e.index, "sample": 0, "completion": systems[0][e.index]} for e in spider.examples[40:]]
    preds = load_predictions(_jsonl(tmp_path / "rows.jsonl", records), spider)
    first = preds.predictions[7]
    assert first.candidates == tuple(systems[k][7] for k in range(3))
    assert first.candidate_extractions == ("tag",) * 3
    assert dict(first.extras) == {"latency": 0.75}  # three samples of 250 ms
    later = preds.predictions[500]
    assert later.candidates == () and later.sql == systems[0][500] and later.extraction == "bare"
    assert later.problem == "1 candidate where the file's other rows have up to 3"


def test_bad_input_gives_per_row_problems_and_loses_nothing(
    tmp_path: Path, spider: Dataset, systems: list[list[str]]
) -> None:
    huge = "Thinking about the join. " * 24_000 + f"\n```sql\n{systems[1][5]}\n```"
    assert len(huge) > 500_000
    records: list[dict] = []
    for e in spider.examples:
        i = e.index
        if i == 3:
            continue  # a missing id
        if i % 2:
            records.append({"id": i, "response": [f"```sql\n{s[i]}\n```" for s in systems[:4]]})
        else:
            records.append({"id": i, "response": f"SQL: {systems[0][i]}"})
    records[4]["response"] = "I am not sure how to answer this."  # example 5 (3 is left out)
    records.append({"id": 10, "response": f"```sql\n{systems[2][10]}\n```"})  # a duplicate id
    records.append({"id": "nope", "response": "SELECT 1"})  # an id of no example
    records.append({"response": "SELECT 2"})  # no id at all
    records[5]["response"] = huge  # example 6
    path = _jsonl(tmp_path / "bad.jsonl", records)
    preds = load_predictions(path, spider)
    by = {p.index: p for p in preds.predictions}
    assert sorted(by) == list(range(1034))  # every example has its row
    assert by[3].sql == "" and by[3].problem == "bad.jsonl: no response for example 3 (id '3')"
    assert by[5].extraction == "failed: no SQL found"
    assert by[5].problem == (
        "bad.jsonl line 5, id '5': no SQL in the response (no SQL found); "
        "1 candidate where the file's other rows have up to 4"
    )
    assert by[6].sql == systems[1][5] and by[6].raw == huge
    assert by[10].candidates == (systems[0][10], systems[2][10])  # a repeated id adds a candidate
    assert by[2].problem == "1 candidate where the file's other rows have up to 4"
    assert by[1].problem is None and len(by[1].candidates) == 4
    line = len(records) - 1
    from sqltriage.core.datasets.checks import summarize_predictions

    summary = summarize_predictions(preds, spider).as_dict()  # what `check` prints: every problem, none lost
    assert len(summary["problems"]) == sum(1 for p in preds.predictions if p.problem) + 2
    assert summary["candidates"] == 4 and summary["extraction"]["failed: no response"] == 1
    assert preds.problems == (
        f"bad.jsonl line {line}: id 'nope' is not an example of {spider.name}",
        f"bad.jsonl line {line + 1}: has no id",
    )


def test_a_sample_number_written_twice_is_kept_and_reported(tmp_path: Path, spider: Dataset) -> None:
    records = [{"id": e.index, "sample": 0, "output": "```sql\nSELECT 1\n```"} for e in spider.examples]
    records.append({"id": 0, "sample": 0, "output": "```sql\nSELECT 2\n```"})
    preds = load_predictions(_jsonl(tmp_path / "dup.jsonl", records), spider)
    assert preds.predictions[0].candidates == ("SELECT 1", "SELECT 2")
    assert preds.predictions[0].problem.startswith("dup.jsonl line 1035, id '0': sample '0' also on line 1")


def test_csv_of_responses_with_a_500_kb_cell_and_figures(
    tmp_path: Path, spider: Dataset, systems: list[list[str]]
) -> None:
    path = tmp_path / "responses.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["idx", "model_output", "total_tokens", "cost", "confidence"])
        for e in spider.examples:
            text = f"<think>{'hmm ' * (130_000 if e.index == 9 else 3)}</think>\n```sql\n{systems[3][e.index]}\n```"
            w.writerow([e.index, text, 120 + e.index, 0.001, 0.5])
    preds = load_predictions(path, spider, sql_column="model_output")
    assert [p.sql for p in preds.predictions] == systems[3]
    assert dict(preds.predictions[9].extras) == {"tokens": 129.0, "cost": 0.001, "confidence": 0.5}
    assert len(preds.predictions[9].raw) > 500_000


def test_a_json_list_of_candidate_lists(tmp_path: Path, spider: Dataset, systems: list[list[str]]) -> None:
    path = tmp_path / "lists.json"
    path.write_text(json.dumps([[s[i] for s in systems[:2]] for i in range(1034)]), encoding="utf-8")
    preds = load_predictions(path, spider)
    assert preds.predictions[0].candidates == (systems[0][0], systems[1][0])


def test_a_file_of_bare_sql_is_read_as_before(
    tmp_path: Path, spider: Dataset, systems: list[list[str]]
) -> None:
    records = [{"id": e.index, "predicted_sql": systems[4][e.index]} for e in spider.examples]
    preds = load_predictions(_jsonl(tmp_path / "plain.jsonl", records), spider)
    assert [p.sql for p in preds.predictions] == systems[4]
    assert all(p.raw is None and p.extraction is None for p in preds.predictions)


def test_chat_completions_sampled_n_times(tmp_path: Path, spider: Dataset, systems: list[list[str]]) -> None:
    """Rows as a chat API returns them: `choices`, each a message whose content may come in parts."""
    records = []
    for e in spider.examples:
        a, b = systems[0][e.index], systems[1][e.index]
        choices = [
            {"index": 0, "message": {"content": f"```sql\n{a}\n```"}},
            {
                "index": 1,
                "message": {"content": [{"type": "text", "text": f"SQL: {b}"}]},
            },
        ]
        records.append({"id": e.index, "completion": {"choices": choices}, "usage": {"total_tokens": 42}})
    preds = load_predictions(_jsonl(tmp_path / "chat.jsonl", records), spider)
    p = preds.predictions[11]
    assert p.candidates == (first_statement(systems[0][11]), first_statement(systems[1][11]))
    assert p.candidate_extractions == ("fence-sql", "sql-line")
    assert dict(p.extras) == {"tokens": 42.0}
    top = [{"id": r["id"], "choices": r["completion"]["choices"]} for r in records]
    assert (
        load_predictions(_jsonl(tmp_path / "top.jsonl", top), spider).predictions[11].candidates
        == p.candidates
    )
