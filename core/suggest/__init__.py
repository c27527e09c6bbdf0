"""Suggested error causes a person can check: a clause-aware diff of the two queries, plus what their
results say when a database is there, ranked, each with a reason and a confidence.

`suggest_causes` is the one entry point; the interface shows its answer and the user accepts or ignores
each suggestion, nothing is applied silently. Tag names are those of the default taxonomy.

May import: core.sql, core.verdicts (results and their comparison), core.model, core.errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from sqltriage.core.model import Schema
from sqltriage.core.sql.parse import ParsedQuery, ensure_parsed, statement_body
from sqltriage.core.suggest.evidence import Evidence, localise, schema_evidence, witness_evidence
from sqltriage.core.suggest.exec_signals import exec_signals
from sqltriage.core.suggest.facts import QueryFacts, query_facts
from sqltriage.core.suggest.gold_wrong import gold_value_wrong
from sqltriage.core.suggest.link_columns import link_error
from sqltriage.core.suggest.question_doubts import question_doubts
from sqltriage.core.suggest.rules import WEAK, combine
from sqltriage.core.suggest.semantics import respecting
from sqltriage.core.suggest.suggestion import (
    EXECUTION,
    GATE,
    MAX_SHOWN,
    SCHEMA_EXECUTION,
    STRUCTURE,
    Suggestion,
    format_suggested,
)
from sqltriage.core.suggest.tree_diff import tree_findings
from sqltriage.core.suggest.weak_categories import boundary_findings
from sqltriage.core.verdicts.exec_compare import first_statement
from sqltriage.core.verdicts.exec_result import ExecResult

__all__ = ["Suggestion", "format_suggested", "stored_suggestions", "suggest_causes"]


def suggest_causes(
    gold: str | ParsedQuery,
    pred: str | ParsedQuery,
    *,
    schema: Schema | None = None,
    evidence: str | None = None,
    gold_result: ExecResult | None = None,
    pred_result: ExecResult | None = None,
    ex: int | None = None,
    error: str | None = None,
    tie_sensitive: bool = False,
    ex_mode: str | None = None,
    databases: Sequence[Path] = (),
    shrink_witness: bool = False,
    exact_match: bool = False,
    witness: Path | None = None,
    question: str | None = None,
) -> list[Suggestion]:
    """Suggestions for one (example, prediction), most confident first; empty when nothing is surely wrong.

    `ex` is the stored outcome in the dataset's EX mode `ex_mode` ("spider", "bird", "archer"; None: not
    known, every difference counts); `error` the prediction's execution or parse error, if any; the results,
    when given, add execution signals; `tie_sensitive` says the prediction differs from gold only by which of
    the rows tied at gold's LIMIT it kept. `databases`, used when there are no results (the dataset has no
    database file), are databases generated from the schema: a prediction that returns gold's result on all
    of them gets nothing, one that differs is read as on a real database; with `shrink_witness`, the
    differing database is shrunk to its minimal witness to re-rank table candidates (about 20 ms a pair: off
    in an evaluation, where it would double the engine's cost). `exact_match`: the evaluation's exact-set
    match holds (the clauses agree, values aside), so a passing EX on a single row is not looked into (a
    pass by chance there needs other values, and three in four single-row passes are such copies).
    `witness`: a realistic database on which the two differ (the judgement's refutation of an EX pass, or of
    a row without a database file): its results say which columns and rows differ, its rows which tables
    take part, and they rank the causes; an EX pass it refutes is looked into as a false positive.
    `question`: the example's question, whose words can show gold misreading it (`question_doubts`).
    """
    if gold_result is not None and gold_result.error_kind in ("syntax", "runtime"):
        why = f"gold itself fails: {gold_result.error}"
        return [Suggestion("Evaluation: gold SQL wrong", _shown(why, EXECUTION), 0.9, EXECUTION)]
    signals = exec_signals(gold_result, pred_result)
    by_chance = signals is not None and (signals.trivial or (signals.gold_rows == 1 and not exact_match))
    if ex == 1 and signals is not None and signals.same_bag and not by_chance and witness is None:
        return []  # the same rows, and not by chance: nothing to suggest (and no parse work spent)
    basis = EXECUTION if gold_result is not None else STRUCTURE  # the database was there and was used
    gold, pred = ensure_parsed(gold, schema), ensure_parsed(pred, schema)  # parsed once for every rule
    pred, rest, error = _as_compared(pred, schema, error)
    g, p = _gold_facts(gold, schema), query_facts(pred, schema)
    found = tree_findings(g, p, evidence, schema) if g.ok and p.ok else []
    if rest is not None and (ex_mode != "spider" or not any(s.confidence >= GATE for s in found)):
        # the whole text fails where the evaluator runs it as written (all but Spider's, which keeps the
        # first statement); with Spider's it is the cause only when the first statement alone is right
        found.append(Suggestion("Other: other", rest, 0.85))
    if error is None and not p.ok and g.ok:
        error = f"does not parse: {p.error}"
    refuting = (
        witness_evidence(_text(gold), _text(pred), witness, mode=ex_mode or "spider")
        if (witness is not None and g.ok and p.ok)
        else None
    )
    if ex == 1 and refuting is not None:
        return _refuted_pass(found, refuting, g, p, ex_mode)
    if ex == 1 and witness is not None and signals is not None and signals.same_bag and not by_chance:
        return []  # the witness does not tell them apart as this mode reads them: nothing more to say
    generated = None
    if gold_result is None and refuting is not None:  # the judgement's witness: no generated run needed
        generated, signals, ex, basis = refuting, exec_signals(refuting.gold, refuting.pred), 0, WITNESS_BASIS
        found = localise(found, refuting)
    elif gold_result is None and databases and g.ok and p.ok and _worth_running(found):
        generated = schema_evidence(
            _text(gold),
            _text(pred),
            databases,
            mode=ex_mode or "spider",
            witness=shrink_witness and _tables_to_rank(found),
        )
        if generated is not None and generated.agrees:
            # gold's result, on databases where it means something: nothing is surely wrong, unless the
            # difference lies at a boundary value those databases hardly ever hold
            found = boundary_findings(g, p)
            if not found:
                return []
            generated = None
        if generated is not None and generated.differ:
            signals, ex, basis = exec_signals(generated.gold, generated.pred), 0, SCHEMA_EXECUTION
            if generated.pred is not None and not generated.pred.ok and error is None:
                error = generated.pred.error
            found = localise(found, generated)
    if basis == EXECUTION and ex == 0 and g.ok and p.ok:
        wrong = gold_value_wrong(found, signals, g, p, gold_result)
        if wrong is not None:  # the prediction wrote the stored form: gold's error, nothing of its own
            return [Suggestion(wrong.tag, _shown(str(wrong.reason), basis), wrong.confidence, basis)]
    linked = link_error(error, p) if p.ok else None
    elsewhere = _column_elsewhere(error, schema, p) if p.ok else None
    if linked is not None:
        # a lookup's link column SQLite does not find: the guide's join condition, and the table that has
        # the column when the prediction never reads it
        found = [*found, linked]
        if elsewhere is not None:
            found.append(Suggestion("Table: missing", elsewhere, 0.85))
        error = elsewhere = None
    if elsewhere is not None:
        # a column read from a table that lacks it: the guide's attribute error, and the table it needs
        # (NL2SQL-Bugs' missing table) unless the parses show that table replaced by another
        found = [*found, Suggestion("Attribute: mismatch", elsewhere, 0.9)]
        if not any(s.tag == "Table: mismatch" and s.confidence >= GATE for s in found):
            found.append(Suggestion("Table: missing", elsewhere, 0.9))
    # a set operator removes duplicates: with one only on one side, duplicates say nothing about DISTINCT
    dedup_differs = g.ok and p.ok and set(g.set_ops) != set(p.set_ops)
    out = combine(
        respecting(found, g, p, ex_mode),
        signals,
        ex=ex,
        error=None if elsewhere is not None else error,
        parsed=p.ok,
        duplicates_mean_distinct=not dedup_differs,
        tie_sensitive=tie_sensitive,
        lenient_ex=ex_mode is None,
        generated=basis in (SCHEMA_EXECUTION, WITNESS_BASIS),
    )
    if g.ok and p.ok:
        out = respecting(out, g, p, ex_mode)
        if ex != 1 and question:
            out = _gold_doubted(out, question_doubts(g, p, question, evidence))
    where = generated.label if basis == SCHEMA_EXECUTION and generated is not None else None
    if basis == WITNESS_BASIS:
        basis, where = SCHEMA_EXECUTION, _witness_label(refuting)
    # the reasons are written here, for the suggestions kept (most candidates never are)
    return [Suggestion(s.tag, _shown(str(s.reason), basis, where), s.confidence, basis) for s in out]


_SPACED = re.compile(r"([<>!])\s+=")  # `< =`, `> =`, `! =`: an operator split by a space
WITNESS_BASIS = "witness"  # while ranking: the results on the judgement's witness (shown as generated ones)


def _as_compared(
    pred: ParsedQuery, schema: Schema | None, error: str | None
) -> tuple[ParsedQuery, str | None, str | None]:
    """The prediction as it is compared when it does not parse as one statement: `ALB < = 3.5` (copied from
    BIRD's evidence) read joined, and several statements (or a statement and prose) read as their first, as
    Spider's evaluator and a reader take it (what the others return is not there: gold's columns they hold
    are missing). Also why the text as written fails, and the error left once that is said."""
    rest = None
    if not pred.ok and _SPACED.search(pred.sql):
        joined = ensure_parsed(_SPACED.sub(lambda m: m.group(1) + "=", pred.sql), schema)
        if joined.ok:
            rest = f"the prediction does not parse as written ({pred.error}): SQLite has no '< =' operator"
            pred = joined
    if not pred.ok and ";" in statement_body(pred.sql):
        first = ensure_parsed(first_statement(pred.sql), schema)
        if first.ok:
            rest = f"the prediction does not parse as one statement ({pred.error}); its first statement is compared"
            pred = first
            if error is not None and "one statement at a time" in error:
                error = None
    return pred, rest, error


def _gold_doubted(out: list[Suggestion], doubts: list[Suggestion]) -> list[Suggestion]:
    """Gold misreading the question comes first (the guide's rule 5); the prediction's differences follow,
    in case the reading is wrong."""
    if not doubts:
        return out
    top = max((s.confidence for s in out), default=doubts[0].confidence)
    doubt = Suggestion(doubts[0].tag, doubts[0].reason, min(0.99, max(top + 0.01, doubts[0].confidence)))
    return [doubt, *(s for s in out if s.tag != doubt.tag)][:MAX_SHOWN]


def _witness_label(ev: Evidence | None) -> str:
    n = ev.witness_rows if ev is not None else None
    rows = "" if n is None else f" of {n} row" if n == 1 else f" of {n} rows"
    return f"on the database{rows} that tells them apart"


def _refuted_pass(
    found: list[Suggestion], ev: Evidence, g: QueryFacts, p: QueryFacts, ex_mode: str | None
) -> list[Suggestion]:
    """An EX pass a realistic database refutes: the evaluation's verdict first, then what the parses show,
    ranked by the witness's results (which columns, which rows differ there)."""
    from sqltriage.core.suggest.rules import with_results
    from sqltriage.core.suggest.suggestion import ranked

    assert ev.gold is not None and ev.pred is not None
    signals = exec_signals(ev.gold, ev.pred)
    causes = [s for s in with_results(localise(found, ev), signals) if s.confidence >= GATE]
    causes = respecting(ranked(causes, limit=MAX_SHOWN - 1), g, p, ex_mode) if g.ok and p.ok else causes
    where = _witness_label(ev)
    why = "EX passes on the dataset's database, but the results differ"
    verdict = Suggestion(
        "Evaluation: EX false positive", _shown(why, SCHEMA_EXECUTION, where), 0.9, EXECUTION
    )
    return [
        verdict,
        *(
            Suggestion(s.tag, _shown(str(s.reason), SCHEMA_EXECUTION, where), s.confidence, SCHEMA_EXECUTION)
            for s in causes
        ),
    ]


_NO_SUCH_COLUMN = re.compile(r"no such column: (?:[\w\"`\[\] ]+\.)?[\"`\[]?([^\"`\]]+?)[\"`\]]?$", re.I)


def _column_elsewhere(error: str | None, schema: Schema | None, pred: QueryFacts) -> str | None:
    """Why a missing column is a missing table: it is a column of a schema table the prediction never reads."""
    m = _NO_SUCH_COLUMN.search(error or "")
    if m is None or schema is None:
        return None
    name = m.group(1).strip().lower()
    owners = sorted(t.name for t in schema.tables if any(c.name.lower() == name for c in t.columns))
    if not owners or any(t.lower() in pred.tables for t in owners):
        return None  # no table has it (a wrong attribute), or one the prediction reads (a wrong qualifier)
    return f"execution failed: {error}; {name} is a column of {', '.join(owners)}, which the prediction does not read"


def _shown(reason: str, basis: str, where: str | None = None) -> str:
    """The reason with what it rests on, so a reader weighs it: the parses alone, or results somewhere."""
    if basis == STRUCTURE:
        return f"{reason} [structure only]"
    if basis == EXECUTION:
        return f"{reason} [results on the database]"
    return f"{reason} [results {where or 'on databases generated from the schema'}]"


def _text(query: str | ParsedQuery) -> str:
    return query.sql if isinstance(query, ParsedQuery) else query


def _tables_to_rank(found: list[Suggestion]) -> bool:
    """A minimal witness is shrunk only when it can re-rank what is shown: two or more shown candidates,
    one of them about a table (shrinking costs far more than running the queries)."""
    shown = [s for s in found if s.confidence >= GATE]
    return len(shown) >= 2 and any(s.tag.startswith("Table:") for s in shown)


def _worth_running(found: list[Suggestion]) -> bool:
    """Generated databases are consulted when the parses show some difference (else there is nothing to
    confirm or clear, and the pair costs nothing)."""
    return any(s.confidence >= WEAK for s in found)


def _gold_facts(gold: str | ParsedQuery, schema: Schema | None) -> QueryFacts:
    """An evaluation passes one gold parse for every model: its facts are read once per parse."""
    if not isinstance(gold, ParsedQuery):
        return query_facts(gold, schema)
    # keyed by the schema's identity: hashing a whole schema on every call cost more than the lookup saves
    # (one gold parse meets one dataset's schema object, which outlives it)
    return gold.derived(("suggest_facts", id(schema)), lambda: query_facts(gold, schema))


def stored_suggestions(text: str | None) -> list[Suggestion] | None:
    """The suggestions an evaluation stored (JSON), or None when none were stored or they cannot be read."""
    if not text:
        return None
    import json

    try:
        return [
            Suggestion(
                str(d["tag"]), str(d["reason"]), float(d["confidence"]), str(d.get("basis", STRUCTURE))
            )
            for d in json.loads(text)
        ]
    except (ValueError, KeyError, TypeError):
        return None
