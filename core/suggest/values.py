"""When two literals are the same value written in another form, and when the evidence states a value.

SQLite compares text exactly, so `'F'` is not `'female'`, `'euro'` is not the stored code `'EUR'` and
`'2013/7/12'` is not `'2013-07-12'`: the prediction names the right value in the wrong form (NL2SQL-Bugs'
"Value: data format", and the labelling guide's "a code for its word"), which is another cause than a
wrong value.
"""

from __future__ import annotations

import re

from sqltriage.core.suggest.facts import Conjunct


def core_text(value: str) -> str:
    return value.strip("%").strip().lower()


def same_but_form(a: Conjunct, b: Conjunct) -> bool:
    """The same value written differently: case, quotes, surrounding %, separators ('TR000_2_5' and
    'TR_000_2_5', never other characters: 'Beetle!' is not 'Beetle'), leading zeros ('0:01:27' and
    '1:27'), or a date in another layout."""
    if core_text(a.value) == core_text(b.value):
        return True
    if a.kind == b.kind == "str" and (_zero_tail(a.value, b.value) or _zero_tail(b.value, a.value)):
        return True
    la, lb = re.sub(r"[\s_\-/:.]", "", a.value.lower()), re.sub(r"[\s_\-/:.]", "", b.value.lower())
    if len(la) >= 3 and la == lb:
        return True
    if _as_date(a.value) is not None and _as_date(a.value) == _as_date(b.value):
        return True  # '2013/7/12' and '2013-07-12'
    short, long_ = sorted((a.value.strip("%").lower(), b.value.strip("%").lower()), key=len)
    if a.kind == b.kind == "str" and 0 < len(short) <= 2 < len(long_) and long_.startswith(short):
        return True  # a code and its word: 'F' and 'female', 'Y' and 'yes'
    if a.kind == b.kind == "str" and (code_for_word(a.value, b.value) or code_for_word(b.value, a.value)):
        return True  # a stored code and the word it stands for: 'EUR' and 'euro', 'SVK' and 'Slovakia'
    da, db = re.sub(r"\D", "", a.value), re.sub(r"\D", "", b.value)
    if len(da) >= 3 and da.lstrip("0") == db.lstrip("0") and not re.sub(r"[\d\W_]", "", a.value + b.value):
        return True
    return bool(da) and len(da) >= 4 and sorted(da) == sorted(db)


_CODE = re.compile(r"[A-Z]{2,4}")
_WORD = re.compile(r"[A-Za-z][A-Za-z ]*")


def code_for_word(code: str, word: str) -> bool:
    """`code` is an upper-case code of 2 to 4 letters and `word` a longer word (or words) that starts with
    its first letter and holds its letters in order: the word the code stands for ('EUR' / 'euro', 'SVK' /
    'Slovakia', 'IN' / 'Indiana'), which the guide reads as the same value in another form."""
    if not _CODE.fullmatch(code) or not _WORD.fullmatch(word) or len(word) <= len(code):
        return False
    low = word.lower()
    if low[0] != code[0].lower():
        return False
    at = 0
    for ch in code.lower():
        at = low.find(ch, at) + 1
        if at == 0:
            return False
    return True


_DATE = re.compile(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})|(\d{1,2})/(\d{1,2})/(\d{4})")


def _as_date(value: str) -> tuple[int, int, int] | None:
    m = _DATE.fullmatch(value.strip())
    if m is None:
        return None
    y, mo, d = (m.group(1), m.group(2), m.group(3)) if m.group(1) else (m.group(6), m.group(4), m.group(5))
    return int(y), int(mo), int(d)


def _zero_tail(longer: str, shorter: str) -> bool:
    """A date or time with a zero tail added ('2010-07-19 19:39:08.0' / '2010-07-19 19:39:08', '2012-08-26
    00:00:00' / '2012-08-26'): the same value in another layout."""
    return (
        len(shorter) >= 4
        and longer.startswith(shorter)
        and bool(_ZERO_TAIL.fullmatch(longer[len(shorter) :]))
    )


_ZERO_TAIL = re.compile(r"(?:[ T:.]+0+)+")


def in_evidence(value: str, evidence: str) -> bool:
    """The value appears in the evidence as a word of its own (`SVK`, not `Slovakia` inside `Slovakian`)."""
    if not value or not evidence:
        return False
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", evidence, re.IGNORECASE) is not None


def words_inside(a: str, b: str) -> bool:
    """One text is the other with whole words added (`los angeles` in `los angeles county`)."""
    short, long = sorted((a, b), key=len)
    return (
        len(short) >= 3 and short != long and re.search(rf"(?<!\w){re.escape(short)}(?!\w)", long) is not None
    )
