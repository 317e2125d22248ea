"""A link names lines at its commit; in a git checkout that has moved on since, the lines are followed to where they
are now (link_lines.py), so the linked channel points at the definition the reporter looked at."""

from __future__ import annotations

from pathlib import Path

import pytest
from _factories import edit_file, open_service
from _git import git, make_git_repo
from test_line_links import CACHE, ONLY

from igraph_mcp import link_lines
from igraph_mcp.git_read import read_git
from igraph_mcp.link_lines import LinesNow, moved_line
from igraph_mcp.retrieve.analyze import analyze_query
from igraph_mcp.retrieve.channels import linked_channel
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

# Ten new lines above everything the links below name: line 8 of the old file is line 18 now.
HEADER = "".join(f"def added_{i}(x):\n    return x + {i}\n" for i in range(5))
LINK = "https://github.com/acme/proj/blob"


def test_moved_line_follows_each_hunk() -> None:
    # 3 lines inserted after old line 2; old lines 10-11 replaced by one line; old line 20 deleted.
    hunks = [(2, 0, 3, 3), (10, 2, 13, 1), (20, 1, 22, 0)]
    assert [moved_line(hunks, n) for n in (1, 2, 3, 9)] == [1, 2, 6, 12]
    assert [moved_line(hunks, n) for n in (10, 11)] == [13, 13]  # changed: the start of what replaced it
    assert [moved_line(hunks, n) for n in (12, 19, 20, 21)] == [14, 21, 22, 22]
    assert moved_line([], 7) == 7


@pytest.fixture
def checkout(tmp_path: Path) -> tuple[Path, str]:
    """A git repository whose indexed folder is packages/app, at commit ``sha`` (tagged v1), then edited in the
    working tree: ten lines added at the top of cache.py."""
    repo = make_git_repo(tmp_path / "repo", {"packages/app/src/pkg/cache.py": CACHE, "packages/app/lib/only.py": ONLY})
    git(repo, "tag", "v1")
    sha = git(repo, "rev-parse", "HEAD")
    root = repo / "packages" / "app"
    edit_file(root, "src/pkg/cache.py", HEADER + CACHE)
    return root, sha


def _linked(svc: IGraphService, text: str) -> list[str]:
    ids = linked_channel(svc.reader.db, analyze_query(text), 100, LinesNow(svc.root))
    rows = node_store.nodes_by_ids(svc.reader.db, ids)
    return [rows[i].qualified_name for i in ids]


def test_lines_are_followed_from_the_links_commit(checkout: tuple[Path, str]) -> None:
    root, sha = checkout
    assert LinesNow(root)(f"{sha}/packages/app/src/pkg/cache.py", "src/pkg/cache.py", 8, 8) == (18, 18)
    assert LinesNow(root)("v1/packages/app/src/pkg/cache.py", "src/pkg/cache.py", 6, 9) == (16, 19)
    # A commit this checkout does not have, a ref that would be an option, a tail that is not the indexed file:
    # git cannot say, and the link's own lines stand.
    assert LinesNow(root)("0123abc/packages/app/src/pkg/cache.py", "src/pkg/cache.py", 8, 8) is None
    assert LinesNow(root)("--output=x/packages/app/src/pkg/cache.py", "src/pkg/cache.py", 8, 8) is None
    assert LinesNow(root)(f"{sha}/packages/app/lib/only.py", "src/pkg/cache.py", 8, 8) is None
    assert not (root / "x").exists()
    # Unchanged since the commit: the same lines.
    assert LinesNow(root)(f"{sha}/packages/app/lib/only.py", "lib/only.py", 2, 2) == (2, 2)


def test_git_is_asked_once_per_link_and_not_past_the_budget(
    checkout: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, sha = checkout
    asked: list[str] = []

    def counted(where: Path, *args: str, **kw: object) -> str | None:
        asked.append(args[0])
        return read_git(where, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(link_lines, "read_git", counted)
    now = LinesNow(root)
    link = f"{sha}/packages/app/src/pkg/cache.py"
    assert [now(link, "src/pkg/cache.py", n, n) for n in (6, 8, 9)] == [(16, 16), (18, 18), (19, 19)]
    assert asked.count("cat-file") == 1 and asked.count("diff") == 1
    # A spent budget: no git at all, and the link's own lines stand.
    asked.clear()
    assert LinesNow(root, budget_s=0)(link, "src/pkg/cache.py", 8, 8) is None
    assert "cat-file" not in asked and "diff" not in asked


def test_a_file_added_since_the_commit_names_nothing(checkout: tuple[Path, str]) -> None:
    root, sha = checkout
    edit_file(root, "src/pkg/new.py", CACHE)
    git(root, "add", "src/pkg/new.py")
    assert LinesNow(root)(f"{sha}/packages/app/src/pkg/new.py", "src/pkg/new.py", 8, 8) is None


def test_the_linked_channel_finds_the_definition_the_link_meant(checkout: tuple[Path, str]) -> None:
    root, sha = checkout
    with open_service(root, index=True) as svc:
        assert _linked(svc, f"the loop in {LINK}/{sha}/packages/app/src/pkg/cache.py#L8") == ["Store.remove_oldest"]
        assert _linked(svc, f"{LINK}/v1/packages/app/src/pkg/cache.py#L14") == ["Store.put"]
        # Without the commit here, line 8 is read as it is now: one of the added functions.
        assert _linked(svc, f"{LINK}/0123abc/packages/app/src/pkg/cache.py#L8") == ["added_3"]
        # The whole call follows the lines too (the service passes its root).
        top = svc.explore(f"Stale rows survive: see {LINK}/{sha}/packages/app/src/pkg/cache.py#L9", top_k=3, hops=0)
        linked = [h.qualifiedName for h in top.hits if "linked" in h.ranks]
        assert linked == ["Store.remove_oldest"]
        assert "linked" in top.diagnostics.timingsMs
