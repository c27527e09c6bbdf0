"""SQL extraction from raw responses (core/datasets/responses.py) on real systems' Spider dev SQL: wrapped in
every response style an LLM writes, each query must come back exactly as it went in."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from sqltriage.core.datasets.responses import KINDS, extract_sql, first_statement, looks_like_response

STYLES: dict[str, Callable[[str], str]] = {
    "fence-sql": lambda s: (
        "Let me look at the schema first.\n```sql\nSELECT draft FROM nowhere\n```\nThat is wrong. "
        f"The final query:\n```sql\n{s}\n```\nThis returns what was asked."
    ),
    "fence": lambda s: f"Here is the query:\n\n```\n{s}\n```\n",
    "json": lambda s: (
        "Structured output:\n```json\n" + json.dumps({"reasoning": "count rows", "sql": s}) + "\n```"
    ),
    "tag": lambda s: f"<think>Maybe ```sql\nSELECT 1\n``` would do.</think>\n<answer>{s}</answer>",
    "sql-line": lambda s: f"The question asks for a count per group.\nSQL: {s}",
    "bare": lambda s: f"  {s}\n",
}


def _systems(spider_dev: Path) -> dict[str, list[str]]:
    files = sorted((spider_dev / "predictions").glob("*.sql"))
    assert len(files) == 8
    return {f.stem: f.read_text(encoding="utf-8").split("\n")[:1034] for f in files}


@pytest.mark.parametrize("style", list(STYLES))
def test_each_style_gives_back_every_real_query(spider_dev: Path, style: str) -> None:
    wrap = STYLES[style]
    checked = 0
    for system, lines in _systems(spider_dev).items():
        for i, line in enumerate(lines):
            original = line.strip()
            if not original or (style == "bare" and not original.lower().startswith(("select", "with"))):
                continue  # a bare answer is SQL only when it reads as SQL
            got = extract_sql(wrap(original))
            # one statement kept: 2 real lines carry text after their `;`
            assert (got.sql, got.extraction) == (first_statement(original), style), (system, i + 1)
            checked += 1
    assert checked > 8000


def test_one_statement_kept_from_real_lines_with_two(spider_dev: Path) -> None:
    two = [
        line.strip()
        for lines in _systems(spider_dev).values()
        for line in lines
        if first_statement(line.strip()) != line.strip()
    ]
    assert two, "the shared files hold lines with text after their statement"
    for line in two:
        assert extract_sql(f"```sql\n{line}\n```").sql == line[: line.index(";")].strip()


def test_mixed_styles_the_last_sql_fence_wins(spider_dev: Path) -> None:
    a, b = (lines[0].strip() for lines in list(_systems(spider_dev).values())[:2])
    mixed = f"SQL: {a}\n<answer>{a}</answer>\n```\n{a}\n```\n```sql\n{b}\n```\n```python\nprint(1)\n```"
    assert extract_sql(mixed) == extract_sql(f"```sql\n{b}\n```")
    assert extract_sql(mixed).sql == b
    # a bare fence wins over tags and lines; a tag over a "SQL:" line
    assert extract_sql(f"<answer>{b}</answer>\n```\n{a}\n```").sql == a
    assert extract_sql(f"SQL: {a}\n<sql>{b}</sql>").extraction == "tag"


def test_reasoning_is_skipped_even_with_its_opening_tag_lost() -> None:
    assert extract_sql("<think>SQL: SELECT 1</think>SELECT 2").sql == "SELECT 2"
    assert extract_sql("draft SQL: SELECT 1\n</think>\nSQL: SELECT 2").sql == "SELECT 2"
    assert extract_sql("<think>only</think>  ").extraction == "failed: only reasoning, no answer"
    assert extract_sql("<think>a</think>No idea.").extraction == "failed: no SQL found"


def test_broken_and_empty_responses_fail_with_a_reason() -> None:
    assert extract_sql("").extraction == "failed: empty response"
    assert extract_sql(None).extraction == "failed: empty response"
    assert extract_sql("I cannot answer this question.").extraction == "failed: no SQL found"
    # a response cut off inside its fence still gives its query
    cut = extract_sql("Here:\n```sql\nSELECT name FROM singer")
    assert (cut.sql, cut.extraction) == ("SELECT name FROM singer", "fence-sql")
    assert extract_sql("```sql\n\n```").extraction == "failed: no SQL found"
    assert extract_sql("SQL: `SELECT 1`").sql == "SELECT 1"
    assert extract_sql("```sql\n-- only a comment\n```").extraction == "failed: empty fence-sql"
    assert extract_sql("```SELECT a FROM t```").sql == "SELECT a FROM t"


def test_a_query_over_several_lines_after_sql_colon() -> None:
    text = "Reasoning here.\n\nSQL:\nSELECT name\nFROM singer\nWHERE age > 30\n\nThis lists them."
    assert extract_sql(text).sql == "SELECT name\nFROM singer\nWHERE age > 30"
    assert extract_sql("SQL: SELECT name\nFROM singer\n\nDone.").sql == "SELECT name\nFROM singer"
    assert extract_sql("SQL: SELECT name FROM singer\nThis lists them.").sql == "SELECT name FROM singer"


def test_semicolons_inside_quotes_do_not_split() -> None:
    sql = "SELECT * FROM t WHERE a = 'x; y' AND b = \"p;q\""
    assert extract_sql(f"```sql\n{sql};\nSELECT 2;\n```").sql == sql


def test_a_500_kb_response_takes_milliseconds(spider_dev: Path) -> None:
    query = _systems(spider_dev)["dinsql_gpt4"][5].strip()
    reasoning = "Consider the tables `singer` and `concert`; the join is on id. " * 8000
    response = f"<think>{reasoning}</think>\n{reasoning}\n```sql\n{query}\n```"
    assert len(response) > 500_000
    started = time.perf_counter()
    got = extract_sql(response)
    assert time.perf_counter() - started < 0.5
    assert (got.sql, got.extraction) == (query, "fence-sql")
    assert extract_sql(reasoning * 2).extraction == "failed: no SQL found"


def test_other_ways_llms_write_a_query() -> None:
    assert extract_sql("~~~sql\nSELECT 1\n~~~").extraction == "fence-sql"
    assert extract_sql('{"query": "SELECT a FROM t"}') == extract_sql(
        "```\n" + '{"sql": "SELECT a FROM t"}' + "\n```"
    )
    assert extract_sql('{"query": "SELECT a FROM t"}').extraction == "json"
    assert extract_sql("**SQL:** SELECT 1").sql == "SELECT 1"
    assert extract_sql("Final Answer: SELECT 2").sql == "SELECT 2"
    # an answer in prose is not a query; a "SQL:" line earlier is
    assert extract_sql("Answer: the number of singers.").extraction == "failed: no SQL found"
    assert extract_sql("SQL: SELECT 1\nAnswer: it counts them").sql == "SELECT 1"
    # a bare query ends at the first blank line that does not go on with it
    assert extract_sql("SELECT a FROM t\n\nThis lists a.").sql == "SELECT a FROM t"
    assert extract_sql("SELECT a\nFROM t\n\nWHERE x = 1\n\nDone.").sql == "SELECT a\nFROM t\n\nWHERE x = 1"


def test_what_looks_like_a_response() -> None:
    assert not looks_like_response("SELECT count(*) FROM singer")
    assert all(looks_like_response(STYLES[k]("SELECT 1")) for k in KINDS if k != "bare")
