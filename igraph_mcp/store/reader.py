"""The read side of an index: one read-only connection, reopened when a writer replaced the index, and the
checks every query makes first (built at all, schema neither older nor newer, not damaged).

Which store it reads is the ``ReadSource``'s business (``SqliteSource`` here, the PostgreSQL one in
``store/target.py``); the reader itself is the same for both.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

import apsw

from igraph_mcp.errors import IndexDamaged, NotIndexed, StorageError
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.store.db import Database, SqliteDatabase
from igraph_mcp.store.schema import SCHEMA_VERSION, schema_too_new

NO_INDEX = f"this repository has no index yet; build it with {ask(NextStep.INDEX)}"


class ReadSource(Protocol):
    """Where a reader's connection comes from."""

    @property
    def where(self) -> str:
        """The index's address for messages (never with a password)."""

    def open_reader(self) -> Database:
        """A read-only connection; NotIndexed when there is no index to read."""

    def damage(self, exc: BaseException) -> IndexDamaged | None:
        """The error to raise when ``exc`` says the index is damaged, or None when it says something else."""


class SqliteSource:
    """The SQLite index file of one repository."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path

    @property
    def where(self) -> str:
        """The file's path."""
        return str(self.db_path)

    def open_reader(self) -> Database:
        """The file opened read-only (it must exist: readers never create it)."""
        if not self.db_path.exists():
            raise NotIndexed(NO_INDEX)
        try:
            return SqliteDatabase.open_for_read(self.db_path)
        except apsw.CantOpenError as exc:
            raise StorageError(
                f"the index at {self.db_path} cannot be opened for reading ({exc}); check its permissions"
            ) from exc
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            raise self._damaged(exc) from exc

    def damage(self, exc: BaseException) -> IndexDamaged | None:
        """SQLite's corruption errors."""
        return self._damaged(exc) if isinstance(exc, apsw.CorruptError | apsw.NotADBError) else None

    def _damaged(self, exc: BaseException) -> IndexDamaged:
        return IndexDamaged(
            f"the index at {self.db_path} is damaged ({type(exc).__name__}); run {ask(NextStep.INDEX)} to move it "
            "aside (nothing is deleted) and rebuild it"
        )


class IndexReader:
    """The read connection of one index: read-only, opened on first use."""

    def __init__(self, source: ReadSource | Path) -> None:
        self.source: ReadSource = SqliteSource(source) if isinstance(source, Path) else source
        self._db: Database | None = None
        self._lock = threading.Lock()

    @property
    def db(self) -> Database:
        """The read connection, reopened when the index was replaced.

        It never recovers or migrates (only a writer holding the index lock does), so a query run beside a
        rebuild in another process waits out that writer instead of mistaking its lock for damage.
        """
        with self._lock:
            if self._db is not None and self._db.identity != self._db.file_identity():
                self._db.close()  # moved aside and rebuilt by a writer: read the new file
                self._db = None
            if self._db is None:
                self._db = self.source.open_reader()
            return self._db

    def close(self) -> None:
        """Close the connection (the next use reopens it)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Turn the store's own "this index is damaged" errors into IndexDamaged, with the way out."""
        try:
            yield
        except IndexDamaged:
            raise
        except Exception as exc:
            damaged = self.source.damage(exc)
            if damaged is None:
                raise
            raise damaged from exc

    def require_index(self) -> Database:
        """The read connection of a completed build with this version's schema, or a clear error."""
        with self.reading():
            db = self.db
            if db.get_meta("last_build") is None:
                raise NotIndexed(NO_INDEX)
            self.check_schema(db)
            return db

    def check_schema(self, db: Database) -> None:
        """Refuse an index built by an older (rebuild it) or newer (upgrade) igraph-mcp."""
        version = db.schema_version()
        if version < SCHEMA_VERSION:
            raise NotIndexed(
                f"the index was built by an older igraph-mcp (schema {version}, this one reads {SCHEMA_VERSION}); "
                f"run {ask(NextStep.INDEX)} to upgrade it"
            )
        if version > SCHEMA_VERSION:
            raise schema_too_new(Path(self.source.where), version)
