"""Path containment: every path argument is resolved inside the repository root (or an allowed directory)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

from igraph_mcp.errors import InvalidInput, PathOutsideRoot

MAX_PATH_CHARS = 4096


def is_inside(base: str | os.PathLike[str], candidate: str | os.PathLike[str]) -> bool:
    """True when ``candidate`` is ``base`` or lies under it; both must already be resolved (realpath).

    commonpath, never a string prefix: "/x/repo_evil" is not inside "/x/repo". The one containment check of the
    package: mounts, path arguments and the walker's symlink checks all use it.
    """
    base_s, cand_s = os.fspath(base), os.fspath(candidate)
    try:
        return os.path.commonpath([base_s, cand_s]) == base_s
    except ValueError:  # different drives on Windows, or mixed absolute/relative paths
        return False


def resolve_inside(root: Path, user_path: str, *, allowed: Sequence[Path] = ()) -> Path:
    """Resolve ``user_path`` (relative to ``root`` or absolute) to a real path inside root or an allowed dir."""
    if not isinstance(user_path, str) or not user_path.strip():
        raise InvalidInput("path is empty; pass a path relative to the repository root")
    if "\x00" in user_path:
        raise InvalidInput("path contains a NUL byte; pass a plain relative path")
    if len(user_path) > MAX_PATH_CHARS:
        raise InvalidInput(f"path is longer than {MAX_PATH_CHARS} characters")
    try:
        os.fsencode(user_path)  # a lone surrogate (JSON allows one) names no file and would crash the stat below
    except UnicodeEncodeError:
        raise InvalidInput("path contains characters no file name can hold; pass a plain relative path") from None
    # Windows separators from an agent or a pasted path mean what "/" means; "\\" in a POSIX file name is rare.
    real_root = os.path.realpath(root)
    candidate = Path(user_path.replace("\\", "/"))
    joined = candidate if candidate.is_absolute() else Path(real_root) / candidate
    real = os.path.realpath(joined)  # follows symlinks, so a link pointing outside is caught here
    if any(part.is_symlink() for part in (Path(real), *Path(real).parents)):
        # realpath gives up on a symlink loop and returns the rest unresolved: "loop/../out_link/x" came back
        # as "<root>/out_link/x", inside by its name while out_link leads outside (found by hypothesis).
        raise InvalidInput("path goes through a symlink loop; pass a path without looping links")
    bases = [real_root, *(os.path.realpath(a) for a in allowed)]
    if not any(is_inside(base, real) for base in bases):
        raise PathOutsideRoot(
            f"'{user_path}' is outside the repository root; only paths inside {real_root} can be used"
        )
    return Path(real)


def strip_dot_slash(path: str) -> str:
    """Drop leading ``./`` segments (a prefix, not characters: ``.ci/x.py`` keeps its dot)."""
    while path.startswith("./"):
        path = path[2:].lstrip("/")
    return path


def relative_posix(root: Path, path: Path) -> str:
    """POSIX path of ``path`` relative to the real root."""
    return Path(os.path.relpath(os.path.realpath(path), os.path.realpath(root))).as_posix()


def file_sha256(path: Path) -> str:
    """Stream a file through sha256 and return the hex digest."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
