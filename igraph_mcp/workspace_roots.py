"""Naming a server's repositories: ``--root PATH`` / ``--root NAME=PATH`` (repeatable) and workspace files.

A name is what a tool's ``repo`` argument says, never a path; the same name must mean the same repository on every
start, so duplicates are refused rather than renamed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from igraph_mcp.access import Repository
from igraph_mcp.errors import ConfigError, InvalidInput

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")
_SPEC = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]{0,99})=(.+)$")


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
