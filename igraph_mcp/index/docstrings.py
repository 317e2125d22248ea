"""Docstrings: a Python definition's string literal, or the doc comment written right above a definition.

Which one a language has is a field of its table row (LanguageSpec.docstring); comment markers (`//`, `#`, `/** */`,
`///`), C#'s XML tags and the common indent are removed.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from igraph_mcp.index.captures import end_line, node_text
from igraph_mcp.vocab.languages import LanguageSpec

MAX_DOCSTRING = 2000

_LINE_MARKER = re.compile(r"^\s*(?:///?|//!|#+|--)\s?")
_BLOCK_LINE = re.compile(r"^\s*\*(?!/)\s?")
_XML_DOC_TAG = re.compile(r"</?(?:summary|remarks|returns|para|value|example)\s*>")
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")


def _clean_python_string(raw: str) -> str:
    text = _STRING_PREFIX.sub("", raw.strip(), count=1)
    for quote in ('"""', "'''", '"', "'"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            text = text[len(quote) : -len(quote)]
            break
    return _dedent(text.splitlines())


def _dedent(lines: list[str]) -> str:
    """Like inspect.cleandoc: strip the common indent of lines after the first, drop blank edges."""
    if not lines:
        return ""
    first = lines[0].strip()
    rest = lines[1:]
    indents = [len(ln) - len(ln.lstrip()) for ln in rest if ln.strip()]
    cut = min(indents) if indents else 0
    body = [first, *(ln[cut:].rstrip() for ln in rest)]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    return "\n".join(body)[:MAX_DOCSTRING]


def python_docstring(source: bytes, body: Node | None) -> str:
    """The string literal that opens a Python body (a module's, a class's, a function's), cleaned."""
    if body is None:
        return ""
    first = body.named_children[0] if body.named_child_count else None
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_children[0]
    if first is None or first.type != "string":
        return ""
    return _clean_python_string(node_text(source, first))


def _clean_comment(raw: str) -> list[str]:
    text = raw.strip()
    if text.startswith("/*"):
        text = text[3:] if text.startswith(("/**", "/*!")) else text[2:]
        text = text.removesuffix("*/")
        return [_BLOCK_LINE.sub("", ln, count=1) for ln in text.splitlines()]
    return [_LINE_MARKER.sub("", ln, count=1) for ln in text.splitlines()]


def _is_comment(node: Node) -> bool:
    return "comment" in node.type


def _tail_comment(node: Node | None) -> Node | None:
    """A comment nested at the very end of `node` (Kotlin attaches the comments after an import to it)."""
    while node is not None and node.child_count:
        node = node.children[-1]
        if _is_comment(node):
            return node
    return None


def _comment_docstring(source: bytes, node: Node, skip: frozenset[str]) -> tuple[str, int]:
    """The doc comment right above ``node``, cleaned, and the 1-based line it starts on (0 without one)."""
    start: Node | None = None  # the comment nearest the definition, when not its own sibling
    # Climb through wrappers that start on the definition's line (`export`, `type (`, `const`).
    for _ in range(4):
        prev = node.prev_sibling
        while prev is not None and prev.type in skip:
            prev = prev.prev_sibling
        if prev is not None and _is_comment(prev):
            break
        start = _tail_comment(prev)
        if start is not None:
            break
        parent = node.parent
        wrapper = (prev is None or not prev.is_named) and parent is not None and parent.parent is not None
        if wrapper and parent is not None and parent.start_point[0] == node.start_point[0]:
            node = parent
            continue
        return "", 0
    comments: list[Node] = []
    top_row = node.start_point[0]
    cur = start if start is not None else node.prev_sibling
    while cur is not None:
        if cur.type in skip:
            top_row = cur.start_point[0]
        elif _is_comment(cur) and end_line(cur) >= top_row:  # _end_line is 1-based: adjacent line
            comments.append(cur)
            top_row = cur.start_point[0]
        else:
            break
        cur = cur.prev_sibling
    # A comment trailing code on the same line belongs to that code, not to us.
    if comments and cur is not None and end_line(cur) - 1 == comments[-1].start_point[0]:
        comments.pop()
    lines: list[str] = []
    for comment in reversed(comments):
        lines.extend(_clean_comment(node_text(source, comment)))
    text = _XML_DOC_TAG.sub("", "\n".join(lines))
    return _dedent(text.splitlines()), (comments[-1].start_point[0] + 1 if comments else 0)


def docstring(source: bytes, spec: LanguageSpec, node: Node, body: Node | None) -> tuple[str, int]:
    """The docstring of the definition at ``node`` (``body``: its captured body, if any), as its language writes it,
    and the line a doc comment written above the definition starts on (0 for none, and for a Python docstring,
    which lies inside the definition)."""
    if spec.docstring == "python_string":
        return python_docstring(source, body if body is not None else node.child_by_field_name("body")), 0
    if spec.docstring == "preceding_comment":
        return _comment_docstring(source, node, spec.doc_skip_types)
    return "", 0
