"""The index lock: one writer per repository (a file lock) and per process (a thread lock)."""

from __future__ import annotations

import contextlib
import fcntl
import threading
from collections.abc import Iterator
from pathlib import Path

from igraph_mcp.errors import IndexBusy
from igraph_mcp.store.db import Database

LOCK_FILE = "index.lock"
# The index is derived data: keep it out of the user's commits (config and mounts are the user's own).
_STATE_GITIGNORE = "# created by igraph-mcp\n*\n!config.json\n!mounts.json\n"


def ensure_state_dir(state_dir: Path) -> None:
    """Create the state directory with a .gitignore that keeps the derived index out of commits."""
    state_dir.mkdir(parents=True, exist_ok=True)
    ignore = state_dir / ".gitignore"
    if not ignore.exists():
        ignore.write_text(_STATE_GITIGNORE, encoding="utf-8")


class WriterLock:
    """Hands out the one write connection of a repository's index, or raises IndexBusy at once."""

    def __init__(self, state_dir: Path, db_path: Path) -> None:
        self.state_dir = state_dir
        self.db_path = db_path
        self._thread_lock = threading.Lock()

    @contextlib.contextmanager
    def hold(self) -> Iterator[Database]:
        """Exclusive writer: the thread lock keeps two builds in one server apart, flock two processes."""
        if not self._thread_lock.acquire(blocking=False):
            raise IndexBusy("an index build is already running in this server; wait for it to finish")
        try:
            ensure_state_dir(self.state_dir)
            with open(self.state_dir / LOCK_FILE, "a+") as lock_file:
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
            self._thread_lock.release()
