"""The tests' two stores: the store markers parametrise as documented, each PostgreSQL run gets its own empty
database with pgvector, and a SQLite-only install never imports the PostgreSQL client."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _factories import current_store, store_for, store_kwargs, subprocess_env
from _pg_server import with_database

_seen_databases: list[str] = []


@pytest.mark.both_stores
def test_both_stores_runs_once_per_store(store_kind: str, request: pytest.FixtureRequest) -> None:
    assert request.node.name.endswith(f"[{store_kind}]")
    choice = current_store()
    assert choice.kind == store_kind
    if store_kind == "sqlite":
        assert choice.url is None and store_kwargs() == {}
        assert "IGRAPH_DATABASE_URL" not in subprocess_env()
    else:
        assert choice.url is not None and choice.url.startswith("postgresql://")
        assert store_kwargs() == {"store": choice.url}
        assert subprocess_env()["IGRAPH_DATABASE_URL"] == choice.url


@pytest.mark.postgresql_only
@pytest.mark.parametrize("round_", [1, 2])
def test_each_postgresql_run_gets_a_fresh_database(store_kind: str, round_: int) -> None:
    import psycopg

    url = current_store().url
    assert store_kind == "postgresql" and url is not None
    with psycopg.connect(url) as con:
        tables = con.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')"
        )
        assert tables.fetchone() == (0,)  # the other round's table is not here
        assert con.execute("SELECT extname FROM pg_extension WHERE extname = 'vector'").fetchone() == ("vector",)
        con.execute("CREATE TABLE left_behind (x int)")
    _seen_databases.append(url)
    assert len(set(_seen_databases)) == len(_seen_databases)


def test_unmarked_tests_stay_on_sqlite(store_kind: str) -> None:
    assert store_kind == "sqlite" and current_store().url is None


@pytest.mark.parametrize(
    ("url", "name", "expected"),
    [
        ("postgresql://igraph@127.0.0.1:5432/igraph_test", "t1", "postgresql://igraph@127.0.0.1:5432/t1"),
        (
            "postgresql://u:p%40ss@db.example/main?sslmode=require",
            "t2",
            "postgresql://u:p%40ss@db.example/t2?sslmode=require",
        ),
        ("postgresql://igraph@/x?host=/tmp/pg&port=55432", "t3", "postgresql://igraph@/t3?host=/tmp/pg&port=55432"),
    ],
)
def test_with_database_keeps_everything_but_the_name(url: str, name: str, expected: str) -> None:
    assert with_database(url, name) == expected


def test_sqlite_only_use_never_imports_the_postgresql_client() -> None:
    code = (
        "import sys, igraph_mcp.cli, igraph_mcp.server, igraph_mcp.service\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('psycopg', 'psycopg_binary', 'pgvector'))\n"
        "sys.exit(f'imported {loaded}' if loaded else 0)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=subprocess_env(), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def shared_root(store_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root first used while the module's store was current, as a module's shared index is."""
    root = tmp_path_factory.mktemp("shared")
    store_for(root)
    return root


@pytest.mark.both_stores
def test_a_module_fixtures_root_keeps_the_module_store(shared_root: Path, store_kind: str) -> None:
    module_choice = store_for(shared_root)
    assert module_choice.kind == current_store().kind == store_kind
    if store_kind == "postgresql":
        # The test's own repositories go to its fresh database; the shared root stays in the module's.
        assert module_choice.url != current_store().url
        assert store_kwargs(shared_root) == {"store": module_choice.url}


@pytest.mark.both_stores
@pytest.mark.sqlite_only
def test_sqlite_only_wins_over_the_modules_marker(store_kind: str) -> None:
    assert store_kind == "sqlite"


@pytest.mark.parametrize(("ci", "outcome"), [("true", "2 errors"), ("", "2 skipped")])
def test_an_unreachable_server_fails_under_ci_and_skips_elsewhere(ci: str, outcome: str) -> None:
    target = f"{Path(__file__).resolve()}::test_each_postgresql_run_gets_a_fresh_database"
    env = subprocess_env(CI=ci, IGRAPH_TEST_DATABASE_URL="postgresql://igraph@127.0.0.1:1/nowhere")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", target],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert outcome in done.stdout, done.stdout[-2000:]
    assert (done.returncode != 0) is (ci == "true")
