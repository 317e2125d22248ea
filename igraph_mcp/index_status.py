"""``igraph_status`` of one repository: counts, embedder, dense coverage, last build, stale and skipped files."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from igraph_mcp.config import StateLocation
from igraph_mcp.errors import IndexDamaged, NotIndexed
from igraph_mcp.index.stale import changed_on_disk
from igraph_mcp.models import SkippedFile, StatusResult
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.store import skipped as skipped_store
from igraph_mcp.store import status as status_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.reader import IndexReader
from igraph_mcp.store.schema import SCHEMA_VERSION
from igraph_mcp.store.target import IndexStore, IndexWriter
from igraph_mcp.vocab.skips import SkippedPath, first_of_each

STATUS_SKIPPED_LISTED = 5  # skipped files status names; the counts say how many there are


class Repository(Protocol):
    """What status needs of one repository's service (``IGraphService``)."""

    @property
    def root(self) -> Path: ...
    @property
    def store(self) -> IndexStore: ...
    @property
    def reader(self) -> IndexReader: ...
    @property
    def writer_lock(self) -> IndexWriter: ...
    @property
    def location(self) -> StateLocation: ...
    @property
    def db(self) -> Database: ...


def index_status(svc: Repository) -> StatusResult:
    """Counts, embedder, dense coverage, last build, stale files of ``svc``'s index (call within one snapshot)."""
    not_yet = StatusResult(
        root=str(svc.root),
        indexed=False,
        store=svc.store.where,
        notes=[f"no index yet: run {ask(NextStep.INDEX)}", *_location_notes(svc)],
    )
    if not svc.store.present():
        return not_yet
    try:
        with svc.reader.reading():
            db = svc.db
            version = db.schema_version()
            if version == 0:  # another process's first build is creating the schema right now
                raise NotIndexed("no index yet")
            if version > SCHEMA_VERSION:
                svc.reader.check_schema(db)  # raises with the upgrade hint
            summary = status_store.index_summary(db)
    except NotIndexed:
        return not_yet.model_copy(update={"activity": svc.writer_lock.activity()})  # a first build's progress
    except IndexDamaged as exc:
        return StatusResult(root=str(svc.root), indexed=False, store=svc.store.where, notes=[str(exc)])
    stale = changed_on_disk(svc.root, summary.recorded)
    return StatusResult(
        root=str(svc.root),
        indexed=summary.last_build is not None,
        files=summary.files,
        symbols=summary.symbols,
        edges=summary.edges,
        unresolvedRefs=summary.unresolved_refs,
        edgeKinds=summary.edge_kinds,
        languages=summary.languages,
        embedder=summary.embedder_id,
        embedderDimension=summary.embedder_dimension,
        denseCoverage=round(summary.vectors / summary.nodes, 4) if summary.nodes else 0.0,
        vectors=summary.vectors,
        lastBuild=summary.last_build,
        schemaVersion=summary.schema_version,
        resources=summary.resources,
        resourceSources=summary.resource_sources,
        staleFiles=sorted(stale)[:50],
        staleCount=len(stale),
        skipped=summary.skipped,
        skippedFiles=[SkippedFile.of(s) for s in _skipped_examples(db)],
        dbBytes=summary.db_bytes,
        store=svc.store.where,
        activity=svc.writer_lock.activity(db),
        notes=([db.vec_error] if db.vec_error else []) + _location_notes(svc),
    )


def _skipped_examples(db: Database) -> list[SkippedPath]:
    """A few skipped files for status, every reason named before any is named twice."""
    return first_of_each(skipped_store.skipped_list(db, STATUS_SKIPPED_LISTED), STATUS_SKIPPED_LISTED)


def _location_notes(svc: Repository) -> list[str]:
    note = svc.location.note()
    return [note] if note else []
