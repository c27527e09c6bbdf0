"""The display labels of model names: distinct whenever the names are, and within the width."""

from __future__ import annotations

import pytest

from sqltriage.tui.widgets.names import short_labels

from .test_model_names import STUDY


@pytest.mark.parametrize("width", [8, 12, 15, 16, 20, 30])
def test_labels_are_distinct_and_fit(width: int) -> None:
    labels = short_labels(STUDY, width)
    assert set(labels) == set(STUDY)
    assert len(set(labels.values())) == len(STUDY)
    assert all(len(label) <= width for label in labels.values())
    for name, label in labels.items():
        if len(name) <= width:
            assert label == name  # a name that fits is shown whole
        else:
            head, _, tail = label.partition("…")
            assert name.startswith(head) and name.endswith(tail), (name, label)  # the start and the end


def test_labels_keep_the_distinguishing_end() -> None:
    labels = short_labels(STUDY, 16)
    assert labels["nl2sql360_SFT_CodeLlama-7B"].endswith("-7B")
    assert labels["nl2sql360_SFT_CodeLlama-13B"].endswith("-13B")
    assert labels["nl2sql360_SFT_Coder-1.3B"].endswith("-1.3B")
    assert labels["dinsql_gpt4"] == "dinsql_gpt4"


def test_names_differing_only_in_the_middle_stay_distinct() -> None:
    names = [f"experiment_2024_{m:02d}_run1_beam4_final" for m in range(1, 13)] + ["experiment_2024"]
    for width in (10, 16, 24):
        labels = short_labels(names, width)
        assert len(set(labels.values())) == len(names), labels
        assert all(len(label) <= width for label in labels.values())
    labels = short_labels(names, 24)
    assert "05" in labels["experiment_2024_05_run1_beam4_final"]  # the part that tells them apart is shown


@pytest.mark.parametrize("width", [4, 5, 6, 8])
def test_narrow_widths_still_tell_names_apart(width: int) -> None:
    """Down to 4 characters, falling back on the stretch where names part, then on a number."""
    names = [f"aaaaaaaaaaaaaaaa{c}bbbbbbbbbbbbbbbbbbb" for c in "xyz"] + ["aa…1", "ab"]
    labels = short_labels(names, width)
    assert len(set(labels.values())) == len(names), labels
    assert all(len(label) <= width for label in labels.values())
    with pytest.raises(ValueError):
        short_labels(names, 3)
