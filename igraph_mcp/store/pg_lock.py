"""The PostgreSQL writer lock: one writer per repository across machines, by a session advisory lock.

The lock lives on its own connection, which also writes the holder's progress into ``igraph.index_progress``
(autocommit, so a rival sees it while the holder's writes are still uncommitted). A killed holder's
connections close, and the server releases the lock with them; a stale progress row is recognised by the
backend pid it names not holding the lock.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import psycopg

from igraph_mcp.errors import IndexBusy
from igraph_mcp.store import pg_schema
from igraph_mcp.store.db import Database
from igraph_mcp.store.pg_db import PgDatabase, connect, register_repo, storage_error

# Progress within one phase is written at most this often (a phase change always is): a round-trip per file
# would cost more than the SQLite lock file's pwrite.
REPORT_EVERY_S = 0.2


class PgWriterLock:
    """Hands out the one write connection of a repository in a PostgreSQL store, or raises IndexBusy at once."""

    def __init__(self, url: str, repo: str, *, root: str = "", revision: Callable[[], str] = str) -> None:
        self.url = url
        self.repo = repo
        self.root = root
        self.revision = revision  # read at each build: the checkout moves under a long-running server
        self._thread_lock = threading.Lock()
        self._con: psycopg.Connection[tuple[Any, ...]] | None = None
        self._repo_id = 0
        self._since = 0.0
        self._last = ("", 0.0)  # (phase, time) of the last progress written

    @contextlib.contextmanager
    def hold(self) -> Iterator[Database]:
        """Exclusive writer: the thread lock keeps two builds in one server apart, the advisory lock the rest."""
        if not self._thread_lock.acquire(blocking=False):
            raise IndexBusy("an index build is already running in this server; wait for it to finish")
        try:
            con = connect(self.url)
            revision = self.revision()
            try:
                with _mapped(self.url):
                    repo_id = register_repo(con, self.repo, root=self.root, revision=revision)
                    if not _try_lock(con, repo_id):
                        raise IndexBusy(
                            f"another igraph-mcp process is indexing repository {self.repo!r}"
                            f"{holder_note(con, repo_id)}; wait for it to finish and retry"
                        )
                self._con, self._repo_id, self._since = con, repo_id, time.time()
                self._last = ("", 0.0)
                self.report("starting", 0, 0)
                db = PgDatabase.open_for_write(self.url, self.repo)
                try:
                    yield db
                finally:
                    db.close()
                    self._release(con, repo_id)
            finally:
                self._con = None
                con.close()  # closing the session releases the advisory lock even if the unlock failed
        finally:
            self._thread_lock.release()

    def report(self, phase: str, done: int, total: int) -> None:
        """Record the holder's progress (a no-op when this process does not hold the lock)."""
        con = self._con
        if con is None:
            return
        now = time.monotonic()
        if phase == self._last[0] and now - self._last[1] < REPORT_EVERY_S:
            return
        self._last = (phase, now)
        try:
            con.execute(
                "INSERT INTO igraph.index_progress(repo_id, pid, host, backend_pid, started_at, phase, done, total, "
                "updated_at) VALUES(%s, %s, %s, pg_backend_pid(), %s, %s, %s, %s, %s) ON CONFLICT(repo_id) DO UPDATE "
                "SET pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid, "
                "started_at = excluded.started_at, phase = excluded.phase, done = excluded.done, "
                "total = excluded.total, updated_at = excluded.updated_at",
                (
                    self._repo_id,
                    os.getpid(),
                    socket.gethostname()[:100],
                    self._since,
                    phase[:40],
                    done,
                    total,
                    time.time(),
                ),
            )
        except psycopg.Error:
            # Progress is a courtesy to rivals: losing it must not stop the build (the writes have their own line).
            self._con = None

    def _release(self, con: psycopg.Connection[tuple[Any, ...]], repo_id: int) -> None:
        if con.closed or con.broken:
            return
        try:
            con.execute("DELETE FROM igraph.index_progress WHERE repo_id = %s", (repo_id,))
            con.execute("SELECT pg_advisory_unlock(%s, %s)", (pg_schema.REPO_LOCK_CLASS, repo_id))
        except psycopg.Error:
            pass  # the connection is closed next, which releases the lock all the same


@contextlib.contextmanager
def _mapped(url: str) -> Iterator[None]:
    try:
        yield
    except psycopg.Error as exc:
        raise storage_error(exc, url) from exc


def _try_lock(con: psycopg.Connection[tuple[Any, ...]], repo_id: int) -> bool:
    row = con.execute("SELECT pg_try_advisory_lock(%s, %s)", (pg_schema.REPO_LOCK_CLASS, repo_id)).fetchone()
    return row is not None and bool(row[0])


def lock_holder_pid(con: psycopg.Connection[tuple[Any, ...]], repo_id: int) -> int | None:
    """The backend pid holding repository ``repo_id``'s writer lock, or None."""
    row = con.execute(
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s AND objsubid = 2 "
        "AND granted",
        (pg_schema.REPO_LOCK_CLASS, repo_id),
    ).fetchone()
    return None if row is None else int(row[0])


def holder_note(con: psycopg.Connection[tuple[Any, ...]], repo_id: int) -> str:
    """' (pid 12, parse 200/450, for 8 s) on host build-7' from the holder's progress row."""
    row = con.execute(
        "SELECT pid, host, backend_pid, started_at, phase, done, total FROM igraph.index_progress WHERE repo_id = %s",
        (repo_id,),
    ).fetchone()
    if row is None or row[2] != lock_holder_pid(con, repo_id):
        return " (it has not recorded its progress yet)"  # none yet, or a killed holder's row
    pid, host, _backend, since, phase, done, total = row
    counts = f" {done}/{total}" if total else ""
    return f" (pid {pid}, {phase}{counts}, for {max(0, round(time.time() - float(since)))} s) on host {host}"
