"""Real git checkouts for the repository-identity tests (git must be installed; CI has it)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from _factories import write_file

_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e"}


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` (a fixed author, no user config needed) and return its output."""
    done = subprocess.run(
        ["git", *args], cwd=cwd, env={**os.environ, **_ENV}, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def make_git_repo(
    path: Path, files: Mapping[str, str], *, remote: str | None = None, commits: int = 2, salt: str = ""
) -> Path:
    """A git repository at ``path`` holding ``files`` over ``commits`` commits, with an ``origin`` remote when
    given; ``salt`` makes the history (and so the first commit) differ between repositories of equal files."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    items = list(files.items())
    for i in range(commits):
        for rel, text in items[i::commits]:
            write_file(path, rel, text, dedent=False)
        write_file(path, f"history/{i}.txt", f"commit {i} {salt}\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", f"c{i} {salt}")
    if remote:
        git(path, "remote", "add", "origin", remote)
    return path
