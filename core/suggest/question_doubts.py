"""Gold judged wrong against the question: the labelling guide's rule 5, read from the words of the question.

Where gold and the prediction differ in one element and the question (or the evidence) plainly says what
the prediction wrote and nothing of what gold wrote, the difference follows gold's error: the row is
"Evaluation: gold SQL wrong". Each reading is narrow, so that a prediction's own error is not excused:

- a value: the prediction tests the question's value, gold another one neither question nor evidence names
  (`'2021'` asked, gold `'1998'`);
- an operator: the question's words name the prediction's comparison, not gold's ("less than 2": `< 2`,
  gold `<= 2`), and the evidence does not state gold's;
- a column: the prediction reads a column every word of whose name the question uses, in place of one
  the question and evidence never name ("defence aggression class": `defenceAggressionClass`, gold
  `chanceCreationShootingClass`);
- a returned column: the question lists a column gold leaves out ("the name, date and result"), or gold
  returns a column the question and evidence never mention (the age, for "the first name of every student");
- a filter: the prediction tests a value the question names and gold never tests that column nor names
  that value ("the youngest dog": `pettype = 'dog'`, gold no filter at all).
"""

from __future__ import annotations

import re

from sqlglot import exp

from sqltriage.core.suggest.facts import Conjunct, QueryFacts, SelectItem
from sqltriage.core.suggest.reason import Part, Reason
from sqltriage.core.suggest.suggestion import Suggestion
from sqltriage.core.suggest.values import code_for_word, core_text, same_but_form

TAG = "Evaluation: gold SQL wrong"
CONFIDENCE = 0.8
# phrases naming each comparison, longest first where one contains another ("no more than" / "more than")
OPERATOR_PHRASES: dict[str, tuple[str, ...]] = {
    "<=": ("no more than", "not more than", "at most", "or less", "or fewer", "up to", "no greater than"),
    ">=": ("no less than", "not less than", "at least", "or more", "or above", "no fewer than"),
    "<": ("less than", "fewer than", "lower than", "smaller than", "below", "under"),
    ">": ("more than", "greater than", "higher than", "larger than", "above", "over", "exceeding"),
}
NEGATION = re.compile(r"\b(not|no|never|neither|nor)\b|n't")
WHO = re.compile(
    r"^\W*(who|whose|whom)\b|\b(include|indicate|state|show|along|also|as well|provide|give|mention)\b"
)
NEGATED = {">": "<=", "<": ">=", ">=": "<", "<=": ">"}  # "not more than 3" is `<= 3`
WHEN = {"date", "time", "year", "day", "month", "when"}  # words that ask for one another
KEY_WORDS = {"id", "key", "ref", "link", "code"}  # a column naming a row of another table, not a value
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def question_doubts(
    g: QueryFacts, p: QueryFacts, question: str | None, evidence: str | None
) -> list[Suggestion]:
    """Reasons to think gold, not the prediction, misreads the question (see the module's docstring)."""
    if not question or not g.ok or not p.ok:
        return []
    said = _Words(question)
    known = _Words(f"{question} {evidence or ''}")
    for rule in (_value, _operator, _column, _returned, _filter):
        found = rule(g, p, said, known, evidence or "")
        if found is not None:
            return [found]
    return []


class _Words:
    """The words of a text, lower-case and singular, to test a name's words against."""

    def __init__(self, text: str) -> None:
        self.text = text.lower()
        self.words = {_singular(w) for w in re.findall(r"[a-z0-9]+", self.text)}

    def names(self, column: str) -> bool:
        """Every word of the column's name is said (`defenceAggressionClass`: defence, aggression, class)."""
        parts = name_words(column)
        return bool(parts) and parts <= self.words

    def has_value(self, value: str) -> bool:
        v = core_text(value)
        return bool(v) and re.search(rf"(?<![\w]){re.escape(v)}(?![\w])", self.text) is not None


def name_words(column: str) -> set[str]:
    """The words a column's name is made of: camelCase, snake_case and spaces split, singular, lower-case."""
    return {_singular(w.lower()) for part in re.split(r"[\W_]+", column) for w in _CAMEL.findall(part)}


def _singular(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _doubt(template: str, *parts: Part) -> Suggestion:
    return Suggestion(TAG, Reason(template, *parts), CONFIDENCE)


def _pairs(g: QueryFacts, p: QueryFacts, *, same: str) -> list[tuple[Conjunct, Conjunct]]:
    """Gold's and the prediction's WHERE conditions that agree in all but `same`'s complement."""
    out = []
    for c in g.conjuncts:
        if c.kind not in ("str", "num"):
            continue
        for x in p.conjuncts:
            if (
                x.clause != c.clause
                or x.kind != c.kind
                or (c.column, c.op, c.value) == (x.column, x.op, x.value)
            ):
                continue
            agree = {
                "value": c.column == x.column and c.op == x.op,
                "operator": c.column == x.column and c.value == x.value,
                "column": c.op == x.op and c.value == x.value,
            }[same]
            if agree and not _tested_alike(g, x) and not _tested_alike(p, c):
                out.append((c, x))
    return out


def _tested_alike(f: QueryFacts, c: Conjunct) -> bool:
    return any((x.column, x.op, x.value) == (c.column, c.op, c.value) for x in f.conjuncts)


def _value(g: QueryFacts, p: QueryFacts, said: _Words, known: _Words, evidence: str) -> Suggestion | None:
    for c, x in _pairs(g, p, same="value"):
        if _alike(c, x):
            continue  # the same value in another form, or one inside the other: not this reading
        if said.has_value(x.value) and not known.has_value(c.value):
            return _doubt(
                "the question names {}, as the prediction tests ({}); gold tests {}", x.value, x.node, c.node
            )
    return None


def _alike(c: Conjunct, x: Conjunct) -> bool:
    a, b = core_text(c.value), core_text(x.value)
    if (
        a in b
        or b in a
        or same_but_form(c, x)
        or code_for_word(c.value, x.value)
        or code_for_word(x.value, c.value)
    ):
        return True
    try:
        return float(a) == float(b)
    except ValueError:
        return False


def _operator(g: QueryFacts, p: QueryFacts, said: _Words, known: _Words, evidence: str) -> Suggestion | None:
    for c, x in _pairs(g, p, same="operator"):
        if c.op not in OPERATOR_PHRASES or x.op not in OPERATOR_PHRASES:
            continue
        named = _operators_named(said.text)
        if x.op in named and c.op not in named and not _stated(c, evidence):
            phrase = next(ph for ph in OPERATOR_PHRASES[x.op] if ph in said.text)
            return _doubt(
                'the question says "{}", as the prediction\'s {}; gold tests {}', phrase, x.node, c.node
            )
    return None


def _operators_named(text: str) -> set[str]:
    """The comparisons a text's words name; a longer phrase hides the shorter ones inside it, and a negated
    one ("do not have more than") names none."""
    named = set()
    for op, phrases in sorted(OPERATOR_PHRASES.items(), key=lambda kv: -max(len(p) for p in kv[1])):
        for ph in phrases:
            for m in re.finditer(rf"\b{re.escape(ph)}\b", text):
                negated = NEGATION.search(text[max(0, m.start() - 16) : m.start()]) is not None
                named.add(NEGATED[op] if negated else op)
            text = re.sub(rf"\b{re.escape(ph)}\b", " ", text)
    return named


def _stated(c: Conjunct, evidence: str) -> bool:
    """The evidence writes gold's comparison itself (`income > 40`)."""
    op = re.escape(c.op)
    return re.search(rf"{op}\s*'?{re.escape(core_text(c.value))}\b", evidence.lower()) is not None


def _column(g: QueryFacts, p: QueryFacts, said: _Words, known: _Words, evidence: str) -> Suggestion | None:
    candidates: list[tuple[str, str, Part, Part]] = [
        (_written(c.node, c.column), _written(x.node, x.column), c.node, x.node)
        for c, x in _pairs(g, p, same="column")
    ]
    candidates += [
        (_written(gi.node, gc), _written(pi.node, pc), gi.node, pi.node)
        for gi, pi, gc, pc in _plain_pairs(g.select, p.select)
    ]
    for gc, pc, gn, pn in candidates:
        if (
            len(name_words(pc)) >= 2
            and said.names(pc)
            and not known.names(gc)
            and not name_words(pc) <= name_words(gc)
            and gc.lower() not in p.columns
        ):
            return _doubt(
                "the question names {}, which the prediction reads ({}); gold reads {} instead", pc, pn, gn
            )
    return None


def _written(node: exp.Expression, column: str) -> str:
    """The column's name as the query writes it (its case splits `defenceAggressionClass` into words)."""
    for col in node.find_all(exp.Column):
        if col.name.lower() == column:
            return col.name
    return column


def _plain_pairs(
    gold: list[SelectItem], pred: list[SelectItem]
) -> list[tuple[SelectItem, SelectItem, str, str]]:
    """SELECT items in the same place, each one plain column, the columns differing."""
    if len(gold) != len(pred):
        return []
    out = []
    for gi, pi in zip(gold, pred, strict=True):
        if (
            gi.text == pi.text
            or gi.aggregates != pi.aggregates
            or len(gi.columns) != 1
            or len(pi.columns) != 1
        ):
            continue
        if gi.families or pi.families or gi.arithmetic or pi.arithmetic:
            continue
        out.append((gi, pi, next(iter(gi.columns)), next(iter(pi.columns))))
    return out


def _returned(g: QueryFacts, p: QueryFacts, said: _Words, known: _Words, evidence: str) -> Suggestion | None:
    gold_texts = {x.text for x in g.select}
    pred_texts = {x.text for x in p.select}
    extra = [x for x in p.select if x.text not in gold_texts and _plain(x)]
    lost = [x for x in g.select if x.text not in pred_texts and _plain(x)]
    if extra and not lost and len(p.select) > len(g.select):
        for item in extra:
            column = _written(item.node, next(iter(item.columns)))
            if _listed(column, said.text) and said.names(column):
                return _doubt(
                    "the question lists {}, which the prediction returns and gold leaves out", column
                )
    if lost and not extra and len(g.select) > len(p.select) and not WHO.search(said.text):
        for item in lost:
            column = _written(item.node, next(iter(item.columns)))
            if not _near(column, known) and column.lower() not in p.columns:
                return _doubt("gold also returns {}, which the question never asks for", column)
    return None


def _near(column: str, words: _Words) -> bool:
    """Some word of the text and of the name share their start (`tem_diff`, "temperature difference"), or a
    word of the text is inside the name (`admemail2`, "e-mail")."""
    flat = re.sub(r"[\W_]+", "", column.lower())
    if name_words(column) & WHEN and words.words & WHEN:
        return True
    for w in words.words:
        if len(w) >= 4 and w in flat:
            return True
        if any(
            len(n) >= 3 and (w.startswith(n) or (n.startswith(w) and len(w) >= 3)) for n in name_words(column)
        ):
            return True
    return False


def _plain(item: SelectItem) -> bool:
    return (
        len(item.columns) == 1
        and not item.aggregates
        and not item.families
        and not item.arithmetic
        and not item.star
    )


def _listed(column: str, text: str) -> bool:
    """A word of the column's name stands in a list of the question's ("name, date and result")."""
    words = sorted(name_words(column), key=len)
    for w in words:
        for m in re.finditer(rf"\b{re.escape(w)}s?\b", text):
            before, after = text[max(0, m.start() - 6) : m.start()], text[m.end() : m.end() + 6]
            if re.search(r"(,|\band)\s*(the\s+)?$", before) or re.match(r"\s*(,|and\b)", after):
                return True
    return False


def _filter(g: QueryFacts, p: QueryFacts, said: _Words, known: _Words, evidence: str) -> Suggestion | None:
    if any(c.kind == "str" for c in g.conjuncts):
        return None  # gold tests some text: the question's word may be tested there, another way
    written = {core_text(v) for v, _ in g.literals}
    for x in p.conjuncts:
        if x.clause != "where" or x.kind != "str" or x.op not in ("=", "like"):
            continue
        v = core_text(x.value)
        if len(v) < 3 or v in written or name_words(x.column) & KEY_WORDS or not said.has_value(x.value):
            continue
        return _doubt(
            "the question names {}, which the prediction tests ({}) and gold never does", x.value, x.node
        )
    return None
