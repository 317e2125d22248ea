"""The index lock: one writer per repository (a file lock) and per process (a thread lock)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import apsw

from igraph_mcp.errors import IndexBusy, StorageError
from igraph_mcp.models import BuildActivity
from igraph_mcp.store.db import Database, SqliteDatabase

LOCK_FILE = "index.lock"
RECORD_BYTES = 256  # the holder record: pid, start time, phase, counts and rate as JSON, space-padded
# The index is derived data: keep it out of the user's commits (config and mounts are the user's own).
_STATE_GITIGNORE = "# created by igraph-mcp\n*\n!config.json\n!mounts.json\n"


def ensure_state_dir(state_dir: Path) -> None:
    """Create the state directory with a .gitignore that keeps the derived index out of commits."""
    state_dir.mkdir(parents=True, exist_ok=True)
    ignore = state_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_STATE_GITIGNORE, encoding="utf-8")


class WriterLock:
    """Hands out the one write connection of a repository's index, or raises IndexBusy at once.

    The holder writes what it is doing into the lock file (pid, start time, phase and counts), so a second
    writer that finds the lock taken can say whose build it is waiting for and how far along it is.
    """

    def __init__(self, state_dir: Path, db_path: Path) -> None:
        self.state_dir = state_dir
        self.db_path = db_path
        self._thread_lock = threading.Lock()
        self._file: IO[str] | None = None
        self._since = 0.0

    @contextlib.contextmanager
    def hold(self, *, replace: bool = False) -> Iterator[Database]:
        """Exclusive writer: the thread lock keeps two builds in one server apart, flock two processes.

        ``replace`` changes nothing here: the file lives under the repository's own root (or the cache folder of
        its real path), so no other repository can reach it by a name."""
        if not self._thread_lock.acquire(blocking=False):
            raise IndexBusy("an index build is already running in this server; wait for it to finish")
        try:
            try:
                ensure_state_dir(self.state_dir)
            except OSError as exc:
                raise StorageError(
                    f"the index directory {self.state_dir} cannot be created ({exc.strerror or type(exc).__name__});"
                    " make it writable, or set XDG_CACHE_HOME to a directory you can write"
                ) from exc
            # Read-write without O_APPEND: the holder record is rewritten in place at offset 0.
            fd = os.open(self.state_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
            with os.fdopen(fd, "r+") as lock_file:
                try:
                    fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError as exc:
                    raise IndexBusy(
                        f"another igraph-mcp process is indexing this repository{holder_note(lock_file)}; "
                        "wait for it to finish and retry"
                    ) from exc
                self._file, self._since = lock_file, time.time()
                self.report("starting", 0, 0)
                db = SqliteDatabase.open_for_write(self.db_path)
                try:
                    yield db
                except (apsw.FullError, apsw.IOError, apsw.ReadOnlyError) as exc:
                    raise StorageError(
                        f"the index could not be written ({type(exc).__name__}: {exc}); free disk space or fix "
                        f"permissions under {self.state_dir} and run the index again - answers keep coming from "
                        "the last committed state"
                    ) from exc
                finally:
                    self._write_record(b"")  # released: no stale record for the next holder's rivals
                    self._file = None
                    db.close()
        finally:
            self._thread_lock.release()

    def report(self, phase: str, done: int, total: int, rate: float = 0.0) -> None:
        """Record the holder's progress in the lock file (a no-op when this process does not hold the lock)."""
        info = {
            "pid": os.getpid(),
            "since": self._since,
            "phase": phase[:40],
            "done": done,
            "total": total,
            "rate": round(rate, 3),
        }
        self._write_record(json.dumps(info).encode())

    def activity(self, db: Database | None = None) -> BuildActivity | None:
        """What the live holder of the lock recorded (this process's build or another's), or None.

        Read without touching the lock (trying it, even shared, could make a starting writer fail with "busy"):
        a record whose process is gone was left by a killed holder and is ignored.
        """
        try:
            with open(self.state_dir / LOCK_FILE, "rb") as fh:
                info = _parse_record(os.pread(fh.fileno(), RECORD_BYTES, 0))
        except OSError:
            return None
        if info is None or not _process_alive(info.pid):
            return None
        return info

    def _write_record(self, data: bytes) -> None:
        fh = self._file
        if fh is not None:
            # One write of a fixed size at offset 0, never a truncate: a rival reading meanwhile sees the old
            # record or the new one, not an empty file.
            os.pwrite(fh.fileno(), data.ljust(RECORD_BYTES)[:RECORD_BYTES], 0)


def _parse_record(data: bytes) -> BuildActivity | None:
    """The holder record, or None for a blank (released) or unreadable one."""
    try:
        info = json.loads(data.strip() or b"null")
        if not isinstance(info, dict):
            return None
        return BuildActivity.measured(
            phase=str(info["phase"]),
            done=int(info["done"]),
            total=int(info["total"]),
            rate=float(info.get("rate", 0.0)),
            pid=int(info["pid"]),
            since=float(info["since"]),
        )
    except (ValueError, KeyError, TypeError):
        return None


def _process_alive(pid: int) -> bool:
    """Whether process ``pid`` runs here (a zombie, killed but not yet reaped by its parent, does not)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process: it exists
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    except OSError:
        return True  # no /proc (macOS): the signal test is all there is
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def holder_note(lock_file: IO[str]) -> str:
    """' (pid 12, parse 200/450, for 8 s)' from what the holder recorded in the lock file."""
    try:
        info = json.loads(os.pread(lock_file.fileno(), RECORD_BYTES, 0).strip() or b"{}")
        pid, phase = int(info["pid"]), str(info["phase"])
        done, total, since = int(info["done"]), int(info["total"]), float(info["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return " (it has not recorded its progress yet)"
    counts = f" {done}/{total}" if total else ""
    return f" (pid {pid}, {phase}{counts}, for {max(0, round(time.time() - since))} s)"
