"""Symbolic SQL values and SQL's three-valued logic over z3 terms.

A value is a z3 term of one sort (`int` → Int, `real` → Real, `str` → String, or Int under an
order-preserving code while `encode_text_as_integers` holds one, text_codes.py) and a Boolean saying it is
NULL; a condition is a pair (holds, fails): neither means UNKNOWN, which is how NULL spreads through
comparisons, AND, OR and NOT. Numbers of both sorts compare after widening to Real; text compares with
text (z3's `str.<` is the code point order, which is the byte order SQLite's BINARY collation uses on
UTF-8). What SQLite would need affinity rules beyond these for is refused with `Unsupported`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import z3

from sqltriage.core.verdicts.verify.text_codes import NeedsStrings, TextCodes


class Unsupported(Exception):
    """A construct outside the encoded fragment: the pair's verdict is `unknown` with this message."""


@dataclass(frozen=True, slots=True)
class Val:
    kind: str  # "int" | "real" | "str" | "null" (the literal NULL, of no sort)
    v: Any  # z3 term (None for "null")
    null: Any  # z3 Bool
    # SQLite's affinity of a text value, which decides how it compares with numbers (`compare`): "text"
    # (a TEXT column; also taken for the expressions encoded before affinities were), "numeric" (text read
    # straight from a column of NUMERIC, INTEGER or REAL affinity, as a DATE column), "none" (a function's
    # result, as STRFTIME's). Meaningless for numbers.
    affinity: str = "text"
    shape: str | None = None

    @property
    def numeric(self) -> bool:
        return self.kind in ("int", "real")


@dataclass(frozen=True, slots=True)
class Tri:
    t: Any  # z3 Bool: the condition is TRUE
    f: Any  # z3 Bool: the condition is FALSE


TRUE, FALSE = z3.BoolVal(True), z3.BoolVal(False)
NULL = Val("null", None, TRUE)

# The code text is encoded with, for the pair being checked (None: z3's strings). Module state because the
# constructors below are called from everywhere in the encoding; one pair at a time per process.
_text: TextCodes | None = None


def encode_text_as_integers(codes: TextCodes | None) -> None:
    global _text
    _text = codes


def text_codes() -> TextCodes | None:
    return _text


def needs_strings(what: str) -> None:
    """Called where a construct needs z3's strings: under the integer code, the pair is encoded again."""
    if _text is not None:
        raise NeedsStrings(what)


# z3's own And/Or/Not coerce and check every argument in Python, which dominated the encoding time; these
# build the same terms through the C API and fold the constants TRUE and FALSE (NOT NULL columns have a NULL
# flag of FALSE, so most NULL logic folds away before z3 sees it).
def and_(*xs: Any) -> Any:
    return _fold(xs, absorbing=FALSE, neutral=TRUE, make=z3.Z3_mk_and)


def or_(*xs: Any) -> Any:
    return _fold(xs, absorbing=TRUE, neutral=FALSE, make=z3.Z3_mk_or)


def _fold(xs: tuple[Any, ...], *, absorbing: Any, neutral: Any, make: Any) -> Any:
    """AND (absorbing FALSE, neutral TRUE) or OR (the other way round) with its constants folded."""
    out = []
    for x in xs:
        if x is absorbing:
            return absorbing
        if x is not neutral:
            out.append(x)
    return neutral if not out else out[0] if len(out) == 1 else _mk(make, out)


def not_(x: Any) -> Any:
    if x is TRUE:
        return FALSE
    if x is FALSE:
        return TRUE
    ctx = x.ctx
    return z3.BoolRef(z3.Z3_mk_not(ctx.ref(), x.as_ast()), ctx)


def implies(a: Any, b: Any) -> Any:
    return or_(not_(a), b)


def _mk(f: Any, xs: list[Any], ref: Any = z3.BoolRef) -> Any:
    """`f` (an n-ary Z3_mk_* of the C API) over `xs`, wrapped as `ref`."""
    ctx = xs[0].ctx
    arr = (z3.Ast * len(xs))()
    for i, x in enumerate(xs):
        arr[i] = x.as_ast()
    return ref(f(ctx.ref(), len(xs), arr), ctx)


_RELATION = {
    "=": z3.Z3_mk_eq,
    "<": z3.Z3_mk_lt,
    "<=": z3.Z3_mk_le,
    ">": z3.Z3_mk_gt,
    ">=": z3.Z3_mk_ge,
}


def relation(op: str, x: Any, y: Any) -> Any:
    """`x op y` for two terms of one sort, through the C API: z3's operators coerce and check both sides
    in Python, which was a good part of the encoding's time. Terms of different sorts take that path."""
    if op == "!=":
        return not_(relation("=", x, y))
    ctx = x.ctx
    try:
        ast = _RELATION[op](ctx.ref(), x.as_ast(), y.as_ast())
    except (z3.Z3Exception, AttributeError):
        return {"=": x == y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    return z3.BoolRef(ast, ctx)


def one_if(c: Any) -> Any:
    """1 when `c` holds, else 0 (an Int term), for counting."""
    ctx = c.ctx
    return z3.ArithRef(z3.Z3_mk_ite(ctx.ref(), c.as_ast(), _ONE.as_ast(), _ZERO.as_ast()), ctx)


_ONE, _ZERO = z3.IntVal(1), z3.IntVal(0)


def count_of(conds: list[Any]) -> Any:
    """How many of `conds` hold (an Int term): z3.Sum checks and coerces every term in Python."""
    if not conds:
        return _ZERO
    terms = [one_if(c) for c in conds]
    return terms[0] if len(terms) == 1 else _mk(z3.Z3_mk_add, terms, z3.ArithRef)


def null_of(v: Val) -> Val:
    """A NULL of `v`'s sort (a LEFT JOIN's padding)."""
    return Val(v.kind, v.v, TRUE) if v.kind != "null" else NULL


def real_val(x: float) -> Any:
    num, den = float(x).as_integer_ratio()
    return z3.Q(num, den)


def const(value: object) -> Val:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return Val("int", z3.IntVal(int(value)), FALSE)
    if isinstance(value, int):
        return Val("int", z3.IntVal(value), FALSE)
    if isinstance(value, float):
        return Val("real", real_val(value), FALSE)
    if _text is not None:
        return Val("str", z3.IntVal(_text.code(str(value))), FALSE)
    return Val("str", z3.StringVal(str(value)), FALSE)


def text_of(x: Val) -> str:
    """The Python text of a text constant."""
    value = z3.simplify(x.v)
    return _text.text(value.as_long()) if _text is not None else value.as_string()


def fresh(kind: str, name: str) -> Val:
    text_sort = z3.IntSort() if _text is not None else z3.StringSort()
    sort = {"int": z3.IntSort(), "real": z3.RealSort(), "str": text_sort}[kind]
    return Val(kind, z3.Const(name, sort), z3.Bool(name + "?"))


def tri_and(a: Tri, b: Tri) -> Tri:
    return Tri(and_(a.t, b.t), or_(a.f, b.f))


def tri_or(a: Tri, b: Tri) -> Tri:
    return Tri(or_(a.t, b.t), and_(a.f, b.f))


def tri_not(a: Tri) -> Tri:
    return Tri(a.f, a.t)


def tri_const(value: bool) -> Tri:
    return Tri(TRUE, FALSE) if value else Tri(FALSE, TRUE)


def _real(x: Val) -> Any:
    return z3.ToReal(x.v) if x.kind == "int" else x.v


def _numeric_text(s: str) -> int | float | None:
    try:
        return int(s)
    except ValueError:
        try:
            return float(s)
        except ValueError:
            return None


def align(a: Val, b: Val, a_literal: bool = False, b_literal: bool = False) -> tuple[Val, Val]:
    """Two values brought to one comparable sort, SQLite's affinity rules for the common cases: a text
    literal compared with a number column is read as a number, a number literal with a text column as text."""
    if a.kind == "null" or b.kind == "null" or a.kind == b.kind:
        return a, b
    if a.numeric and b.numeric:
        return Val("real", _real(a), a.null), Val("real", _real(b), b.null)
    if b_literal and a.numeric and b.kind == "str":
        return align(a, _literal_as_number(b), False, True)
    if a_literal and b.numeric and a.kind == "str":
        return align(_literal_as_number(a), b, True, False)
    if b_literal and a.kind == "str" and b.numeric:
        return a, _literal_as_text(b)
    if a_literal and b.kind == "str" and a.numeric:
        return _literal_as_text(a), b
    raise Unsupported("comparison of text with a number")


def _text_number(x: Val) -> int | float | None:
    return _numeric_text(text_of(x).strip())


def _literal_as_number(x: Val) -> Val:
    text = text_of(x)
    number = _numeric_text(text.strip())
    if number is None:
        raise Unsupported("comparison of a number with non-numeric text")
    return const(number)


def _literal_as_text(x: Val) -> Val:
    value = z3.simplify(x.v)
    if x.kind == "int":
        return const(str(value.as_long()))
    raise Unsupported("comparison of text with a real literal")


def compare(op: str, a: Val, b: Val, a_literal: bool = False, b_literal: bool = False) -> Tri:
    if a.kind == "null" or b.kind == "null":
        return Tri(FALSE, FALSE)
    by_affinity = _by_affinity(op, a, b, a_literal, b_literal)
    if by_affinity is not None:
        return by_affinity
    mixed = {a.kind, b.kind}
    if "str" in mixed and mixed & {"int", "real"}:
        text, text_literal = (a, a_literal) if a.kind == "str" else (b, b_literal)
        if not (a_literal or b_literal) or (text_literal and _text_number(text) is None):
            return _text_with_number(op, a, b)  # text that is no number stays text: after every number
    a, b = align(a, b, a_literal, b_literal)
    known = and_(not_(a.null), not_(b.null))
    x, y = a.v, b.v
    holds = relation(op, x, y)
    return Tri(and_(known, holds), and_(known, not_(holds)))


_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_SQLITE_NUMBER = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")


def _by_affinity(op: str, a: Val, b: Val, a_literal: bool, b_literal: bool) -> Tri | None:
    """A comparison where text of NUMERIC affinity or of none takes part, as SQLite's affinity rules
    decide it (section 4.2 of its datatype page); None: the usual rules below apply."""
    for x, y, y_literal, o in ((a, b, b_literal, op), (b, a, a_literal, _FLIP[op])):
        if x.kind == "str" and x.affinity == "numeric" and not (y.kind == "str" and y.affinity == "numeric"):
            return _numeric_column_text(o, x, y, y_literal)
    for x, y, x_literal, y_literal, o in (
        (a, b, a_literal, b_literal, op),
        (b, a, b_literal, a_literal, _FLIP[op]),
    ):
        if x.kind == "str" and x.affinity == "none" and not x_literal and y.numeric:
            # A number column gives the text NUMERIC affinity first: text that reads as an integer compares
            # as that number (text that reads as no number, as a date, sorts after it). A number without
            # affinity (a literal, arithmetic, an aggregate) converts nothing: text sorts after numbers.
            if y.affinity == "numeric" and not y_literal and x.shape not in ("date", "datetime"):
                return _text_with_number(o, x, y)
            return _text_after_number(o, x, y)
    return None


def _text_after_number(op: str, text: Val, number: Val) -> Tri:
    """`text op number` where SQLite compares them as they are: every text sorts after every number."""
    known = and_(not_(text.null), not_(number.null))
    holds = TRUE if op in ("!=", ">", ">=") else FALSE
    return Tri(and_(known, holds), and_(known, not_(holds)))


def _numeric_column_text(op: str, x: Val, y: Val, y_literal: bool) -> Tri:
    """Text of a NUMERIC-affinity column (never number-like: SQLite would have stored it as a number)
    against a value without that affinity. SQLite applies NUMERIC affinity to the other side first, so a
    number, or text that reads as one, compares as a number, after which the column's text sorts; text
    that reads as no number compares as text. Other text that may or may not read as a number: refused."""
    if y.numeric or (y_literal and y.kind == "str" and _SQLITE_NUMBER.fullmatch(text_of(y))):
        return _text_after_number(op, x, y)
    if y.kind == "str" and y.shape == "digits":
        return _text_after_number(op, x, y)
    if y.kind == "str" and (y_literal or y.shape in ("date", "datetime")):
        return compare(op, Val("str", x.v, x.null), Val("str", y.v, y.null), False, y_literal)
    raise Unsupported("a DATE (NUMERIC affinity) column compared with text that may read as a number")


def _text_with_number(op: str, a: Val, b: Val) -> Tri:
    """A text column compared with a number column: SQLite gives the text numeric affinity, so text that is
    an integer compares as that integer, and any other text sorts after every number."""
    if a.kind != "str":
        return _text_with_number(_FLIP[op], b, a)
    needs_strings("text compared with a number column")
    digits = z3.Plus(z3.Range("0", "9"))
    is_number = z3.InRe(a.v, digits)
    n = z3.StrToInt(a.v)
    x, y = (n, b.v) if b.kind == "int" else (z3.ToReal(n), b.v)
    as_number = {"=": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
    as_text = TRUE if op in ("!=", ">", ">=") else FALSE  # text > any number
    holds = z3.If(is_number, as_number, as_text)
    known = and_(not_(a.null), not_(b.null))
    return Tri(and_(known, holds), and_(known, not_(holds)))


def same(a: Val, b: Val) -> Any:
    """NULL-safe sameness of two result values, as Python's `==` on fetched rows sees it (1 == 1.0, None ==
    None, text never equals a number): what result comparison, DISTINCT, GROUP BY and set operations use."""
    if a.kind == "null" and b.kind == "null":
        return TRUE
    if a.kind == "null":
        return b.null
    if b.kind == "null":
        return a.null
    both_null = and_(a.null, b.null)
    if a.kind != b.kind and not (a.numeric and b.numeric):
        return both_null
    x, y = (a.v, b.v) if a.kind == b.kind else (_real(a), _real(b))
    return or_(both_null, and_(not_(a.null), not_(b.null), relation("=", x, y)))


def same_row(a: tuple[Val, ...], b: tuple[Val, ...]) -> Any:
    if len(a) != len(b):
        return FALSE
    return and_(*[same(x, y) for x, y in zip(a, b, strict=True)]) if a else TRUE


def before(a: Val, b: Val) -> Any:
    """`a` sorts strictly before `b` ascending, as SQLite orders: NULL first, numbers before text."""
    if a.kind == "null":
        return not_(b.null) if b.kind != "null" else FALSE
    if b.kind == "null":
        return FALSE
    if a.kind == b.kind or (a.numeric and b.numeric):
        x, y = (a.v, b.v) if a.kind == b.kind else (_real(a), _real(b))
        return or_(and_(a.null, not_(b.null)), and_(not_(a.null), not_(b.null), relation("<", x, y)))
    text_first = a.kind == "str"  # numbers sort before text
    return or_(and_(a.null, not_(b.null)), and_(not_(a.null), not_(b.null), FALSE if text_first else TRUE))


def arith(op: str, a: Val, b: Val) -> Val:
    if a.kind == "null" or b.kind == "null":
        return NULL
    if op != "||":  # text of digits alone (STRFTIME('%Y', …)) reads as that integer in arithmetic
        a, b = _digits_as_int(a), _digits_as_int(b)
    if not (a.numeric and b.numeric):
        if op == "||" and a.kind == "str" and b.kind == "str":
            needs_strings("||")
            return Val("str", z3.Concat(a.v, b.v), or_(a.null, b.null), "none")  # no affinity, as in SQLite
        raise Unsupported(f"arithmetic {op} on text")
    null = or_(a.null, b.null)
    kind = "int" if a.kind == b.kind == "int" else "real"
    x, y = (a.v, b.v) if kind == "int" else (_real(a), _real(b))
    if op == "+":
        return Val(kind, x + y, null)
    if op == "-":
        return Val(kind, x - y, null)
    if op == "*":
        return Val(kind, x * y, null)
    if op in ("/", "%"):
        zero = y == (0 if kind == "int" else z3.RealVal(0))
        if kind == "real":
            if op == "%":
                raise Unsupported("% on real numbers")
            return Val("real", z3.If(zero, z3.RealVal(0), x / y), or_(null, zero))
        # SQLite truncates integer division toward zero; z3's div rounds toward minus infinity.
        q = z3.If(x >= 0, 1, -1) * z3.If(y >= 0, 1, -1) * (z3.Abs(x) / z3.Abs(y))
        q = z3.If(zero, 0, q)
        if op == "/":
            return Val("int", q, or_(null, zero))
        return Val("int", z3.If(zero, 0, x - y * q), or_(null, zero))
    raise Unsupported(f"operator {op}")


def _digits_as_int(a: Val) -> Val:
    if a.kind != "str" or a.shape != "digits":
        return a
    needs_strings("arithmetic on text")
    return Val("int", z3.StrToInt(a.v), a.null)


def negate(a: Val) -> Val:
    if a.kind == "null":
        return NULL
    if not a.numeric:
        raise Unsupported("minus on text")
    return Val(a.kind, -a.v, a.null)


def tri_value(c: Tri) -> Val:
    """A condition used as a value: 1, 0 or NULL, as SQLite returns it."""
    return Val("int", z3.If(c.t, 1, 0), and_(not_(c.t), not_(c.f)))


def truthy(a: Val) -> Tri:
    """A value used as a condition: non-zero numbers are true; text is refused (SQLite reads its prefix)."""
    if a.kind == "null":
        return Tri(FALSE, FALSE)
    if not a.numeric:
        raise Unsupported("text used as a condition")
    zero = a.v == 0
    return Tri(and_(not_(a.null), not_(zero)), and_(not_(a.null), zero))


def ite(c: Any, a: Val, b: Val) -> Val:
    """`c ? a : b` over values of one sort (numbers are widened, NULL takes the other's sort). Text of a
    CASE, COALESCE, MIN or MAX has no affinity in SQLite (`CASE … THEN s END = 2010` is false for the text
    '2010'); a date stays a date when both sides are."""
    if a.kind == "null" and b.kind == "null":
        return NULL
    if a.kind == "null":
        return Val(b.kind, b.v, or_(c, b.null), "none", b.shape)
    if b.kind == "null":
        return Val(a.kind, a.v, or_(not_(c), a.null), "none", a.shape)
    if a.kind != b.kind:
        if not (a.numeric and b.numeric):
            raise Unsupported("CASE mixing text and numbers")
        return Val("real", z3.If(c, _real(a), _real(b)), z3.If(c, a.null, b.null))
    shape = a.shape if a.shape == b.shape else None
    return Val(a.kind, z3.If(c, a.v, b.v), z3.If(c, a.null, b.null), "none", shape)


def widened(a: Val) -> Any:
    return _real(a)
