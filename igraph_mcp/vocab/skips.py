"""Why a file was not indexed: the skip reasons a walk counts, which of them are named file by file (and kept in
the store, so a lookup of such a file says why), and what a user can do about each."""

from __future__ import annotations

from dataclasses import dataclass

# Reasons named file by file: a user chose none of them, and each has a remedy or a cause worth knowing. The others
# (ignore files, default-excluded folders, file types without a grammar, link-reached copies, files that vanished
# mid-walk) are counted only: they are many, and the user's own configuration or the file's type explains them.
FILE_REASONS: dict[str, str] = {
    "too_large": "raise index.maxFileBytes in .igraph/config.json (up to 100000000) and index again",
    "minified": "if it is hand-written, add a line `!<path>` to .igraphignore and index again",
    "binary": "it is not text; if it is source, save it as UTF-8 (or UTF-16 with a byte-order mark)",
    "unreadable": "check its permissions and index again",
    "symlink_outside_root": "links that leave the repository are never followed; index the target's repository",
    "symlink_loop": "fix or remove the link",
    "broken_symlink": "its target does not exist; fix or remove the link",
    "bad_filename": "its name is not valid UTF-8; rename it",
    "not_regular_file": "a FIFO, socket or device holds no source",
}

# What the counted-only reasons mean, for the one summary line of an index run.
COUNTED_REASONS: dict[str, str] = {
    "gitignored": ".gitignore",
    "igraphignored": ".igraphignore or index.exclude",
    "default_excluded": "dependency, build and VCS folders; re-include one with `!name/` in .igraphignore",
    "unsupported_language": "no grammar for the file type",
    "symlink_duplicate": "indexed under another path",
    "vanished": "deleted while indexing",
    "too_deeply_nested": "indexed, the too deeply nested regions as blank text",
    "parser_crashed": "indexed as text only",
}


@dataclass(frozen=True, slots=True)
class SkippedPath:
    """One file (or link) a walk named as skipped: its root-relative path, the reason and a short detail."""

    path: str
    reason: str
    detail: str = ""  # e.g. "2.3 MB; index.maxFileBytes is 1000000" or "mean line length 412 chars"


def is_file_reason(reason: str) -> bool:
    """True for the reasons whose files are named one by one (and stored)."""
    return reason in FILE_REASONS


def skip_advice(reason: str) -> str:
    """What a user can do about files skipped for ``reason`` ("" when there is nothing to say)."""
    return FILE_REASONS.get(reason, "")


def describe_skip(skip: SkippedPath) -> str:
    """``minified (mean line length 412 chars); if it is hand-written, add …`` for one file."""
    detail = f" ({skip.detail})" if skip.detail else ""
    advice = skip_advice(skip.reason).replace("<path>", skip.path)
    return f"{skip.reason}{detail}" + (f"; {advice}" if advice else "")


def first_of_each(skips: list[SkippedPath], limit: int) -> list[SkippedPath]:
    """At most ``limit`` of ``skips`` taken a reason at a time (every reason named before any gets a second
    name), in the order of ``skips`` within a reason, returned by reason and path."""
    by_reason: dict[str, list[SkippedPath]] = {}
    for skip in skips:
        by_reason.setdefault(skip.reason, []).append(skip)
    chosen: list[SkippedPath] = []
    depth = 0
    while len(chosen) < limit and any(len(group) > depth for group in by_reason.values()):
        for group in by_reason.values():
            if len(group) > depth and len(chosen) < limit:
                chosen.append(group[depth])
        depth += 1
    return sorted(chosen, key=lambda skip: (skip.reason, skip.path))


def byte_size(size: int) -> str:
    """A file size as people read it: ``980 bytes``, ``12.4 KB``, ``2.3 MB``."""
    if size < 1000:
        return f"{size} bytes"
    if size < 1_000_000:
        return f"{size / 1000:.1f} KB"
    return f"{size / 1_000_000:.1f} MB"
