"""Text-matching helpers: user text becomes quoted FTS5 tokens or an escaped LIKE pattern, never query syntax."""

from __future__ import annotations

import functools
from typing import Any

import apsw

# bm25() weights, positional over nodes_fts(name, words, qualified_name, path, signature, docstring, body).
NODE_BM25_WEIGHTS = (10.0, 4.0, 6.0, 2.0, 2.0, 1.0, 1.0)  # body at 1.0: measured better than 0.5 on both sets
# resources_fts(title, heading_path, identifiers, text)
RESOURCE_BM25_WEIGHTS = (6.0, 3.0, 4.0, 1.0)

# The tokenizer every FTS table uses (store/schema.py); query tokens are cut by this same tokenizer.
TOKENIZER_ARGS = ("remove_diacritics", "2", "tokenchars", "_")


@functools.cache
def _tokenizer(remove_diacritics: str = "2") -> Any:
    # A private in-memory connection: tokenizing needs no table, and a query never waits on the index for it.
    args = ["remove_diacritics", remove_diacritics, *TOKENIZER_ARGS[2:]]
    return apsw.Connection(":memory:").fts5_tokenizer("unicode61", args)


def fts_tokens(text: str) -> list[str]:
    """Tokens of ``text`` the way the FTS tokenizer would split them (case-folded, order kept, no duplicates).

    Boundaries and case folding come from SQLite's own unicode61 tokenizer, not from Python: the two disagree
    on combining marks, symbols and letters newer than SQLite's Unicode tables, and a token cut or folded
    differently from the index's never matches (hypothesis found "0" followed by U+10C49, one token to SQLite
    but "0" to a regex, and Cherokee "Ꭰ", which SQLite keeps and str.lower() changes). Diacritics stay
    ("café"): the query's own tokenizer folds them, and a reader sees the word as written.
    """
    data = text.encode("utf-8", "replace")  # a lone surrogate (possible in JSON) becomes '?', a separator
    fold = _tokenizer("0")
    seen: dict[str, None] = {}
    for start, end, *_ in _tokenizer()(data, apsw.FTS5_TOKENIZE_DOCUMENT, None, include_colocated=False):
        folded = fold(
            data[start:end], apsw.FTS5_TOKENIZE_DOCUMENT, None, include_offsets=False, include_colocated=False
        )
        word = folded[0] if len(folded) == 1 else data[start:end].decode("utf-8", "replace").lower()
        tok = word.strip("_")
        if tok:
            seen.setdefault(tok, None)
    return list(seen)


def fts_terms(text: str, *, query: bool = False) -> list[str]:
    """The terms the FTS index stores for ``text`` (or looks up for a quoted query string), duplicates and order
    kept: SQLite's own tokenizer, so a store that keeps its own postings cuts text exactly as FTS5 does."""
    flag = apsw.FTS5_TOKENIZE_QUERY if query else apsw.FTS5_TOKENIZE_DOCUMENT
    data = text.encode("utf-8", "replace")
    return list(_tokenizer()(data, flag, None, include_offsets=False, include_colocated=False))


def quote_token(token: str) -> str:
    """Quote one token as an FTS5 string: double quotes doubled, so ``NEAR(`` or ``a*`` stay literal."""
    return '"' + token.replace('"', '""') + '"'


def fts_or_query(tokens: list[str]) -> str:
    """An OR query over quoted tokens; empty string when there is nothing to search."""
    return " OR ".join(quote_token(t) for t in tokens if t)


def like_literal(text: str) -> str:
    """``text`` with LIKE's wildcards escaped, for a pattern used with ``ESCAPE '\\'``: ``a_b%`` matches itself."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
