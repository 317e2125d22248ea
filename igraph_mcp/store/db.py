"""The store interface (``Database``) and its SQLite form: pragmas, sqlite-vec loading, migrations, corruption
handling, one write primitive, and its three parts (FTS5, sqlite-vec, executemany). The PostgreSQL form is
``store/pg_db.py``; docs/store-backends.md says how to add another."""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import apsw

from igraph_mcp.errors import IndexBusy
from igraph_mcp.store import sqlite_counts
from igraph_mcp.store.backend import BulkWriter, TextIndex, VectorIndex, WriteConnection
from igraph_mcp.store.dialect import SQLITE, Dialect
from igraph_mcp.store.records import EDGE_COLUMNS
from igraph_mcp.store.schema import MIGRATIONS, SCHEMA_VERSION, schema_too_new
from igraph_mcp.store.sqlite_bulk import ExecuteManyWriter
from igraph_mcp.store.sqlite_text import Fts5TextIndex
from igraph_mcp.store.sqlite_vectors import SqliteVecIndex
from igraph_mcp.vocab.languages import PART_KIND

log = logging.getLogger(__name__)

SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_MS = 5_000
# An index run's page cache (negative: KiB, 64 MiB) and WAL pages between checkpoints (32 MiB at 4 KiB pages).
BULK_CACHE_KIB = -65_536
BULK_CHECKPOINT_PAGES = 8_192


def _load_vec(con: apsw.Connection) -> str | None:
    """Load sqlite-vec; returns None on success or the reason it is unavailable."""
    try:
        import sqlite_vec

        con.enable_load_extension(True)
        con.load_extension(sqlite_vec.loadable_path())
        con.enable_load_extension(False)
    except (ImportError, apsw.Error, OSError) as exc:
        return f"sqlite-vec could not be loaded ({type(exc).__name__}); dense retrieval is off"
    return None


def _looks_corrupt(path: Path) -> str | None:
    """Return why the file at ``path`` is not a usable SQLite database, or None if it looks fine."""
    if not path.exists() or path.stat().st_size == 0:
        return None
    with path.open("rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        return "not a SQLite database"
    try:
        con = apsw.Connection(str(path), flags=apsw.SQLITE_OPEN_READONLY)
        con.set_busy_timeout(BUSY_TIMEOUT_MS)
        try:
            # Reading the schema and the meta table touches the pages every open needs; a full quick_check
            # would cost ~0.4 s on a 90 MB index at every start, so deeper damage is caught when it is read.
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "meta" in names:
                con.execute("SELECT count(*) FROM meta").fetchone()
        finally:
            con.close()
    except (apsw.CorruptError, apsw.NotADBError) as exc:
        # Only damage counts: a BusyError, LockedError or IOError says nothing about the file's health, and
        # moving a healthy index aside because another process was writing it once lost a user's index.
        return f"unreadable ({type(exc).__name__})"
    return None


def _move_aside(path: Path, reason: str) -> Path:
    """Rename a broken index (and its WAL files) so a fresh one can be built; nothing is deleted."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        src = Path(str(path) + suffix)
        if src.exists():
            os.replace(src, Path(str(target) + suffix))
    log.warning("index at %s is %s; moved aside to %s and rebuilding", path, reason, target.name)
    return target


class Database(ABC):
    """The store interface every module outside ``store/`` uses; ``SqliteDatabase`` and ``PgDatabase`` implement it.

    Store SQL is written once with ``?`` placeholders. Where a backend differs, the store's query code calls the
    database's parts (``text``, ``vectors``, ``bulk``: store/backend.py) or the few SQL words and methods below; it
    never asks which backend it is on. ``con`` is the implementation's own connection, for store functions only.
    """

    dialect: Dialect  # the backend's name, for messages and tests
    text: TextIndex
    vectors: VectorIndex
    bulk: BulkWriter
    like: str  # the operator matching a LIKE pattern the way SQLite's LIKE does (ASCII case ignored)
    contains: str  # `{0} contains ?` as a condition (a plain substring test, case kept: cheaper than LIKE)
    table_exists_sql: str  # one row when the table (SQLite: or index, view) named by its one parameter exists
    last_id_sql: str  # reads the id of the row the connection last inserted ("": the INSERT returns it)
    readonly: bool
    recovered_from: str | None  # why a damaged index was moved aside at open (SQLite only)
    vec_error: str | None  # why vectors cannot be used, or None
    identity: tuple[int, int] | None  # what this connection reads; see file_identity
    con: Any
    path: Path  # where the index lives, for messages (a PostgreSQL store gives its URL without password)

    @property
    def vec_available(self) -> bool:
        """True when vector tables can be used."""
        return self.vec_error is None

    @abstractmethod
    def close(self) -> None:
        """Close the connection."""

    @abstractmethod
    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Run a read query and return all rows."""

    @abstractmethod
    def one(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        """Run a read query and return the first row or None."""

    def scalar(self, sql: str, params: Any = (), default: Any = None) -> Any:
        """Run a read query and return the first column of the first row."""
        row = self.one(sql, params)
        return default if row is None else row[0]

    @abstractmethod
    def atomic(self) -> AbstractContextManager[WriteConnection]:
        """The one write primitive: a transaction rolled back on any error; nested calls are savepoints."""

    @abstractmethod
    def snapshot(self) -> AbstractContextManager[None]:
        """Several reads against one committed state."""

    def bulk_writes(self) -> AbstractContextManager[None]:
        """Around an index run's many inserts: settings for a large write while it lasts, the usual ones after.
        Nothing by default; the SQLite store sizes its page cache and WAL checkpoints."""
        return nullcontext()

    @abstractmethod
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """Read one value from the meta table."""

    @abstractmethod
    def set_meta(self, con: WriteConnection, key: str, value: str) -> None:
        """Write one meta value inside an open transaction."""

    @abstractmethod
    def schema_version(self) -> int:
        """The highest migration applied (0 for a schema not created yet)."""

    @abstractmethod
    def file_identity(self) -> tuple[int, int] | None:
        """What the store now holds at this connection's address; differs from ``identity`` once replaced."""

    @abstractmethod
    def size_bytes(self) -> int:
        """Bytes the index takes in its store."""

    def has_table(self, name: str) -> bool:
        """True when the table ``name`` exists in this index."""
        return self.scalar(self.table_exists_sql, (name,)) is not None

    @abstractmethod
    def is_source_of(self, root: str) -> bool:
        """Whether the tree at ``root`` is the one this index was built from (a server over another checkout must
        not index its files into a shared copy on its own)."""

    @abstractmethod
    def count_rows(self, names: Sequence[str]) -> dict[str, int]:
        """Row counts by name: files, nodes, parts, bound_edges, unbound_edges (those asked for)."""

    @abstractmethod
    def bound_edge_kinds(self) -> dict[str, int]:
        """Resolved edges by kind (kinds with none left out)."""

    @abstractmethod
    def first_edges(
        self, column: str, other: str, node_ids: Sequence[int], kinds: list[str], per_node: int, certain: float
    ) -> list[tuple[Any, ...]]:
        """EdgeRow rows of the resolved edges whose ``column`` is one of ``node_ids``: for each node, kind and
        certainty (confidence at least ``certain`` or not), the first ``per_node`` by ``other``, then id."""


class SqliteConnection:
    """What ``SqliteDatabase.atomic()`` yields: apsw's ``execute``/``executemany`` and the database (its parts)."""

    __slots__ = ("db", "raw")

    def __init__(self, raw: apsw.Connection, db: SqliteDatabase) -> None:
        self.raw = raw
        self.db = db

    def execute(self, sql: str, params: Any = None, /) -> apsw.Cursor:
        """Run one statement; the cursor iterates over its rows and has ``fetchone()``."""
        return self.raw.execute(sql, params)

    def executemany(self, sql: str, rows: Any, /) -> apsw.Cursor:
        """Run one statement for each parameter row."""
        return self.raw.executemany(sql, rows)


# Row counts by name: every file has exactly one module node (the indexer writes it first), so symbols are counted as
# nodes less files less parts: counting the rows reads an index, where `kind != 'module'` reads the whole table (1M
# symbols: 0.04 s against 1.5 s). Parts are read from the partial index nodes_parts, not the table.
_COUNT_SQL = {
    "files": "SELECT count(*) FROM files",
    "nodes": "SELECT count(*) FROM nodes",
    "parts": f"SELECT count(*) FROM nodes WHERE kind = '{PART_KIND}'",  # noqa: S608 - a fixed kind
}
_EDGE_COUNTS = ("bound_edges", "unbound_edges")  # from the kept counts (sqlite_counts)

# SQLite's own statements by schema version, run after that version's shared ones (PostgreSQL's: pg_schema).
SQLITE_MIGRATIONS: dict[int, list[str]] = {9: sqlite_counts.DDL, 10: sqlite_counts.DDL_V10}


class SqliteDatabase(Database):
    """One apsw connection to the index with WAL, a busy timeout and a write-transaction helper.

    Two ways in, and only two: ``open_for_write`` (the caller holds the repository's index lock; only this path
    may move a corrupt file aside or migrate the schema) and ``open_for_read`` (never writes, never recovers;
    waits out a writer through the busy timeout).
    """

    dialect: Dialect = SQLITE
    like = "LIKE"
    contains = "instr({0}, ?) > 0"
    table_exists_sql = "SELECT 1 FROM sqlite_master WHERE name = ?"
    # Not RETURNING: SQLite runs such an INSERT in a statement savepoint, and FTS5 writes its pending rows out as a
    # new segment at every savepoint (once per file stored: 2.4 s of a 3,100-file Java build).
    last_id_sql = "SELECT last_insert_rowid()"
    bulk: BulkWriter = ExecuteManyWriter()

    @classmethod
    def open_for_write(cls, path: Path) -> SqliteDatabase:
        """The writer's connection: corruption recovery and migrations happen here, under the caller's lock."""
        return cls(path)

    @classmethod
    def open_for_read(cls, path: Path) -> SqliteDatabase:
        """A reader's connection: read-only, no recovery, no migration (the file must exist)."""
        return cls(path, readonly=True)

    def __init__(self, path: Path, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.recovered_from: str | None = None
        if not readonly:
            path.parent.mkdir(parents=True, exist_ok=True)
            reason = _looks_corrupt(path)
            if reason is not None:
                _move_aside(path, reason)
                self.recovered_from = reason
        flags = apsw.SQLITE_OPEN_READONLY if readonly else apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
        self.con: apsw.Connection = apsw.Connection(str(path), flags=flags)
        self._write = SqliteConnection(self.con, self)
        self.text = Fts5TextIndex(self, self.change_stamp)
        self.vectors = SqliteVecIndex(self)
        self.con.set_busy_timeout(BUSY_TIMEOUT_MS)
        self.vec_error = _load_vec(self.con)
        self._lock = threading.RLock()
        self._depth = 0  # nesting of atomic(): 0 = no transaction open
        self._counted_at: tuple[int, int] | None = None
        self._counted: dict[str, int] = {}  # count_rows' answers while the database stays as it was counted
        self.identity = self.file_identity()
        self.con.execute("PRAGMA foreign_keys=ON")
        if not readonly:
            self.con.execute("PRAGMA journal_mode=WAL")
            self.con.execute("PRAGMA synchronous=NORMAL")
            self._migrate()

    def close(self) -> None:
        """Close the connection, after a statement another thread is running (a server's warm-up, a tool call)."""
        with self._lock:
            self.con.close()

    # -- queries -------------------------------------------------------------------------------------------
    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Run a read query and return all rows."""
        with self._lock:
            return list(self.con.execute(sql, params))

    def one(self, sql: str, params: Any = ()) -> tuple[Any, ...] | None:
        """Run a read query and return the first row or None."""
        with self._lock:
            return self.con.execute(sql, params).fetchone()

    def change_stamp(self) -> tuple[int, int]:
        """Changes with every commit to the file: another connection's (data_version) or this one's."""
        with self._lock:
            version = self.con.execute("PRAGMA data_version").fetchone()
            return int(version[0]) if version else 0, self.con.total_changes()

    def is_source_of(self, root: str) -> bool:
        """Always: the SQLite file lives beside the tree it indexes."""
        return True

    def count_rows(self, names: Sequence[str]) -> dict[str, int]:
        """Row counts by name: files, nodes and parts one query each (an index's pages), edges from the kept
        counts."""
        stamp = self.change_stamp()
        with self._lock:
            if stamp != self._counted_at:  # a count(*) walks a whole index: 2-3 ms on 100k nodes, every query
                self._counted_at, self._counted = stamp, {}
            counted = self._counted
        out = {}
        for name in names:
            if name in _COUNT_SQL:
                if name not in counted:
                    counted[name] = int(self.scalar(_COUNT_SQL[name], default=0))
                out[name] = counted[name]
        if any(name in _EDGE_COUNTS for name in names):
            total, kinds = sqlite_counts.edge_counts(self)
            bound = sum(kinds.values())
            out.update(bound_edges=bound, unbound_edges=total - bound)
        return {name: out[name] for name in names}

    def bound_edge_kinds(self) -> dict[str, int]:
        """Resolved edges by kind, from the kept counts."""
        return sqlite_counts.edge_counts(self)[1]

    def first_edges(
        self, column: str, other: str, node_ids: Sequence[int], kinds: list[str], per_node: int, certain: float
    ) -> list[tuple[Any, ...]]:
        """One statement per certainty class: for each (node, kind) pair, in the order given, a range of an
        ``edges_*_order`` index read in order and stopped early (a correlated LIMIT subquery per pair)."""
        if not node_ids or not kinds:
            return []
        # One statement instead of one per (certainty, node, kind): a long query's expansion asked ~230 small
        # queries, and their per-statement cost was most of its time. The pairs travel as one JSON parameter, so
        # the statement's text (and its cached plan) is the same whatever their number.
        pairs = json.dumps([[int(node), kind] for node in node_ids for kind in kinds])
        out: list[tuple[Any, ...]] = []
        for op in (">=", "<"):
            sql = (
                f"SELECT {EDGE_COLUMNS} FROM json_each(?) s JOIN edges e ON e.id IN ("  # noqa: S608
                f"SELECT x.id FROM edges x WHERE x.{column} = s.value ->> 0 AND x.kind = s.value ->> 1 "
                f"AND x.target_id IS NOT NULL AND x.confidence {op} ? ORDER BY x.{other}, x.id LIMIT ?) "
                f"ORDER BY s.key, e.{other}, e.id"
            )
            out.extend(self.rows(sql, (pairs, certain, per_node)))
        return out

    @contextmanager
    def atomic(self) -> Iterator[SqliteConnection]:
        """The one write primitive: BEGIN IMMEDIATE ... COMMIT, rolled back on any error.

        Nested calls become savepoints, so a whole rebuild can be one transaction made of smaller steps.
        """
        with self._lock:
            depth = self._depth
            try:
                self.con.execute(f"SAVEPOINT sp{depth}" if depth else "BEGIN IMMEDIATE")
            except apsw.BusyError as exc:
                raise IndexBusy(
                    "the index is being written by another igraph-mcp process; wait for it to finish and retry"
                ) from exc
            self._depth += 1
            try:
                yield self._write
            except BaseException:
                self._depth -= 1
                if depth:
                    self.con.execute(f"ROLLBACK TO sp{depth}")
                    self.con.execute(f"RELEASE sp{depth}")
                else:
                    self.con.execute("ROLLBACK")
                raise
            else:
                self._depth -= 1
                self.con.execute(f"RELEASE sp{depth}" if depth else "COMMIT")

    @contextmanager
    def bulk_writes(self) -> Iterator[None]:
        """A larger page cache and fewer WAL checkpoints while an index run inserts: the edges' and nodes' indexes
        take keys in no order, so with SQLite's 2 MB cache each insert re-read B-tree pages, and a checkpoint every
        4 MB of WAL copied the same pages again (java.base's structure phase: benchmarks/README.md). The cache's
        memory is given back after."""
        if self.readonly:
            yield
            return
        with self._lock:
            cache = self.con.execute("PRAGMA cache_size").get
            checkpoint = self.con.execute("PRAGMA wal_autocheckpoint").get
            self.con.execute(f"PRAGMA cache_size={BULK_CACHE_KIB}")
            self.con.execute(f"PRAGMA wal_autocheckpoint={BULK_CHECKPOINT_PAGES}")
        try:
            yield
        finally:
            with self._lock:
                self.con.execute(f"PRAGMA cache_size={int(cache)}")
                self.con.execute(f"PRAGMA wal_autocheckpoint={int(checkpoint)}")
                self.con.execute("PRAGMA shrink_memory")

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Run several reads against one committed state: a read transaction, so a writer's commit landing between
        two of them (ids found by one query, rows fetched by the next) is never seen halfway."""
        with self._lock:
            if self._depth or not self.con.getautocommit():
                yield  # already inside a transaction: it is the snapshot
                return
            self.con.execute("BEGIN")
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if not self.con.getautocommit():  # an I/O error may already have ended it
                    self.con.execute("COMMIT")

    # -- meta ---------------------------------------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        """Read one value from the meta table (``default`` while a reader looks at a database not yet created)."""
        try:
            value = self.scalar("SELECT value FROM meta WHERE key = ?", (key,))
        except apsw.SQLError:
            if not self.readonly:
                raise
            return default  # the writer is creating the schema right now
        return default if value is None else str(value)

    def schema_version(self) -> int:
        """The highest migration applied to this file (0 for a database whose schema is not created yet)."""
        try:
            return int(self.scalar("SELECT coalesce(max(version), 0) FROM migrations", default=0))
        except apsw.SQLError:
            return 0

    def file_identity(self) -> tuple[int, int] | None:
        """(device, inode) of the file now at ``path``; differs from the open one after a move-aside."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def size_bytes(self) -> int:
        """Bytes of the index file (0 before it exists)."""
        try:
            return self.path.stat().st_size
        except OSError:
            return 0

    def set_meta(self, con: WriteConnection, key: str, value: str) -> None:
        """Write one meta value inside an open transaction."""
        con.execute(
            "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
            (key, value),
        )

    # -- migrations ---------------------------------------------------------------------------------------
    def _schema_current(self) -> bool:
        try:
            row = self.con.execute("SELECT max(version) FROM migrations").fetchone()
        except apsw.SQLError:  # no migrations table yet: a new database
            return False
        if row is None or row[0] is None:
            return False
        if int(row[0]) > SCHEMA_VERSION:
            raise schema_too_new(self.path, row[0])
        return int(row[0]) == SCHEMA_VERSION

    def _migrate(self) -> None:
        # Skip the write transaction when nothing is to do, so opening a reader never waits behind a build.
        if self._schema_current():
            return
        with self.atomic() as con:
            con.execute("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            con.execute("CREATE TABLE IF NOT EXISTS migrations(version INTEGER PRIMARY KEY, applied_at REAL NOT NULL)")
            row = con.execute("SELECT coalesce(max(version), 0) FROM migrations").fetchone()
            current = int(row[0]) if row else 0
            if current > SCHEMA_VERSION:
                raise schema_too_new(self.path, current)
            for version, statements in MIGRATIONS:
                if version <= current:
                    continue
                for sql in [*statements, *SQLITE_MIGRATIONS.get(version, [])]:
                    con.execute(sql)
                con.execute("INSERT INTO migrations(version, applied_at) VALUES(?, ?)", (version, time.time()))
            self.set_meta(con, "schema_version", str(SCHEMA_VERSION))
