"""Question features on hand-made sentences whose answers can be counted by hand."""

from __future__ import annotations

import json

import pytest
import spacy
from spacy.tokens import Doc

from sqltriage.core.model import Column, Schema, Table
from sqltriage.core.questions.nl import (
    DEFAULT_PIPELINE,
    QuestionFeatures,
    frequent_words,
    load_pipeline,
    name_parts,
    pipeline_unavailable_reason,
    question_features,
    sql_schema_elements,
    tree_depth,
)

SINGER = Schema(
    "concert_singer",
    (
        Table("singer", (Column("Singer_ID", "number"), Column("song_name"), Column("Age", "number"))),
        Table("concert", (Column("concert_ID", "number"), Column("concertName"))),
    ),
)


@pytest.fixture(scope="module")
def blank() -> spacy.language.Language:
    return spacy.blank("en")


@pytest.fixture(scope="module")
def nlp() -> spacy.language.Language:
    loaded = load_pipeline()
    assert loaded is not None, pipeline_unavailable_reason()
    return loaded


def one(question: str, nlp, **kw) -> QuestionFeatures:
    return question_features([question], nlp=nlp, **kw)[0]


# --- without tags: length and readability --------------------------------------------------------


def test_words_exclude_punctuation_and_tag_features_are_missing_without_tags(blank) -> None:
    f = one("How many singers do we have?", blank)
    assert f.n_words == 6
    assert f.tree_depth is None
    assert f.lexical_density is None
    assert f.rarity is None
    assert f.content_words_by_pos == {}


def test_flesch_is_textstats_as_the_papers_authors_computed_it(blank) -> None:
    # textstat 0.7.3 gives 116.15 here, the value in the authors' outputs for Spider dev question 0
    assert one("How many singers do we have?", blank).flesch == pytest.approx(116.15)


def test_flesch_reads_more_sentences_as_easier(blank) -> None:
    one_sentence = one("Show the cats and list the dogs", blank).flesch
    two_sentences = one("Show the cats. List the dogs.", blank).flesch
    assert one_sentence is not None and two_sentences is not None and two_sentences > one_sentence


def test_empty_question_has_no_ratios(blank) -> None:
    f = one("", blank)
    assert f.n_words == 0
    assert f.flesch is None


# --- with the trained pipeline: tags, parse, lemmas ----------------------------------------------


def test_density_rarity_and_depth_on_a_known_sentence(nlp) -> None:
    # How(WRB) many(JJ) singers(NNS) do(VBP) we(PRP) have(VB) ?(.): 4 content words of 7 tokens;
    # of many, singers, do, have only "singers" is not a frequent (form, tag) pair;
    # have(root, 0) → do, we, singers(1) → many(2) → How(3). The authors' outputs for Spider dev
    # question 0 are the same: 0.5714, 0.25, 3.
    pairs, forms, _ = frequent_words()
    assert ("have", "VB") in pairs or "have" in forms
    f = one("How many singers do we have?", nlp)
    assert f.n_words == 6
    assert f.content_words_by_pos == {"ADJ": 1, "AUX": 1, "NOUN": 1, "VERB": 1}
    assert f.lexical_density == pytest.approx(4 / 7)
    assert f.rarity == pytest.approx(1 / 4)
    assert f.tree_depth == 3


def test_rare_is_by_form_and_tag_as_written(nlp) -> None:
    f = one("List the sesquipedalian lexicographers.", nlp)
    assert f.rarity == pytest.approx(
        1.0
    )  # "List" capitalised is not the frequent "list"; the others are rare


def test_no_content_words_means_no_rarity(nlp) -> None:
    f = one("Which of them?", nlp)  # WDT IN PRP: no open-class tag
    assert f.lexical_density == 0.0
    assert f.rarity is None


def test_tree_depth_counts_levels_of_a_given_tree(blank) -> None:
    # a ← b ← c(root) → d ; e is punctuation hanging off a: depth counts words only.
    doc = Doc(
        blank.vocab,
        words=["a", "b", "c", "d", "."],
        heads=[1, 2, 2, 2, 0],
        deps=["dep", "dep", "ROOT", "dep", "punct"],
    )
    assert tree_depth(doc) == 2  # the root is at depth 0


# --- schema linkage ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "parts"),
    [
        ("song_name", ("song", "name")),
        ("concertName", ("concert", "name")),
        ("HTMLParser2", ("html", "parser", "2")),
        ("Free Meal Count (K-12)", ("free", "meal", "count", "k", "12")),
        ("Singer_ID", ("singer", "id")),
    ],
)
def test_name_parts(name: str, parts: tuple[str, ...]) -> None:
    assert name_parts(name) == parts


def test_schema_elements_are_real_tables_and_columns_not_aliases() -> None:
    sql = "SELECT T1.song_name, count(*) AS n FROM singer AS T1 JOIN concert AS T2 ON T1.Age = T2.concert_ID"
    assert sorted(sql_schema_elements(sql, SINGER)) == ["Age", "concert", "concert_ID", "singer", "song_name"]
    assert sql_schema_elements("SELEC nothing FROM (", SINGER) is None


def link(question: str, sql: str, nlp) -> float | None:
    return one(question, nlp, gold_sqls=[sql], schemas=[SINGER]).schema_linkage


def test_linkage_splits_snake_case_and_counts_each_element_once(blank) -> None:
    sql = "SELECT song_name, age FROM singer WHERE age > 20"
    assert link("What is the song name and age of every singer?", sql, blank) == 1.0
    # "vocalist" does not name the table singer; "age" names the column.
    assert link("List each vocalist's age.", "SELECT Age FROM singer", blank) == 0.5


def test_linkage_wants_the_exact_name_camel_case_is_one_word(blank) -> None:
    # concertName is the word "concertname": "concert name" names the table concert, not the column
    assert link("Which concert name is longest?", "SELECT concertName FROM concert", blank) == 0.5
    assert link("Which concertname of the concert?", "SELECT concertName FROM concert", blank) == 1.0
    assert link("Which concertName of the concert?", "SELECT concertName FROM concert", blank) == 0.5


def test_linkage_compares_words_as_written(blank) -> None:
    assert link("Show the age of each singer.", "SELECT Age FROM singer", blank) == 1.0
    assert link("Age of each Singer?", "SELECT Age FROM singer", blank) == 0.0


def test_linkage_compares_lemmas(nlp, blank) -> None:
    question, sql = "How many singers are there?", "SELECT count(*) FROM singer"
    assert link(question, sql, nlp) == 1.0  # singers → singer
    assert link(question, sql, blank) == 0.0  # no lemmas: forms differ


def test_linkage_is_missing_without_sql_schema_or_parse(blank) -> None:
    assert one("How many singers?", blank).schema_linkage is None
    assert link("How many singers?", "SELECT FROM WHERE (", blank) is None
    q = question_features(
        ["How many singers?"], gold_sqls=["SELECT 1 FROM singer"], schemas=[None], nlp=blank
    )
    assert q[0].schema_linkage is None


# --- loading, batching, caching ------------------------------------------------------------------


def test_unknown_pipeline_gives_none_and_says_why() -> None:
    assert load_pipeline("no_such_pipeline_sqltriage") is None
    reason = pipeline_unavailable_reason()
    assert reason is not None
    assert "no_such_pipeline_sqltriage" in reason
    assert "pip install" in reason


def test_default_pipeline_loads_once_without_ner(nlp) -> None:
    assert load_pipeline(DEFAULT_PIPELINE) is nlp
    assert pipeline_unavailable_reason() is None
    assert "ner" not in nlp.pipe_names
    assert {"tagger", "parser", "lemmatizer"} <= set(nlp.pipe_names)


def test_progress_reports_each_batch_and_the_end(blank) -> None:
    calls: list[tuple[int, int]] = []
    out = question_features(["a b"] * 5, nlp=blank, batch_size=2, progress=lambda d, t: calls.append((d, t)))
    assert len(out) == 5
    assert calls == [(2, 5), (4, 5), (5, 5)]


def test_lengths_must_line_up(blank) -> None:
    with pytest.raises(ValueError, match="2 gold SQL"):
        question_features(["a"], gold_sqls=["SELECT 1", "SELECT 2"], nlp=blank)


def test_features_round_trip_through_json(nlp) -> None:
    f = one("List the sesquipedalian lexicographers.", nlp)
    assert QuestionFeatures.from_dict(json.loads(json.dumps(f.as_dict()))) == f
