"""A workspace: one server over several repositories, each with its own index, lock and service.

Repositories are named (``--root NAME=PATH``, a workspace file, or by default the directory name); a tool's
``repo`` argument is one of those names, never a path, so no argument can point the server at a directory it
was not started on. Reads without ``repo`` go to every repository the caller may see: ``explore`` fuses the
per-repository rankings (``workspace_fusion``), ``node``/``file``/``related`` answer from the one repository
that has the name and list candidates labelled by repository when several do. A repository that cannot answer
(no index yet, being built, damaged) is left out with a note; the others still answer.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from igraph_mcp.access import Repository
from igraph_mcp.errors import ConfigError, IGraphError, IndexBusy, InvalidInput, UnknownRepository
from igraph_mcp.explore_request import CHANNELS, MAX_TOKENS_MAX
from igraph_mcp.models import ExploreResult, FileDetail, NodeDetail, RelatedResult, StatusResult
from igraph_mcp.resources.results import ResourceList
from igraph_mcp.service import IGraphService
from igraph_mcp.workspace_fusion import fuse_answers, label_explore, merge_lookups

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_SPEC = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,99})=(.+)$")
_R = TypeVar("_R", NodeDetail, FileDetail, RelatedResult)
Visible = Callable[[str], bool]


# -- naming the roots ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RepoRoot:
    """One repository of a workspace: its name and its real root."""

    name: str
    root: Path


def parse_root(value: str) -> tuple[str | None, str]:
    """``--root PATH`` or ``--root NAME=PATH`` (a directory that exists under the whole text is a plain path)."""
    match = _SPEC.match(value)
    if match is None or os.path.isdir(value):
        return None, value
    return match.group(1), match.group(2)


class _RepoEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(None, description="Name used by the tools' repo argument (default: directory name)")
    root: str = Field(description="The repository root; relative to the workspace file's directory")


class _WorkspaceFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    repos: list[_RepoEntry] = Field(min_length=1)


def load_workspace_file(path: Path) -> list[tuple[str | None, str]]:
    """The (name, root) pairs of a workspace file: ``{"repos": [{"name": "api", "root": "../api"}, ...]}``."""
    try:
        data = _WorkspaceFile.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ConfigError(f"cannot read the workspace file {path}: {exc.strerror}") from exc
    except (ValueError, ValidationError) as exc:
        problem = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else "not valid JSON"
        raise ConfigError(
            f'workspace file {path}: {problem}; expected {{"repos": [{{"name": "api", "root": "../api"}}, ...]}}'
        ) from None
    return [(e.name, str(path.parent / e.root)) for e in data.repos]


def name_roots(specs: Sequence[tuple[str | None, str]]) -> list[RepoRoot]:
    """Name each root (its directory name unless given); a duplicate name or root is refused, never renamed:
    token allow-lists and the agents' ``repo`` arguments must mean the same repository on every start."""
    out: list[RepoRoot] = []
    for name, raw in specs:
        real = Path(os.path.realpath(raw))
        if not real.is_dir():
            raise InvalidInput(f"--root {raw} is not a directory")
        name = name if name is not None else real.name
        if not NAME.match(name):
            raise InvalidInput(
                f"repository name {name!r} (of {real}) is not usable as a repo argument: name it with "
                "--root NAME=PATH (letters, digits, '.', '_', '-')"
            )
        for seen in out:
            if seen.root == real:
                raise InvalidInput(f"{real} is given twice; each repository is served once")
            if seen.name == name:
                raise InvalidInput(
                    f"two repositories are named '{name}' ({seen.root} and {real}); give them distinct names "
                    "with --root NAME=PATH or in the workspace file"
                )
        out.append(RepoRoot(name, real))
    return out


def workspace_roots(root: str | Sequence[str] | None, workspace_file: str | None = None) -> list[RepoRoot]:
    """The repositories of ``--root`` (repeatable, ``PATH`` or ``NAME=PATH``) and a ``--workspace`` file."""
    raw = [root] if isinstance(root, str) else list(root or [])
    specs = [parse_root(value) for value in raw]
    if workspace_file:
        specs += load_workspace_file(Path(workspace_file))
    specs = specs or [(None, ".")]
    if len(specs) == 1 and specs[0][0] is None:  # one plain root: served and named exactly as before
        if not Path(specs[0][1]).is_dir():
            raise InvalidInput(f"--root {specs[0][1]} is not a directory")
        repo = Repository.of(specs[0][1])
        return [RepoRoot(repo.name, Path(repo.path))]
    return name_roots(specs)


def store_options(args: argparse.Namespace, *, roots: int = 1) -> dict[str, Any]:
    """``--store`` / ``--repo-name`` as IGraphService arguments (absent ones left to the environment, defaults)."""
    store, name = getattr(args, "store", None), getattr(args, "repo_name", None)
    if name is not None and roots > 1:
        raise InvalidInput("--repo-name names one repository; in a workspace, name each with --root NAME=PATH")
    return {"store": store, **({"repo_name": name} if roots == 1 and name is not None else {})}


# -- the workspace ---------------------------------------------------------------------------------------------
class Workspace:
    """Named services, in the order given; the first is the default for tools that act on one repository."""

    def __init__(self, services: Mapping[str, IGraphService]) -> None:
        if not services:
            raise InvalidInput("a workspace needs at least one repository")
        self._services = dict(services)

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

    def one(self, repo: str | None, visible: Visible | None = None) -> str:
        """The one repository a call acts on: ``repo``, else the first the caller may see."""
        names = self.select(repo, visible)
        if not names:
            raise UnknownRepository("this server has no repository the caller may use")
        return names[0]

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
        primary = self.service(repos[0] if repos else self.names[0]).retrieval_params
        t0 = time.perf_counter()
        answers: list[tuple[str, ExploreResult]] = []
        errors: dict[str, IGraphError] = {}
        for name in repos:
            if name in unavailable:
                continue
            try:
                # Each repository's own answer is not cut: the budget applies once, to the fused answer.
                result = self.service(name).explore(
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


def _none_answered(errors: Mapping[str, IGraphError], unavailable: Mapping[str, str]) -> IGraphError:
    """The error of a call no repository could answer: the one failure itself (its kind keeps its exit code),
    else every repository's reason."""
    if len(errors) == 1 and not unavailable:
        return next(iter(errors.values()))
    if not errors and len(unavailable) == 1:
        return IndexBusy(next(iter(unavailable.values())))
    reasons = {**unavailable, **{name: str(exc) for name, exc in errors.items()}}
    return IGraphError("no repository could answer: " + "; ".join(f"{n}: {why}" for n, why in reasons.items()))
