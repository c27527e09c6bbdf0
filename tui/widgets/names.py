"""Display labels of model names in a fixed width: cut in the middle, distinct whenever the names are.

A study's models often share a long prefix (`nl2sql360_SFT_CodeLlama-7B`, `nl2sql360_SFT_CodeLlama-13B`)
and differ at the end, so cutting the end off makes them read alike. A label keeps the start and as
much of the end as fits (`nl2sql…Llama-13B`); the split is chosen for the whole set, so that every label
differs. The examples table, the facet sidebar and the summary charts all label models this way.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

ELLIPSIS = "…"
MIN_WIDTH = 4


def short_labels(names: Iterable[str], width: int) -> dict[str, str]:
    """Name → label of at most `width` characters; labels differ whenever names do.

    A name that fits is its own label. Longer names keep their start and their end around "…", one split
    for the whole set, tail-heavy by preference (sizes and versions sit at the end). When no such split
    tells them apart (names that differ only in their middle), a label shows where its name departs from
    the others instead, and as a last resort ends in a number.
    """
    if width < MIN_WIDTH:
        raise ValueError(f"model labels need {MIN_WIDTH} characters or more, not {width}")
    unique = list(dict.fromkeys(names))
    labels = {n: n for n in unique if len(n) <= width}
    long = [n for n in unique if len(n) > width]
    if not long:
        return labels
    fitting = set(labels.values())
    preferred = max(1, (width - 1) * 2 // 5)
    for head in _heads(width, preferred):
        cut = {n: _cut(n, head, width) for n in long}
        if _distinct(cut, fitting):
            return labels | cut
    cut = {n: _cut(n, preferred, width) for n in long}
    for group in _clashes(cut, fitting):
        cut |= _windows(group, preferred, width)
    if not _distinct(cut, fitting):
        cut = _numbered(cut, fitting, width)
    return labels | cut


def _heads(width: int, preferred: int) -> list[int]:
    """Head lengths to try: the preferred one, longer tails first, then longer heads."""
    room = width - 1
    return [*range(preferred, 0, -1), *range(preferred + 1, room)]


def _cut(name: str, head: int, width: int) -> str:
    tail = width - 1 - head
    return name[:head] + ELLIPSIS + (name[-tail:] if tail else "")


def _distinct(cut: Mapping[str, str], fitting: set[str]) -> bool:
    values = list(cut.values())
    return len(set(values)) == len(values) and not fitting.intersection(values)


def _clashes(cut: Mapping[str, str], fitting: set[str]) -> list[list[str]]:
    """Groups of names whose labels are alike (or equal to a name shown whole)."""
    counts = Counter(cut.values())
    groups: dict[str, list[str]] = {}
    for name, label in cut.items():
        if counts[label] > 1 or label in fitting:
            groups.setdefault(label, []).append(name)
    return list(groups.values())


def _windows(group: list[str], head: int, width: int) -> dict[str, str]:
    """Start … the stretch where the group's names part … : `exper…05_run1_b…`."""
    if len(group) < 2:
        return {}
    common = 0
    shortest = min(len(n) for n in group)
    while common < shortest and len({n[common] for n in group}) == 1:
        common += 1
    span = width - 2 - head  # characters between the two ellipses
    if span < 1:
        return {}
    start = max(head, common - min(2, span - 1))  # up to two characters before the difference
    out = {}
    for name in group:
        stretch = name[start : start + span]
        rest = name[start + span :]
        out[name] = name[:head] + ELLIPSIS + stretch + (ELLIPSIS if rest else "")
    return out


def _numbered(cut: Mapping[str, str], fitting: set[str], width: int) -> dict[str, str]:
    """Labels still alike end in 1, 2, …, each new label checked against all the others."""
    out = dict(cut)
    counts = Counter(out.values())
    unique = {label for label in out.values() if counts[label] == 1 and label not in fitting}
    taken = fitting | unique
    number = 0
    for name, label in list(out.items()):
        if label in unique:
            continue
        while True:
            number += 1
            tag = str(number)
            if len(tag) + 2 > width:
                raise ValueError(f"{len(out)} names do not fit {width} characters apart")
            candidate = name[: width - 1 - len(tag)] + ELLIPSIS + tag
            if candidate not in taken:
                break
        out[name] = candidate
        taken.add(candidate)
    return out
