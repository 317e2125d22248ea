"""The background work of a server: the first index or an interrupted one finished on start (resume), the watcher.

ServerState adds that work to one repository's builds (``builds.Builds``); WorkspaceState holds one ServerState per
repository of a workspace, so each builds, watches and reports on its own, and hands them to the workspace, the one
object the tools call.
"""

from __future__ import annotations

import argparse
import logging
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from igraph_mcp.builds import BuildProgress, Builds
from igraph_mcp.errors import IGraphError
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word
from igraph_mcp.resume import Resumer
from igraph_mcp.service import IGraphService
from igraph_mcp.unfinished import UnfinishedWork
from igraph_mcp.workspace import Workspace, store_options, workspace_roots

__all__ = ["BuildProgress", "ServerState", "WorkspaceState", "auto_index_allowed", "open_state"]

log = logging.getLogger(__name__)

WARM_JOIN_S = 10.0  # the longest a server's stop waits for its warm-up (reading 250k vectors takes ~2 s)


class ServerState(Builds):
    """One repository's builds (``Builds``) and the background work a server runs on it (auto-index, watcher)."""

    def __init__(self, service: IGraphService, *, auto_index: bool = False, watch: bool = False) -> None:
        super().__init__(service)
        self.auto_index = auto_index
        self.watch = watch
        self._users = 0
        self._watcher: Any = None
        self._resumer: Resumer[UnfinishedWork] | None = None
        self.warming: threading.Thread | None = None  # reads the vectors and opens the model before any question

    def _resume(self, work: UnfinishedWork) -> None:
        """Finish what the last build left undone (the first build itself when there is no index yet)."""
        first = not self.has_index
        log.info("finishing the index in the background: %s", "; ".join(work.reasons))
        result = self.build(origin="initial index" if first else "resume", finish_only=not work.update)
        if result.embedNote:
            log.warning("background build: %s", word(result.embedNote, AGENT_WORDS))
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

    def _warm(self) -> None:
        try:
            self.service.warm()
        except Exception:  # a background thread has no caller to report to; the first question reads it all anyway
            log.debug("warming the index failed", exc_info=True)

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
        self.warming = threading.Thread(target=self._warm, name="igraph-warm", daemon=True)
        self.warming.start()
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
        if self.warming is not None:
            self.warming.join(WARM_JOIN_S)  # before the caller closes the connections it reads


class WorkspaceState:
    """A server's workspace with one ServerState (builds, background work) per repository."""

    def __init__(self, workspace: Workspace, states: Mapping[str, ServerState]) -> None:
        self.workspace = workspace
        self.repos = dict(states)
        workspace.builds = dict(self.repos)  # the tools' answers report each repository's builds

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
