"""The one service behind the CLI and the MCP server: it wires the rooms together for one repository root.

Reading goes through ``store.reader`` (one read-only connection), writing through ``store.lock`` (one writer per
repository); indexing lives in ``index.build``, lookups in ``retrieve.lookup``, queries in ``retrieve.stages``,
mounted documents in ``resources.manager``. The methods here pick the parts and pass them along.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from igraph_mcp.config import Config, load_config, locate_state_dir
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.registry import embedder_from_config
from igraph_mcp.errors import ConfigError, EmbedderError, IGraphError, InvalidInput, NotIndexed
from igraph_mcp.explore_request import CHANNELS, ExploreRequest
from igraph_mcp.index.stale import stale_files
from igraph_mcp.index_status import index_status
from igraph_mcp.models import (
    BuildActivity,
    ExploreResult,
    FileDetail,
    IndexResult,
    NodeDetail,
    RelatedResult,
    StatusResult,
)
from igraph_mcp.resources.manager import ResourceManager
from igraph_mcp.resources.results import MountResult, ResourceList, UnmountResult
from igraph_mcp.retrieve import stages
from igraph_mcp.retrieve.dense_state import DenseGate, DenseState, finishing_note
from igraph_mcp.retrieve.lookup import Lookup
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.retrieve.resource_channel import ResourceChannel
from igraph_mcp.retrieve.stages import ResourceFinder
from igraph_mcp.store import status as status_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.target import open_store
from igraph_mcp.unfinished import UnfinishedWork, unfinished_work

if TYPE_CHECKING:
    # Imported where used: a search never builds, and the indexer's modules (parsers, resolver, walk) were a
    # third of a cold `igraph-mcp search`'s imports.
    from igraph_mcp.index.build import AfterIndex
    from igraph_mcp.index.phases import Progress
    from igraph_mcp.overview import Overview

__all__ = ["IGraphService", "UnfinishedWork"]

log = logging.getLogger(__name__)


_R = TypeVar("_R")


def _one_snapshot(method: Callable[..., _R]) -> Callable[..., _R]:
    """Answer a read from one committed state of the index, however many queries it takes (see Database.snapshot)."""

    @functools.wraps(method)
    def wrapper(self: IGraphService, *args: Any, **kwargs: Any) -> _R:
        try:
            db = self.db
        except IGraphError:
            return method(self, *args, **kwargs)  # no index yet, or damaged: the method says so in its own words
        with db.snapshot():
            return method(self, *args, **kwargs)

    return wrapper


class IGraphService:
    """Owns the store, the embedder and the indexer for one repository root."""

    def __init__(
        self,
        root: Path | str,
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        embed: bool = True,
        store: str | None = None,
        repo_name: str | None = None,
        resident_vectors: bool = True,
    ) -> None:
        """``resident_vectors``: hold the vectors in memory for the dense channel's scan, read on the first query
        (a server); False for a process that answers one question and exits (the CLI's search)."""
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise InvalidInput(f"{root} is not a directory; pass the repository root with --root")
        self.config = config or load_config(self.root)
        self.retrieval_params = RetrievalParams.from_config(self.config.retrieval)
        self.location = locate_state_dir(self.root)
        self.state_dir = self.location.path
        self._embedder = embedder
        self._embedder_error: str | None = None
        self._embed_enabled = embed
        # What this process's server is about to finish in the background (set while its resume waits for the
        # writer lock), so an answer in that moment says "finishing" rather than "run igraph_index".
        self.resume_pending: str | None = None
        # The store is chosen here, once (``--store``/environment/SQLite file); nothing below knows which it is.
        self.store = open_store(self.root, self.state_dir, store=store, repo_name=repo_name)
        self.reader = self.store.reader  # one read-only connection
        self.writer_lock = self.store.writer  # one writer per repository, with its progress record
        self._writer = self.writer_lock.hold
        self._dense = DenseGate(resident=resident_vectors)
        self._lookup = Lookup(self.root, self.reader, self.stale_files)
        self.on_after_index: list[AfterIndex] = []
        self.resources = ResourceManager(
            self.root,
            self.state_dir,
            self.config,
            embedder=self.embedder,
            writer=self._writer,
            reader=lambda: self.db,
        )
        self.resource_finder: ResourceFinder | None = ResourceChannel(
            lambda: self.db, self.config.retrieval, self.resources.thresholds, self.root
        )
        self.on_after_index.append(self.resources.after_index)

    # -- plumbing ----------------------------------------------------------------------------------------------
    @property
    def db_path(self) -> Path | None:
        """The SQLite index file (None on a PostgreSQL store)."""
        return self.store.sqlite_path

    @property
    def db(self) -> Database:
        """The read connection (read-only; reopened when a writer replaced the file)."""
        return self.reader.db

    def close(self) -> None:
        """Close connections."""
        self.reader.close()

    def is_indexed(self) -> bool:
        """True when at least one build has completed."""
        if not self.store.present():
            return False
        try:
            return self.db.get_meta("last_build") is not None
        except NotIndexed:
            return False

    def embedder(self) -> Embedder | None:
        """The configured embedder, created on first use; None when disabled or unavailable (see dense_state)."""
        if self._embedder is not None or self._embedder_error is not None or not self._embed_enabled:
            return self._embedder
        try:
            self._embedder = embedder_from_config(self.config.embedder)
        except (EmbedderError, ConfigError) as exc:
            self._embedder_error = str(exc)
        if self._embedder is None and self._embedder_error is None:
            self._embedder_error = "embedder is 'none' (FTS only)"
        return self._embedder

    # -- index -------------------------------------------------------------------------------------------------
    def index(
        self,
        *,
        full: bool = False,
        dry_run: bool = False,
        embed: bool = True,
        progress: Progress | None = None,
        all_skipped: bool = False,
        replace: bool = False,
        allow_mass_delete: bool = False,
    ) -> IndexResult:
        """Build or update the index: structure + FTS first (committed), then embeddings batch by batch; the
        summary names the first files skipped for a reason worth knowing, or all of them with ``all_skipped``.

        Refused before anything is written: a name in a shared store bound to another repository (NameTaken;
        ``replace`` takes it over, and its old files may then all go) and a run that would delete more than half of
        the indexed files (MassDelete; ``allow_mass_delete``)."""

        from igraph_mcp.index.build import build_index

        report = self._reporter(progress)
        # A write failure (disk full, permissions, a lost server) reaches us as StorageError from the store.
        with self.writer_lock.hold(replace=replace and not dry_run) as db:
            embedder = self.embedder() if embed and not dry_run else None
            return build_index(
                self.root,
                db,
                self.config,
                full=full,
                dry_run=dry_run,
                embedder=embedder,
                embedder_note=self._embedder_error if embed else None,
                progress=report,
                after_index=self.on_after_index,
                all_skipped=all_skipped,
                allow_mass_delete=allow_mass_delete or replace,
            )

    def finish(self, *, progress: Progress | None = None) -> IndexResult:
        """Finish an index whose structure is complete: embed the symbols still without a vector and link
        resources, without walking the tree (what a build stopped while embedding left undone)."""
        from igraph_mcp.index.build import finish_index

        report = self._reporter(progress)
        with self._writer() as db:
            return finish_index(
                db,
                self.config,
                embedder=self.embedder(),
                embedder_note=self._embedder_error,
                progress=report,
                after_index=self.on_after_index,
            )

    def _reporter(self, progress: Progress | None) -> Progress:
        """The progress callback of one build: the lock's record (with the phase's rate) first, then ``progress``."""
        from igraph_mcp.index.phases import RateMeter

        meter = RateMeter()

        def report(phase: str, done: int, total: int) -> None:
            # Rivals' "busy" answers, status in any process and degraded answers read this record.
            self.writer_lock.report(phase, done, total, meter.update(phase, done))
            if progress is not None:
                progress(phase, done, total)

        return report

    def unfinished_work(self) -> UnfinishedWork | None:
        """What a previous build left undone (None: the index is whole, or not this server's to finish)."""
        return unfinished_work(self)

    def activity(self) -> BuildActivity | None:
        """The running build of whichever process holds this repository's writer lock, from its progress record."""
        try:
            db = self.db
        except IGraphError:
            db = None
        return self.writer_lock.activity(db)

    # -- retrieval ----------------------------------------------------------------------------------------------
    def dense_state(self) -> DenseState:
        """Whether the dense channel can answer, and why not when it cannot."""
        db = self.db
        embedder = self.embedder() if db.vec_available else None
        return self._dense.state(db, embedder, self._embedder_error, self._background_note)

    def warm(self) -> None:
        """Read now what a first question would wait for: the vectors, as the matrix the dense channel scans, and
        the embedding model (a server calls this on start, in the background: on sympy's 86k vectors that is about
        a second of its first answer). No index or no vectors yet: nothing to read."""
        try:
            with self.db.snapshot():  # the database's lock before the matrix cache's, as every question takes them
                dense = self.dense_state()
            if dense.embedder is not None and dense.reason is None:
                dense.embedder.embed_query("warm up")
        except IGraphError as exc:
            log.debug("nothing warmed for %s: %s", self.root, exc)

    def _background_note(self) -> str:
        """What a partial dense channel is waiting for: a running build and its time left, or what to do."""
        return finishing_note(self.writer_lock.activity(self.db), pending=self.resume_pending is not None)

    @_one_snapshot
    def explore(
        self,
        query: str,
        *,
        top_k: int | None = None,
        hops: int | None = None,
        kinds: Sequence[str] | None = None,
        context_files: Sequence[str] = (),
        max_tokens: int | None = None,
        channels: Sequence[str] = CHANNELS,
        params: RetrievalParams | None = None,
    ) -> ExploreResult:
        """Hybrid retrieval with graph expansion and attached resources (arguments: ``ExploreRequest``;
        ``params``: ranking parameters other than the configured ones, for benchmarks and trainers)."""
        request = ExploreRequest(query, top_k, hops, kinds, context_files, max_tokens, channels)
        db = self.reader.require_index()
        # With nothing mounted the resource step is skipped, so an FTS-only query never pays for a query vector.
        finder = self.resource_finder if status_store.has_resource_sources(db) else None
        dense = self.dense_state() if "dense" in channels or finder else DenseState(None, None, None)
        return stages.run(db, request, params or self.retrieval_params, dense, finder, self.stale_files, self.root)

    def stale_files(self, paths: list[str]) -> set[str]:
        """Those of ``paths`` whose file on disk differs from what was indexed (or is gone)."""
        return stale_files(self.db, self.root, paths)

    @_one_snapshot
    def node(self, name: str, file: str | None = None) -> NodeDetail:
        """Detail of one symbol: source, signature, callers, callees; candidates when ambiguous."""
        return self._lookup.node(name, file)

    @_one_snapshot
    def node_by_id(self, node_id: int) -> NodeDetail:
        """``node`` for a symbol by its id (the view's clicks)."""
        return self._lookup.node_by_id(node_id)

    @_one_snapshot
    def file(self, path: str) -> FileDetail:
        """Outline of one file: exact path or an unambiguous suffix."""
        return self._lookup.file(path)

    @_one_snapshot
    def related(
        self,
        name: str,
        direction: str = "both",
        hops: int | None = None,
        limit: int | None = None,
        file: str | None = None,
    ) -> RelatedResult:
        """Callers and/or callees of a symbol up to ``hops`` away (at most ``limit``; the rest is counted;
        ``file``: the path, or ``path:LINE``, that picks one symbol of an ambiguous name)."""
        return self._lookup.related(name, direction, hops, limit, file)

    @_one_snapshot
    def related_by_id(
        self, node_id: int, direction: str = "both", hops: int | None = None, limit: int | None = None
    ) -> RelatedResult:
        """``related`` for a symbol by its id (the view's Symbol tab)."""
        return self._lookup.related_by_id(node_id, direction, hops, limit)

    # -- resources -------------------------------------------------------------------------------------------
    def mount(self, path: str, source_type: str = "auto", name: str | None = None) -> MountResult:
        """Mount (or re-mount) a PRD or DB schema inside the root: searchable chunks linked to code."""
        return self.resources.mount(path, source_type, name)

    def unmount(self, target: str) -> UnmountResult:
        """Unmount a source by id or path (chunks, vectors and links are removed)."""
        return self.resources.unmount(target)

    @_one_snapshot
    def list_resources(self) -> ResourceList:
        """Mounted sources, with missing or changed files flagged."""
        return self.resources.list_resources()

    # -- status ------------------------------------------------------------------------------------------------
    @_one_snapshot
    def status(self) -> StatusResult:
        """Counts, embedder, dense coverage, last build, stale files."""
        return index_status(self)

    @property
    def lookup(self) -> Lookup:
        """Node, file and related lookups over this index (the fronts' way to a symbol's detail)."""
        return self._lookup

    @functools.cached_property
    def overview(self) -> Overview:
        """The browser view's reads beyond the tools' answers (the map, a symbol's neighbourhood, resource pages)."""
        from igraph_mcp.overview import Overview

        return Overview(self)
