"""A workspace: one server over several repositories, each with its own index, lock and service.

Repositories are named (``--root NAME=PATH``, a workspace file, or by default the directory name); a tool's
``repo`` argument is one of those names, never a path, so no argument can point the server at a directory it
was not started on. Reads without ``repo`` go to every repository the caller may see: ``explore`` fuses the
per-repository rankings (``workspace_fusion``), ``node``/``file``/``related`` answer from the one repository
that has the name and list candidates labelled by repository when several do. A repository that cannot answer
(no index yet, being built, damaged) is left out with a note; the others still answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from igraph_mcp.access import Repository, RequestAccess, refusal
from igraph_mcp.builds import BuildProgress, Builds
from igraph_mcp.errors import IGraphError, IndexBusy, InvalidInput, UnknownRepository
from igraph_mcp.explore_request import CHANNELS, MAX_TOKENS_MAX
from igraph_mcp.models import ExploreResult, FileDetail, IndexResult, NodeDetail, RelatedResult, StatusResult
from igraph_mcp.resources.results import MountResult, ResourceList, UnmountResult
from igraph_mcp.service import IGraphService
from igraph_mcp.workspace_fusion import fuse_answers, label_explore, merge_lookups
from igraph_mcp.workspace_roots import (
    NAME,
    RepoRoot,
    load_workspace_file,
    name_roots,
    parse_root,
    store_options,
    workspace_roots,
)

__all__ = [
    "NAME",
    "RepoRoot",
    "Workspace",
    "load_workspace_file",
    "name_roots",
    "parse_root",
    "store_options",
    "workspace_roots",
]

_R = TypeVar("_R", NodeDetail, FileDetail, RelatedResult)
_M = TypeVar("_M", bound=BaseModel)
Visible = Callable[[str], bool]


# -- the workspace ---------------------------------------------------------------------------------------------
class Workspace:
    """Named services, in the order given; the first is the default for tools that act on one repository.

    The one object the fronts call: the ``*_for`` methods pick a call's repositories (``repo``, what the caller's
    token may see), leave out those still on their first build, and label answers by repository."""

    def __init__(self, services: Mapping[str, IGraphService]) -> None:
        if not services:
            raise InvalidInput("a workspace needs at least one repository")
        self._services = dict(services)
        # A server's build runners, one per repository (server_state); the CLI runs its builds itself.
        self.builds: dict[str, Builds] = {}

    @classmethod
    def open(cls, roots: Sequence[RepoRoot], **kwargs: Any) -> Workspace:
        """One service per root (``kwargs`` go to each IGraphService); in a shared store each repository is
        known by its workspace name."""
        return cls({r.name: IGraphService(r.root, **{"repo_name": r.name, **kwargs}) for r in roots})

    @classmethod
    def single(cls, service: IGraphService) -> Workspace:
        """The workspace of one repository, named as its directory."""
        return cls({Repository.of(service.root).name: service})

    @property
    def names(self) -> list[str]:
        """Repository names in the order given."""
        return list(self._services)

    @property
    def multi(self) -> bool:
        """True when answers are labelled by repository (more than one)."""
        return len(self._services) > 1

    def __len__(self) -> int:
        return len(self._services)

    def items(self) -> Iterator[tuple[str, IGraphService]]:
        """(name, service) pairs in order."""
        return iter(self._services.items())

    def service(self, name: str) -> IGraphService:
        """The service of repository ``name`` (resolve names with ``select`` first)."""
        return self._services[name]

    def repository(self, name: str) -> Repository:
        """``name`` as the access rules see it: its workspace name and real path."""
        return Repository(name=name, path=str(self._services[name].root))

    def select(self, repo: str | None, visible: Visible | None = None) -> list[str]:
        """The repositories a call reaches: ``repo``, or all the caller may see; an unknown name (or one the
        caller may not see, answered alike) is an error listing the names it may use."""
        names = [n for n in self._services if visible is None or visible(n)]
        if repo is None:
            return names
        if repo in names:
            return [repo]
        known = ", ".join(names) or "none"
        raise UnknownRepository(f"no repository '{repo[:100]}' on this server; repositories: {known}")

    # -- the fronts' calls ---------------------------------------------------------------------------------------
    def targets(self, repo: str | None, *, tool: str = "", access: RequestAccess | None = None) -> list[str]:
        """The repositories a call of ``tool`` reaches: ``repo`` or every one ``access`` may see (one it may not see
        is answered as if it did not exist); the CLI and stdio (no ``access``) see all."""

        def visible(name: str) -> bool:
            return refusal(access, tool, writes=False, repo=self.repository(name)) is None

        names = self.select(repo, visible)
        if not names:
            raise UnknownRepository("this server has no repository your token may use; ask the server's admin")
        return names

    def ready(self, names: Sequence[str]) -> tuple[list[str], dict[str, str]]:
        """Those of ``names`` that can answer, and why the others cannot yet (their first index is being built);
        IndexBusy with the first start's message when none can."""
        waiting = {name: why for name in names if name in self.builds and (why := self.builds[name].first_build())}
        if len(waiting) == len(names):
            raise IndexBusy(next(iter(waiting.values())).strip())
        return [n for n in names if n not in waiting], waiting

    def labelled(self, model: _M, name: str) -> _M:
        """``model`` marked with its repository in a workspace of several; unchanged with one."""
        return model.model_copy(update={"repo": name}) if self.multi else model

    def explore_for(
        self, query: str, *, repo: str | None = None, access: RequestAccess | None = None, **kwargs: Any
    ) -> ExploreResult:
        """``igraph_explore`` / `search`: ``explore`` over the repositories the call reaches."""
        names, waiting = self.ready(self.targets(repo, tool="igraph_explore", access=access))
        return self.explore(query, repos=names, unavailable=waiting, **kwargs)

    def lookup_for(
        self, tool: str, repo: str | None, access: RequestAccess | None, call: Callable[[IGraphService], _R], what: str
    ) -> _R:
        """``call`` (a lookup of ``what``) over the repositories a call of ``tool`` reaches (``lookup``)."""
        names, waiting = self.ready(self.targets(repo, tool=tool, access=access))
        return self.lookup(names, call, what, waiting)

    def one_for(
        self, tool: str, repo: str | None, access: RequestAccess | None, call: Callable[[IGraphService], _M]
    ) -> _M:
        """``call`` on the first repository a call of ``tool`` reaches, its answer labelled."""
        name = self.targets(repo, tool=tool, access=access)[0]
        self.ready([name])
        return self.labelled(call(self.service(name)), name)

    def node_for(
        self, name: str, file: str | None = None, *, repo: str | None = None, access: RequestAccess | None = None
    ) -> NodeDetail:
        """``igraph_node`` / `node` over the repositories the call reaches."""
        return self.lookup_for("igraph_node", repo, access, lambda svc: svc.node(name, file), "the name")

    def file_for(self, path: str, *, repo: str | None = None, access: RequestAccess | None = None) -> FileDetail:
        """``igraph_file`` / `file` over the repositories the call reaches."""
        return self.lookup_for("igraph_file", repo, access, lambda svc: svc.file(path), "the path")

    def related_for(
        self,
        name: str,
        direction: str = "both",
        hops: int | None = None,
        limit: int | None = None,
        file: str | None = None,
        *,
        repo: str | None = None,
        access: RequestAccess | None = None,
    ) -> RelatedResult:
        """``igraph_related`` / `related` over the repositories the call reaches."""
        related = (name, direction, hops, limit, file)
        return self.lookup_for("igraph_related", repo, access, lambda svc: svc.related(*related), "the name")

    def resources_for(self, repo: str | None = None, *, access: RequestAccess | None = None) -> ResourceList:
        """``igraph_list_resources`` / `resources` over the repositories the call reaches."""
        names, _ = self.ready(self.targets(repo, tool="igraph_list_resources", access=access))
        return self.list_resources(names)

    def status_for(self, repo: str | None = None, *, access: RequestAccess | None = None) -> StatusResult:
        """``igraph_status`` / `status` of the first repository the call reaches (a row per repository without
        ``repo``), with its running build, last background failure and build phases when a server runs them."""
        names = self.targets(repo, tool="igraph_status", access=access)
        name, builds = names[0], self.builds.get(names[0])
        if builds is not None and not builds.has_index and builds.building is not None:
            result = StatusResult(root=str(self.service(name).root), indexed=False)  # don't touch a DB being created
            result = self.label_status(result, name)
        else:
            result = self.status(name, summary=names if repo is None else ())
        if builds is None:
            return result
        if "repos" in result.extra:
            rows = [{**row, "building": self.builds[row["repo"]].building} for row in result.extra["repos"]]
            result = result.model_copy(update={"extra": {**result.extra, "repos": rows}})
        notes = [n for n in (builds.progress_note(), builds.last_error) if n]
        if notes:
            extra = {**result.extra, "building": builds.building}
            result = result.model_copy(update={"notes": [*notes, *result.notes], "extra": extra})
        phases = builds.phases()
        return result.model_copy(update={"phases": phases}) if phases else result

    def index_for(
        self,
        repo: str | None = None,
        *,
        access: RequestAccess | None = None,
        progress: BuildProgress | None = None,
        full: bool = False,
        replace: bool = False,
        allow_mass_delete: bool = False,
    ) -> IndexResult:
        """``igraph_index``: one build of the first repository the call reaches, through its build runner."""
        name = self.targets(repo, tool="igraph_index", access=access)[0]
        builds = self.builds.get(name) or self.builds.setdefault(name, Builds(self.service(name)))
        try:
            result = builds.build(
                full=full,
                origin="igraph_index",
                progress=progress,
                replace=replace,
                allow_mass_delete=allow_mass_delete,
            )
        except IGraphError as exc:
            if not self.multi:
                raise
            raise type(exc)(f"repository '{name}': {exc}") from None
        return self.labelled(result, name)

    def mount_for(
        self,
        path: str,
        source_type: str = "auto",
        name: str | None = None,
        *,
        repo: str | None = None,
        access: RequestAccess | None = None,
    ) -> MountResult:
        """``igraph_mount_resource`` / `mount` in the first repository the call reaches."""
        mount = (path, source_type, name)
        return self.one_for("igraph_mount_resource", repo, access, lambda svc: svc.mount(*mount))

    def unmount_for(
        self, target: str, *, repo: str | None = None, access: RequestAccess | None = None
    ) -> UnmountResult:
        """``igraph_unmount_resource`` / `unmount` in the first repository the call reaches."""
        return self.one_for("igraph_unmount_resource", repo, access, lambda svc: svc.unmount(target))

    # -- reads over several repositories --------------------------------------------------------------------
    def explore(
        self,
        query: str,
        *,
        repos: Sequence[str],
        unavailable: Mapping[str, str] | None = None,
        top_k: int | None = None,
        max_tokens: int | None = None,
        channels: Sequence[str] = CHANNELS,
        **kwargs: Any,
    ) -> ExploreResult:
        """``igraph_explore`` over ``repos``: each ranked by its own stages, then fused into one answer of
        ``top_k`` hits within one token budget; ``unavailable`` names repositories left out, and why."""
        unavailable = dict(unavailable or {})
        if not self.multi and not unavailable:
            svc = self.service(repos[0])
            return svc.explore(query, top_k=top_k, max_tokens=max_tokens, channels=channels, **kwargs)
        return _explore_several(self, query, repos, unavailable, top_k, max_tokens, channels, kwargs)

    def lookup(
        self,
        repos: Sequence[str],
        call: Callable[[IGraphService], _R],
        what: str,
        unavailable: Mapping[str, str] | None = None,
    ) -> _R:
        """``node``, ``file`` or ``related`` over ``repos``: the one repository that has it, else candidates
        labelled by repository ('ambiguous: name a repo'); repositories that cannot answer (or are listed in
        ``unavailable``, with why) are noted."""
        unavailable = dict(unavailable or {})
        if not self.multi and not unavailable:
            return call(self.service(repos[0]))
        answers: list[tuple[str, _R]] = []
        errors: dict[str, IGraphError] = {}
        for name in repos:
            if name in unavailable:
                continue
            try:
                answers.append((name, call(self.service(name))))
            except InvalidInput:
                raise
            except IGraphError as exc:
                errors[name] = exc
        if not answers:
            raise _none_answered(errors, unavailable)
        return merge_lookups(answers, what, {**unavailable, **{name: str(exc) for name, exc in errors.items()}})

    def list_resources(self, repos: Sequence[str]) -> ResourceList:
        """Mounted sources of ``repos``, labelled by repository when there are several."""
        if not self.multi:
            return self.service(repos[0]).list_resources()
        out = ResourceList()
        for name in repos:
            try:
                listed = self.service(name).list_resources()
            except IGraphError as exc:
                out.notes.append(f"{name}: {exc}")
                continue
            out.sources += [s.model_copy(update={"repo": name}) for s in listed.sources]
            out.notes += [f"{name}: {note}" for note in listed.notes]
        return out

    def status(self, name: str, *, summary: Sequence[str] = ()) -> StatusResult:
        """``name``'s status, labelled when there are several, with one row per repository of ``summary``."""
        return self.label_status(self.service(name).status(), name, summary)

    def label_status(self, result: StatusResult, name: str, summary: Sequence[str] = ()) -> StatusResult:
        """``result`` labelled with ``name`` and the rows of ``summary`` (unchanged in a one-repository server)."""
        if not self.multi:
            return result
        rows = [self._summary(n) for n in summary]
        extra = {**result.extra, "repos": rows} if rows else result.extra
        return result.model_copy(update={"repo": name, "extra": extra})

    def _summary(self, name: str) -> dict[str, Any]:
        svc = self.service(name)
        row: dict[str, Any] = {"repo": name, "root": str(svc.root)}
        try:
            row["indexed"] = svc.is_indexed()
        except IGraphError as exc:
            row.update(indexed=False, problem=str(exc))
        return row

    def close(self) -> None:
        """Close every service's connections."""
        for svc in self._services.values():
            svc.close()


def _explore_several(
    ws: Workspace,
    query: str,
    repos: Sequence[str],
    unavailable: dict[str, str],
    top_k: int | None,
    max_tokens: int | None,
    channels: Sequence[str],
    kwargs: Mapping[str, Any],
) -> ExploreResult:
    """``Workspace.explore`` over several repositories (or some left out): each answer uncut, then fused."""
    primary = ws.service(repos[0] if repos else ws.names[0]).retrieval_params
    t0 = time.perf_counter()
    answers: list[tuple[str, ExploreResult]] = []
    errors: dict[str, IGraphError] = {}
    for name in repos:
        if name in unavailable:
            continue
        try:
            # Each repository's own answer is not cut: the budget applies once, to the fused answer.
            result = ws.service(name).explore(
                query, top_k=top_k or primary.node_top_k, max_tokens=MAX_TOKENS_MAX, channels=channels, **kwargs
            )
        except InvalidInput:
            raise  # the arguments are wrong for every repository alike
        except IGraphError as exc:
            errors[name] = exc
            continue
        answers.append((name, label_explore(result, name)))
    if not answers:
        raise _none_answered(errors, unavailable)
    unavailable.update((name, str(exc)) for name, exc in errors.items())
    fused = fuse_answers(
        answers,
        top_k=top_k or primary.node_top_k,
        max_tokens=max_tokens or primary.max_tokens,
        snippet_hits=primary.snippet_hits,
        neighbour_limit=primary.neighbour_limit,
        unavailable=unavailable,
    )
    fused.diagnostics.timingsMs["total"] = round((time.perf_counter() - t0) * 1000, 2)
    return fused


def _none_answered(errors: Mapping[str, IGraphError], unavailable: Mapping[str, str]) -> IGraphError:
    """The error of a call no repository could answer: the one failure itself (its kind keeps its exit code),
    else every repository's reason."""
    if len(errors) == 1 and not unavailable:
        return next(iter(errors.values()))
    if not errors and len(unavailable) == 1:
        return IndexBusy(next(iter(unavailable.values())))
    reasons = {**unavailable, **{name: str(exc) for name, exc in errors.items()}}
    return IGraphError("no repository could answer: " + "; ".join(f"{n}: {why}" for n, why in reasons.items()))
