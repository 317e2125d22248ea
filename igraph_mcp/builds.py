"""One repository's index builds as a server runs them: one at a time, with their progress and last outcome.

BuildProgress carries a running build's progress from the worker thread to the event loop; Builds runs the builds
of one service (a tool call, the watcher, a resume) one at a time and remembers what the answers report: whether
the index can answer yet, what is running, the phases of the last build, and the last background failure.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from igraph_mcp.errors import IndexBusy
from igraph_mcp.models import IndexResult, PhaseTiming
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.service import IGraphService

if TYPE_CHECKING:
    from igraph_mcp.index.phases import Progress


class BuildProgress:
    """Latest progress of a running build, written by the worker thread and read by the event loop."""

    def __init__(self) -> None:
        from igraph_mcp.index.phases import PhaseClock  # here: a one-shot search never builds

        self._lock = threading.Lock()
        self._phases: dict[str, tuple[int, int]] = {}
        self._current = ""
        self.clock = PhaseClock()
        self.on_update: list[Progress] = []

    def update(self, phase: str, done: int, total: int) -> None:
        """Record ``done`` of ``total`` for ``phase`` (the indexer's progress callback)."""
        with self._lock:
            self._phases[phase] = (max(done, 0), max(total, 0))
            self._current = phase
        self.clock.update(phase, done, total)
        for listener in self.on_update:
            listener(phase, done, total)

    def snapshot(self) -> tuple[float, float | None, str] | None:
        """(overall done, overall total, message); overall done never decreases, as MCP progress requires."""
        with self._lock:
            if not self._phases:
                return None
            done = sum(d for d, _ in self._phases.values())
            total = sum(t for _, t in self._phases.values())
            d, t = self._phases[self._current]
            return float(done), float(max(total, done)) or None, f"{self._current} {d}/{t}"


class Builds:
    """The builds of one service, one at a time, and what answers report about them."""

    def __init__(self, service: IGraphService) -> None:
        self.service = service
        self.has_index = service.is_indexed()
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._building: str | None = None
        self._progress: BuildProgress | None = None
        self._last_phases: list[PhaseTiming] = []

    @property
    def building(self) -> str | None:
        """What started the running build ('initial index', 'igraph_index', 'watch'), or None."""
        return self._building

    def phases(self) -> list[PhaseTiming]:
        """Phases of the running build, else of the last build this server ran."""
        progress = self._progress
        return progress.clock.timings() if progress is not None else list(self._last_phases)

    def progress_note(self) -> str | None:
        """One line about a running build, for answers and igraph_status."""
        origin, progress = self._building, self._progress
        if origin is None:
            return None
        snap = progress.snapshot() if progress else None
        return f"an index build ({origin}) is running" + (f": {snap[2]}" if snap else "")

    def first_build(self) -> str | None:
        """Why the index cannot answer yet (its first build is running), or None when it can."""
        if self.has_index or self.building is None:
            return None
        return f"the index is being built (first start); try again in a few seconds. {self.progress_note() or ''}"

    def build(
        self,
        *,
        full: bool = False,
        origin: str,
        progress: BuildProgress | None = None,
        replace: bool = False,
        allow_mass_delete: bool = False,
        finish_only: bool = False,
    ) -> IndexResult:
        """Run one index build (blocking; call from a worker thread); IndexBusy if one is already running
        (``replace``, ``allow_mass_delete``: as IGraphService.index; ``finish_only``: only the embedding phase and
        resource links of a complete structure, service.finish)."""
        progress = progress or BuildProgress()
        with self._lock:
            if self._building is not None:
                raise IndexBusy(
                    f"an index build ({self._building}) is already running; wait for it to finish "
                    f"and retry ({ask(NextStep.STATUS)} shows its progress). Other tools keep answering meanwhile"
                )
            self._building, self._progress = origin, progress
        progress.on_update.append(self._structure_ready)
        try:
            if finish_only:
                result = self.service.finish(progress=progress.update)
            else:
                result = self.service.index(
                    full=full, progress=progress.update, replace=replace, allow_mass_delete=allow_mass_delete
                )
            self.has_index, self.last_error = True, None
            return result
        finally:
            with self._lock:
                self._building, self._progress = None, None
                self._last_phases = progress.clock.timings()

    def _structure_ready(self, phase: str, _done: int, _total: int) -> None:
        # Embedding starts only after structure + FTS are committed: from here on tools answer (FTS + graph,
        # dense joining as vectors land) instead of asking the agent to wait for the whole build.
        if phase == "embed" and not self.has_index:
            self.has_index = True
