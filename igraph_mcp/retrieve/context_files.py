"""``contextFiles``: which of them name indexed files (those are boosted), and a note naming those that do not."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from igraph_mcp.errors import InvalidInput
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.paths import resolve_inside, strip_dot_slash
from igraph_mcp.store import files as file_store
from igraph_mcp.store.db import Database

NAMED_MAX = 5  # context files named in the note; the rest are counted
NAME_CHARS = 120  # a named path is cut to this many characters


@dataclass(slots=True)
class ContextFiles:
    """The context files to boost (repository-relative), and those left out because they cannot be used."""

    usable: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # outside the root, or not a usable path at all
    unmatched: list[str] = field(default_factory=list)  # inside the root, but no indexed file matches

    def note(self) -> str | None:
        """One line naming the files left out and why, or None when every one was used."""
        parts = []
        if self.outside:
            parts.append(f"{_named(self.outside)} {'is' if len(self.outside) == 1 else 'are'} outside the root")
        if self.unmatched:
            one = len(self.unmatched) == 1
            parts.append(f"{_named(self.unmatched)} {'matches' if one else 'match'} no indexed file")
        if not parts:
            return None
        listed = "; ".join(parts)
        return f"{ask(NextStep.CONTEXT_FILES)} not used: {listed} (pass repository-relative paths of indexed files)"


def _named(paths: list[str]) -> str:
    shown = ", ".join(repr(p if len(p) <= NAME_CHARS else p[: NAME_CHARS - 1] + "…") for p in paths[:NAMED_MAX])
    return shown + (f" and {len(paths) - NAMED_MAX} more" if len(paths) > NAMED_MAX else "")


def check_context_files(db: Database, root: Path | None, paths: Sequence[str]) -> ContextFiles:
    """Sort ``paths`` into usable (matching an indexed file the way the boost matches: the same path, a suffix of
    one, or one of them under a longer prefix), outside the root (``root`` None: not checked) and unmatched."""
    out = ContextFiles()
    for raw in paths:
        norm = raw.strip().replace("\\", "/") if isinstance(raw, str) else ""
        if root is not None and (os.path.isabs(norm) or ".." in norm.split("/")):
            try:
                # realpath + commonpath (never a string prefix): "/x/repo_evil" is not inside "/x/repo".
                norm = resolve_inside(root, norm).relative_to(os.path.realpath(root)).as_posix()
            except (InvalidInput, ValueError):  # PathOutsideRoot is an InvalidInput; ValueError: the root itself
                out.outside.append(raw if isinstance(raw, str) else "")
                continue
        norm = strip_dot_slash(norm).lstrip("/")
        if norm and _matches_indexed(db, norm):
            out.usable.append(norm)
        else:
            out.unmatched.append(raw if isinstance(raw, str) else "")
    return out


def _matches_indexed(db: Database, path: str) -> bool:
    """True when an indexed file is ``path``, ends in ``/path``, or ``path`` ends in ``/<indexed file>``."""
    if file_store.file_paths_with_suffix(db, path, limit=1):
        return True
    segments = path.split("/")
    return any(file_store.file_row(db, "/".join(segments[i:])) is not None for i in range(1, len(segments)))
