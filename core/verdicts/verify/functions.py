"""SQLite's scalar functions on text, dates and numbers, each with SQLite's own semantics or refused.

STRFTIME, DATE and DATETIME read a value only when it is known to be a valid ISO date of one shape (a
column tables.py gives a shape, or another date function's result): SQLite then reads the fields as written,
so each format field is a substring. SUBSTR, INSTR and LENGTH follow func.c on characters. ROUND is a
function of its argument, rounding to the nearest multiple of 10^-n; an exact half may fall either way (the
double SQLite holds may lie on either side of it), so such a difference is only ever a refutation, run in
SQLite before it is believed. CAST of text to a number reads a string of digits as that number and any
other text as some number, the same for the same text. Called on literals alone, a function is evaluated by
SQLite itself.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import z3
from sqlglot import exp

import sqltriage.core.verdicts.verify.symbolic as s
from sqltriage.core.verdicts.verify.relation import Ctx, Encoding
from sqltriage.core.verdicts.verify.symbolic import Unsupported, Val

# Where each STRFTIME field sits in an ISO date (offset, width); fields of a time read "00" in a date.
_FIELDS = {"Y": (0, 4), "m": (5, 2), "d": (8, 2), "H": (11, 2), "M": (14, 2), "S": (17, 2)}
_SHAPE_OF_FORMAT = {"%Y-%m-%d": "date", "%Y-%m-%d %H:%M:%S": "datetime"}
_BIG = 1_000_000_000  # SQLite's SQLITE_LIMIT_LENGTH: SUBSTR without a length takes the rest
ROUND_DIGITS_MAX = 15  # digits after the point ROUND is encoded for (a double holds about 15)


def handled(e: exp.Expression) -> bool:
    """Whether `e` is one of the functions this module encodes."""
    if isinstance(e, exp.Anonymous):
        return e.name.upper() in ("STRFTIME", "DATETIME", "DATE", "JULIANDAY")
    return isinstance(e, exp.TimeToStr | exp.Date | exp.Substring | exp.StrPosition | exp.Length | exp.Round)


def function(enc: Encoding, e: exp.Expression, ctx: Ctx) -> Val:
    if _constant(e):
        return _evaluated(e)
    if isinstance(e, exp.Anonymous) and e.name.upper() in ("STRFTIME", "DATE"):
        raise Unsupported(f"{e.name.upper()} with modifiers")
    if isinstance(e, exp.Anonymous):  # DATETIME, JULIANDAY
        name = e.name.upper()
        if len(e.expressions) != 1:
            raise Unsupported(f"{name} with modifiers")
        arg = enc.value(e.expressions[0], ctx)
        return _datetime(arg) if name == "DATETIME" else julianday(arg)
    if isinstance(e, exp.TimeToStr):
        fmt = e.args.get("format")
        arg = e.this.this if isinstance(e.this, exp.TsOrDsToTimestamp) else e.this
        if not (isinstance(fmt, exp.Literal) and fmt.is_string):
            raise Unsupported("STRFTIME with a format that is not a constant")
        return strftime(fmt.this, enc.value(arg, ctx))
    if isinstance(e, exp.Date):
        if e.expressions or any(v is not None for k, v in e.args.items() if k not in ("this", "expressions")):
            raise Unsupported("DATE with modifiers")
        return _date(enc.value(e.this, ctx))
    if isinstance(e, exp.Substring):
        start, size = e.args.get("start"), e.args.get("length")
        return substr(
            enc.value(e.this, ctx),
            enc.value(start, ctx) if start is not None else s.const(1),
            enc.value(size, ctx) if size is not None else None,
        )
    if isinstance(e, exp.StrPosition):
        if e.args.get("position") is not None or e.args.get("occurrence") is not None:
            raise Unsupported("INSTR with a start")
        return instr(enc.value(e.this, ctx), enc.value(e.args["substr"], ctx))
    if isinstance(e, exp.Length):
        return length(enc.value(e.this, ctx))
    if isinstance(e, exp.Round):
        digits = e.args.get("decimals")
        return round_(enc, enc.value(e.this, ctx), _digits(digits))
    raise Unsupported(type(e).__name__.upper())


def _constant(e: exp.Expression) -> bool:
    """Literals only, and nothing that depends on chance, nor on the clock finer than the day: today's
    date is one constant for both queries (`STRFTIME('%Y', 'now') - STRFTIME('%Y', birthday)`, BIRD's
    age), which is what SQLite gives both unless they run across a midnight."""
    if any(isinstance(n, exp.Column | exp.Select | exp.Subquery | exp.Star) for n in e.walk()):
        return False
    text = e.sql(dialect="sqlite").lower()
    if "random" in text or "localtime" in text:
        return False
    if "now" not in text and "current_" not in text:
        return True
    if isinstance(e, exp.Date):
        return True
    fmt = e.args.get("format") if isinstance(e, exp.TimeToStr) else None
    return isinstance(fmt, exp.Literal) and all(
        part[:1] in ("Y", "m", "d") for part in fmt.this.split("%")[1:]
    )


def _evaluated(e: exp.Expression) -> Val:
    """The function of literals, as SQLite computes it."""
    conn = sqlite3.connect(":memory:")
    try:
        (value,) = conn.execute(f"SELECT {e.sql(dialect='sqlite')}").fetchone()
    except sqlite3.Error as exc:
        raise Unsupported(f"{type(e).__name__.upper()} of constants: {exc}") from exc
    finally:
        conn.close()
    if isinstance(value, bytes):
        raise Unsupported("a constant blob")
    out = s.const(value)
    if not isinstance(value, str):
        return out
    shape = "digits" if value.isascii() and value.isdigit() else _shape_of_text(value)
    return Val(out.kind, out.v, out.null, "none", shape)  # a function's result: no affinity


def _shape_of_text(text: str) -> str | None:
    from sqltriage.core.verdicts.verify.tables import _ISO, _valid_date

    for shape, pattern in _ISO.items():
        if pattern.fullmatch(text) and _valid_date(text):
            return shape
    return None


def _dated(v: Val, what: str) -> str | None:
    """The ISO shape of `v` (None: any text), which a date function reads field by field."""
    if v.kind != "str":
        raise Unsupported(f"{what} of a number")
    s.needs_strings(what)
    return v.shape if v.shape in ("date", "datetime") else None


def _read_as_date(what: str, v: Val, exact: Any, result_shape: str | None) -> Val:
    """`exact(shape)` (the function's value on a valid ISO date of that shape) on a value of known
    shape; on any other text, that when the text is such a date, else what a z3 function of the text
    gives (SQLite reads many more forms, and none: some text or NULL, the same for the same text). The
    latter is wider than SQLite, so it can refute (SQLite then confirms) but never prove a difference away."""
    from sqltriage.core.verdicts.verify.tables import iso_date

    shape = _dated(v, what)
    if shape is not None:
        return Val("str", exact(shape), v.null, "none", result_shape)
    other = z3.Function(f"{what}:other", z3.StringSort(), z3.StringSort())(v.v)
    other_null = z3.Function(f"{what}:null", z3.StringSort(), z3.BoolSort())(v.v)
    is_date, is_datetime = iso_date(v.v, "date"), iso_date(v.v, "datetime")
    term = z3.If(is_date, exact("date"), z3.If(is_datetime, exact("datetime"), other))
    null = s.or_(v.null, z3.And(z3.Not(is_date), z3.Not(is_datetime), other_null))
    return Val("str", term, null, "none", None)


def strftime(fmt: str, v: Val) -> Val:
    if v.kind == "null":
        return s.NULL
    for field in fmt.split("%")[1:]:
        if field[:1] not in ("Y", "m", "d", "H", "M", "S") and field[:1] != "" and not field.startswith("%"):
            raise Unsupported(f"STRFTIME format %{field[:1]}")

    def fields(shape: str) -> Any:
        parts: list[Any] = []
        i = 0
        while i < len(fmt):
            if fmt[i] != "%":
                parts.append(z3.StringVal(fmt[i]))
                i += 1
                continue
            field = fmt[i + 1 : i + 2]
            if field == "%":
                parts.append(z3.StringVal("%"))
            elif field in _FIELDS and (shape == "datetime" or field in "Ymd"):
                parts.append(z3.SubString(v.v, *_FIELDS[field]))
            elif field in ("H", "M", "S"):
                parts.append(z3.StringVal("00"))
            else:
                raise Unsupported(f"STRFTIME format %{field}")
            i += 2
        return z3.StringVal("") if not parts else parts[0] if len(parts) == 1 else z3.Concat(*parts)

    digits_only = fmt.replace("%Y", "").replace("%m", "").replace("%d", "") == "" and fmt != ""
    known = _dated(v, "STRFTIME") is not None
    shape = _SHAPE_OF_FORMAT.get(fmt) or ("digits" if digits_only else None)
    return _read_as_date(f"STRFTIME {fmt}", v, fields, shape if known else None)


def _date(v: Val) -> Val:
    if v.kind == "null":
        return s.NULL

    def exact(shape: str) -> Any:
        return v.v if shape == "date" else z3.SubString(v.v, 0, 10)

    return _read_as_date("DATE", v, exact, "date" if _dated(v, "DATE") else None)


def _datetime(v: Val) -> Val:
    if v.kind == "null":
        return s.NULL

    def exact(shape: str) -> Any:
        return z3.Concat(v.v, z3.StringVal(" 00:00:00")) if shape == "date" else z3.SubString(v.v, 0, 19)

    return _read_as_date("DATETIME", v, exact, "datetime" if _dated(v, "DATETIME") else None)


def julianday(v: Val) -> Val:
    """JULIANDAY(x) of a valid ISO date: the day number of the proleptic Gregorian calendar (Fliegel and
    Van Flandern's formula, in integers) minus a half, plus the time of day, as an exact rational (SQLite
    computes it in milliseconds and divides in doubles: the floating-point caveat of every real). Text of
    no known shape reads as some real number or NULL, the same for the same text."""
    if v.kind == "null":
        return s.NULL

    def exact(shape: str) -> Any:
        year, month, day = (z3.StrToInt(z3.SubString(v.v, i, n)) for i, n in ((0, 4), (5, 2), (8, 2)))
        a = (14 - month) / 12
        y, m = year + 4800 - a, month + 12 * a - 3
        jdn = day + (153 * m + 2) / 5 + 365 * y + y / 4 - y / 100 + y / 400 - 32045
        days = z3.ToReal(jdn) - z3.RealVal("1/2")
        if shape == "date":
            return days
        hour, minute, second = (z3.StrToInt(z3.SubString(v.v, i, 2)) for i in (11, 14, 17))
        n = z3.Length(v.v) - 20  # digits of the fraction of a second (0 to 3)
        digits = z3.ToReal(z3.StrToInt(z3.SubString(v.v, 20, 3)))
        fraction = z3.If(n == 1, digits / 10, z3.If(n == 2, digits / 100, z3.If(n == 3, digits / 1000, 0)))
        return days + (z3.ToReal(hour * 3600 + minute * 60 + second) + fraction) / 86400

    shape = _dated(v, "JULIANDAY")
    if shape is not None:
        return Val("real", exact(shape), v.null)
    from sqltriage.core.verdicts.verify.tables import iso_date

    other = z3.Function("JULIANDAY:other", z3.StringSort(), z3.RealSort())(v.v)
    other_null = z3.Function("JULIANDAY:null", z3.StringSort(), z3.BoolSort())(v.v)
    is_date, is_datetime = iso_date(v.v, "date"), iso_date(v.v, "datetime")
    term = z3.If(is_date, exact("date"), z3.If(is_datetime, exact("datetime"), other))
    null = s.or_(v.null, z3.And(z3.Not(is_date), z3.Not(is_datetime), other_null))
    return Val("real", term, null)


def text_as_real(v: Val) -> Val:
    """Text that an aggregate (AVG) reads as a number: a string of up to 18 digits is that number; other
    text ('1:23.4') some real, the same for the same text (wider than SQLite: refutations only)."""
    s.needs_strings("text read as a number")
    digits = z3.InRe(v.v, z3.Loop(z3.Range("0", "9"), 1, 18))
    other = z3.Function("text_as_real", z3.StringSort(), z3.RealSort())(v.v)
    return Val("real", z3.If(digits, z3.ToReal(z3.StrToInt(v.v)), other), v.null)


def _text(v: Val, what: str) -> Any:
    """`v` as SQLite's text of it: text itself, or an integer's digits; a real's text is refused (SQLite
    writes it with 15 significant digits, which the encoding does not follow)."""
    s.needs_strings(what)
    if v.kind == "str":
        return v.v
    if v.kind == "int":
        digits = z3.IntToStr(z3.Abs(v.v))
        return z3.If(v.v < 0, z3.Concat(z3.StringVal("-"), digits), digits)
    raise Unsupported(f"{what} of a real number")


def _int(v: Val, what: str) -> Any:
    if v.kind != "int":
        raise Unsupported(f"{what} with a position that is not an integer")
    return v.v


def _int_constant(v: Val) -> int | None:
    if v.kind != "int":
        return None
    term = z3.simplify(v.v)
    return term.as_long() if z3.is_int_value(term) and z3.is_false(z3.simplify(v.null)) else None


def substr(x: Val, start: Val, size: Val | None) -> Val:
    """SUBSTR(x, start[, size]) on characters, func.c's substrFunc step by step."""
    if x.kind == "null" or start.kind == "null" or (size is not None and size.kind == "null"):
        return s.NULL
    text = _text(x, "SUBSTR")
    null = s.or_(x.null, start.null, size.null if size is not None else s.FALSE)
    first_, count_ = _int_constant(start), _int_constant(size) if size is not None else _BIG
    if first_ is not None and first_ >= 1 and count_ is not None and count_ >= 0:
        # The common case (SUBSTR(d, 1, 4)) as one z3 term: the string solver is slow on the general one.
        if first_ == 1 and size is None:
            return Val("str", text, null, "none")
        rest = z3.SubString(text, first_ - 1, z3.Length(text) if size is None else count_)
        return Val("str", rest, null, "none")
    n = z3.Length(text)
    p1 = _int(start, "SUBSTR")
    z = _int(size, "SUBSTR") if size is not None else z3.IntVal(_BIG)
    negative = z < 0
    p2 = z3.If(negative, -z, z)
    from_end = p1 + n
    q1 = z3.If(p1 < 0, z3.If(from_end < 0, 0, from_end), z3.If(p1 > 0, p1 - 1, 0))
    q2 = z3.If(
        p1 < 0,
        z3.If(from_end < 0, z3.If(p2 + from_end < 0, 0, p2 + from_end), p2),
        z3.If(z3.And(p1 == 0, p2 > 0), p2 - 1, p2),
    )
    r1 = q1 - q2
    first = z3.If(negative, z3.If(r1 < 0, 0, r1), q1)
    count = z3.If(negative, z3.If(r1 < 0, q2 + r1, q2), q2)
    return Val("str", z3.SubString(text, first, count), null, "none")


def instr(x: Val, y: Val) -> Val:
    """INSTR(x, y): the 1-based character position of y's first occurrence in x, 0 when none."""
    if x.kind == "null" or y.kind == "null":
        return s.NULL
    hay, needle = _text(x, "INSTR"), _text(y, "INSTR")
    return Val("int", z3.IndexOf(hay, needle, 0) + 1, s.or_(x.null, y.null))


def length(x: Val) -> Val:
    """LENGTH(x): characters of text (a NUL inside the text is not modelled), digits of an integer."""
    if x.kind == "null":
        return s.NULL
    return Val("int", z3.Length(_text(x, "LENGTH")), x.null)


def _digits(node: exp.Expression | None) -> int:
    if node is None:
        return 0
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        n = int(node.this)
        if n <= ROUND_DIGITS_MAX:
            return n
    raise Unsupported("ROUND to digits that are not a small constant")


def round_(enc: Encoding, x: Val, digits: int) -> Val:
    """ROUND(x, digits), always a real: an integer exactly; a real through `round<digits>`, one z3
    function for every ROUND of that many digits in the pair (so the same value rounds alike on both
    sides), constrained to a multiple of 10^-digits at most half of one away from x."""
    if x.kind == "null":
        return s.NULL
    if not x.numeric:
        raise Unsupported("ROUND of text")
    if x.kind == "int":
        return Val("real", z3.ToReal(x.v), x.null)
    f = z3.Function(f"round{digits}", z3.RealSort(), z3.RealSort())
    r = f(x.v)
    scale = z3.RealVal(10**digits)
    half = z3.Q(1, 2 * 10**digits)
    enc.facts.append(z3.And(z3.IsInt(r * scale), r - x.v <= half, x.v - r <= half))
    return Val("real", r, x.null)


def cast_text(v: Val, to: str) -> Val:
    """CAST of text AS INTEGER or REAL: a string of up to 18 digits reads as that number; other text
    (a sign, spaces, a prefix of digits) as some number, the same for the same text (a z3 function)."""
    if v.kind != "str":
        raise Unsupported(f"CAST of {v.kind} AS {to}")
    s.needs_strings("CAST of text to a number")
    digits = z3.InRe(v.v, z3.Loop(z3.Range("0", "9"), 1, 18))
    exact = z3.StrToInt(v.v)
    if "INT" in to:
        other = z3.Function("cast_int", z3.StringSort(), z3.IntSort())(v.v)
        return Val("int", z3.If(digits, exact, other), v.null)
    other = z3.Function("cast_real", z3.StringSort(), z3.RealSort())(v.v)
    return Val("real", z3.If(digits, z3.ToReal(exact), other), v.null)
