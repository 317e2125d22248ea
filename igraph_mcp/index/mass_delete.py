"""The mass-delete guard: a run that would remove most of an index is far more often a mistake (a wrong root, an
emptied checkout, a `git checkout` that failed in CI) than a wish, so it is refused until asked for."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from igraph_mcp.errors import MassDelete
from igraph_mcp.next_step import NextStep, ask

# Up to this many files may go in any run: a small repository's ordinary clean-up is never refused.
FLOOR = 20
LISTED = 5  # gone paths named in the message


def would_refuse(lost: int, indexed: int) -> bool:
    """True when losing ``lost`` of ``indexed`` files is more than half of them and more than FLOOR."""
    return lost > FLOOR and lost * 2 > indexed


def check_deletions(lost: Collection[str], indexed: int, root: Path, *, allowed: bool) -> None:
    """Raise MassDelete when the run would delete ``lost`` (paths no longer found, renames excluded) out of
    ``indexed`` files and that was not ``allowed``; called before the run writes anything."""
    if allowed or not would_refuse(len(lost), indexed):
        return
    some = ", ".join(sorted(lost)[:LISTED]) + (", ..." if len(lost) > LISTED else "")
    raise MassDelete(
        f"refusing to delete {len(lost)} of the {indexed} indexed files: they are not in {root} ({some}); "
        "nothing was written. Check that this is the repository's root and that its checkout is complete (a "
        "failed `git checkout`, an emptied folder). If the files really were removed, index again with "
        f"{ask(NextStep.ALLOW_MASS_DELETE)}"
    )
