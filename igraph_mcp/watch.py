"""`serve --watch`: a file watcher that keeps the index current with debounced incremental updates.

The watcher runs in its own thread (watchfiles' blocking iterator with a stop event), so it needs no event
loop and outlives any single MCP session. Each batch of relevant changes triggers one incremental build;
when a build is already running (the igraph_index tool, another process) the update is retried later.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from watchfiles import Change, DefaultFilter, watch

from igraph_mcp.config import CONFIG_DIR
from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word

log = logging.getLogger(__name__)

DEBOUNCE_MS = 1_000
RETRY_S = 2.0
_FILTER = DefaultFilter()


def relevant_paths(root: Path, changes: Iterable[tuple[Change, str]]) -> list[str]:
    """Changed paths (relative, POSIX) worth a re-index: not our own index directory, not editor/VCS noise."""
    real_root = os.path.realpath(root)
    out: set[str] = set()
    for change, path in changes:
        rel = os.path.relpath(os.path.realpath(path), real_root)
        parts = Path(rel).parts
        if not parts or parts[0] in (os.pardir, CONFIG_DIR):
            continue  # our own writes to .igraph/ would otherwise re-trigger a build forever
        if not _FILTER(change, path):
            continue
        out.add(Path(rel).as_posix())
    return sorted(out)


class RepoWatcher:
    """Watch ``root``; call ``rebuild`` (an incremental index build) after each debounced batch of changes."""

    def __init__(
        self,
        root: Path,
        rebuild: Callable[[], object],
        *,
        debounce_ms: int = DEBOUNCE_MS,
        retry_s: float = RETRY_S,
    ) -> None:
        self.root = root
        self.rebuild = rebuild
        self.debounce_ms = debounce_ms
        self.retry_s = retry_s
        self.builds = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._pending = False

    def start(self) -> None:
        """Start watching in a daemon thread."""
        self._thread = threading.Thread(target=self._run, name="igraph-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop watching and wait briefly for the thread (a running build finishes on its own)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        # yield_on_timeout wakes the loop every retry interval, so a busy-deferred update is retried
        # without waiting for the next file change.
        for changes in watch(
            self.root,
            watch_filter=None,
            debounce=self.debounce_ms,
            stop_event=self._stop,
            rust_timeout=int(self.retry_s * 1000),
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if relevant_paths(self.root, changes):
                self._pending = True
            if self._pending and not self._stop.is_set():
                self._update()

    def _update(self) -> None:
        try:
            self.rebuild()
        except IndexBusy:
            log.info("watch: a build is already running; the update is retried shortly")
            return
        except IGraphError as exc:
            log.warning("watch: incremental update failed: %s", word(str(exc), AGENT_WORDS))
        except Exception:  # the watcher thread has no caller: log and keep watching
            log.exception("watch: incremental update failed")
        else:
            self.builds += 1
        self._pending = False
