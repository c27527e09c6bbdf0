"""Every relative link of README.md and docs/*.md points to a file that exists, and its #anchor to a heading.

The README is the front page and sends readers into docs/; a moved or renamed file must not leave a link
behind. Links inside code (fenced blocks, `inline code`) are not links; web addresses are not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", flags=re.DOTALL | re.MULTILINE)
INLINE_CODE = re.compile(r"(`+)[^`]*?\1")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$", flags=re.MULTILINE)


def prose(text: str) -> str:
    """The text without its code: fenced blocks and inline code spans."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def links(path: Path) -> list[str]:
    return LINK.findall(prose(path.read_text(encoding="utf-8")))


def is_relative(target: str) -> bool:
    return not re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.IGNORECASE) and not target.startswith("//")


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lowercase, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a Markdown file (a repeated heading gets -1, -2, … as on GitHub)."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    return found


def test_there_are_docs_to_check() -> None:
    assert REPO / "README.md" in DOCS and len(DOCS) > 10
    assert links(REPO / "README.md"), "the README links no doc"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_to_a_file(doc: Path) -> None:
    broken = []
    for target in links(doc):
        if not is_relative(target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        resolved = (doc.parent / path).resolve()
        if resolved.exists():
            continue
        broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)} links to missing files: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_anchor_names_a_heading(doc: Path) -> None:
    broken = []
    for target in links(doc):
        if not is_relative(target) or "#" not in target:
            continue
        path, anchor = target.split("#", 1)
        resolved = (doc.parent / path).resolve() if path else doc
        if resolved.suffix != ".md" or not resolved.exists():
            continue  # a missing file is the test above's; only Markdown headings are known here
        if anchor not in anchors(resolved):
            broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)} links to headings that do not exist: {broken}"
