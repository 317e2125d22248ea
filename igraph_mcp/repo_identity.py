"""Which repository a checkout is, so a name in a shared store stays bound to one repository.

A git checkout is known by its first commit (the oldest root commit of HEAD; none for a shallow clone, whose
oldest commit is only where the clone was cut) and its remote URL (normalised: no credentials, no scheme, no
``.git``), plus the folder inside the repository that is indexed (a monorepo's parts are different repositories).
A tree without git is known by its real path. Two identities are the same repository when a git fact they both
have matches; only when they share no git fact does the path decide. A second checkout or a CI runner's fresh
clone is therefore the same repository, at any path.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

from igraph_mcp.errors import NameTaken
from igraph_mcp.git_read import read_git as _git
from igraph_mcp.next_step import NextStep, ask

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?([^:/]+):(?!//)(.+)$")  # git@github.com:org/repo.git


@dataclass(frozen=True)
class RepoIdentity:
    """What a checkout is: its real root, and where it is a git checkout, its first commit, remote and subfolder."""

    root: str
    first_commit: str = ""
    remote: str = ""
    subdir: str = ""  # the indexed folder inside the git repository ('' at its top)

    @property
    def is_git(self) -> bool:
        """True when a git fact identifies it (else its root path does)."""
        return bool(self.first_commit or self.remote)

    def describe(self) -> str:
        """'root /a/b, remote github.com/o/r, first commit 1a2b3c4d5e6f' (what is known of it)."""
        parts = [f"root {self.root}" if self.root else "root unknown"]
        if self.remote:
            parts.append(f"remote {self.remote}")
        if self.first_commit:
            parts.append(f"first commit {self.first_commit[:12]}")
        if self.subdir:
            parts.append(f"folder {self.subdir}")
        if not self.is_git:
            parts.append("no git")
        return ", ".join(parts)


def same_repository(stored: RepoIdentity, current: RepoIdentity) -> bool:
    """True when ``current`` is a checkout of the repository ``stored`` describes (see the module docstring)."""
    if stored.subdir != current.subdir and stored.is_git and current.is_git:
        return False
    if stored.remote and current.remote and stored.remote == current.remote:
        return True
    if stored.first_commit and current.first_commit and stored.first_commit == current.first_commit:
        return True
    if (stored.remote and current.remote) or (stored.first_commit and current.first_commit):
        return False  # a git fact both have disagrees: another repository, wherever it lies
    return stored.root == current.root


def merged(stored: RepoIdentity, current: RepoIdentity) -> RepoIdentity:
    """The stored identity completed by what ``current`` (the same repository) knows and it did not: a binding
    made from a shallow CI clone (remote only) learns the first commit from a developer's full clone."""
    return replace(
        stored,
        root=current.root,
        first_commit=stored.first_commit or current.first_commit,
        remote=stored.remote or current.remote,
        subdir=stored.subdir or current.subdir,
    )


def check_binding(
    name: str, where: str, stored: RepoIdentity | None, current: RepoIdentity, *, replace: bool
) -> RepoIdentity:
    """The identity to store for ``name`` after this run: ``current`` for a name bound to nothing yet (or taken
    over with ``replace``), the merged one for the same repository; NameTaken for another repository's name."""
    if stored is None or replace:
        return current
    if same_repository(stored, current):
        return merged(stored, current)
    raise NameTaken(
        f"the name {name!r} in {where} belongs to another repository ({stored.describe()}); this checkout is "
        f"{current.describe()}. Nothing was written. Index it under another name (--repo-name NAME), or take "
        f"the name over on purpose with {ask(NextStep.REPLACE)}: the index of {name!r} then becomes this "
        "checkout's and its old files are deleted"
    )


def normalise_remote(url: str) -> str:
    """A remote URL as a comparable key: 'https://user:tok@GitHub.com/Org/Repo.git/' -> 'github.com/org/repo'.

    Credentials are dropped (they must never reach a shared store), so are scheme, port and a trailing '.git';
    case is folded, as the big hosts treat owner and repository names. A local path stays a path.
    """
    text = url.strip()
    if not text:
        return ""
    scp = _SCP_LIKE.match(text) if "://" not in text else None
    if scp is not None:
        host, path = scp.group(1), scp.group(2)
    elif "://" in text:
        try:
            parts = urlsplit(text)
            host, path = parts.hostname or "", parts.path
        except ValueError:
            return ""
    else:
        host, path = "", os.path.normpath(text)
    path = path.strip("/")
    path = path.removesuffix(".git").rstrip("/")
    key = f"{host}/{path}" if host else f"/{path}"
    return key.lower()


def _remote(root: Path) -> str:
    """The normalised URL of ``origin``, else of the first remote by name; '' without one."""
    out = _git(root, "config", "--get-regexp", r"^remote\..*\.url$") or ""
    urls: dict[str, str] = {}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        urls.setdefault(key.removeprefix("remote.").removesuffix(".url"), value)
    if not urls:
        return ""
    return normalise_remote(urls.get("origin") or urls[min(urls)])


def _first_commit(root: Path) -> str:
    """The oldest root commit reachable from HEAD (by committer time, then hash); '' in a shallow clone."""
    out = _git(root, "log", "--max-parents=0", "--format=%ct %H", "HEAD")
    roots = []
    for line in (out or "").splitlines():
        stamp, _, sha = line.strip().partition(" ")
        if sha and stamp.isdigit():
            roots.append((int(stamp), sha))
    return min(roots)[1] if roots else ""


@functools.lru_cache(maxsize=64)
def _git_identity(root: str, head: str) -> RepoIdentity:
    # Cached per checked-out commit: walking to the first commit reads the whole history once per process.
    path = Path(root)
    facts = _git(path, "rev-parse", "--is-shallow-repository", "--show-prefix")
    if facts is None:
        return RepoIdentity(root)
    lines = facts.splitlines()
    shallow = bool(lines) and lines[0].strip() == "true"
    subdir = lines[1].strip().rstrip("/") if len(lines) > 1 else ""
    first = "" if shallow else _first_commit(path)
    return RepoIdentity(root, first_commit=first, remote=_remote(path), subdir=subdir)


def read_identity(root: Path, head: str = "") -> RepoIdentity:
    """The identity of the checkout at ``root`` (``head``: its checked-out commit, the cache key)."""
    real = os.path.realpath(root)
    return _git_identity(real, head)
