"""The SQL inside a model's raw response, and how it was found.

LLM predictions arrive as whole responses: reasoning, then the query in a fence, in tags, after "SQL:" or
bare. Every user's own extraction script differs, so results differ; one documented rule (docs/formats.md,
"Raw responses") makes a response file score the same for everyone. The rule, first that applies:

1. the last ```sql fence (also ```sqlite, ```postgresql, …; ~~~ fences too), else the last bare ``` fence;
2. else a JSON object with a "sql" or "query" key, in a ```json fence or as the whole response;
3. else the last <answer>…</answer> or <sql>…</sql>;
4. else the last "SQL:" line (also "SQL query:", "Final SQL:", "Query:", "Answer:");
5. else the text itself when it reads as SQL (it starts with SELECT or WITH), up to the first blank line
   that is not followed by more of the query.

Reasoning (<think>…</think>, <thinking>…</thinking>, <reasoning>…</reasoning>) is dropped first, so a draft
query inside it never wins. Of several statements the first is kept. All patterns are linear, so a 500 kB
response costs milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KINDS = (
    "fence-sql",
    "fence",
    "json",
    "tag",
    "sql-line",
    "bare",
)  # how a query was found; else "failed: <why>"
FAILED = "failed: "
_SQL_LANGS = frozenset(
    {"sql", "sqlite", "sqlite3", "postgresql", "postgres", "psql", "mysql", "tsql", "plsql", "duckdb"}
)
_REASONING = re.compile(r"<(think|thinking|reasoning)\b[^>]*>.*?</\1\s*>", re.I | re.S)
_OPEN_REASONING = re.compile(
    r"<(?:think|thinking|reasoning)\b[^>]*>|</(?:think|thinking|reasoning)\s*>", re.I
)
_FENCE = re.compile(r"(```|~~~)([^\n`~]*)\n(.*?)(?:\1|\Z)", re.S)
_INLINE_FENCE = re.compile(r"```([^`\n]+)```")
_TAG = re.compile(r"<(answer|sql)\b[^>]*>(.*?)</\1\s*>", re.I | re.S)
_SQL_LINE = re.compile(
    r"^[ \t>*#_-]*(?:final[ \t]+)?(sql(?:[ \t]+query)?|query|answer)[ \t*_]*:[ \t*_]*(.*)$", re.I | re.M
)
_STARTS_SQL = re.compile(r"\s*\(*\s*(?:select|with)\b", re.I)


@dataclass(frozen=True, slots=True)
class Extracted:
    """The query found in a response ("" when none) and how: one of KINDS, or "failed: <why>"."""

    sql: str
    extraction: str

    @property
    def ok(self) -> bool:
        return not self.extraction.startswith(FAILED)


def extract_sql(response: str | None) -> Extracted:
    """The query of one raw response, by the rule of the module's docstring; never raises."""
    if response is None or not response.strip():
        return Extracted("", FAILED + "empty response")
    text = _without_reasoning(response)
    if not text.strip():
        return Extracted("", FAILED + "only reasoning, no answer")
    found = _from_fences(text) or _from_json(text) or _from_tags(text) or _from_sql_line(text)
    if found is None and _STARTS_SQL.match(text):
        found = (_sql_paragraphs(text), "bare")
    if found is None:
        return Extracted("", FAILED + "no SQL found")
    sql = first_statement(found[0])
    if not sql:
        return Extracted("", FAILED + f"empty {found[1]}")
    return Extracted(sql, found[1])


def looks_like_response(text: str) -> bool:
    """Whether a value holds more than a query: a fence, reasoning, answer tags or a "SQL:" line."""
    if "```" in text or "~~~" in text or _OPEN_REASONING.search(text) or _TAG.search(text):
        return True
    if text.lstrip().startswith("{") and _from_json(text) is not None:
        return True
    return _SQL_LINE.search(text) is not None


def _without_reasoning(text: str) -> str:
    """The response without its reasoning blocks; an unclosed block's tag alone is dropped (a response cut off
    inside its reasoning may still hold its last draft, the best there is), and text before a lone closing
    tag is reasoning whose opening tag the chat template ate."""
    text = _REASONING.sub("\n", text)
    closing = list(re.finditer(r"</(?:think|thinking|reasoning)\s*>", text, re.I))
    if closing:
        text = text[closing[-1].end() :]
    return _OPEN_REASONING.sub("\n", text)


def _from_fences(text: str) -> tuple[str, str] | None:
    if "```" not in text and "~~~" not in text:
        return None
    tagged: str | None = None
    bare: str | None = None
    for match in _FENCE.finditer(text):
        info, body = match.group(2).strip(), match.group(3)
        if not body.strip():
            continue
        lang = info.split()[0].lower() if info else ""
        if lang in _SQL_LANGS:
            tagged = body
        elif not lang and not body.lstrip().startswith("{"):  # a bare fence of JSON is read as JSON
            bare = body
        elif _STARTS_SQL.match(info):  # ```SELECT … on the fence's own line
            bare = info + "\n" + body
    if tagged is not None:
        return tagged, "fence-sql"
    if bare is not None:
        return bare, "fence"
    inline = [m.group(1) for m in _INLINE_FENCE.finditer(text) if m.group(1).strip()]
    if inline:
        body = inline[-1]
        lang, _, rest = body.strip().partition(" ")
        if lang.lower() in _SQL_LANGS and rest.strip():
            return rest, "fence-sql"
        return body, "fence"
    return None


_JSON_KEYS = ("sql", "SQL", "query", "sql_query", "final_sql", "answer")


def _from_json(text: str) -> tuple[str, str] | None:
    """The query of a JSON answer: the last ```json (or bare) fence holding an object, else the whole text."""
    import json

    bodies = [m.group(3) for m in _FENCE.finditer(text) if m.group(2).strip().lower() in ("json", "")]
    stripped = text.strip()
    if stripped.startswith("{") and stripped.endswith("}"):
        bodies.append(stripped)
    for body in reversed(bodies):
        try:
            value = json.loads(body)
        except ValueError:
            continue
        if isinstance(value, dict):
            for key in _JSON_KEYS:
                if isinstance(value.get(key), str) and value[key].strip():
                    return value[key], "json"
    return None


def _sql_paragraphs(text: str) -> str:
    """A bare query up to the first blank line that is not followed by more of it (an explanation after)."""
    paragraphs = text.strip().split("\n\n")
    kept = [paragraphs[0]]
    for paragraph in paragraphs[1:]:
        if not _continues_sql(paragraph):
            break
        kept.append(paragraph)
    return "\n\n".join(kept)


def _from_tags(text: str) -> tuple[str, str] | None:
    bodies = [m.group(2) for m in _TAG.finditer(text) if m.group(2).strip()]
    if not bodies:
        return None
    body = bodies[-1]
    inner = _from_sql_line(body)  # <answer>SQL: SELECT …</answer>
    return (inner[0] if inner is not None else body), "tag"


def _from_sql_line(text: str) -> tuple[str, str] | None:
    """The last "SQL:" line's query: the rest of its line, else the lines after it up to a blank line. A line
    labelled "Answer:" or "Query:" counts only when what follows reads as SQL (an answer may be prose)."""
    for match in reversed(list(_SQL_LINE.finditer(text))):
        found = _line_query(text, match)
        if found and (match.group(1).lower().startswith("sql") or _STARTS_SQL.match(found)):
            return found, "sql-line"
    return None


def _line_query(text: str, last: re.Match[str]) -> str:
    rest = last.group(2).strip()
    following = text[last.end() :].lstrip("\n")
    if not rest:
        rest = following.split("\n\n", 1)[0]
    elif not rest.rstrip().endswith(";"):  # a query written over several lines goes on to a blank line
        more = following.split("\n\n", 1)[0] if following and not following.startswith("\n") else ""
        if more and _continues_sql(more):
            rest = rest + "\n" + more
    rest = rest.strip()
    if len(rest) > 1 and rest[0] == rest[-1] == "`":
        rest = rest.strip("`").strip()
    return rest


def _continues_sql(lines: str) -> bool:
    """Whether the lines after a "SQL:" line carry on its query (a clause word first), not prose."""
    first = lines.lstrip().split(None, 1)[0].upper() if lines.strip() else ""
    return first in {
        "FROM",
        "WHERE",
        "JOIN",
        "INNER",
        "LEFT",
        "ON",
        "GROUP",
        "ORDER",
        "HAVING",
        "LIMIT",
        "AND",
        "OR",
        "UNION",
        "INTERSECT",
        "EXCEPT",
        "SELECT",
        "AS",
    }


def first_statement(sql: str) -> str:
    """The first statement of `sql` that is not only a comment, stripped; a lone statement is kept as
    written (its `;` included), so a query wrapped and extracted again is the same text."""
    statements = [s for s in _split_statements(sql) if _has_code(s)]
    if not statements:
        return ""
    if len(statements) == 1 and sql.strip().rstrip(";").strip() == statements[0].strip():
        return sql.strip()
    return statements[0].strip()


def _has_code(statement: str) -> bool:
    without = re.sub(r"--[^\n]*|/\*.*?\*/", "", statement, flags=re.S)
    return bool(without.strip())


def _split_statements(sql: str) -> list[str]:
    """`sql` cut at each `;` outside quotes and comments."""
    out: list[str] = []
    start, i, n = 0, 0, len(sql)
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = sql.find(close, i + 1)
            while j != -1 and close != "]" and j + 1 < n and sql[j + 1] == close:
                j = sql.find(close, j + 2)  # a doubled quote is a quote inside
            i = n if j == -1 else j + 1
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j == -1 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j == -1 else j + 2
            continue
        if c == ";":
            out.append(sql[start:i])
            start = i + 1
        i += 1
    out.append(sql[start:])
    return out
