"""Where the lines a link points at are in the checkout now: a permalink names lines of a file at some commit, and
the file may have moved on since. git's diff between that commit and the working tree says where each line went."""

from __future__ import annotations

import functools
import re
import time
from pathlib import Path

from igraph_mcp.git_read import read_git

MAX_REF_SEGMENTS = 4  # a ref of more segments than this is not looked up
LINK_GIT_TIMEOUT_S = 2.0  # one git command; a slow or huge repository answers without the correction
LINK_GIT_BUDGET_S = 3.0  # all of one question's git commands together
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.M)
_REF = re.compile(r"[\w.+-][\w./+-]*")


class LinesNow:
    """Where lines a link names at its commit are in the working tree of ``root``, for one question: each link's
    commit and diff are asked of git once, and git is asked nothing more once ``budget_s`` is spent (a question
    with many links waits at most that long for the correction)."""

    def __init__(self, root: Path, budget_s: float = LINK_GIT_BUDGET_S) -> None:
        self._root = root
        self._deadline = time.monotonic() + budget_s
        self._hunks: dict[tuple[str, str], list[tuple[int, int, int, int]] | None] = {}

    def __call__(self, ref_and_path: str, path: str, start: int, end: int) -> tuple[int, int] | None:
        """Lines ``start``-``end`` of ``path`` (the indexed file, relative to the root) as a link "<ref>/<...path>"
        wrote them, moved to where they are now; None where git cannot say (no git, a ref or commit this checkout
        does not have, a file added since, the budget spent)."""
        key = (ref_and_path, path)
        if key not in self._hunks:
            self._hunks[key] = self._diff_hunks(ref_and_path, path)
        hunks = self._hunks[key]
        if hunks is None:
            return None
        first = moved_line(hunks, start)
        return first, max(first, moved_line(hunks, end))

    def _git(self, *args: str, stdin: str | None = None) -> str | None:
        left = self._deadline - time.monotonic()
        return read_git(self._root, *args, timeout_s=min(LINK_GIT_TIMEOUT_S, left), stdin=stdin) if left > 0 else None

    def _diff_hunks(self, ref_and_path: str, path: str) -> list[tuple[int, int, int, int]] | None:
        head = ref_and_path.split("/")
        tail = path.split("/")
        if head[len(head) - len(tail) :] != tail or not _is_git(self._root):
            return None
        commit = self._commit(head[: len(head) - len(tail)])
        if commit is None:
            return None
        diff = self._git("diff", "--no-ext-diff", "--no-textconv", "--no-color", "--unified=0", commit, "--", path)
        if diff is None or "new file mode" in diff[:1000]:  # no such file at that commit: its lines name nothing here
            return None
        return [(int(a), int(b or 1), int(c), int(d or 1)) for a, b, c, d in _HUNK.findall(diff)]

    def _commit(self, ref_parts: list[str]) -> str | None:
        """The commit the link's ref names here: its first segments (a ref may hold slashes, and after it may come
        the folder of the repository the index is), as a local name or origin's; one git process asks for all."""
        names: list[str] = []
        for i in range(1, min(len(ref_parts), MAX_REF_SEGMENTS) + 1):
            ref = "/".join(ref_parts[:i])
            if not _REF.fullmatch(ref):
                break  # only a ref's characters: these lines are read as object names
            names += [f"{ref}^{{commit}}", f"origin/{ref}^{{commit}}"]
        if not names:
            return None
        out = self._git("cat-file", "--batch-check", stdin="\n".join(names) + "\n")
        for line in (out or "").splitlines():
            sha, _, kind = line.partition(" ")
            if kind.startswith("commit"):
                return sha
        return None


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


@functools.lru_cache(maxsize=64)
def _is_git(root: Path) -> bool:
    """Whether ``root`` is in a git work tree (asked once per process: a question with links asks it again)."""
    return (read_git(root, "rev-parse", "--is-inside-work-tree", timeout_s=LINK_GIT_TIMEOUT_S) or "").strip() == "true"
