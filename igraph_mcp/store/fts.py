"""Text-matching helpers: user text becomes quoted FTS5 tokens or an escaped LIKE pattern, never query syntax."""

from __future__ import annotations

import re

# bm25() weights, positional over nodes_fts(name, words, qualified_name, path, signature, docstring, body).
NODE_BM25_WEIGHTS = (10.0, 4.0, 6.0, 2.0, 2.0, 1.0, 1.0)  # body at 1.0: measured better than 0.5 on both sets
# resources_fts(title, heading_path, identifiers, text)
RESOURCE_BM25_WEIGHTS = (6.0, 3.0, 4.0, 1.0)

# Tokens as unicode61 with tokenchars '_' sees them: runs of letters, digits and underscores.
_TOKEN = re.compile(r"[^\W]+", re.UNICODE)


def fts_tokens(text: str) -> list[str]:
    """Tokens of ``text`` the way the FTS tokenizer would split them (lowercased, order kept, no duplicates)."""
    seen: dict[str, None] = {}
    for tok in _TOKEN.findall(text):
        tok = tok.lower().strip("_")
        if tok:
            seen.setdefault(tok, None)
    return list(seen)


def quote_token(token: str) -> str:
    """Quote one token as an FTS5 string: double quotes doubled, so ``NEAR(`` or ``a*`` stay literal."""
    return '"' + token.replace('"', '""') + '"'


def fts_or_query(tokens: list[str]) -> str:
    """An OR query over quoted tokens; empty string when there is nothing to search."""
    return " OR ".join(quote_token(t) for t in tokens if t)


def like_literal(text: str) -> str:
    """``text`` with LIKE's wildcards escaped, for a pattern used with ``ESCAPE '\\'``: ``a_b%`` matches itself."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
