"""An unwritable repository (read-only checkout, another user's tree): the index moves to a per-user cache.

Tests run as root here, and chmod does not stop root, so the faults are made two ways that hold for any user:
a regular file where ``<root>/.igraph`` should be (a real, unfakeable "cannot create the directory"), and the
permission probe (``config.can_write``) told that the root is unwritable, as it is for a non-owner.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from _factories import FILLER, make_repo, make_service, open_service, subprocess_env
from mcp import Client, StdioServerParameters

from igraph_mcp import config as config_mod
from igraph_mcp.config import CONFIG_DIR, cache_state_dir, locate_state_dir
from igraph_mcp.errors import StorageError

FILES = {
    "pkg/ledger.py": "def post_entry(amount):\n    return amount\n",
    "docs/spec.md": "# Spec\n\nUse `post_entry`.\n",
}


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "cache-home"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def test_writable_repository_keeps_its_index_inside(tmp_path: Path, cache: Path) -> None:
    root = make_repo(tmp_path, FILES)
    loc = locate_state_dir(root)
    assert loc.path == root / CONFIG_DIR and loc.note() is None


def test_cache_location_is_keyed_by_the_real_path(tmp_path: Path, cache: Path) -> None:
    root = make_repo(tmp_path, FILES)
    link = tmp_path / "link"
    link.symlink_to(root)
    other = make_repo(tmp_path, FILES, name="repo2")
    loc = locate_state_dir(root, writable=lambda _p: False)
    assert loc.path.parent == cache / "igraph-mcp" / "indexes"
    assert loc.path.name.endswith("-repo") and len(loc.path.name.split("-")[0]) == 16
    assert loc.fallback_reason is not None and "not writable" in loc.fallback_reason
    assert cache_state_dir(link) == loc.path  # the same tree reached through a symlink shares one index
    assert cache_state_dir(other) != loc.path
    assert not loc.path.exists()  # locating creates nothing


def test_file_in_place_of_the_state_directory(tmp_path: Path, cache: Path) -> None:
    root = make_repo(tmp_path, FILES)
    (root / CONFIG_DIR).write_text("not a directory", encoding="utf-8")
    svc = make_service(root)
    try:
        svc.index()
        svc.mount("docs/spec.md")
        status = svc.status()
        assert status.indexed and status.files == 1 + len(FILLER) and status.resourceSources == 1
        assert any("is not a directory" in n and str(svc.state_dir) in n for n in status.notes)
        assert svc.state_dir.is_relative_to(cache) and (svc.state_dir / "mounts.json").exists()
        assert svc.explore("post entry amount", channels=("fts",)).hits[0].name == "post_entry"
    finally:
        svc.close()
    assert (root / CONFIG_DIR).read_text(encoding="utf-8") == "not a directory"  # left as it was


def test_unwritable_root_uses_the_cache(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, FILES)
    monkeypatch.setattr(config_mod, "can_write", lambda p: Path(p) != root)  # as for a user who does not own it
    svc = make_service(root)
    try:
        svc.index()
        assert not (root / CONFIG_DIR).exists()  # nothing written into the repository
        assert svc.node("post_entry").found
        assert any("is not writable" in n for n in svc.status().notes)
    finally:
        svc.close()


def test_no_writable_place_at_all_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path, FILES)
    (root / CONFIG_DIR).write_text("x", encoding="utf-8")
    blocked = tmp_path / "blocked"
    blocked.write_text("a file, so nothing can be created under it", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    with open_service(root) as svc, pytest.raises(StorageError, match="XDG_CACHE_HOME"):
        svc.index()
    env = subprocess_env(IGRAPH_EMBEDDER="none")
    done = subprocess.run(
        [sys.executable, "-m", "igraph_mcp", "index", "--root", str(root)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot be created" in done.stderr and str(blocked) in done.stderr
    init = subprocess.run(
        [sys.executable, "-m", "igraph_mcp", "init", "--root", str(root)], env=env, capture_output=True, text=True
    )
    assert init.returncode == 1 and "Traceback" not in init.stderr and "IGRAPH_" in init.stderr


@pytest.mark.anyio
async def test_mcp_server_on_a_repository_it_cannot_write(tmp_path: Path) -> None:
    root = make_repo(tmp_path, FILES)
    (root / CONFIG_DIR).write_text("x", encoding="utf-8")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "igraph_mcp", "serve", "--root", str(root), "--no-auto-index"],
        env=subprocess_env(inherit=False, IGRAPH_EMBEDDER="hash", XDG_CACHE_HOME=str(tmp_path / "cache-home")),
        cwd=root,
    )
    with anyio.fail_after(60):
        async with Client(params) as client:
            built = await client.call_tool("igraph_index", {})
            mounted = await client.call_tool("igraph_mount_resource", {"path": "docs/spec.md"})
            status = await client.call_tool("igraph_status", {})
            found = await client.call_tool("igraph_node", {"name": "post_entry"})
    for result in (built, mounted, status, found):
        assert not result.is_error, result.content
    notes = (status.structured_content or {})["notes"]
    assert any(str(tmp_path / "cache-home") in n for n in notes)
    assert (found.structured_content or {})["found"] is True
