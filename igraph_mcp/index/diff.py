"""Diffing a walked tree against the index: which files are new, changed, renamed, touched or gone.

A file whose size and mtime match the index, written well before the last build, is trusted by its stat; any other
is read and hashed. Nothing here writes: the results are the inputs of the mass-delete guard and of the writes.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass

from igraph_mcp.index.phases import Progress
from igraph_mcp.index.walk import WalkedFile
from igraph_mcp.store.records import FileState
from igraph_mcp.vocab.skips import SkippedPath

log = logging.getLogger(__name__)

RACY_WINDOW_S = 2.0


@dataclass(slots=True)
class Change:
    """A file to parse and store: new (``old_id`` None) or modified (``old_id`` its file id in the index)."""

    walked: WalkedFile
    data: bytes
    sha256: str
    old_id: int | None  # set for a modified file


@dataclass(frozen=True, slots=True)
class TreeDiff:
    """The walked files against the index: what to parse, what only moved its mtime, what could not be read."""

    changes: list[Change]
    unchanged: int
    touched: list[tuple[int, int]]  # (file id, new mtime_ns) of files whose content is the same
    unreadable: list[SkippedPath]
    seen: set[str]  # every walked path


@dataclass(frozen=True, slots=True)
class Renames:
    """Added files matched to deleted ones by content, and what is left of each side."""

    moved: list[tuple[int, WalkedFile]]  # (the deleted file's id, where it is now)
    changes: list[Change]
    gone: dict[str, FileState]


def racy_ns(last_build: float) -> int:
    """Files modified after this mtime are hashed, not trusted by their stat.

    Like git's "racily clean" entries: a file modified within the timestamp tick of the last build could have
    changed again without a new mtime or size.
    """
    return int((last_build - RACY_WINDOW_S) * 1e9)


def _trusted(old: FileState | None, size: int, mtime_ns: int, racy: int) -> bool:
    """Same size and mtime as indexed, written well before the last build: trust the stat."""
    return old is not None and old.size == size and old.mtime_ns == mtime_ns and mtime_ns < racy


def known_by_stat(states: dict[str, FileState], racy: int) -> Callable[[str, int, int], bool]:
    """The walk's test for a file it need not look at again (path, size, mtime_ns)."""
    return lambda path, size, mtime_ns: _trusted(states.get(path), size, mtime_ns, racy)


def diff_files(files: list[WalkedFile], states: dict[str, FileState], racy: int, report: Progress) -> TreeDiff:
    """Read and hash every file the stat cannot vouch for; an unreadable file is logged and listed as skipped."""
    changes: list[Change] = []
    touched: list[tuple[int, int]] = []
    unreadable: list[SkippedPath] = []
    unchanged = 0
    for i, w in enumerate(files):
        if i % 200 == 0:
            report("scan", i, len(files))
        old = states.get(w.path)
        if _trusted(old, w.size, w.mtime_ns, racy):
            unchanged += 1
            continue
        try:
            data = w.abs_path.read_bytes()
        except OSError as exc:
            unreadable.append(SkippedPath(w.path, "unreadable", exc.strerror or ""))
            log.warning("cannot read %s: %s", w.path, exc.strerror)
            continue
        sha = hashlib.sha256(data).hexdigest()
        if old is not None and old.sha256 == sha:
            unchanged += 1
            touched.append((old.id, w.mtime_ns))
            continue
        changes.append(Change(w, data, sha, old.id if old else None))
    report("scan", len(files), len(files))
    return TreeDiff(changes, unchanged, touched, unreadable, {w.path for w in files})


def gone_files(states: dict[str, FileState], seen: set[str]) -> dict[str, FileState]:
    """Indexed files the walk did not find, by path."""
    return {p: s for p, s in states.items() if p not in seen}


def lost_paths(indexed: dict[str, FileState], seen: set[str], changes: list[Change]) -> set[str]:
    """Indexed paths the run would delete whose content is nowhere in the tree now (a moved file is not lost)."""
    present = {c.sha256 for c in changes}
    return {p for p, st in indexed.items() if p not in seen and st.sha256 not in present}


def match_renames(changes: list[Change], gone: dict[str, FileState]) -> Renames:
    """Added files whose content equals exactly one deleted file are renames: keep nodes, change the path."""
    by_sha: dict[str, list[str]] = {}
    for path, st in gone.items():
        by_sha.setdefault(st.sha256, []).append(path)
    left = dict(gone)
    moved: list[tuple[int, WalkedFile]] = []
    kept: list[Change] = []
    for change in changes:
        olds = by_sha.get(change.sha256)
        if change.old_id is None and olds and len(olds) == 1:
            moved.append((left.pop(olds.pop()).id, change.walked))
        else:
            kept.append(change)
    return Renames(moved, kept, left)
