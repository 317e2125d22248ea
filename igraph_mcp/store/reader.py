"""The read side of an index: one read-only connection, reopened when a writer replaced the file, and the
checks every query makes first (built at all, schema neither older nor newer, not damaged)."""

from __future__ import annotations

import threading
from pathlib import Path

import apsw

from igraph_mcp.errors import NotIndexed, StorageError
from igraph_mcp.store.db import Database, SqliteDatabase
from igraph_mcp.store.schema import SCHEMA_VERSION, schema_too_new

NO_INDEX = "this repository has no index yet; build it with `igraph-mcp index` (or the igraph_index tool)"


class IndexReader:
    """The read connection of one index file: read-only, opened on first use."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._db: Database | None = None
        self._lock = threading.Lock()

    @property
    def db(self) -> Database:
        """The read connection, reopened when the file was replaced.

        It never recovers or migrates (only a writer holding the index lock does), so a query run beside a
        rebuild in another process waits out that writer instead of mistaking its lock for damage.
        """
        with self._lock:
            if self._db is not None and self._db.identity != self._db.file_identity():
                self._db.close()  # moved aside and rebuilt by a writer: read the new file
                self._db = None
            if self._db is None:
                if not self.db_path.exists():
                    raise NotIndexed(NO_INDEX)
                try:
                    self._db = SqliteDatabase.open_for_read(self.db_path)
                except apsw.CantOpenError as exc:
                    raise StorageError(
                        f"the index at {self.db_path} cannot be opened for reading ({exc}); check its permissions"
                    ) from exc
            return self._db

    def close(self) -> None:
        """Close the connection (the next use reopens it)."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def damaged(self, exc: apsw.Error) -> StorageError:
        """The error to raise when SQLite reports the file as corrupt."""
        return StorageError(
            f"the index at {self.db_path} is damaged ({type(exc).__name__}); run `igraph-mcp index` to move it "
            "aside (nothing is deleted) and rebuild it"
        )

    def require_index(self) -> Database:
        """The read connection of a completed build with this version's schema, or a clear error."""
        try:
            db = self.db
            if db.get_meta("last_build") is None:
                raise NotIndexed(NO_INDEX)
            self.check_schema(db)
            return db
        except (apsw.CorruptError, apsw.NotADBError) as exc:
            raise self.damaged(exc) from exc

    def check_schema(self, db: Database) -> None:
        """Refuse an index built by an older (rebuild it) or newer (upgrade) igraph-mcp."""
        version = db.schema_version()
        if version < SCHEMA_VERSION:
            raise NotIndexed(
                f"the index was built by an older igraph-mcp (schema {version}, this one reads {SCHEMA_VERSION}); "
                "run `igraph-mcp index` to upgrade it"
            )
        if version > SCHEMA_VERSION:
            raise schema_too_new(self.db_path, version)
