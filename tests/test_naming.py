"""No silent deletes: a shared store's name stays bound to one repository (--replace takes it over), and a run that
would delete most of an index (an emptied checkout, a wrong root) is refused (--allow-mass-delete). Every refusal
leaves the data exactly as it was; the mass-delete half runs on both stores, the naming half on PostgreSQL (the
SQLite file lives under its own root and cannot be reached by a name)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg
import pytest
from _factories import make_plain_repo, make_service, open_service, snapshot
from _git import git, make_git_repo
from mcp import Client

from igraph_mcp.cli import main
from igraph_mcp.index.mass_delete import FLOOR
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.pg_schema import REGISTRY_VERSION

pytestmark = [pytest.mark.anyio, pytest.mark.both_stores]


@pytest.fixture(autouse=True)
def hash_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI builds its embedder from configuration: the hashing backend keeps these runs offline and fast.
    monkeypatch.setenv("IGRAPH_EMBEDDER", "hash")


def code_files(n: int, tag: str = "") -> dict[str, str]:
    """``n`` small Python modules (``tag`` makes their content another repository's)."""
    return {
        f"pkg/m{i}.py": f"def f{i}{tag}(x):\n    return g{i}{tag}(x)\n\n\ndef g{i}{tag}(x):\n    return x + {i}\n"
        for i in range(n)
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def state(root: Path, **kwargs: Any) -> dict[str, Any]:
    """Everything an index run could change: rows, FTS, vectors, the last build and the generation."""
    with open_service(root, **kwargs) as svc:
        db = svc.db
        return {
            **snapshot(db),
            "vectors": vec_store.node_vector_count(db),
            "last_build": db.get_meta("last_build"),
            "generation": db.get_meta("generation"),
        }


def remove(root: Path, count: int) -> list[str]:
    """Delete the first ``count`` modules under ``root``; their paths."""
    gone = [f"pkg/m{i}.py" for i in range(count)]
    for rel in gone:
        (root / rel).unlink()
    return gone


# -- the mass-delete guard (both stores) -------------------------------------------------------------------------
def test_an_emptied_checkout_is_refused_with_the_data_intact(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_plain_repo(tmp_path, code_files(30))
    assert run(capsys, "index", str(root))[0] == 0
    before = state(root)
    assert len(before["files"]) == 30 and before["vectors"] > 0
    remove(root, 25)
    for extra in ([], ["--full"], ["--no-embed"]):
        code, out, err = run(capsys, "index", str(root), *extra)
        assert code == 1, (extra, out)
        assert "refusing to delete 25 of the 30 indexed files" in err and str(root) in err
        assert "pkg/m0.py" in err and "nothing was written" in err and "--allow-mass-delete" in err
        assert state(root) == before, extra
    remove(root, 0)
    for rel in [f"pkg/m{i}.py" for i in range(25, 30)]:
        (root / rel).unlink()  # nothing left at all
    assert run(capsys, "index", str(root))[0] == 1
    assert state(root) == before
    code, out, err = run(capsys, "index", str(root), "--allow-mass-delete")
    assert code == 0, err
    assert "30 deleted" in out
    assert state(root)["files"] == []


def test_a_full_rebuild_of_a_gutted_checkout_is_refused_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_plain_repo(tmp_path, code_files(40))
    assert run(capsys, "index", str(root))[0] == 0
    before = state(root)
    remove(root, 21)  # 21 of 40: more than half and more than the floor
    assert FLOOR < 21
    code, _out, err = run(capsys, "index", str(root), "--full")
    assert code == 1 and "21 of the 40" in err
    assert state(root) == before
    code, _out, err = run(capsys, "index", str(root), "--full", "--allow-mass-delete")
    assert code == 0, err
    assert len(state(root)["files"]) == 19


def test_small_repositories_moves_and_dry_runs_are_not_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = make_plain_repo(tmp_path, code_files(FLOOR), name="small")
    assert run(capsys, "index", str(small))[0] == 0
    remove(small, FLOOR - 1)  # all files but one of a repository at the floor: an ordinary clean-up
    assert run(capsys, "index", str(small))[0] == 0
    assert len(state(small)["files"]) == 1
    (small / f"pkg/m{FLOOR - 1}.py").unlink()  # none left: nothing to index is refused (test_nothing_to_index.py)
    assert run(capsys, "index", str(small))[0] == 1
    assert run(capsys, "index", str(small), "--allow-mass-delete")[0] == 0
    assert state(small)["files"] == []

    moved = make_plain_repo(tmp_path, code_files(30), name="moved")
    assert run(capsys, "index", str(moved))[0] == 0
    shutil.move(moved / "pkg", moved / "src")  # every file moves: nothing is lost
    code, out, err = run(capsys, "index", str(moved))
    assert code == 0, err
    assert "30 renamed" in out
    shutil.move(moved / "src", moved / "app")
    assert run(capsys, "index", str(moved), "--full")[0] == 0  # moved content is not lost in a full rebuild either

    dry = make_plain_repo(tmp_path, code_files(30), name="dry")
    assert run(capsys, "index", str(dry))[0] == 0
    before = state(dry)
    remove(dry, 25)
    code, out, err = run(capsys, "index", str(dry), "--dry-run")
    assert code == 0, err
    assert "25 deleted" in out  # what would happen, written nowhere
    assert state(dry) == before


async def test_igraph_index_refuses_a_mass_delete_until_allowed(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, code_files(30))
    with open_service(root, index=True) as svc:
        before = state(root)
        remove(root, 30)
        async with Client(create_server(ServerState(svc))) as client:
            refused = await client.call_tool("igraph_index", {})
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert "refusing to delete 30 of the 30 indexed files" in text and "allowMassDelete=true" in text
            assert state(root) == before
            done = await client.call_tool("igraph_index", {"allowMassDelete": True})
            assert not done.is_error
            assert done.structured_content is not None and done.structured_content["deleted"] == 30


# -- names bound to repositories (PostgreSQL) ------------------------------------------------------------------
def registry_row(url: str, name: str) -> tuple[Any, ...] | None:
    with psycopg.connect(url, autocommit=True) as con:
        return con.execute(
            "SELECT root, first_commit, remote, subdir, bound_at IS NOT NULL FROM igraph.repos WHERE name = %s",
            (name,),
        ).fetchone()


@pytest.mark.postgresql_only
def test_a_taken_name_is_refused_and_replace_takes_it_over(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    api = make_git_repo(tmp_path / "api", code_files(30), remote="git@github.com:acme/api.git")
    other = make_git_repo(tmp_path / "other", code_files(12, "o"), remote="https://github.com/acme/other", salt="o")
    store = ("--store", pg_url)
    assert run(capsys, "index", str(api), *store, "--repo-name", "api")[0] == 0
    first = git(api, "rev-list", "--max-parents=0", "HEAD")
    assert registry_row(pg_url, "api") == (str(api), first, "github.com/acme/api", "", True)
    before = state(api, store=pg_url, repo_name="api")
    for extra in ([], ["--full"], ["--allow-mass-delete"], ["--dry-run"]):
        code, out, err = run(capsys, "index", str(other), *store, "--repo-name", "api", *extra)
        assert code == 1, (extra, out)
        for part in (str(api), "github.com/acme/api", first[:12], str(other), "github.com/acme/other"):
            assert part in err, (part, err)
        assert "--replace" in err and "--repo-name" in err and "Nothing was written" in err
        assert "password" not in err
        assert state(api, store=pg_url, repo_name="api") == before, extra
        assert registry_row(pg_url, "api") == (str(api), first, "github.com/acme/api", "", True)
    # Mounting a document under the taken name is a write too.
    (other / "README.md").write_text("# Other\n", encoding="utf-8")
    assert run(capsys, "mount", "README.md", "--root", str(other), *store, "--repo-name", "api")[0] == 1
    assert state(api, store=pg_url, repo_name="api") == before

    code, out, err = run(capsys, "index", str(other), *store, "--repo-name", "api", "--replace")
    assert code == 0, err
    assert "12 modified, 18 deleted" in out  # --replace lets the old repository's files go
    other_first = git(other, "rev-list", "--max-parents=0", "HEAD")
    assert registry_row(pg_url, "api") == (str(other), other_first, "github.com/acme/other", "", True)
    assert {f[0] for f in state(other, store=pg_url, repo_name="api")["files"]} == set(code_files(12, "o"))
    # Now the first checkout is the stranger.
    assert run(capsys, "index", str(api), *store, "--repo-name", "api")[0] == 1


@pytest.mark.postgresql_only
def test_checkouts_of_one_repository_share_its_name(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    origin = make_git_repo(tmp_path / "origin", code_files(30))
    store = ("--store", pg_url, "--repo-name", "api")
    clone = tmp_path / "ci" / "runner-1" / "api"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    assert run(capsys, "index", str(clone), *store)[0] == 0
    first = git(origin, "rev-list", "--max-parents=0", "HEAD")
    assert registry_row(pg_url, "api") == (str(clone), first, f"{origin}".lower(), "", True)
    shallow = tmp_path / "ci" / "runner-2" / "api"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(shallow))
    code, out, err = run(capsys, "index", str(shallow), *store)  # a CI runner's fresh shallow clone
    assert code == 0, err
    assert "0 added" in out and "0 deleted" in out
    code, _out, err = run(capsys, "index", str(origin), *store)  # the original checkout: first commit, no remote
    assert code == 0, err
    assert registry_row(pg_url, "api") == (str(origin), first, f"{origin}".lower(), "", True)
    # The same repository's subfolder is another repository (a monorepo's part): refused.
    code, _out, err = run(capsys, "index", str(origin / "pkg"), *store)
    assert code == 1 and "folder pkg" in err


@pytest.mark.postgresql_only
def test_a_name_bound_before_identities_adopts_the_first_indexer(
    tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    store = ("--store", pg_url, "--repo-name", "legacy")
    old = make_plain_repo(tmp_path, code_files(30), name="old")
    assert run(capsys, "index", str(old), *store)[0] == 0
    with psycopg.connect(pg_url, autocommit=True) as con:  # the registry as an older igraph-mcp left it
        for column in ("first_commit", "remote", "subdir", "bound_at"):
            con.execute(f"ALTER TABLE igraph.repos DROP COLUMN {column}")
        con.execute("DELETE FROM igraph.registry_migrations")
    new = make_plain_repo(tmp_path, code_files(30), name="new")  # another path, no git: adopts the name
    code, out, err = run(capsys, "index", str(new), *store)
    assert code == 0, err
    assert "0 deleted" in out
    assert registry_row(pg_url, "legacy") == (str(new), "", "", "", True)
    with psycopg.connect(pg_url, autocommit=True) as con:
        assert con.execute("SELECT max(version) FROM igraph.registry_migrations").fetchone() == (REGISTRY_VERSION,)
    code, _out, err = run(capsys, "index", str(old), *store)  # bound now: the old path is another repository
    assert code == 1 and str(new) in err and str(old) in err


@pytest.mark.postgresql_only
async def test_igraph_index_on_a_taken_name_is_an_error_until_replace(tmp_path: Path, pg_url: str) -> None:
    api = make_plain_repo(tmp_path, code_files(5), name="api")
    other = make_plain_repo(tmp_path, code_files(5, "x"), name="other")
    with open_service(api, index=True, store=pg_url, repo_name="shared"):
        pass
    before = state(api, store=pg_url, repo_name="shared")
    svc = make_service(other, store=pg_url, repo_name="shared")
    try:
        async with Client(create_server(ServerState(svc))) as client:
            refused = await client.call_tool("igraph_index", {})
            assert refused.is_error
            text = refused.content[0].text  # type: ignore[union-attr]
            assert str(api) in text and str(other) in text and "replace=true" in text
            assert state(api, store=pg_url, repo_name="shared") == before
            done = await client.call_tool("igraph_index", {"replace": True})
            assert not done.is_error
    finally:
        svc.close()
    assert registry_row(pg_url, "shared") == (str(other), "", "", "", True)


@pytest.mark.sqlite_only
def test_the_sqlite_file_cannot_be_reached_by_a_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    api = make_plain_repo(tmp_path, code_files(30), name="api")
    other = make_plain_repo(tmp_path, code_files(3, "o"), name="other")
    assert run(capsys, "index", str(api), "--store", "sqlite")[0] == 0
    before = state(api)
    code, _out, err = run(capsys, "index", str(other), "--store", "sqlite", "--repo-name", "api")
    assert code == 0, err  # --repo-name names nothing here: other/ gets its own file
    assert state(api) == before
    assert (other / ".igraph" / "igraph.db").exists()
