"""What the browser view reads beyond the tools' answers: the map's rows, a symbol's neighbourhood, resource pages.

The view is a front and never opens the store itself: it asks one service's ``overview`` (this object), which reads
``store.overview`` within one snapshot per answer. The row records are re-exported here for the view's folding.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Protocol

from igraph_mcp.models import EdgeRef, NodeDetail, RelatedResult
from igraph_mcp.retrieve.lookup import Lookup
from igraph_mcp.store import overview as ov
from igraph_mcp.store.overview import EdgeTotals, FileEdge, FileSummary, ResourceChunk, ResourceLink
from igraph_mcp.vocab.edges import CERTAIN

__all__ = ["EdgeTotals", "FileEdge", "FileSummary", "Neighbourhood", "Overview", "ResourcePage"]


@dataclass(frozen=True, slots=True)
class Neighbourhood:
    """One symbol as the view's Symbol tab shows it: the tools' answers, its resolved imports and edge totals."""

    detail: NodeDetail
    related: RelatedResult | None  # None when the symbol was not found
    imports: list[EdgeRef]
    imported_by: list[EdgeRef]
    totals: EdgeTotals | None


@dataclass(frozen=True, slots=True)
class ResourcePage:
    """One page of mounted chunks, their best code links, and how many chunks there are in all."""

    total: int
    chunks: list[ResourceChunk]
    links: list[ResourceLink]


class Repository(Protocol):
    """What the overview needs of one repository's service (``IGraphService``)."""

    @property
    def lookup(self) -> Lookup: ...
    def node_by_id(self, node_id: int) -> NodeDetail: ...
    def related_by_id(
        self, node_id: int, direction: str = "both", hops: int | None = None, limit: int | None = None
    ) -> RelatedResult: ...


class Overview:
    """The view's reads over one service's index (the map rows are read once per build of the index)."""

    def __init__(self, service: Repository) -> None:
        self._service = service
        self._lock = threading.Lock()
        self._map_rows: tuple[Any, list[FileSummary], list[FileEdge]] | None = None

    def map_rows(self) -> tuple[list[FileSummary], list[FileEdge]]:
        """Files and file-to-file edge counts of the last committed build."""
        db = self._service.lookup.reader.require_index()
        with self._lock:
            stamp = (db.identity, db.get_meta("last_build"), db.get_meta("index_generation"))
            if self._map_rows is None or self._map_rows[0] != stamp:
                with db.snapshot():
                    self._map_rows = (stamp, ov.file_summaries(db), ov.file_edges(db, certain_at=CERTAIN))
            return self._map_rows[1], self._map_rows[2]

    def neighbourhood(self, node_id: int, *, hops: int, limit: int) -> Neighbourhood:
        """``node_by_id`` and ``related_by_id`` (``hops``, ``limit``) of one symbol, with its imports both ways and
        edge totals, from one committed state."""
        lookup = self._service.lookup
        db = lookup.reader.require_index()
        with db.snapshot():
            detail = self._service.node_by_id(node_id)
            if not detail.found:
                return Neighbourhood(detail, None, [], [], None)
            related = self._service.related_by_id(node_id, "both", hops, limit)
            imports = lookup.edge_refs(db, node_id, outgoing=True, kinds=("imports",))
            imported_by = lookup.edge_refs(db, node_id, outgoing=False, kinds=("imports",))
            totals = ov.edge_totals(db, node_id)
        return Neighbourhood(detail, related, imports, imported_by, totals)

    def resource_page(self, *, offset: int, limit: int, per_resource: int) -> ResourcePage:
        """``limit`` chunks from ``offset`` with at most ``per_resource`` links each (best first)."""
        db = self._service.lookup.reader.require_index()
        with db.snapshot():
            total = ov.resource_chunk_count(db)
            chunks = ov.resource_chunks(db, limit=limit, offset=offset)
            links = ov.resource_links(db, [c.id for c in chunks], per_resource=per_resource)
        return ResourcePage(total, chunks, links)
