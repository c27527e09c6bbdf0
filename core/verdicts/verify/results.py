"""The formula "the two results differ", in the EX mode's sense of the same result.

`spider`: bags of rows, compared position by position when the gold sorts (two results of different
widths differ unless both are empty); `bird`: sets of rows. Columns are compared in the order written,
which is stricter than Spider's matching of columns in any order: a pair that differs only by column
order is refuted here, then re-run in SQLite, where the EX comparison itself decides.
"""

from __future__ import annotations

from typing import Any

import sqltriage.core.verdicts.verify.symbolic as s
from sqltriage.core.verdicts.verify.relation import Encoding, Rel


def differ(enc: Encoding, gold: Rel, pred: Rel, mode: str, ordered: bool) -> Any:
    some = [c for c, _ in gold.rows + pred.rows]
    if len(gold.names) != len(pred.names):
        return s.or_(*some) if some else s.FALSE
    if mode == "spider":
        pred = _reordered(pred, column_order(gold.heads, pred.heads))
    if mode == "bird":
        return s.or_(_missing(gold, pred), _missing(pred, gold))
    if ordered:
        return _ordered_differ(enc, gold, pred)
    return _bags_differ(enc, gold, pred)


def tie_blind(gold: Rel, pred: Rel) -> bool:
    """Whether `differ_beyond_ties` applies: the gold sorts without LIMIT/OFFSET, and the prediction either
    sorts without them too or does not sort. A cut (LIMIT, OFFSET) through tied rows changes *which* rows
    come back, not only their order: that stays a difference."""
    return gold.keys is not None and (pred.keys is not None or pred.ranks is None)


def differ_beyond_ties(enc: Encoding, gold: Rel, pred: Rel) -> Any:
    """The ordered results differ in more than how ties fall: their sizes differ, or some row with its block
    of positions (aggregate.sort_blocks) occurs a different number of times in the two. Unsatisfiable means
    that on every database the two admit the same lists (each row free within its block, as SQL leaves
    it): the same query as SQL defines it, though SQLite may break ties differently for each."""
    from sqltriage.core.verdicts.verify.aggregate import sort_blocks

    if len(gold.names) != len(pred.names):
        some = [c for c, _ in gold.rows + pred.rows]
        return s.or_(*some) if some else s.FALSE
    pred = _reordered(pred, column_order(gold.heads, pred.heads))
    g = [
        (c, (*v, s.Val("int", lo, s.FALSE), s.Val("int", n, s.FALSE)))
        for (c, v), (lo, n) in zip(gold.rows, sort_blocks(gold.rows, gold.keys), strict=True)
    ]
    p = [
        (c, (*v, s.Val("int", lo, s.FALSE), s.Val("int", n, s.FALSE)))
        for (c, v), (lo, n) in zip(pred.rows, sort_blocks(pred.rows, pred.keys), strict=True)
    ]
    return _bags_differ(enc, _rel_of(gold, g), _rel_of(pred, p))


def _rel_of(rel: Rel, rows: list) -> Rel:
    return Rel(rows, [*rel.names, "#before", "#tied"], heads=[*rel.heads, "#before", "#tied"])


def column_order(gold: list[str], pred: list[str]) -> list[int]:
    """For each gold column, the prediction's column that computes the same thing (`count(*)` ↔ `count(*)`,
    then the same function or column name), the rest in order. Spider's comparison accepts any column
    order; proving equality under this one is enough for `verified`."""
    if len(gold) != len(pred) or gold == pred:
        return list(range(len(gold)))
    order: list[int | None] = [None] * len(gold)
    free = list(range(len(pred)))
    for same_head in (lambda a, b: a == b, lambda a, b: a.split("(", 1)[0] == b.split("(", 1)[0]):
        for i, g in enumerate(gold):
            if order[i] is None:
                j = next((j for j in free if same_head(g, pred[j])), None)
                if j is not None:
                    order[i] = j
                    free.remove(j)
    for i in range(len(gold)):
        if order[i] is None:
            order[i] = free.pop(0)
    return [j for j in order if j is not None]


def _reordered(rel: Rel, order: list[int]) -> Rel:
    if order == list(range(len(order))):
        return rel
    rows = [(c, tuple(v[j] for j in order)) for c, v in rel.rows]
    heads = [rel.heads[j] for j in order]
    return Rel(rows, [rel.names[j] for j in order], rel.ranks, rel.single, heads, rel.keys)


def _bags_differ(enc: Encoding, gold: Rel, pred: Rel) -> Any:
    """Two bags differ iff their sizes differ or some gold row occurs a different number of times in each.
    That row is a fresh witness equal (NULL-safely) to some present gold row: linear in the rows where
    comparing every row's counts is quadratic, and the solver finds it several times faster."""
    if not gold.rows:
        return s.or_(*[c for c, _ in pred.rows]) if pred.rows else s.FALSE
    size = _size(gold) != _size(pred)
    kinds = tuple(v.kind for v in gold.rows[0][1])
    if any(tuple(x.kind for x in v) != kinds for _, v in gold.rows):  # rows of mixed sorts: compare them all
        return s.or_(*[s.and_(c, _count(gold, v) != _count(pred, v)) for c, v in gold.rows + pred.rows])
    w = tuple(s.NULL if k == "null" else s.fresh(k, enc.name("witness")) for k in kinds)
    in_gold = [s.and_(c, s.same_row(w, v)) for c, v in gold.rows]  # its gold occurrences, counted too
    return s.or_(size, s.and_(s.or_(*in_gold), s.count_of(in_gold) != _count(pred, w)))


def _size(rel: Rel) -> Any:
    return s.count_of([c for c, _ in rel.rows])


def _count(rel: Rel, v: tuple) -> Any:
    return s.count_of([s.and_(c, s.same_row(w, v)) for c, w in rel.rows])


def _missing(a: Rel, b: Rel) -> Any:
    """Some row of `a` is nowhere in `b`."""
    out = []
    for c, v in a.rows:
        found = s.or_(*[s.and_(cb, s.same_row(w, v)) for cb, w in b.rows]) if b.rows else s.FALSE
        out.append(s.and_(c, s.not_(found)))
    return s.or_(*out) if out else s.FALSE


def _ordered_differ(enc: Encoding, gold: Rel, pred: Rel) -> Any:
    from sqltriage.core.verdicts.verify.aggregate import ranks

    g_ranks = gold.ranks if gold.ranks is not None else ranks(enc, gold.rows, None)
    p_ranks = pred.ranks if pred.ranks is not None else ranks(enc, pred.rows, None)
    n_gold = s.count_of([c for c, _ in gold.rows])
    n_pred = s.count_of([c for c, _ in pred.rows])
    clash = [
        s.and_(cg, cp, rg == rp, s.not_(s.same_row(vg, vp)))
        for (cg, vg), rg in zip(gold.rows, g_ranks, strict=True)
        for (cp, vp), rp in zip(pred.rows, p_ranks, strict=True)
    ]
    return s.or_(n_gold != n_pred, *clash)
