"""A one-line progress bar on stderr for ``igraph-mcp index`` on a terminal (no dependency: ~10 MB saved)."""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TextIO

_MIN_INTERVAL_S = 0.1  # redrawing faster only costs the indexer time


class ProgressBar:
    """``update(phase, done, total)`` redraws one line in place; ``close()`` erases it (the summary follows)."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream or sys.stderr
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._last_draw = 0.0
        self._last_phase = ""
        self._drawn = False

    def update(self, phase: str, done: int, total: int) -> None:
        """Show ``phase`` at ``done`` of ``total``; a new phase or the last step always draws."""
        now = time.monotonic()
        with self._lock:
            finished = total > 0 and done >= total
            if phase == self._last_phase and not finished and now - self._last_draw < _MIN_INTERVAL_S:
                return
            self._last_phase, self._last_draw = phase, now
            self._stream.write("\r" + self.line(phase, done, total, now - self._started) + "\x1b[K")
            self._stream.flush()
            self._drawn = True

    def close(self) -> None:
        """Erase the bar if one was drawn."""
        with self._lock:
            if self._drawn:
                self._stream.write("\r\x1b[K")
                self._stream.flush()
                self._drawn = False

    @staticmethod
    def line(phase: str, done: int, total: int, elapsed_s: float, width: int | None = None) -> str:
        """The text of one bar: phase, bar, done/total and elapsed time, fitted to ``width`` columns."""
        columns = width if width is not None else shutil.get_terminal_size((80, 24)).columns
        counts = f" {done}/{total}" if total else f" {done}"
        clock = f" {int(elapsed_s) // 60}:{int(elapsed_s) % 60:02d}"
        label = f"{phase:<8} "
        room = max(0, columns - len(label) - len(counts) - len(clock) - 3)
        fraction = min(1.0, done / total) if total > 0 else 0.0
        filled = int(room * fraction)
        bar = "[" + "#" * filled + "-" * (room - filled) + "]" if room >= 5 else ""
        return (label + bar + counts + clock)[: max(columns - 1, 1)]
