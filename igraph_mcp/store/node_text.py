"""The nodes' text rows: written with their nodes, ranked by BM25 (through the database's text index)."""

from __future__ import annotations

from collections.abc import Iterable

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS, fts_terms
from igraph_mcp.store.records import NodeText


def insert_fts(con: WriteConnection, rows: Iterable[NodeText]) -> None:
    """Insert the FTS rows of new nodes."""
    con.db.text.insert_nodes(con, rows)


def fts_search(
    db: Database, tokens: list[str], limit: int, weights: tuple[float, ...] = NODE_BM25_WEIGHTS
) -> list[tuple[int, float]]:
    """Rank nodes by BM25 over an OR of the quoted tokens; returns (node id, score) best first (score > 0)."""
    return db.text.search_nodes(tokens, limit, weights)


def _vocab_terms(tokens: list[str]) -> dict[str, list[str]]:
    """token -> the terms the FTS tokenizer stores for it ("café" -> ["cafe"]: diacritics removed, case folded)."""
    return {t: fts_terms(t, query=True) for t in tokens}


def token_doc_freqs(db: Database, tokens: list[str]) -> dict[str, int]:
    """Number of FTS rows containing each token (tokens absent from the index are left out)."""
    # The vocabulary holds tokenizer output, so look tokens up in that form, not as Python lowercased them.
    terms = _vocab_terms(tokens)
    wanted = sorted({term for ts in terms.values() for term in ts})
    docs = db.text.doc_counts(wanted)
    out: dict[str, int] = {}
    for token, ts in terms.items():
        if ts and all(term in docs for term in ts):
            out[token] = min(docs[term] for term in ts)  # a phrase is no more frequent than its rarest term
    return out
