"""Where the lines a link points at are in the checkout now: a permalink names lines of a file at some commit, and
the file may have moved on since. git's diff between that commit and the working tree says where each line went."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from igraph_mcp.git_read import read_git

MAX_REF_SEGMENTS = 4  # a ref of more segments than this is not looked up
LINK_GIT_TIMEOUT_S = 2.0  # a question waits for these: a slow or huge repository answers without the correction
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_REF = re.compile(r"[\w.+-][\w./+-]*")


def lines_now(root: Path, ref_and_path: str, path: str, start: int, end: int) -> tuple[int, int] | None:
    """Lines ``start``-``end`` of ``path`` (the indexed file, relative to ``root``) as a link "<ref>/<...path>"
    wrote them, moved to where they are in the working tree; None where git cannot say (no git, a ref or commit
    this checkout does not have, a file added since)."""
    head = ref_and_path.split("/")
    tail = path.split("/")
    if head[len(head) - len(tail) :] != tail:
        return None
    commit = _commit(root, head[: len(head) - len(tail)])
    if commit is None:
        return None
    diff = read_git(
        root,
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-color",
        "--unified=0",
        commit,
        "--",
        path,
        timeout_s=LINK_GIT_TIMEOUT_S,
    )
    if diff is None or "new file mode" in diff[:1000]:  # no such file at that commit: its lines name nothing here
        return None
    hunks = [(int(a), int(b or 1), int(c), int(d or 1)) for a, b, c, d in _HUNK.findall(diff)]
    first = moved_line(hunks, start)
    return first, max(first, moved_line(hunks, end))


def moved_line(hunks: list[tuple[int, int, int, int]], line: int) -> int:
    """Where old ``line`` is after a diff's hunks (old start, old count, new start, new count; ``--unified=0``): a
    changed line goes to the start of what replaced it, any other moves by the lines added and removed above it."""
    offset = 0
    for old, old_count, new, new_count in hunks:
        old_end = old + old_count - 1 if old_count else old  # a pure insertion comes after line `old`
        if old_count and old <= line <= old_end:
            return max(new, 1)
        if line <= old_end:
            break
        offset += new_count - old_count
    return max(line + offset, 1)


def _commit(root: Path, ref_parts: list[str]) -> str | None:
    """The commit the link's ref names here: its first segments (a ref may hold slashes, and after it may come the
    folder of the repository the index is), as a local name or origin's; one git process asks for all of them."""
    if not _is_git(root):
        return None
    names: list[str] = []
    for i in range(1, min(len(ref_parts), MAX_REF_SEGMENTS) + 1):
        ref = "/".join(ref_parts[:i])
        if not _REF.fullmatch(ref):
            break  # only a ref's characters: these lines are read as object names
        names += [f"{ref}^{{commit}}", f"origin/{ref}^{{commit}}"]
    if not names:
        return None
    out = read_git(root, "cat-file", "--batch-check", timeout_s=LINK_GIT_TIMEOUT_S, stdin="\n".join(names) + "\n")
    for line in (out or "").splitlines():
        sha, _, kind = line.partition(" ")
        if kind.startswith("commit"):
            return sha
    return None


@functools.lru_cache(maxsize=64)
def _is_git(root: Path) -> bool:
    """Whether ``root`` is in a git work tree (asked once per process: a question with links asks it again)."""
    return (read_git(root, "rev-parse", "--is-inside-work-tree", timeout_s=LINK_GIT_TIMEOUT_S) or "").strip() == "true"
