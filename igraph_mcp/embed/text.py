"""The text embedded for each code symbol, and its content hash.

The local model (all-MiniLM-L6-v2) reads 128 word pieces by default (256 at most), and code spends
them fast: about 2 characters per piece on real Python. So the text puts what identifies the symbol
first — kind, qualified name and its words, the file path — then the signature and the docstring
(first paragraph first), and fills the room left with the head of the body; whatever the model
cuts off is the least important part.
"""

from __future__ import annotations

import hashlib
import re

from igraph_mcp.text.identifiers import split_identifier

DEFAULT_MAX_CHARS = 1000
"""Total bound: ~1,000 characters is ~450-550 word pieces of code, past any local window; larger-context
HTTP models still get a useful body head."""

_MAX_SIGNATURE_CHARS = 240
_MAX_DOC_CHARS = 360
_MIN_BODY_CHARS = 80  # below this a body fragment is noise rather than signal

_WHITESPACE = re.compile(r"\s+")
# C0/C1 controls and format characters (zero-width, bidi overrides) carry no meaning for a model.
_INVISIBLE = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_QUOTE_MARKS = frozenset("\"'`")
_PLAIN_WORDS = re.compile(r"[^\W\d_]+|\d+")


def collapse_whitespace(text: str) -> str:
    """Drop invisible control/format characters and collapse runs of whitespace to one space."""
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def _clip(text: str, limit: int) -> str:
    """Cut at a word boundary at or before ``limit`` characters (hard cut if there is none nearby)."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit + 1), text.rfind("\n", 0, limit + 1))
    if cut < limit * 0.6:
        cut = limit
    return text[:cut].rstrip()


def _docstring_ordered(docstring: str) -> str:
    """First paragraph, then the rest: the summary line matters most when the budget is tight."""
    paragraphs = [p for p in (collapse_whitespace(p) for p in _PARAGRAPH_BREAK.split(docstring)) if p]
    return " ".join(paragraphs)


def _strip_repeats(body: str, signature: str, docstring: str) -> str:
    """Remove the signature and docstring from the body head when they repeat there verbatim."""
    if signature:
        at = body.find(signature)
        if 0 <= at <= 120:  # after decorators/modifiers ("async", "export"), which are kept
            body = f"{body[:at].rstrip()} {body[at + len(signature) :].lstrip()}".strip()
    if docstring and len(docstring) >= 12:
        at = body.find(docstring)
        if 0 <= at < 400:
            start, end = at, at + len(docstring)
            # Take the quotes/comment marks around it too, so no empty """""" is left behind.
            while start > 0 and at - start < 4 and body[start - 1] in _QUOTE_MARKS:
                start -= 1
            while end < len(body) and end - at - len(docstring) < 4 and body[end] in _QUOTE_MARKS:
                end += 1
            body = f"{body[:start].rstrip()} {body[end:].lstrip()}".strip()
    return body


def _extra_words(identifier: str) -> str:
    """The identifier's words, or "" when the model's own tokenizer would find the same words.

    Word-piece tokenizers already split on ``_``, ``/`` and ``.`` and lower-case, so snake_case and
    paths cost tokens twice for nothing; only case and digit boundaries (parseHTTPResponse) add words.
    """
    words = split_identifier(identifier)
    if words == _PLAIN_WORDS.findall(identifier.lower()):
        return ""
    return " ".join(words)


def _scrub(text: str) -> str:
    """Replace lone surrogates (from undecodable source bytes) so the text encodes as UTF-8 and JSON."""
    return text.encode("utf-8", "replace").decode("utf-8")


def symbol_embedding_text(
    *,
    kind: str,
    name: str,
    qualified_name: str | None,
    path: str,
    signature: str | None,
    docstring: str | None,
    body: str | None,
    max_chars: int = DEFAULT_MAX_CHARS,
) -> str:
    """Build the bounded text embedded for one symbol (identity first, then signature, doc, body head)."""
    if max_chars < 1:
        raise ValueError("max_chars must be positive")
    kind_s = collapse_whitespace(_scrub(kind or "symbol"))
    name_s = collapse_whitespace(_scrub(name or ""))
    qual_s = collapse_whitespace(_scrub(qualified_name or "")) or name_s
    path_s = collapse_whitespace(_scrub(path or ""))
    sig_s = _clip(collapse_whitespace(_scrub(signature or "")), _MAX_SIGNATURE_CHARS)
    doc_full = _docstring_ordered(_scrub(docstring or ""))
    doc_s = _clip(doc_full, _MAX_DOC_CHARS)
    body_s = _strip_repeats(collapse_whitespace(_scrub(body or "")), sig_s, doc_full)

    # The qualified name's words cover the enclosing class too (Parser.parseFile -> parser parse file).
    header = f"{kind_s} {qual_s}".strip()
    name_words = _extra_words(qual_s)
    if name_words:
        header = f"{header} ({name_words})"
    lines = [header]
    if path_s:
        path_words = _extra_words(path_s)
        lines.append(f"file {path_s} ({path_words})" if path_words else f"file {path_s}")
    if sig_s:
        lines.append(sig_s)
    if doc_s:
        lines.append(doc_s)

    text = "\n".join(lines)
    if len(text) > max_chars:
        return _clip(text, max_chars)
    room = max_chars - len(text) - 1
    if body_s and room >= min(_MIN_BODY_CHARS, len(body_s)):
        text = f"{text}\n{_clip(body_s, room)}"
    return text


def text_hash(text: str) -> str:
    """Return the sha256 hex digest of the text, used to skip re-embedding unchanged symbols."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
