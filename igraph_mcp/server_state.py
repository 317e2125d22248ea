"""What the MCP tools share: the service, index-build bookkeeping, and the background work (auto-index, resume,
watcher).

BuildProgress carries a running build's progress from the worker thread to the event loop; ServerState runs
builds one at a time, builds the first index or finishes an interrupted one in the background (resume) and owns the
file watcher; WorkspaceState holds one ServerState per repository of a workspace, so each builds, watches and
reports on its own.
"""

from __future__ import annotations

import argparse
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.index.phases import PhaseClock, Progress
from igraph_mcp.models import IndexResult, PhaseTiming
from igraph_mcp.resume import Resumer
from igraph_mcp.service import IGraphService, UnfinishedWork
from igraph_mcp.workspace import Workspace, store_options, workspace_roots

log = logging.getLogger(__name__)


class BuildProgress:
    """Latest progress of a running build, written by the worker thread and read by the event loop."""

    def __init__(self) -> None:
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


class ServerState:
    """What the tools share: the service, build bookkeeping, and the background work (auto-index, watcher)."""

    def __init__(self, service: IGraphService, *, auto_index: bool = False, watch: bool = False) -> None:
        self.service = service
        self.auto_index = auto_index
        self.watch = watch
        self.has_index = service.is_indexed()
        self.last_error: str | None = None
        self._lock = threading.Lock()
        self._building: str | None = None
        self._progress: BuildProgress | None = None
        self._users = 0
        self._watcher: Any = None
        self._resumer: Resumer[UnfinishedWork] | None = None
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
                    "and retry (igraph_status shows its progress). Other tools keep answering meanwhile"
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

    def _resume(self, work: UnfinishedWork) -> None:
        """Finish what the last build left undone (the first build itself when there is no index yet)."""
        first = not self.has_index
        log.info("finishing the index in the background: %s", "; ".join(work.reasons))
        result = self.build(origin="initial index" if first else "resume", finish_only=not work.update)
        if result.embedNote:
            log.warning("background build: %s", result.embedNote)
        self.service.is_indexed()  # opens the read connection now, while no writer holds the lock

    def _pending(self, work: UnfinishedWork | None) -> None:
        self.service.resume_pending = None if work is None else "; ".join(work.reasons)
        if work is None and not self.has_index:
            # Another process may have built the index while this one waited for the lock.
            try:
                self.has_index = self.service.is_indexed()
            except IGraphError as exc:
                self.last_error = str(exc)

    def _resume_failed(self, message: str) -> None:
        self.last_error = message

    def attach(self) -> None:
        """Start the background work on first use (reference-counted: SSE enters once per connection)."""
        with self._lock:
            self._users += 1
            if self._users > 1:
                return
        if self.auto_index:
            # A daemon thread: the initialize handshake is not delayed, nor is exit blocked by a long build; the
            # index is atomic, so a build cut short at exit is finished by the next start.
            self._resumer = Resumer(
                self.service.unfinished_work, self._resume, on_pending=self._pending, on_error=self._resume_failed
            )
            self._resumer.start()
        if self.watch:
            from igraph_mcp.watch import RepoWatcher

            self._watcher = RepoWatcher(self.service.root, lambda: self.build(origin="watch"))
            self._watcher.start()

    def detach(self) -> None:
        """Stop the background work when the last user leaves."""
        with self._lock:
            self._users -= 1
            if self._users > 0:
                return
            watcher, self._watcher = self._watcher, None
            resumer, self._resumer = self._resumer, None
        if resumer is not None:
            resumer.stop()
        if watcher is not None:
            watcher.stop()


class WorkspaceState:
    """What the tools share in a server over a workspace: one ServerState (builds, watcher) per repository."""

    def __init__(self, workspace: Workspace, states: Mapping[str, ServerState]) -> None:
        self.workspace = workspace
        self.repos = dict(states)

    @classmethod
    def open(cls, workspace: Workspace, *, auto_index: bool = False, watch: bool = False) -> WorkspaceState:
        """A ServerState for every repository of ``workspace``, each building and watching its own root."""
        states = {name: ServerState(svc, auto_index=auto_index, watch=watch) for name, svc in workspace.items()}
        return cls(workspace, states)

    @classmethod
    def of(cls, state: ServerState) -> WorkspaceState:
        """The workspace of one repository served by ``state`` (the single-root server)."""
        workspace = Workspace.single(state.service)
        return cls(workspace, {workspace.names[0]: state})

    @property
    def primary(self) -> ServerState:
        """The first repository's state (its instructions open the server's)."""
        return self.repos[self.workspace.names[0]]

    def first_build(self, name: str) -> str | None:
        """Why ``name`` cannot answer yet (its first index is being built), or None when it can."""
        state = self.repos[name]
        if state.has_index or state.building is None:
            return None
        return f"the index is being built (first start); try again in a few seconds. {state.progress_note() or ''}"

    def attach(self) -> None:
        """Start every repository's background work."""
        for state in self.repos.values():
            state.attach()

    def detach(self) -> None:
        """Stop every repository's background work."""
        for state in self.repos.values():
            state.detach()


def auto_index_allowed(root: Path) -> bool:
    """False for the filesystem root and the home directory: clients often launch servers there (cwd '/')."""
    real = Path(os.path.realpath(root))
    if real == Path(real.anchor) or real == Path(os.path.realpath(Path.home())):
        log.warning("not indexing %s automatically: pass --root <repository> (or call igraph_index)", real)
        return False
    return True


def open_state(args: argparse.Namespace) -> ServerState | WorkspaceState:
    """The state of `serve ARGS`: a service per repository, auto-index and watch as the flags say; nothing started.

    It needs no MCP SDK, so the stdio front starts the background work (a resume) before importing the SDK."""
    roots = workspace_roots(args.root, getattr(args, "workspace", None))
    auto_index = not args.no_auto_index and all(auto_index_allowed(r.root) for r in roots)
    stores = store_options(args, roots=len(roots))
    if len(roots) == 1:
        return ServerState(IGraphService(roots[0].root, **stores), auto_index=auto_index, watch=args.watch)
    return WorkspaceState.open(Workspace.open(roots, **stores), auto_index=auto_index, watch=args.watch)
