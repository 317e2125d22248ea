"""What a previous build left undone in one repository's index: the work a server finishes in the background."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import IndexDamaged, NotIndexed
from igraph_mcp.index.stale import changed_on_disk
from igraph_mcp.resources.manager import ResourceManager
from igraph_mcp.store import files as file_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.reader import IndexReader
from igraph_mcp.store.schema import SCHEMA_VERSION
from igraph_mcp.store.target import IndexStore


class Repository(Protocol):
    """What the look needs of one repository's service (``IGraphService``)."""

    @property
    def root(self) -> Path: ...
    @property
    def store(self) -> IndexStore: ...
    @property
    def reader(self) -> IndexReader: ...
    @property
    def resources(self) -> ResourceManager: ...
    @property
    def db(self) -> Database: ...
    def embedder(self) -> Embedder | None: ...


@dataclass(frozen=True, slots=True)
class UnfinishedWork:
    """What the last build left undone, one phrase per kind; ``update``: the tree must be indexed again (not only
    vectors embedded and resources linked)."""

    reasons: tuple[str, ...]
    update: bool


def unfinished_work(svc: Repository) -> UnfinishedWork | None:
    """What a previous build of ``svc``'s index left undone (None: the index is whole, or not this server's to
    finish).

    Read from the index without the writer lock: a build that finishes the work meanwhile makes the next look
    find nothing. Not counted: vectors of another embedder (re-embedding everything is igraph_index's to
    decide), an index of another schema version (upgrading it too), a damaged file.
    """
    if not svc.store.present():
        return UnfinishedWork(("the first build",), update=True)
    try:
        with svc.reader.reading():
            db = svc.db
            if db.get_meta("last_build") is None:
                return UnfinishedWork(("the first build (interrupted)",), update=True)
            if db.schema_version() != SCHEMA_VERSION:
                return None
            reasons: list[str] = []
            update = False
            if db.get_meta("resolve_pending") == "1":  # the indexer's mark: files stored, edges not yet bound
                reasons.append("binding references (an update was interrupted)")
                update = True
            if svc.store.tree_is_source(db, str(svc.root)):
                stale = len(changed_on_disk(svc.root, file_store.recorded_stats(db)))
                if stale:
                    reasons.append(f"{stale} file(s) changed since the last build")
                    update = True
            missing = _missing_vectors(svc, db)
            if missing:
                reasons.append(f"embedding {missing} symbol(s) without a vector")
            if svc.resources.links_pending(db):
                reasons.append("linking mounted resources to changed code")
    except NotIndexed:
        return UnfinishedWork(("the first build",), update=True)
    except IndexDamaged:
        return None  # moved aside and rebuilt by the next igraph_index (D5), never behind the user's back
    return UnfinishedWork(tuple(reasons), update) if reasons else None


def _missing_vectors(svc: Repository, db: Database) -> int:
    """Symbols the configured embedder still has to embed (0 when there is none, or vectors are another's)."""
    embedder = svc.embedder() if db.vec_available else None
    if embedder is None:
        return 0
    if db.get_meta("embedder_id") is not None and not vec_store.made_by(db, embedder):
        return 0
    return vec_store.count_nodes_to_embed(db)
