"""The PostgreSQL writer lock: one writer per repository across machines, by a session advisory lock.

The lock is taken on the writer's own session connection, before any of its transactions: losing that connection
(a killed indexer, a dropped network) releases the lock and ends the writes with it, so a writer can never go on
writing unprotected. A second, autocommit connection writes the holder's progress into ``igraph.index_progress``,
which a rival reads while the holder's own writes are still uncommitted; a stale row (its holder was killed) is
recognised by the backend pid it names not holding the lock.
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

from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.models import BuildActivity
from igraph_mcp.repo_identity import RepoIdentity, check_binding
from igraph_mcp.store import pg_schema
from igraph_mcp.store.db import Database
from igraph_mcp.store.pg_db import PgDatabase, connect, storage_error
from igraph_mcp.store.url import safe_url

# Progress within one phase is written at most this often (a phase change always is): a round-trip per file
# would cost more than the SQLite lock file's pwrite.
REPORT_EVERY_S = 0.2


class PgWriterLock:
    """Hands out the one write connection of a repository in a PostgreSQL store, or raises IndexBusy at once."""

    def __init__(
        self,
        url: str,
        repo: str,
        *,
        identity: Callable[[], RepoIdentity] | None = None,
        revision: Callable[[], str] = str,
    ) -> None:
        self.url = url
        self.repo = repo
        # The checkout this writer indexes, read at each hold (the checkout moves under a long-running server);
        # None for a writer that knows no checkout (store tools and tests): the name's binding is left alone.
        self.identity = identity
        self.revision = revision
        self._thread_lock = threading.Lock()
        self._progress: psycopg.Connection[tuple[Any, ...]] | None = None
        self._repo_id = 0
        self._backend = 0
        self._since = 0.0
        self._last = ("", 0.0, False)  # (phase, time, with a rate) of the last progress written

    @contextlib.contextmanager
    def hold(self, *, replace: bool = False) -> Iterator[Database]:
        """Exclusive writer: the thread lock keeps two builds in one server apart, the advisory lock the rest.

        Before anything is written the name's binding is checked: another repository's name raises NameTaken
        unless ``replace`` takes it over (repo_identity.check_binding)."""
        if not self._thread_lock.acquire(blocking=False):
            raise IndexBusy("an index build is already running in this server; wait for it to finish")
        try:
            # Registration runs in its own short transaction (safe beside other writers); migrations, and recording
            # this checkout as the repository's source, wait for the lock.
            db = PgDatabase.open_for_write(self.url, self.repo, migrate=False)
            locked = False
            try:
                with _mapped(self.url):
                    locked = _try_lock(db.raw, db.repo_id)
                    if not locked:
                        raise IndexBusy(
                            f"another igraph-mcp process is indexing repository {self.repo!r}"
                            f"{holder_note(db.raw, db.repo_id)}; wait for it to finish and retry"
                        )
                    backend = int(db.raw.info.backend_pid)
                bound = self._binding(db, replace=replace)
                self._progress = _progress_connection(self.url)
                self._repo_id, self._backend, self._since, self._last = (
                    db.repo_id,
                    backend,
                    time.time(),
                    ("", 0.0, False),
                )
                self.report("starting", 0, 0)
                if bound is not None:
                    db.record_source(bound, self.revision())
                db.migrate()
                yield db
                db.analyze_if_never()
            finally:
                self._release(db, locked=locked)
        finally:
            self._thread_lock.release()

    def _binding(self, db: PgDatabase, *, replace: bool) -> RepoIdentity | None:
        """The identity to record for this checkout, or NameTaken (read under the lock: two rival checkouts of
        an unbound name cannot both bind it)."""
        if self.identity is None:
            return None
        return check_binding(self.repo, safe_url(self.url), db.bound_identity(), self.identity(), replace=replace)

    def report(self, phase: str, done: int, total: int, rate: float = 0.0) -> None:
        """Record the holder's progress (a no-op when this process does not hold the lock)."""
        con = self._progress
        if con is None:
            return
        now = time.monotonic()
        # The first measured rate of a phase is always written: a long phase's time left is known from then on.
        same_phase = phase == self._last[0]
        first_rate = rate > 0 and not (same_phase and self._last[2])
        if same_phase and now - self._last[1] < REPORT_EVERY_S and not first_rate:
            return
        self._last = (phase, now, rate > 0)
        try:
            con.execute(
                "INSERT INTO igraph.index_progress(repo_id, pid, host, backend_pid, started_at, phase, done, total, "
                "updated_at, rate) VALUES(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT(repo_id) DO UPDATE "
                "SET pid = excluded.pid, host = excluded.host, backend_pid = excluded.backend_pid, "
                "started_at = excluded.started_at, phase = excluded.phase, done = excluded.done, "
                "total = excluded.total, updated_at = excluded.updated_at, rate = excluded.rate",
                (
                    self._repo_id,
                    os.getpid(),
                    socket.gethostname()[:100],
                    self._backend,
                    self._since,
                    phase[:40],
                    done,
                    total,
                    time.time(),
                    round(rate, 3),
                ),
            )
        except psycopg.Error:
            # Progress is a courtesy to rivals: losing its line must not stop the build (the writes have their own).
            con.close()
            self._progress = None

    def activity(self, db: Database | None = None) -> BuildActivity | None:
        """What the live holder of this repository's lock recorded, read on ``db`` (a connection to the store), or
        None: no holder, a killed holder's row, no connection to read on, or a registry that cannot be read."""
        if not isinstance(db, PgDatabase) or db.raw.closed or db.raw.broken:
            return None
        try:
            return read_activity(db.raw, self.repo)
        except psycopg.Error:
            return None

    def _release(self, db: PgDatabase, *, locked: bool) -> None:
        """Drop the progress row and the lock; closing the writer's session releases the lock in any case."""
        progress, self._progress = self._progress, None
        if progress is not None:
            with contextlib.suppress(psycopg.Error):
                progress.execute(
                    "DELETE FROM igraph.index_progress WHERE repo_id = %s AND backend_pid = %s",
                    (self._repo_id, self._backend),
                )
            progress.close()
        if locked and not (db.raw.closed or db.raw.broken):
            with contextlib.suppress(psycopg.Error):
                db.raw.execute("SELECT pg_advisory_unlock(%s, %s)", (pg_schema.REPO_LOCK_CLASS, db.repo_id))
        db.close()


def _progress_connection(url: str) -> psycopg.Connection[tuple[Any, ...]] | None:
    """The side line for progress rows; None when it cannot be opened (the build goes on without it)."""
    try:
        return connect(url)
    except IGraphError:
        return None


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
        # Advisory keys are per database: another database of the server has its own repository 1.
        "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = %s AND objid = %s "
        "AND objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        (pg_schema.REPO_LOCK_CLASS, repo_id),
    ).fetchone()
    return None if row is None else int(row[0])


def read_activity(con: psycopg.Connection[tuple[Any, ...]], repo: str) -> BuildActivity | None:
    """The progress row of repository ``repo``'s live lock holder, or None.

    Read as JSON so a registry from before the ``rate`` column reads too; inside a reader's transaction this never
    fails on a missing column (a failed statement would end that transaction).
    """
    row = con.execute(
        "SELECT to_jsonb(p) FROM igraph.index_progress p JOIN igraph.repos r ON r.id = p.repo_id "
        "WHERE r.name = %s AND p.backend_pid = (SELECT l.pid FROM pg_locks l WHERE l.locktype = 'advisory' "
        "AND l.granted AND l.classid = %s AND l.objid = r.id AND l.objsubid = 2 "
        "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
        (repo, pg_schema.REPO_LOCK_CLASS),
    ).fetchone()
    if row is None or not isinstance(row[0], dict):
        return None
    info = row[0]
    return BuildActivity.measured(
        phase=str(info["phase"]),
        done=int(info["done"]),
        total=int(info["total"]),
        rate=float(info.get("rate") or 0.0),
        pid=int(info["pid"]),
        host=str(info["host"]),
        since=float(info["started_at"]),
    )


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
