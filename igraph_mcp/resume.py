"""Finishing on start what an earlier build left undone, in the background, without a request.

A server that opens an index a killed build left behind (vectors missing, references not bound, files changed
while no one watched) looks once for unfinished work and runs the build that finishes it: the embedding phase
alone when only vectors or resource links are missing (nothing is walked or parsed again, and only symbols without
a vector are embedded), else an incremental update. Meanwhile the tools answer from what the index holds.

The writer lock decides who writes: when another server or CLI holds it, this one waits ``retry_s`` and looks
again. A holder that dies releases the lock with its process (flock) or its session (PostgreSQL), so the next look
takes over; one that finishes the work leaves nothing to find, and the resume ends without writing.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word

log = logging.getLogger(__name__)

# Seconds between looks while another process holds the writer lock: a takeover after its death waits at most
# this long, and a look costs one read of the index and one try of the lock.
RETRY_S = 2.0

_W = TypeVar("_W")


class Resumer(Generic[_W]):
    """One background thread: find unfinished work, finish it under the writer lock, retry while that is busy."""

    def __init__(
        self,
        find_work: Callable[[], _W | None],
        finish: Callable[[_W], object],
        *,
        on_pending: Callable[[_W | None], None] = lambda _work: None,
        on_error: Callable[[str], None] = lambda _message: None,
        retry_s: float = RETRY_S,
    ) -> None:
        self._find_work = find_work
        self._finish = finish
        self._on_pending = on_pending
        self._on_error = on_error
        self.retry_s = retry_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start looking, in a daemon thread (exit is never blocked; the index is atomic at every commit)."""
        self._thread = threading.Thread(target=self._run, name="igraph-resume", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop waiting for the lock; a build already running finishes on its own."""
        self._stop.set()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                work = self._find_work()
                self._on_pending(work)
                if work is None:
                    return
                try:
                    self._finish(work)
                    return  # one build per start: what it could not finish (a failing embedder) it reported
                except IndexBusy:
                    self._stop.wait(self.retry_s)  # not a busy loop: the lock is tried again after a pause
        except IGraphError as exc:
            self._on_error(f"finishing the index in the background failed: {exc}")
            log.warning("resume failed: %s", word(str(exc), AGENT_WORDS))
        except Exception:  # a background thread has no caller to report to: log it and keep serving
            self._on_error("finishing the index in the background failed (see the server log on stderr)")
            log.exception("resume failed")
        finally:
            self._on_pending(None)
