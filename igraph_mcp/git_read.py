"""Read-only git commands in a checkout: their output, or None where git cannot answer."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 30
# Variables a parent git process (a hook, `git rebase --exec`) sets that would point our git at another repository.
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR", "GIT_PREFIX")


def read_git(root: Path, *args: str, timeout_s: float = GIT_TIMEOUT_S, stdin: str | None = None) -> str | None:
    """Output of one read-only git command in ``root`` (fed ``stdin``), or None (no git, not a repository, a
    failure, a timeout)."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    try:
        done = subprocess.run(
            # safe.directory: a checkout owned by another user (a CI container) is still read; these commands only
            # read refs, objects and config, and run nothing a repository's config could name.
            ["git", "-c", f"safe.directory={root}", *args],
            cwd=root,
            env=env,
            input=stdin,
            capture_output=True,
            text=True,
            errors="replace",  # a diff may hold bytes that are not UTF-8
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None
