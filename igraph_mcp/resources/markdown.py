"""Markdown PRDs: one chunk per H1-H3 section (ATX and setext), fenced code and front matter respected."""

from __future__ import annotations

import re

from igraph_mcp.resources.documents import DocLine, build_sections
from igraph_mcp.resources.model import Chunk

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
# Lines that open a block which can never turn into a setext heading (list item, quote, table row,
# indented code): "- item\n---" is a list followed by a rule, not a heading.
_NOT_PARAGRAPH = re.compile(r"^(?: {0,3}(?:[-*+][ \t]|\d{1,9}[.)][ \t]|>|\|)| {4,}|\t)")
_HEADING_ID = re.compile(r"\s*\{#[\w-]+\}$")
_FRONT_MATTER_LIMIT = 500  # lines; an unclosed '---' at the top is a rule, not front matter


def chunk_markdown(text: str, doc_name: str, *, max_chunks: int | None = None) -> list[Chunk]:
    """Split markdown into a preamble chunk plus one chunk per H1-H3 section (subsections included)."""
    return build_sections(markdown_lines(text), doc_name, max_chunks=max_chunks)


def markdown_lines(text: str) -> list[DocLine]:
    """Lines of a markdown document with H1-H3 headings marked (H4+ stay body text)."""
    raw = text.split("\n")
    lines = [DocLine(t, n) for n, t in enumerate(raw, 1)]
    fence: tuple[str, int] | None = None  # (fence character, opening length) while inside a fence
    paragraph: int | None = None  # index where the current paragraph began; -1 for a non-paragraph block
    for i in range(_front_matter_end(raw), len(raw)):
        line = raw[i]
        if fence is not None:
            if _closes_fence(line, fence):
                fence = None
            continue
        opening = _FENCE_OPEN.match(line)
        if opening and not (opening.group(1)[0] == "`" and "`" in opening.group(2)):
            fence, paragraph = (opening.group(1)[0], len(opening.group(1))), None
            continue
        if not line.strip():
            paragraph = None
            continue
        atx = _ATX.match(line)
        if atx:
            _mark_heading(lines[i], len(atx.group(1)), atx.group(2) or "")
            paragraph = None
            continue
        setext = _SETEXT.match(line)
        if setext and paragraph is not None and paragraph >= 0:
            title = " ".join(raw[k].strip() for k in range(paragraph, i))
            _mark_heading(lines[paragraph], 1 if setext.group(1)[0] == "=" else 2, title)
            paragraph = None
            continue
        if _THEMATIC.match(line):
            paragraph = None
            continue
        if paragraph is None:
            paragraph = -1 if _NOT_PARAGRAPH.match(line) else i
    return lines


def _front_matter_end(raw: list[str]) -> int:
    """Index of the first line after YAML/TOML front matter (0 if there is none)."""
    if not raw or raw[0].strip() not in ("---", "+++"):
        return 0
    closers = ("---", "...") if raw[0].strip() == "---" else ("+++",)
    for j in range(1, min(len(raw), _FRONT_MATTER_LIMIT)):
        if raw[j].strip() in closers:
            return j + 1
    return 0


def _closes_fence(line: str, fence: tuple[str, int]) -> bool:
    """A closing fence uses the same character, at least as many times, and nothing after it."""
    char, length = fence
    stripped = line.strip()
    indent = len(line) - len(line.lstrip(" "))
    return indent <= 3 and len(stripped) >= length and stripped == char * len(stripped)


def _mark_heading(line: DocLine, level: int, title: str) -> None:
    """Record an H1-H3 heading on its line; deeper headings are left as body text."""
    if level > 3:
        return
    line.level = level
    line.title = " ".join(_HEADING_ID.sub("", title).split()) or "(untitled)"
