"""Whether the dense channel may answer a query, and why not when it may not."""

from __future__ import annotations

from dataclasses import dataclass

from igraph_mcp.embed.base import Embedder
from igraph_mcp.retrieve.vector_search import VectorSearch, VectorSearchCache
from igraph_mcp.store import status as status_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database


@dataclass(slots=True)
class DenseState:
    """Whether the dense channel can be used, and if not, why."""

    embedder: Embedder | None
    reason: str | None  # why dense is off (None = usable)
    coverage: float | None
    search: VectorSearch | None = None  # None: sqlite-vec in the database
    embedded: int = 0  # symbols with a vector, of ``total``: how far the embedding phase has got
    total: int = 0


class DenseGate:
    """Decides per query whether vectors are usable; caches counts and the vector matrix per index version."""

    def __init__(self) -> None:
        self._vector_cache = VectorSearchCache()
        self._counts: tuple[tuple[str | None, str | None], int, int] | None = None

    def coverage_counts(self, db: Database) -> tuple[int, int]:
        """(symbols, vectors), recounted only when a build or an embedding batch changed the index."""
        version = (db.get_meta("generation"), db.get_meta("vectors_version"))
        if self._counts is None or self._counts[0] != version:
            # count(*) on vec0 costs ~8 ms: worth caching on the query path
            self._counts = (version, status_store.node_count(db), vec_store.node_vector_count(db))
        return self._counts[1], self._counts[2]

    def state(self, db: Database, embedder: Embedder | None, embedder_error: str | None) -> DenseState:
        """The dense channel's state for a query against ``db`` with ``embedder``."""
        if not db.vec_available:
            return DenseState(None, db.vec_error, None)
        if embedder is None:
            return DenseState(None, embedder_error, None)
        stored = db.get_meta("embedder_id")
        total, vectors = self.coverage_counts(db)
        if stored is None or vectors == 0:
            return DenseState(
                None,
                f"no vectors yet (dense channel: 0/{total} symbols embedded); answered from FTS + graph. A running "
                "index build adds them batch by batch; if none is running, run `igraph-mcp index`",
                0.0,
                embedded=0,
                total=total,
            )
        if stored != embedder.id:
            return DenseState(
                None,
                f"index was embedded with {stored} but the embedder is {embedder.id}; "
                "run `igraph-mcp index` to re-embed; FTS only",
                None,
            )
        coverage = vectors / total if total else 0.0
        return DenseState(embedder, None, coverage, self._vector_cache.get(db), embedded=vectors, total=total)
