"""Facet filters and live counts on a real evaluated workspace (the bundled sample), checked with plain polars."""

from __future__ import annotations

import argparse

import polars as pl
import pytest

from sqltriage.core.pipeline.evaluate import EvalOptions, evaluate
from sqltriage.core.reporting import facets, patches
from sqltriage.core.reporting.report import load_frame
from sqltriage.core.workspace.store import Workspace
from sqltriage.samples import SAMPLE_DIR
from sqltriage.tui.inputs import load_inputs

# one worker runs the module: the evaluated sample's frame is made once, not once per worker
pytestmark = pytest.mark.xdist_group("test_facets")


@pytest.fixture(scope="module")
def frame(tmp_path_factory: pytest.TempPathFactory) -> pl.DataFrame:
    preds = [f"{p.stem}={p}" for p in sorted((SAMPLE_DIR / "predictions").glob("*.sql"))]
    inputs = load_inputs(argparse.Namespace(dataset=str(SAMPLE_DIR), pred=preds))
    with Workspace.open(tmp_path_factory.mktemp("facets") / "ws.db") as ws:
        evaluate(inputs.dataset, inputs.predictions, ws, EvalOptions(timeout=1.0, features=False, jobs=1))
        first = load_frame(ws).head(3)
        ws.add_tags([(r["index"], r["model"]) for r in first.iter_rows(named=True)], "join-missing")
        return load_frame(ws)


def test_or_within_a_facet_and_across_facets(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    f = facets.Filters().toggled("hardness", "easy").toggled("hardness", "hard").toggled("outcome", "EX fail")
    got = facets.apply(prepared, f)
    want = frame.filter(pl.col("hardness").is_in(["easy", "hard"]) & (pl.col("ex") == 0))
    assert got.height == want.height > 0
    assert f.toggled("hardness", "hard").selected["hardness"] == {"easy"}  # toggling twice removes


def test_counts_are_what_choosing_the_value_would_give(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    f = facets.Filters().toggled("outcome", "EX fail").with_search("select")
    counts = facets.facet_counts(prepared, f)
    for facet in ("model", "hardness", "structural", "db_id", "tag"):
        for value, n in counts[facet]:
            assert n == facets.apply(prepared, f.toggled(facet, value)).height, (facet, value)
    # the outcome facet counts ignore its own selection
    for value, n in counts["outcome"]:
        assert (
            n
            == facets.apply(prepared, facets.Filters().with_search("select").toggled("outcome", value)).height
        )


def test_outcomes_mean_what_they_say(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    pick = {
        name: facets.apply(prepared, facets.Filters().toggled("outcome", name)) for name in facets.OUTCOMES
    }
    near = pick[f"EX fail, PM ≥ {facets.NEAR_MISS_PM} (near miss)"]
    assert (near.get_column("ex") == 0).all() and (near.get_column("pm") >= facets.NEAR_MISS_PM).all()
    assert pick["EX pass"].height + pick["EX fail"].height == frame.filter(pl.col("ex").is_not_null()).height
    disagree = pick["EX modes disagree"]
    for r in disagree.iter_rows(named=True):
        assert len({r["ex_spider"], r["ex_bird"], r["ex_archer"]}) > 1
    assert pick["does not parse"].height == frame.filter(pl.col("parse_ok") == 0).height


def test_tags_and_search(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    assert facets.apply(prepared, facets.Filters().toggled("tag", "join-missing")).height == 3
    untagged = facets.apply(prepared, facets.Filters().toggled("tag", facets.NONE_VALUE)).height
    assert untagged == frame.height - 3
    words = facets.apply(prepared, facets.Filters().with_search("COUNT books"))
    text = pl.concat_str(
        [pl.col(c).fill_null("") for c in ("question", "gold_sql", "pred_sql")], separator="\n"
    )
    want = frame.filter(
        text.str.to_lowercase().str.contains("count", literal=True)
        & text.str.to_lowercase().str.contains("books", literal=True)
    )
    assert words.height == want.height > 0


def test_sort_keeps_nulls_last(frame: pl.DataFrame) -> None:
    out = facets.sort_frame(frame, "pm", descending=True)
    pms = out.get_column("pm").drop_nulls().to_list()
    assert pms == sorted(pms, reverse=True)
    assert facets.sort_frame(frame, None).equals(frame)


INDEX_FILTERS = [
    facets.Filters(),
    facets.Filters().toggled("outcome", "EX fail"),
    facets.Filters().toggled("outcome", "EX fail").toggled("outcome", "does not execute"),
    facets.Filters().with_search("name"),
    facets.Filters().with_search("nam").with_search("name"),  # a longer word after a shorter one
    facets.Filters().with_search("COUNT books"),
    facets.Filters().toggled("hardness", "easy").toggled("hardness", "hard").with_search("select"),
    facets.Filters().toggled("tag", "join-missing"),
    facets.Filters().toggled("tag", facets.NONE_VALUE).toggled("outcome", "EX pass"),
    facets.Filters().with_examples(frozenset({0, 2, 3}), "three examples"),
    facets.Filters().toggled("structural", "has W (where)"),
    facets.Filters().toggled("structural", "has W (where)").toggled("structural", "S F"),
    facets.Filters().toggled("reasoning", "needs subtraction").toggled("operators", "has J (join)"),
]


@pytest.mark.parametrize("filters", INDEX_FILTERS, ids=lambda f: f.describe())
@pytest.mark.parametrize(
    ("column", "descending"), [(None, False), ("pm", True), ("question", False), ("tags", True)]
)
def test_index_rows_are_the_filtered_sorted_frame(
    frame: pl.DataFrame, filters: facets.Filters, column: str | None, descending: bool
) -> None:
    prepared = facets.prepare(frame)
    index = facets.FacetIndex(prepared)
    index.rows(facets.Filters().with_search(filters.search[:-1]))  # a shorter search first, as when typing
    got = prepared[index.rows(filters, column, descending)].select("index", "model")
    want = facets.sort_frame(facets.apply(prepared, filters), column, descending).select("index", "model")
    assert got.equals(want)


def test_index_counts_match_the_rows_each_value_would_give(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    index = facets.FacetIndex(prepared)
    f = facets.Filters().toggled("outcome", "EX fail").toggled("tag", facets.NONE_VALUE).with_search("a")
    counts = index.counts(f)
    for facet in ("model", "hardness", "db_id", "tag", "outcome"):
        for value, n in counts[facet]:
            chosen = facets.Filters(
                {k: v for k, v in f.selected.items() if k != facet} | {facet: frozenset({value})}, f.search
            )
            assert n == facets.apply(prepared, chosen).height, (facet, value)


def test_index_after_a_tag_change(frame: pl.DataFrame) -> None:
    prepared = facets.prepare(frame)
    index = facets.FacetIndex(prepared)
    row = prepared.row(5, named=True)
    retagged = patches.with_row_tags(prepared, {(row["index"], row["model"]): ("new-tag", "ann: new-tag")})
    rows = index.retagged(retagged).rows(facets.Filters().toggled("tag", "new-tag"))
    assert rows.tolist() == [5]
    assert index.row_number(row["index"], row["model"]) == 5


# --- membership options: "has J (join)", "needs subtraction" next to the combinations ----------------


def _has(column: str, part: str) -> pl.Expr:
    """Plain polars: the row's `column` (space-separated parts) contains `part` as a whole part."""
    return pl.col(column).fill_null("").str.split(" ").list.contains(part)


MEMBERSHIP_CHECKS = [
    ("structural", "has W (where)", _has("structural", "W")),
    ("structural", "has O (order by)", _has("structural", "O")),  # not the O of SO
    ("structural", "has SO (set operator)", _has("structural", "SO")),
    ("operators", "has J (join)", _has("operators", "J")),
    ("operators", "has Ag (aggregate)", _has("operators", "Ag")),
    ("reasoning", "needs subtraction", _has("reasoning", "subtraction")),
    ("reasoning", "needs commonsense", _has("reasoning", "commonsense")),
]


@pytest.mark.parametrize(("facet", "option", "check"), MEMBERSHIP_CHECKS, ids=lambda x: str(x)[:24])
def test_a_membership_option_selects_every_combination_containing_the_part(
    frame: pl.DataFrame, facet: str, option: str, check: pl.Expr
) -> None:
    prepared = facets.prepare(frame)
    want = frame.filter(check)
    assert 0 < want.height < frame.height, "the sample must have rows with and without the part"
    got = facets.apply(prepared, facets.Filters().toggled(facet, option))
    assert got.select("index", "model").equals(want.select("index", "model"))
    index = facets.FacetIndex(prepared)
    rows = prepared.with_row_index("_row").filter(check).get_column("_row").to_list()
    assert index.rows(facets.Filters().toggled(facet, option)).tolist() == rows
    assert len(set(want.get_column(facet).to_list())) > 1, "the option stands for several combinations"
    counts = dict(index.counts(facets.Filters())[facets.membership_key(facet)])
    assert counts[option] == want.height


def test_membership_and_combinations_in_one_facet_are_ored(frame: pl.DataFrame) -> None:
    """Every option of a facet is OR-ed, a membership option like any other; facets are AND-ed."""
    prepared = facets.prepare(frame)
    model = frame.get_column("model")[0]
    f = (
        facets.Filters()
        .toggled("operators", "has J (join)")
        .toggled("operators", "Ag")
        .toggled("structural", "has W (where)")
        .toggled("structural", "has G (group by)")
        .toggled("model", model)
    )
    want = frame.filter(
        (_has("operators", "J") | (pl.col("operators") == "Ag"))
        & (_has("structural", "W") | _has("structural", "G"))
        & (pl.col("model") == model)
    )
    assert want.height > 0
    assert facets.apply(prepared, f).height == want.height
    assert len(facets.FacetIndex(prepared).rows(f)) == want.height
    assert "operators=Ag|has J (join)" in f.describe()


def test_membership_counts_are_live(frame: pl.DataFrame) -> None:
    """A membership option's count is the rows choosing it alone would give under every other filter."""
    prepared = facets.prepare(frame)
    index = facets.FacetIndex(prepared)
    f = (
        facets.Filters()
        .toggled("outcome", "EX fail")
        .toggled("structural", "has W (where)")
        .toggled("operators", "has Ag (aggregate)")
        .with_search("name")
    )
    counts = index.counts(f)
    assert counts == facets.facet_counts(prepared, f)
    for facet in facets.MEMBERSHIP_FACETS:
        listed = counts[facets.membership_key(facet)]
        if facet in (
            "annotators",
            "gold_flags",
        ):  # none under this filter (test_team, test_judgement cover them)
            continue
        assert listed, facet
        for option, n in listed:
            chosen = facets.Filters(
                {k: v for k, v in f.selected.items() if k != facet} | {facet: frozenset({option})}, f.search
            )
            assert n == facets.apply(prepared, chosen).height, (facet, option)
        # the combination list keeps the combinations only, the chosen option listed with its own kind
        assert not [v for v, _ in counts[facet] if facets.membership_part(facet, v) is not None]
    assert ("has W (where)", dict(counts["structural:membership"])["has W (where)"]) in counts[
        "structural:membership"
    ]


def test_membership_names_cover_every_code() -> None:
    """Each structural letter and operator type the categories define has a readable option."""
    from sqltriage.core.questions.reasoning import REASONING_NAMES, Reasoning, reasoning_label
    from sqltriage.core.sql.categories import OPERATOR_TYPES, STRUCTURAL_LETTERS

    for facet, codes in (("structural", STRUCTURAL_LETTERS), ("operators", OPERATOR_TYPES)):
        for code in codes:
            label = facets.membership_label(facet, code)
            assert label.startswith(f"has {code} (") and label.endswith(")"), label
            assert facets.membership_part(facet, label) == code
    for name in REASONING_NAMES.values():
        assert facets.membership_part("reasoning", f"needs {name}") == name
    # the inferred form reasoning_label writes is read back into its parts, marked inferred
    inferred = reasoning_label(Reasoning(("division", "subtraction"), True, False, None))
    assert facets.parts_of("reasoning", [inferred, "addition commonsense", facets.NONE_VALUE]) == [
        ["division (inferred)", "subtraction (inferred)"],
        ["addition", "commonsense"],
        [],
    ]
    assert facets.membership_label("reasoning", "division (inferred)") == "needs division (inferred)"
    assert facets.membership_part("structural", "S F W") is None


def test_export_where_has_is_the_membership_option(frame: pl.DataFrame) -> None:
    """`--where "structural has O"` picks the rows the app's "has O (order by)" does; `~O` is text search."""
    from sqltriage.core.errors import UsageError
    from sqltriage.core.reporting.export import apply_filters

    prepared = facets.prepare(frame)
    for where, facet, option in (
        ("structural has O", "structural", "has O (order by)"),
        ("operators has J", "operators", "has J (join)"),
        ("reasoning has subtraction", "reasoning", "needs subtraction"),
    ):
        got = apply_filters(frame, [where]).select("index", "model")
        want = facets.apply(prepared, facets.Filters().toggled(facet, option)).select("index", "model")
        assert got.equals(want) and got.height > 0, where
    # `~` is a substring test: O is also in SO, so a set operation without ORDER BY passes it
    contains = apply_filters(frame, ["structural~O"]).height
    assert contains > apply_filters(frame, ["structural has O"]).height
    assert apply_filters(frame, ["structural has W", "structural has G"]).height == (
        frame.filter(_has("structural", "W") & _has("structural", "G")).height
    )
    with pytest.raises(UsageError, match="has"):
        apply_filters(frame, ["question has J"])


def test_mini_dev_metrics_facet_in_their_own_bins() -> None:
    """soft F1 keeps 0 and 1 apart from the partial scores; R-VES shows the reward bucket of each row."""
    from sqltriage.core.reporting.facet_text import facet_text

    frame = pl.DataFrame(
        {"soft_f1": [0.0, 0.3, 0.5, 0.99, 1.0, None], "r_ves": [0.0, 0.25, 0.5, 0.75, 1.0, 1.25]}
    )
    shown = frame.select(facet_text(frame, "soft_f1").alias("f"), facet_text(frame, "r_ves").alias("r"))
    assert shown.get_column("f").to_list() == ["0", "0 – 0.5", "0.5 – 1", "0.5 – 1", "1", None]
    assert shown.get_column("r").to_list() == ["0", "0.25", "0.5", "0.75", "1", "1.25"]
    assert ("soft_f1", "soft F1 (Mini-Dev)") in facets.FACETS
