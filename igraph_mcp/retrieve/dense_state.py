"""Whether the dense channel may answer a query, and why not when it may not."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from igraph_mcp.embed.base import Embedder
from igraph_mcp.models import BuildActivity
from igraph_mcp.next_step import NextStep, ask
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
    finishing: str | None = None  # while embedded < total: who is adding the rest, and how long it will take


def finishing_note(activity: BuildActivity | None, *, pending: bool = False) -> str:
    """What a partial dense channel waits for: the running build and its time left, or what to do.

    ``activity`` is the lock holder's record (any process); ``pending``: this server is about to resume the work.
    """
    if activity is None:
        if pending:
            return "finishing in the background (starting)"
        return f"no build is running: call {ask(NextStep.INDEX)} to finish it"
    if activity.phase != "embed":
        counts = f" {activity.done}/{activity.total}" if activity.total else ""
        return f"an index build is running in the background ({activity.phase}{counts}); the vectors follow it"
    if activity.secondsLeft is None:
        return "finishing in the background"
    return f"finishing in the background, about {_duration(activity.secondsLeft)} left"


def _duration(seconds: float) -> str:
    """``40 s``, ``3 min``, ``2 h``: the precision an estimate deserves."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{round(seconds / 3600)} h"


class DenseGate:
    """Decides per query whether vectors are usable; caches counts and the vector matrix per index version."""

    def __init__(self, *, resident: bool = True) -> None:
        # resident: the vectors are read once into one matrix and scanned there (a server's answers); without, each
        # query scans the store's own index (a one-shot command: reading sympy's 86k vectors took 0.77 s, the
        # store's scan of them costs a query tens of milliseconds).
        self._vector_cache = VectorSearchCache() if resident else None
        self._counts: tuple[tuple[str | None, str | None], int, int] | None = None

    def coverage_counts(self, db: Database) -> tuple[int, int]:
        """(symbols, vectors), recounted only when a build or an embedding batch changed the index."""
        version = (db.get_meta("generation"), db.get_meta("vectors_version"))
        if self._counts is None or self._counts[0] != version:
            # count(*) on vec0 costs ~8 ms: worth caching on the query path
            self._counts = (version, status_store.node_count(db), vec_store.node_vector_count(db))
        return self._counts[1], self._counts[2]

    def state(
        self,
        db: Database,
        embedder: Embedder | None,
        embedder_error: str | None,
        background: Callable[[], str] | None = None,
    ) -> DenseState:
        """The dense channel's state for a query against ``db`` with ``embedder``; ``background`` says who is
        adding missing vectors (asked only when some are missing)."""
        if not db.vec_available:
            return DenseState(None, db.vec_error, None)
        if embedder is None:
            return DenseState(None, embedder_error, None)
        stored = db.get_meta("embedder_id")
        total, vectors = self.coverage_counts(db)
        if stored is None or vectors == 0:
            finishing = background() if background is not None and total else None
            return DenseState(
                None,
                f"no vectors yet (dense channel: 0/{total} symbols embedded); answered from FTS + graph"
                + (f"; {finishing}" if finishing else ""),
                0.0,
                embedded=0,
                total=total,
                finishing=finishing,
            )
        if stored != embedder.id:
            return DenseState(
                None,
                f"index was embedded with {stored} but the embedder is {embedder.id}; "
                f"run {ask(NextStep.INDEX)} to re-embed; FTS only",
                None,
            )
        coverage = vectors / total if total else 0.0
        finishing = background() if background is not None and vectors < total else None
        search = self._vector_cache.get(db) if self._vector_cache is not None else None
        return DenseState(embedder, None, coverage, search, embedded=vectors, total=total, finishing=finishing)
