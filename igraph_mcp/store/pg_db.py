"""The PostgreSQL connection of one repository: registry lookup, its own schema on the search path, migrations,
the same query/transaction API as the SQLite ``Database`` (store SQL is written once, with ``?``), and its three
parts: the postings text index with its resident copy, pgvector, COPY.

Imported only when a ``postgresql://`` store is selected, so a SQLite-only install never needs psycopg.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg import sql as pg_sql
from psycopg.adapt import Dumper

from igraph_mcp.errors import IGraphError, IndexBusy, NotIndexed, SchemaTooNew, StorageError
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.repo_identity import RepoIdentity
from igraph_mcp.store import pg_counts, pg_resident, pg_schema, pg_text
from igraph_mcp.store.backend import BulkWriter, WriteConnection
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import POSTGRESQL, Dialect
from igraph_mcp.store.pg_bulk import CopyWriter
from igraph_mcp.store.pg_text_index import PgTextIndex
from igraph_mcp.store.pg_vectors import PgVectorIndex
from igraph_mcp.store.records import EDGE_COLUMNS
from igraph_mcp.store.schema import SCHEMA_VERSION
from igraph_mcp.store.url import safe_url

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 10


@functools.lru_cache(maxsize=2048)
def translate(sql: str) -> str:
    """``?`` placeholders to psycopg's ``%s`` (a literal ``%`` doubled); store SQL never has a literal ``?``."""
    return sql.replace("%", "%%").replace("?", "%s")


class _BoolAsInt(Dumper):
    """Python bools into INTEGER columns, as SQLite stores them (the schema has no boolean columns)."""

    oid = psycopg.postgres.types["int2"].oid

    def dump(self, obj: Any) -> bytes:
        """1 or 0."""
        return b"1" if obj else b"0"


def storage_error(exc: psycopg.Error, url: str) -> IGraphError:
    """Our error for a psycopg failure: what went wrong with the store and what to do about it."""
    where = safe_url(url)
    if isinstance(exc, pg_errors.DiskFull | pg_errors.OutOfMemory):
        return StorageError(
            f"the PostgreSQL store {where} could not write ({type(exc).__name__}); free space on the server and run "
            "the index again - answers keep coming from the last committed state"
        )
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        return StorageError(
            f"the PostgreSQL role lacks a privilege on {where} ({_first_line(exc)}); grant it CREATE and USAGE on "
            "the database, or use a role that has them"
        )
    if isinstance(exc, pg_errors.ReadOnlySqlTransaction):
        return StorageError(f"the PostgreSQL store {where} is read-only here (a standby?); index against the primary")
    if isinstance(exc, pg_errors.LockNotAvailable | pg_errors.DeadlockDetected):
        return IndexBusy(f"the PostgreSQL store {where} is busy ({_first_line(exc)}); wait a moment and retry")
    if isinstance(exc, psycopg.OperationalError):
        return StorageError(
            f"the PostgreSQL store {where} cannot be reached ({_first_line(exc)}); check that the server runs and "
            "that the URL, host and credentials (PGPASSWORD, PGPASSFILE) are right"
        )
    return StorageError(f"the PostgreSQL store {where} failed ({type(exc).__name__}: {_first_line(exc)})")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# Errors that say the store itself failed (unreachable, full, refused): mapped to ours. Anything else psycopg
# raises is a bug in our SQL and keeps its traceback.
_MAPPED = (psycopg.OperationalError, pg_errors.InsufficientPrivilege, pg_errors.ReadOnlySqlTransaction)


class PgConnection:
    """What ``atomic()`` yields on PostgreSQL: ``execute``/``executemany`` taking the store's ``?`` SQL, and the
    database (its parts)."""

    def __init__(self, con: psycopg.Connection[tuple[Any, ...]], db: PgDatabase) -> None:
        self.raw = con
        self.db = db

    def execute(self, sql: str, params: Any = (), /) -> psycopg.Cursor[tuple[Any, ...]]:
        """Run one statement; the cursor iterates over its rows."""
        return self.raw.execute(translate(sql), tuple(params))

    def executemany(self, sql: str, rows: Any, /) -> None:
        """Run one statement for each parameter row (psycopg pipelines them)."""
        with self.raw.cursor() as cur:
            cur.executemany(translate(sql), rows)


def connect(url: str) -> psycopg.Connection[tuple[Any, ...]]:
    """An autocommit connection (transactions are opened explicitly), or StorageError without the password."""
    try:
        con = psycopg.connect(url, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S, application_name="igraph-mcp")
    except psycopg.Error as exc:
        raise storage_error(exc, url) from None  # the chained exception could carry the URL: drop it
    con.adapters.register_dumper(bool, _BoolAsInt)
    return con


def _registry_exists(con: psycopg.Connection[tuple[Any, ...]]) -> bool:
    return con.execute("SELECT to_regclass('igraph.repos') IS NOT NULL").fetchone() == (True,)


def ensure_registry(con: psycopg.Connection[tuple[Any, ...]]) -> None:
    """Create the registry schema and tables once per database (idempotent, safe against a racing first run)."""
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.REGISTRY_LOCK_KEY,))
        for ddl in [*pg_schema.REGISTRY_DDL, *pg_schema.REGISTRY_SEARCH_DDL]:
            con.execute(ddl)
        row = con.execute("SELECT coalesce(max(version), 1) FROM igraph.registry_migrations").fetchone()
        current = int(row[0]) if row else 1
        for version, statements in pg_schema.REGISTRY_MIGRATIONS:
            if version <= current:
                continue
            for ddl in statements:
                con.execute(ddl)
            con.execute(
                "INSERT INTO igraph.registry_migrations(version, applied_at) VALUES(%s, %s)", (version, time.time())
            )


def find_repo(con: psycopg.Connection[tuple[Any, ...]], name: str) -> int | None:
    """The id of repository ``name`` in the registry, or None (also when there is no registry yet)."""
    if not _registry_exists(con):
        return None
    row = con.execute("SELECT id FROM igraph.repos WHERE name = %s", (name,)).fetchone()
    return None if row is None else int(row[0])


def register_repo(con: psycopg.Connection[tuple[Any, ...]], name: str) -> int:
    """The id of repository ``name``, creating its registry row and schema (every migration applied) in one
    transaction, so a reader finds either no repository or a complete schema (its checkout is recorded by the
    writer once it holds the lock: ``record_source``)."""
    ensure_registry(con)
    with con.transaction():
        con.execute("SELECT pg_advisory_xact_lock(%s)", (pg_schema.REGISTRY_LOCK_KEY,))
        row = con.execute("SELECT id FROM igraph.repos WHERE name = %s", (name,)).fetchone()
        if row is None:
            row = con.execute(
                "INSERT INTO igraph.repos(name, created_at) VALUES(%s, %s) RETURNING id", (name, time.time())
            ).fetchone()
            assert row is not None  # RETURNING always yields the inserted row
            repo_id = int(row[0])
            schema = pg_schema.schema_name(repo_id)
            con.execute(pg_sql.SQL("CREATE SCHEMA {}").format(pg_sql.Identifier(schema)))
            con.execute("UPDATE igraph.repos SET schema_name = %s WHERE id = %s", (schema, repo_id))
            con.execute(pg_sql.SQL("SET LOCAL search_path TO {}, public").format(pg_sql.Identifier(schema)))
            apply_migrations(con, 0)
        else:
            repo_id = int(row[0])
    return repo_id


def apply_migrations(con: psycopg.Connection[tuple[Any, ...]], current: int) -> None:
    """Run the migrations above ``current`` inside the open transaction (the search path names the schema)."""
    for ddl in pg_schema.BASE_DDL:
        con.execute(ddl)
    for version, statements in pg_schema.repo_migrations():
        if version <= current:
            continue
        for ddl in statements:
            con.execute(ddl)
        con.execute("INSERT INTO migrations(version, applied_at) VALUES(%s, %s)", (version, time.time()))
    con.execute(
        "INSERT INTO meta(key, value) VALUES('schema_version', %s) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (str(SCHEMA_VERSION),),
    )


class PgDatabase(Database):
    """One psycopg connection to one repository's schema, with the SQLite ``Database``'s API.

    ``open_for_write`` registers the repository and migrates its schema (the caller holds the writer lock);
    ``open_for_read`` never writes and says NotIndexed for a repository the registry does not know.
    """

    dialect: Dialect = POSTGRESQL
    # ILIKE gives PostgreSQL the answers SQLite's LIKE gives to a path or name suffix lookup (ASCII case ignored).
    like = "ILIKE"
    contains = "strpos({0}, ?) > 0"
    # current_schema() is the repository's own schema (first on the search path), never the registry's.
    table_exists_sql = "SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = ?"
    last_id_sql = ""  # INSERT ... RETURNING id
    bulk: BulkWriter = CopyWriter()

    @classmethod
    def open_for_write(cls, url: str, repo: str, *, migrate: bool = True) -> PgDatabase:
        """The writer's connection: registers ``repo`` and migrates its schema (``migrate=False``: the caller takes
        the writer lock first, then calls ``migrate()``)."""
        db = cls(url, repo, readonly=False)
        if migrate:
            try:
                db.migrate()
            except BaseException:
                db.close()
                raise
        return db

    @classmethod
    def open_for_read(cls, url: str, repo: str) -> PgDatabase:
        """A reader's connection to ``repo``: no registration, no migration."""
        return cls(url, repo, readonly=True)

    def __init__(self, url: str, repo: str, *, readonly: bool) -> None:
        self.url = url
        self.repo = repo
        self.readonly = readonly
        self.path = Path(safe_url(url))  # no file: what messages name as where the index lives
        self.recovered_from: str | None = None  # PostgreSQL recovers itself: nothing is ever moved aside
        self._lock = threading.RLock()
        self._depth = 0
        self._resident: dict[str, pg_resident.Resident] = {}
        self.raw = connect(url)
        self.con = PgConnection(self.raw, self)
        self.text = PgTextIndex(self)
        self.vectors = PgVectorIndex(self)
        try:
            if readonly:
                repo_id = find_repo(self.raw, repo)
                if repo_id is None:
                    raise NotIndexed(
                        f"repository {repo!r} has no index in the PostgreSQL store {safe_url(url)}; build it with "
                        f"{ask(NextStep.INDEX)} on this store"
                    )
            else:
                repo_id = register_repo(self.raw, repo)
            self.repo_id = repo_id
            self.schema = pg_schema.schema_name(repo_id)
            self.raw.execute(pg_sql.SQL("SET search_path TO {}, public").format(pg_sql.Identifier(self.schema)))
            self.raw.execute("SELECT set_config('work_mem', %s, false)", (pg_text.SEARCH_WORK_MEM,))
            if readonly:
                self.raw.execute("SET default_transaction_read_only = on")
            else:
                # As SQLite's synchronous=NORMAL in WAL mode: a server crash may lose the last commits of this
                # derived index (the next run redoes them), never leave it inconsistent; a commit per file no
                # longer waits for a disk flush.
                self.raw.execute("SET synchronous_commit = off")
            self.vec_error = self._vector_support()
            self.identity: tuple[int, int] | None = (repo_id, 0)
        except psycopg.Error as exc:
            self.raw.close()
            raise storage_error(exc, url) from exc
        except BaseException:
            self.raw.close()
            raise

    def close(self) -> None:
        """Close the connection (a writer's session-level state goes with it)."""
        self.raw.close()

    def resident_text(self, index: pg_text.TextTables) -> pg_resident.Resident | None:
        """This reader's in-memory copy holder of a text index (pg_resident); a writer searches in SQL."""
        from_rows = pg_resident.from_rows_setting()
        if not self.readonly or from_rows is None:
            return None
        found = self._resident.get(index.name)
        if found is None:
            found = self._resident[index.name] = pg_resident.Resident(self._side_connection, index, from_rows=from_rows)
        return found

    def _side_connection(self) -> psycopg.Connection[tuple[Any, ...]]:
        """A second connection to this repository's schema (a resident copy's loader reads through it)."""
        con = connect(self.url)
        con.execute(pg_sql.SQL("SET search_path TO {}, public").format(pg_sql.Identifier(self.schema)))
        return con

    def file_identity(self) -> tuple[int, int] | None:
        """The repository this connection reads, or None once the connection is lost (the reader reopens it)."""
        if self.raw.closed or self.raw.broken:
            return None
        return self.identity

    def count_rows(self, names: Sequence[str]) -> dict[str, int]:
        """Row counts by name, from the counts triggers keep (pg_counts: count(*) reads every row, 80 ms a query
        at 1M symbols), in one query."""
        kept = pg_counts.row_counts(self)
        kept.setdefault("parts", 0)
        kept["unbound_edges"] = kept["edges"] - kept["bound_edges"]
        return {name: kept[name] for name in names}

    def bound_edge_kinds(self) -> dict[str, int]:
        """Resolved edges by kind, from the counts triggers keep (pg_counts)."""
        return pg_counts.bound_kinds(self)

    def first_edges(
        self, column: str, other: str, node_ids: Sequence[int], kinds: list[str], per_node: int, certain: float
    ) -> list[tuple[Any, ...]]:
        """One statement: per (node, kind) a LATERAL index range per certainty class, then the rows by id."""
        group = (
            f"CROSS JOIN LATERAL (SELECT id FROM edges WHERE {column} = s.node AND kind = k.kind "  # noqa: S608
            f"AND target_id IS NOT NULL AND confidence {{op}} ? ORDER BY {other}, id LIMIT ?) x"
        )
        sql = " UNION ALL ".join(
            f"SELECT {EDGE_COLUMNS} FROM unnest(?::bigint[]) AS s(node) CROSS JOIN unnest(?::text[]) AS k(kind) "  # noqa: S608
            f"{group.format(op=op)} JOIN edges e ON e.id = x.id"
            for op in (">=", "<")
        )
        ids = [int(n) for n in node_ids]
        return self.rows(sql, (ids, kinds, certain, per_node, ids, kinds, certain, per_node))

    # -- queries -------------------------------------------------------------------------------------------
    @contextmanager
    def _mapped(self) -> Iterator[None]:
        try:
            yield
        except _MAPPED as exc:
            raise storage_error(exc, self.url) from exc

    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Run a read query and return all rows."""
        with self._lock, self._mapped():
            found: list[tuple[Any, ...]] = self.con.execute(sql, params).fetchall()
            return found

    def one(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        """Run a read query and return the first row or None."""
        with self._lock, self._mapped():
            first: tuple[Any, ...] | None = self.con.execute(sql, params).fetchone()
            return first

    @contextmanager
    def atomic(self) -> Iterator[PgConnection]:
        """The one write primitive: BEGIN ... COMMIT, rolled back on any error; nested calls are savepoints."""
        with self._lock, self._mapped():
            depth = self._depth
            self.raw.execute(f"SAVEPOINT sp{depth}" if depth else "BEGIN")
            self._depth += 1
            try:
                yield self.con
            except BaseException:
                self._depth -= 1
                self._end(f"ROLLBACK TO sp{depth}" if depth else "ROLLBACK", depth)
                raise
            else:
                self._depth -= 1
                self.raw.execute(f"RELEASE sp{depth}" if depth else "COMMIT")

    def _end(self, statement: str, depth: int) -> None:
        """Roll back; a lost connection has rolled back already, and its error is the one worth raising."""
        if self.raw.closed or self.raw.broken:
            return
        self.raw.execute(statement)
        if depth:
            self.raw.execute(f"RELEASE sp{depth}")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Several reads against one committed state: one REPEATABLE READ READ ONLY transaction."""
        with self._lock:
            if self._depth or self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                yield  # already inside a transaction: it is the snapshot
                return
            with self._mapped():
                self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                self._end_snapshot()

    def _end_snapshot(self) -> None:
        """Commit the read transaction (ROLLBACK when a failed query has aborted it); nothing on a lost line."""
        if self.raw.closed or self.raw.broken:
            return
        status = self.raw.info.transaction_status
        with self._mapped():
            self.raw.execute("COMMIT" if status == psycopg.pq.TransactionStatus.INTRANS else "ROLLBACK")

    # -- meta ---------------------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """Read one value from the repository's meta table."""
        value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        return default if value is None else str(value)

    def set_meta(self, con: WriteConnection, key: str, value: str) -> None:
        """Write one meta value inside an open transaction; the last build is mirrored into the registry."""
        con.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )
        if key == "last_build":
            con.execute("UPDATE igraph.repos SET last_build = ? WHERE id = ?", (float(value), self.repo_id))

    def schema_version(self) -> int:
        """The highest migration applied to this repository's schema."""
        return int(self.scalar("SELECT coalesce(max(version), 0) FROM migrations", default=0))

    def size_bytes(self) -> int:
        """Bytes of every table and index in this repository's schema."""
        return int(
            self.scalar(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relkind IN ('r', 'm')",
                (self.schema,),
                default=0,
            )
        )

    def bound_identity(self) -> RepoIdentity | None:
        """The repository identity this name is bound to, or None for a row made before names were bound."""
        with self._lock, self._mapped():
            row = self.raw.execute(
                "SELECT root, first_commit, remote, subdir FROM igraph.repos WHERE id = %s AND bound_at IS NOT NULL",
                (self.repo_id,),
            ).fetchone()
        return None if row is None else RepoIdentity(*(str(v) for v in row))

    def record_source(self, identity: RepoIdentity, revision: str) -> None:
        """Bind the name to ``identity`` and record the checkout (root, git revision) this writer indexes."""
        with self._lock, self._mapped():
            self.raw.execute(
                "UPDATE igraph.repos SET root = %s, revision = %s, first_commit = %s, remote = %s, subdir = %s, "
                "bound_at = coalesce(bound_at, %s) WHERE id = %s",
                (
                    identity.root,
                    revision,
                    identity.first_commit,
                    identity.remote,
                    identity.subdir,
                    time.time(),
                    self.repo_id,
                ),
            )

    def source_root(self) -> str:
        """The checkout root the repository's last writer recorded (``record_source``); '' when none was."""
        with self._lock, self._mapped():
            row = self.raw.execute("SELECT root FROM igraph.repos WHERE id = %s", (self.repo_id,)).fetchone()
        return "" if row is None else str(row[0])

    def is_source_of(self, root: str) -> bool:
        """Only for the checkout the registry records as the repository's last writer's."""
        return self.source_root() == root

    def analyze_if_never(self) -> None:
        """Gather planner statistics for a repository's tables that never had any (a first build), so its first
        queries do not wait for autovacuum to find out how large the tables became."""
        with self._lock, self._mapped():
            tables = [
                str(r[0])
                for r in self.raw.execute(
                    "SELECT relname FROM pg_stat_user_tables WHERE schemaname = %s "
                    "AND last_analyze IS NULL AND last_autoanalyze IS NULL",
                    (self.schema,),
                )
            ]
            for table in tables:
                self.raw.execute(pg_sql.SQL("ANALYZE {}").format(pg_sql.Identifier(self.schema, table)))

    # -- support and migrations --------------------------------------------------------------------------
    def _vector_support(self) -> str | None:
        row = self.raw.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone()
        if row is None:
            return "pgvector is not installed in this database (CREATE EXTENSION vector); dense retrieval is off"
        return None

    def migrate(self) -> None:
        """Apply the migrations this schema lacks (the caller holds the writer lock)."""
        current = self.schema_version()
        if current > SCHEMA_VERSION:
            raise SchemaTooNew(
                f"repository {self.repo!r} in {safe_url(self.url)} has schema version {current}, newer than this "
                f"igraph-mcp supports ({SCHEMA_VERSION}); upgrade igraph-mcp"
            )
        if current == SCHEMA_VERSION:
            return
        with self.atomic():
            apply_migrations(self.raw, self.schema_version())
