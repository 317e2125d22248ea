"""The one service behind the CLI and the MCP server: index, explore, node, file, related, status."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import apsw

from igraph_mcp.config import CONFIG_DIR, DB_FILE, Config, load_config
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.errors import (
    ConfigError,
    EmbedderError,
    IndexBusy,
    InvalidInput,
    NotIndexed,
    SchemaTooNew,
    StorageError,
)
from igraph_mcp.index.embedding import embed_nodes, prepare_vector_tables
from igraph_mcp.index.indexer import Indexer
from igraph_mcp.models import (
    EdgeRef,
    ExploreResult,
    FileDetail,
    IndexResult,
    NodeDetail,
    RelatedResult,
    StatusResult,
)
from igraph_mcp.paths import resolve_inside, strip_dot_slash
from igraph_mcp.resources.manager import ResourceManager
from igraph_mcp.resources.results import MountResult, ResourceList, UnmountResult
from igraph_mcp.retrieve.expand import expand
from igraph_mcp.retrieve.explore import DenseState, Explorer, ResourceFinder
from igraph_mcp.retrieve.shapes import neighbours, node_summary
from igraph_mcp.retrieve.vector_search import VectorSearchCache
from igraph_mcp.store import graph
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.graph import NodeRow
from igraph_mcp.store.schema import SCHEMA_VERSION

log = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]
MAX_SOURCE_LINES = 300
MAX_NAME_CHARS = 500


class IGraphService:
    """Owns the store, the embedder and the indexer for one repository root."""

    def __init__(
        self,
        root: Path | str,
        *,
        config: Config | None = None,
        embedder: Embedder | None = None,
        embed: bool = True,
    ) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise InvalidInput(f"{root} is not a directory; pass the repository root with --root")
        self.config = config or load_config(self.root)
        self.state_dir = self.root / CONFIG_DIR
        self.db_path = self.state_dir / DB_FILE
        self._embedder = embedder
        self._embedder_error: str | None = None
        self._embed_enabled = embed
        self._db: Database | None = None
        self._db_lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._vector_cache = VectorSearchCache()
        self._counts: tuple[tuple[str | None, str | None], int, int] | None = None
        self.resource_finder: ResourceFinder | None = None
        self.on_after_index: list[Callable[[Database, Embedder | None], None]] = []
        self.resources = ResourceManager(
            self.root,
            self.state_dir,
            self.config,
            embedder=self.embedder,
            writer=self._writer,
            reader=lambda: self.db,
        )
        self.resource_finder = self.resources.finder
        self.on_after_index.append(self.resources.after_index)

    # -- plumbing ----------------------------------------------------------------------------------------------
    def _ensure_state_dir(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        ignore = self.state_dir / ".gitignore"
        if not ignore.exists():
            # The index is derived data: keep it out of the user's commits.
            ignore.write_text("# created by igraph-mcp\n*\n!config.json\n!mounts.json\n", encoding="utf-8")

    @property
    def db(self) -> Database:
        """The read connection: read-only, opened on first use, reopened when the file was replaced.

        It never recovers or migrates (only a writer holding the index lock does), so a query run beside a
        rebuild in another process waits out that writer instead of mistaking its lock for damage.
        """
        with self._db_lock:
            if self._db is not None and self._db.identity != self._db.file_identity():
                self._db.close()  # moved aside and rebuilt by a writer: read the new file
                self._db = None
            if self._db is None:
                if not self.db_path.exists():
                    raise NotIndexed(
                        "this repository has no index yet; run `igraph-mcp index` (or the igraph_index tool)"
                    )
                try:
                    self._db = Database.open_for_read(self.db_path)
                except apsw.CantOpenError as exc:
                    raise StorageError(
                        f"the index at {self.db_path} cannot be opened for reading ({exc}); check its permissions"
                    ) from exc
            return self._db

    def close(self) -> None:
        """Close connections."""
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def is_indexed(self) -> bool:
        """True when at least one build has completed."""
        return self.db_path.exists() and self.db.get_meta("last_build") is not None

    def embedder(self) -> Embedder | None:
        """The configured embedder, created on first use; None when disabled or unavailable (see dense_state)."""
        if self._embedder is not None or self._embedder_error is not None or not self._embed_enabled:
            return self._embedder
        e = self.config.embedder
        try:
            self._embedder = make_embedder(e.backend, model=e.model, base_url=e.baseUrl, dimension=e.dimension)
        except (EmbedderError, ConfigError) as exc:
            self._embedder_error = str(exc)
        if self._embedder is None and self._embedder_error is None:
            self._embedder_error = "embedder is 'none' (FTS only)"
        return self._embedder

    @contextlib.contextmanager
    def _writer(self) -> Iterator[Database]:
        """Exclusive writer: one per process (thread lock) and one per repository (file lock)."""
        if not self._write_lock.acquire(blocking=False):
            raise IndexBusy("an index build is already running in this server; wait for it to finish")
        try:
            self._ensure_state_dir()
            with open(self.state_dir / "index.lock", "a+") as lock_file:
                try:
                    fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError as exc:
                    raise IndexBusy(
                        "another igraph-mcp process is indexing this repository; wait for it to finish and retry"
                    ) from exc
                db = Database.open_for_write(self.db_path)
                try:
                    yield db
                finally:
                    db.close()
        finally:
            self._write_lock.release()

    # -- index -------------------------------------------------------------------------------------------------
    def index(
        self,
        *,
        full: bool = False,
        dry_run: bool = False,
        embed: bool = True,
        progress: Progress | None = None,
    ) -> IndexResult:
        """Build or update the index: structure + FTS first (committed), then embeddings batch by batch."""
        try:
            return self._index(full=full, dry_run=dry_run, embed=embed, progress=progress)
        except (apsw.FullError, apsw.IOError, apsw.ReadOnlyError) as exc:
            raise StorageError(
                f"the index could not be written ({type(exc).__name__}: {exc}); free disk space or fix permissions "
                f"under {self.state_dir} and run the index again - answers keep coming from the last committed state"
            ) from exc

    def _index(self, *, full: bool, dry_run: bool, embed: bool, progress: Progress | None) -> IndexResult:
        with self._writer() as db:
            idx = Indexer(
                self.root,
                db,
                max_file_bytes=self.config.index.maxFileBytes,
                extra_ignores=tuple(self.config.index.exclude),
            )
            s = idx.run(full=full, dry_run=dry_run, progress=progress)
            note: str | None = None
            embedder = self.embedder() if embed and not dry_run else None
            if not dry_run:
                if embed and embedder is None:
                    note = self._embedder_error
                elif embedder is not None and not db.vec_available:
                    note = db.vec_error
                elif embedder is not None:
                    try:
                        prepare_vector_tables(db, embedder)
                        s.embedded, s.embed_reused = embed_nodes(
                            db,
                            embedder,
                            reuse=idx.reusable_vectors,
                            batch_size=max(256, self.config.embedder.batchSize),
                            progress=progress,
                        )
                    except EmbedderError as exc:
                        note = f"embedding stopped: {exc}; structure and FTS are up to date"
                for hook in self.on_after_index:
                    hook(db, embedder if note is None else None)
            return IndexResult(
                files=s.files,
                symbols=s.symbols,
                edges=s.edges,
                added=s.added,
                modified=s.modified,
                deleted=s.deleted,
                renamed=s.renamed,
                unchanged=s.unchanged,
                parsed=s.parsed,
                parseErrors=s.parse_errors,
                skipped=s.skipped,
                embedded=s.embedded,
                embedReused=s.embed_reused,
                embedNote=note,
                seconds=round(s.seconds, 3),
                dryRun=dry_run,
                reparsedPaths=s.reparsed_paths[:50],
                recoveredFrom=db.recovered_from,
            )

    # -- retrieval ----------------------------------------------------------------------------------------------
    def _damaged(self, exc: apsw.Error) -> StorageError:
        return StorageError(
            f"the index at {self.db_path} is damaged ({type(exc).__name__}); run `igraph-mcp index` to move it "
            "aside (nothing is deleted) and rebuild it"
        )

    def _require_index(self) -> Database:
        try:
            return self._check_index()
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            raise self._damaged(exc) from exc

    def _check_index(self) -> Database:
        db = self.db
        if db.get_meta("last_build") is None:
            raise NotIndexed("this repository has no index yet; run `igraph-mcp index` (or the igraph_index tool)")
        self._check_schema(db)
        return db

    def _check_schema(self, db: Database) -> None:
        version = db.schema_version()
        if version < SCHEMA_VERSION:
            raise NotIndexed(
                f"the index was built by an older igraph-mcp (schema {version}, this one reads {SCHEMA_VERSION}); "
                "run `igraph-mcp index` to upgrade it"
            )
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"the index at {self.db_path} has schema version {version}, newer than this igraph-mcp "
                f"supports ({SCHEMA_VERSION}); upgrade igraph-mcp or run `igraph-mcp index --full`"
            )

    def _coverage_counts(self, db: Database) -> tuple[int, int]:
        """(symbols, vectors), recounted only when a build or an embedding batch changed the index."""
        version = (db.get_meta("generation"), db.get_meta("vectors_version"))
        if self._counts is None or self._counts[0] != version:
            total = int(db.scalar("SELECT count(*) FROM nodes", default=0))
            self._counts = (version, total, vec_store.node_vector_count(db))  # count(*) on vec0 costs ~8 ms
        return self._counts[1], self._counts[2]

    def dense_state(self) -> DenseState:
        """Whether the dense channel can answer, and why not when it cannot."""
        db = self.db
        if not db.vec_available:
            return DenseState(None, db.vec_error, None)
        embedder = self.embedder()
        if embedder is None:
            return DenseState(None, self._embedder_error, None)
        stored = db.get_meta("embedder_id")
        total, vectors = self._coverage_counts(db)
        if stored is None or vectors == 0:
            return DenseState(None, "no vectors yet: run `igraph-mcp index` to embed the symbols; FTS only", 0.0)
        if stored != embedder.id:
            return DenseState(
                None,
                f"index was embedded with {stored} but the embedder is {embedder.id}; "
                "run `igraph-mcp index` to re-embed; FTS only",
                None,
            )
        return DenseState(embedder, None, vectors / total if total else 0.0, self._vector_cache.get(db))

    def explore(
        self,
        query: str,
        *,
        top_k: int = 5,
        hops: int | None = None,
        kinds: Sequence[str] | None = None,
        context_files: Sequence[str] = (),
        max_tokens: int | None = None,
        channels: Sequence[str] = ("fts", "dense"),
    ) -> ExploreResult:
        """Hybrid retrieval with graph expansion and attached resources."""
        db = self._require_index()
        # With nothing mounted the resource step is skipped, so an FTS-only query never pays for a query vector.
        finder = self.resource_finder if db.scalar("SELECT 1 FROM resource_sources LIMIT 1") else None
        dense = self.dense_state() if "dense" in channels or finder else DenseState(None, None, None)
        explorer = Explorer(db, self.config.retrieval, dense, finder, self.stale_files)
        return explorer.explore(
            query,
            top_k=top_k,
            hops=hops,
            kinds=kinds,
            context_files=context_files,
            max_tokens=max_tokens,
            channels=channels,
        )

    def stale_files(self, paths: list[str]) -> set[str]:
        """Those of ``paths`` whose file on disk differs from what was indexed (or is gone)."""
        recorded = graph.file_stats(self.db, paths)
        stale: set[str] = set()
        for path in paths:
            try:
                st = (self.root / path).stat()
            except OSError:
                stale.add(path)
                continue
            if recorded.get(path) != (st.st_size, st.st_mtime_ns):
                stale.add(path)
        return stale

    def _find(self, name: str, file: str | None) -> list[NodeRow]:
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("name is empty; pass a symbol name such as `Session.request` or `parse_file`")
        if len(name) > MAX_NAME_CHARS:
            raise InvalidInput(f"name is longer than {MAX_NAME_CHARS} characters")
        name = name.strip().replace("::", ".").replace("#", ".")
        rows = graph.nodes_named(self._require_index(), name)
        if not rows and "." in name:  # "module.Class.method" or "pkg.mod.func": try the qualified suffixes
            parts = name.split(".")
            for i in range(1, len(parts)):
                rows = [
                    r
                    for r in graph.nodes_named(self.db, ".".join(parts[i:]))
                    if r.path.replace("/", ".").find(".".join(parts[:i])) >= 0 or i == len(parts) - 1
                ]
                if rows:
                    break
        if file:
            norm = strip_dot_slash(file.strip().replace("\\", "/"))
            rows = [r for r in rows if r.path == norm or r.path.endswith("/" + norm)]
        exact = [r for r in rows if r.qualified_name == name]
        return exact if len(exact) == 1 else rows

    def node(self, name: str, file: str | None = None) -> NodeDetail:
        """Detail of one symbol: source, signature, callers, callees; candidates when ambiguous."""
        rows = self._find(name, file)
        if not rows:
            return NodeDetail(
                found=False,
                message=f"no symbol named '{name}'"
                + (f" in '{file}'" if file else "")
                + "; try igraph_explore with a description",
            )
        if len(rows) > 1:
            return NodeDetail(
                found=False,
                message=f"'{name}' is ambiguous ({len(rows)} symbols); call again "
                "with a qualified name or the file argument",
                candidates=[node_summary(r) for r in rows],
            )
        row = rows[0]
        source, truncated = self._source(row)
        callers = self._edge_refs(row.id, outgoing=False, kinds=("calls",))
        callees = self._edge_refs(row.id, outgoing=True, kinds=("calls",))
        bases = self._edge_refs(row.id, outgoing=True, kinds=("inherits", "implements"))
        return NodeDetail(
            found=True,
            node=node_summary(row),
            docstring=row.docstring,
            source=source,
            sourceTruncated=truncated,
            callers=callers,
            callees=callees,
            bases=bases,
            stale=bool(self.stale_files([row.path])),
        )

    def _source(self, row: NodeRow) -> tuple[str, bool]:
        try:
            with open(self.root / row.path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().splitlines()
        except OSError:
            body = graph.node_bodies(self.db, [row.id]).get(row.id, "")
            return body, True
        chunk = lines[row.start_line - 1 : row.end_line]
        truncated = len(chunk) > MAX_SOURCE_LINES
        return "\n".join(chunk[:MAX_SOURCE_LINES]), truncated

    def _edge_refs(self, node_id: int, *, outgoing: bool, kinds: tuple[str, ...], limit: int = 50) -> list[EdgeRef]:
        edges = graph.edges_of(self.db, [node_id], outgoing=outgoing, kinds=kinds, resolved_only=not outgoing)
        other_ids = [e.target_id if outgoing else e.source_id for e in edges]
        rows = graph.nodes_by_ids(self.db, [i for i in other_ids if i is not None])
        out: list[EdgeRef] = []
        seen: set[tuple[int | None, str]] = set()
        for e, oid in zip(edges, other_ids, strict=True):
            r = rows.get(oid) if oid is not None else None
            key = (oid, e.target_name if r is None else "")
            if key in seen:
                continue
            seen.add(key)
            out.append(
                EdgeRef(
                    nodeId=oid,
                    name=r.name if r else e.target_name,
                    qualifiedName=r.qualified_name
                    if r
                    else (f"{e.qualifier}.{e.target_name}" if e.qualifier else e.target_name),
                    kind=r.kind if r else "",
                    filePath=r.path if r else "",
                    line=e.line,
                    edgeKind=e.kind,
                    resolution=e.resolution,
                )
            )
            if len(out) >= limit:
                break
        return out

    def file(self, path: str) -> FileDetail:
        """Outline of one file: exact path or an unambiguous suffix."""
        db = self._require_index()
        if not isinstance(path, str) or not path.strip():
            raise InvalidInput("path is empty; pass a path relative to the repository root")
        norm = path.strip().replace("\\", "/")
        if os.path.isabs(norm) or ".." in norm.split("/"):
            real = resolve_inside(self.root, norm)  # raises for paths outside the root
            norm = real.relative_to(self.root).as_posix()
        norm = strip_dot_slash(norm)
        matches = graph.file_paths_with_suffix(db, norm)
        if not matches:
            return FileDetail(
                found=False,
                message=f"no indexed file matches '{path}'; check the path or run igraph_index if it is new",
            )
        exact = [m for m in matches if m == norm]
        if len(matches) > 1 and not exact:
            return FileDetail(
                found=False,
                message=f"'{path}' matches {len(matches)} files; give more of the path",
                candidates=matches,
            )
        chosen = exact[0] if exact else matches[0]
        row = graph.file_row(db, chosen)
        assert row is not None
        nodes = [n for n in graph.nodes_in_file(db, int(row[0])) if n.kind != "module"]
        imports = [
            f"{m}{'.' + n if n else ''}{' as ' + a if a else ''}"
            for m, n, a in graph.imports_by_file_id(db, int(row[0]))
        ]
        return FileDetail(
            found=True,
            filePath=chosen,
            language=row[2],
            lines=int(row[5]),
            parseStatus=row[6],
            symbols=[node_summary(n) for n in nodes[:500]],
            imports=imports[:200],
            stale=bool(self.stale_files([chosen])),
        )

    def related(self, name: str, direction: str = "both", hops: int | None = None) -> RelatedResult:
        """Callers and/or callees of a symbol up to ``hops`` away."""
        if direction not in ("both", "callers", "callees"):
            raise InvalidInput("direction must be 'both', 'callers' or 'callees'")
        hops = 1 if hops is None else hops
        if not 1 <= hops <= 5:
            raise InvalidInput("hops must be between 1 and 5")
        rows = self._find(name, None)
        if not rows:
            return RelatedResult(found=False, message=f"no symbol named '{name}'; try igraph_explore")
        if len(rows) > 1:
            return RelatedResult(
                found=False,
                message=f"'{name}' is ambiguous; call again with a qualified name",
                candidates=[node_summary(r) for r in rows],
            )
        row = rows[0]
        dirs = {"both": ("callee", "caller"), "callers": ("caller",), "callees": ("callee",)}[direction]
        limit = 100
        reached = expand(
            self.db,
            {row.id: 1.0},
            hops,
            limit=limit + 1,
            directions=dirs,
            kinds=("calls", "inherits", "implements"),
        )
        truncated = len(reached) > limit
        related = neighbours(self.db, reached[:limit], {row.id: row.qualified_name})
        return RelatedResult(found=True, node=node_summary(row), related=related, truncated=truncated)

    # -- resources -------------------------------------------------------------------------------------------
    def mount(self, path: str, source_type: str = "auto", name: str | None = None) -> MountResult:
        """Mount (or re-mount) a PRD or DB schema inside the root: searchable chunks linked to code."""
        return self.resources.mount(path, source_type, name)

    def unmount(self, target: str) -> UnmountResult:
        """Unmount a source by id or path (chunks, vectors and links are removed)."""
        return self.resources.unmount(target)

    def list_resources(self) -> ResourceList:
        """Mounted sources, with missing or changed files flagged."""
        return self.resources.list_resources()

    # -- status ------------------------------------------------------------------------------------------------
    def status(self) -> StatusResult:
        """Counts, embedder, dense coverage, last build, stale files."""
        if not self.db_path.exists():
            return StatusResult(
                root=str(self.root),
                indexed=False,
                notes=["no index yet: run `igraph-mcp index` or the igraph_index tool"],
            )
        try:
            db = self.db
            if db.schema_version() > SCHEMA_VERSION:
                self._check_schema(db)  # raises with the upgrade hint
            c = graph.counts(db)
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            return StatusResult(root=str(self.root), indexed=False, notes=[str(self._damaged(exc))])
        vectors = vec_store.node_vector_count(db) if db.vec_available else 0
        total_nodes = int(db.scalar("SELECT count(*) FROM nodes", default=0))
        last = db.get_meta("last_build")
        stale = self.stale_files(list(graph.file_paths(db).values()))
        notes: list[str] = []
        if db.vec_error:
            notes.append(db.vec_error)
        dim = db.get_meta("embedder_dim")
        return StatusResult(
            root=str(self.root),
            indexed=last is not None,
            files=c["files"],
            symbols=c["symbols"],
            edges=c["edges"],
            unresolvedRefs=c["unresolvedRefs"],
            edgeKinds=graph.edge_kind_counts(db),
            languages=graph.file_languages(db),
            embedder=db.get_meta("embedder_id"),
            embedderDimension=int(dim) if dim else None,
            denseCoverage=round(vectors / total_nodes, 4) if total_nodes else 0.0,
            vectors=vectors,
            lastBuild=float(last) if last else None,
            schemaVersion=int(db.get_meta("schema_version", "0") or 0),
            resources=int(db.scalar("SELECT count(*) FROM resources", default=0)),
            resourceSources=int(db.scalar("SELECT count(*) FROM resource_sources", default=0)),
            staleFiles=sorted(stale)[:50],
            staleCount=len(stale),
            dbBytes=self.db_path.stat().st_size,
            notes=notes,
        )
