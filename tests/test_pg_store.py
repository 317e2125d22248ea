"""The PostgreSQL store's own parts: registry and per-repository schemas, migrations, the advisory-lock writer,
transactions, and the store selection with its credential rules (the service-level tests run on both stores
through the conftest's parametrisation)."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
from _factories import as_agent, as_person
from _pg_server import ci_requires_postgres

from igraph_mcp.config import load_config
from igraph_mcp.errors import ConfigError, IndexBusy, NotIndexed, StorageError
from igraph_mcp.next_step import NextStep, steps
from igraph_mcp.repo_identity import RepoIdentity
from igraph_mcp.store.db import SqliteDatabase
from igraph_mcp.store.schema import SCHEMA_VERSION
from igraph_mcp.store.target import ENV_URL, ENV_URL_FILE, chosen_url, git_revision, open_store, repo_name_for
from igraph_mcp.store.url import safe_url

try:
    import psycopg
except ImportError:  # a SQLite-only install; under CI the PostgreSQL tests must run, so this fails there
    if ci_requires_postgres():
        raise
    pytest.skip("the PostgreSQL store tests need the [postgres] extra", allow_module_level=True)

from igraph_mcp.store import pg_schema
from igraph_mcp.store.pg_db import PgDatabase, translate
from igraph_mcp.store.pg_lock import PgWriterLock


@pytest.fixture
def url(pg_url: str) -> str:
    """A fresh database on the test server (the conftest's; under CI=true a missing server fails)."""
    return pg_url


@pytest.fixture
def names() -> list[str]:
    """The repository names one test made (its database is dropped with it)."""
    return []


def _name(names: list[str]) -> str:
    name = "t-" + uuid.uuid4().hex[:10]
    names.append(name)
    return name


@contextmanager
def _writer_and_reader(url: str, name: str) -> Iterator[tuple[Any, Any]]:
    """A writer and a reader of repository ``name``, both closed afterwards."""
    writer = PgDatabase.open_for_write(url, name)
    try:
        reader = PgDatabase.open_for_read(url, name)
        try:
            yield writer, reader
        finally:
            reader.close()
    finally:
        writer.close()


def _add_file(con: Any, path: str) -> int:
    row = con.execute(
        "INSERT INTO files(path, language, sha256, size, mtime_ns, line_count, parse_status, indexed_at) "
        "VALUES(?,?,?,?,?,?,?,?) RETURNING id",
        (path, "python", "abc", 1, 1_700_000_000_123_456_789, 3, "ok", 1_700_000_000.25),
    ).fetchone()
    return int(row[0])


# -- schema and migrations ---------------------------------------------------------------------------------------
def _columns(db: PgDatabase) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for table, column in db.rows(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = ? "
        "ORDER BY table_name, ordinal_position",
        (db.schema,),
    ):
        out.setdefault(table, []).append(column)
    return out


def _sqlite_columns(path: Path) -> dict[str, list[str]]:
    db = SqliteDatabase(path)
    try:
        tables = [
            r[0]
            for r in db.rows(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND sql NOT LIKE '%VIRTUAL%'"
            )
            if not str(r[0]).startswith(("nodes_fts", "resources_fts", "sqlite_"))
        ]
        return {t: [str(c[1]) for c in db.rows(f"PRAGMA table_info({t})")] for t in tables}
    finally:
        db.close()


def test_migrations_are_idempotent_and_give_the_sqlite_tables(url: str, names: list[str], tmp_path: Path) -> None:
    name = _name(names)
    first = PgDatabase.open_for_write(url, name)
    try:
        assert first.schema_version() == SCHEMA_VERSION
        assert first.schema == pg_schema.schema_name(first.repo_id)
        with first.atomic() as con:
            _add_file(con, "a.py")
    finally:
        first.close()
    again = PgDatabase.open_for_write(url, name)  # a second open migrates nothing and keeps the rows
    try:
        versions = [int(r[0]) for r in again.rows("SELECT version FROM migrations ORDER BY version")]
        assert versions == [v for v, _ in pg_schema.repo_migrations()]
        assert again.get_meta("schema_version") == str(SCHEMA_VERSION)
        assert again.scalar("SELECT count(*) FROM files") == 1
        # Same tables and columns as the SQLite file, FTS5 tables aside (the text index is the search part's).
        pg = {t: c for t, c in _columns(again).items() if not t.startswith(("nodes_fts", "resources_fts"))}
        sqlite = _sqlite_columns(tmp_path / "i.db")
        assert {t: c for t, c in pg.items() if t in sqlite} == sqlite
        # Wide values survive as SQLite keeps them: 64-bit integers and doubles, not int4/float4.
        mtime, indexed_at = again.one("SELECT mtime_ns, indexed_at FROM files")  # type: ignore[misc]
        assert (mtime, indexed_at) == (1_700_000_000_123_456_789, 1_700_000_000.25)
    finally:
        again.close()


def test_two_repositories_in_one_database_are_isolated(url: str, names: list[str]) -> None:
    a, b = _name(names), _name(names)
    db_a, db_b = PgDatabase.open_for_write(url, a), PgDatabase.open_for_write(url, b)
    try:
        assert db_a.schema != db_b.schema
        with db_a.atomic() as con:
            _add_file(con, "only_in_a.py")
            db_a.set_meta(con, "last_build", "123.5")
        assert db_a.scalar("SELECT count(*) FROM files") == 1
        assert db_b.scalar("SELECT count(*) FROM files") == 0
        assert db_b.get_meta("last_build") is None
        with psycopg.connect(url, autocommit=True) as con:
            row = con.execute("SELECT last_build, schema_name FROM igraph.repos WHERE name = %s", (a,)).fetchone()
            assert row == (123.5, db_a.schema)
            con.execute(f"DROP SCHEMA {db_a.schema} CASCADE")  # a repository is dropped whole
        assert db_b.scalar("SELECT count(*) FROM files") == 0  # the other one is untouched
    finally:
        db_a.close()
        db_b.close()


def test_a_reader_of_an_unknown_repository_is_told_to_index_it(url: str) -> None:
    with pytest.raises(NotIndexed, match=r"no index in the PostgreSQL store ") as caught:
        PgDatabase.open_for_read(url, "never-indexed-" + uuid.uuid4().hex)
    assert steps(str(caught.value)) == [(NextStep.INDEX, "")]  # each front words it: a command, or igraph_index
    assert "build it with `igraph-mcp index` on this store" in as_person(str(caught.value))
    assert "build it with igraph_index on this store" in as_agent(str(caught.value))


def test_a_reader_cannot_write(url: str, names: list[str]) -> None:
    name = _name(names)
    PgDatabase.open_for_write(url, name).close()
    reader = PgDatabase.open_for_read(url, name)
    try:
        with pytest.raises(StorageError, match="read-only"), reader.atomic() as con:
            _add_file(con, "x.py")
    finally:
        reader.close()


def test_every_session_gets_the_search_work_mem(url: str, names: list[str]) -> None:
    from igraph_mcp.store.pg_text import SEARCH_WORK_MEM

    with _writer_and_reader(url, _name(names)) as (writer, reader):
        assert writer.scalar("SHOW work_mem") == reader.scalar("SHOW work_mem") == SEARCH_WORK_MEM


def test_placeholders_translate_and_a_literal_percent_survives() -> None:
    assert translate("SELECT a FROM t WHERE b LIKE '100%' AND c = ? AND d IN (?, ?)") == (
        "SELECT a FROM t WHERE b LIKE '100%%' AND c = %s AND d IN (%s, %s)"
    )


# -- transactions ----------------------------------------------------------------------------------------------
def test_a_files_rows_change_in_one_transaction(url: str, names: list[str]) -> None:
    with _writer_and_reader(url, _name(names)) as (writer, reader):
        with pytest.raises(RuntimeError), writer.atomic() as con:
            fid = _add_file(con, "half.py")
            con.execute(
                "INSERT INTO nodes(file_id, kind, name, qualified_name, start_line, end_line, start_byte, end_byte, "
                "exported) VALUES(?,?,?,?,?,?,?,?,?)",
                (fid, "function", "f", "f", 1, 2, 0, 10, True),
            )
            raise RuntimeError("killed halfway through the file")
        assert writer.scalar("SELECT count(*) FROM files") == 0 and writer.scalar("SELECT count(*) FROM nodes") == 0
        with writer.atomic() as con:  # nested steps are savepoints: an inner failure undoes only its own rows
            _add_file(con, "kept.py")
            with pytest.raises(RuntimeError), writer.atomic() as inner:
                _add_file(inner, "undone.py")
                raise RuntimeError("inner step fails")
            # A reader sees nothing of a transaction still open.
            assert reader.scalar("SELECT count(*) FROM files") == 0
        assert [r[0] for r in reader.rows("SELECT path FROM files")] == ["kept.py"]


def test_a_snapshot_reads_one_committed_state(url: str, names: list[str]) -> None:
    with _writer_and_reader(url, _name(names)) as (writer, reader):
        with reader.snapshot():
            before = reader.scalar("SELECT count(*) FROM files")
            with writer.atomic() as con:
                _add_file(con, "landed.py")
            assert reader.scalar("SELECT count(*) FROM files") == before == 0  # the commit is not seen halfway
        assert reader.scalar("SELECT count(*) FROM files") == 1


# -- the writer lock ---------------------------------------------------------------------------------------------
def test_a_second_writer_is_told_whose_build_it_waits_for(url: str, names: list[str]) -> None:
    name = _name(names)
    holder, rival = PgWriterLock(url, name), PgWriterLock(url, name)
    with holder.hold() as db:
        assert db.dialect == "postgresql"
        holder.report("parse", 120, 160)
        with pytest.raises(IndexBusy, match=rf"\(pid {os.getpid()}, parse 120/160, for \d+ s\) on host "), rival.hold():
            pass
    with rival.hold():  # released: the rival gets its turn
        pass
    with psycopg.connect(url, autocommit=True) as con:  # and no progress row is left behind
        assert con.execute(
            "SELECT count(*) FROM igraph.index_progress p JOIN igraph.repos r ON r.id = p.repo_id WHERE r.name = %s",
            (name,),
        ).fetchone() == (0,)


def test_a_progress_row_of_another_session_is_not_reported(url: str, names: list[str]) -> None:
    name = _name(names)
    holder = PgWriterLock(url, name)
    with holder.hold() as db, psycopg.connect(url, autocommit=True) as admin:
        # As a killed holder's row looks to the next holder's rival: it names a backend that holds no lock.
        admin.execute("UPDATE igraph.index_progress SET backend_pid = 0 WHERE repo_id = %s", (db.repo_id,))  # type: ignore[attr-defined]
        with pytest.raises(IndexBusy, match=r"it has not recorded its progress yet"), PgWriterLock(url, name).hold():
            pass


def test_a_first_build_leaves_planner_statistics(url: str, names: list[str]) -> None:
    name = _name(names)
    with PgWriterLock(url, name).hold() as db, db.atomic() as con:
        for i in range(50):
            _add_file(con, f"f{i}.py")
    reader = PgDatabase.open_for_read(url, name)
    try:
        never = reader.rows(
            "SELECT relname FROM pg_stat_user_tables WHERE schemaname = ? AND last_analyze IS NULL "
            "AND last_autoanalyze IS NULL",
            (reader.schema,),
        )
        assert never == []
        assert reader.scalar("SELECT reltuples FROM pg_class WHERE oid = 'files'::regclass") == 50
    finally:
        reader.close()


def test_the_registry_records_the_last_indexers_checkout(url: str, names: list[str], tmp_path: Path) -> None:
    name = _name(names)
    # Two checkouts of one repository (the same remote) at different paths.
    ci = RepoIdentity("/ci/checkout", remote="github.com/o/r")
    laptop = RepoIdentity("/laptop/checkout", remote="github.com/o/r")
    first = PgWriterLock(url, name, identity=lambda: ci, revision=lambda: "a" * 40)
    rival = PgWriterLock(url, name, identity=lambda: laptop, revision=lambda: "b" * 40)
    with first.hold():
        with pytest.raises(IndexBusy), rival.hold():
            pass
        with psycopg.connect(url, autocommit=True) as con:  # a rival that was turned away records nothing
            row = con.execute("SELECT root, revision FROM igraph.repos WHERE name = %s", (name,)).fetchone()
            assert row == ("/ci/checkout", "a" * 40)
    with rival.hold():
        pass
    with psycopg.connect(url, autocommit=True) as con:
        assert con.execute("SELECT root, revision FROM igraph.repos WHERE name = %s", (name,)).fetchone() == (
            "/laptop/checkout",
            "b" * 40,
        )


def test_one_lock_per_repository(url: str, names: list[str]) -> None:
    a, b = _name(names), _name(names)
    # Different repositories: both write at once.
    with PgWriterLock(url, a).hold(), PgWriterLock(url, b).hold() as db_b, db_b.atomic() as con:
        _add_file(con, "b.py")


_HOLDER = textwrap.dedent(
    """
    import sys
    from igraph_mcp.store.pg_lock import PgWriterLock
    lock = PgWriterLock(sys.argv[1], sys.argv[2])
    with lock.hold() as db:
        lock.report("embed", 5, 9)
        with db.atomic() as con:
            con.execute("INSERT INTO meta(key, value) VALUES('uncommitted', 'x')")
            print("held", flush=True)
            sys.stdin.readline()  # killed here
    """
)


def test_a_killed_writer_releases_the_lock_and_leaves_the_last_commit(url: str, names: list[str]) -> None:
    name = _name(names)
    PgDatabase.open_for_write(url, name).close()
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, url, name], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        busy = pytest.raises(IndexBusy, match=rf"\(pid {proc.pid}, embed 5/9, for \d+ s\)")
        with busy, PgWriterLock(url, name).hold():
            pass
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    # The server notices the dropped connections on its own; wait for that (bounded), not for a fixed time.
    deadline, acquired = time.monotonic() + 20, False
    while not acquired and time.monotonic() < deadline:
        try:
            with PgWriterLock(url, name).hold() as db:
                acquired = True
                assert db.get_meta("uncommitted") is None  # the killed transaction left nothing
        except IndexBusy:
            time.sleep(0.05)
    assert acquired, "the lock of a killed writer was not released"


def test_a_dropped_connection_releases_the_lock_and_ends_its_writes(url: str, names: list[str]) -> None:
    name = _name(names)
    holder = PgWriterLock(url, name)
    with pytest.raises(StorageError, match="cannot be reached"), holder.hold() as db:
        with psycopg.connect(url, autocommit=True) as admin:
            pids = [
                r[0]
                for r in admin.execute(
                    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = %s AND objid = %s "
                    "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                    (pg_schema.REPO_LOCK_CLASS, db.repo_id),  # type: ignore[attr-defined]
                )
            ]
            assert len(pids) == 1
            admin.execute("SELECT pg_terminate_backend(%s, 10000)", (pids[0],))  # returns once it is gone
        with PgWriterLock(url, name).hold():  # the lock went with its connection
            pass
        with db.atomic() as con:  # and the old holder cannot write beside the new one
            _add_file(con, "late.py")


# -- selection and credentials -------------------------------------------------------------------------------------
def test_the_store_is_chosen_by_flag_then_environment_then_file(tmp_path: Path) -> None:
    a, b, c = (f"postgresql://u@h/{d}" for d in "abc")
    url_file = tmp_path / "url"
    url_file.write_text(c + "\n", encoding="utf-8")
    assert chosen_url(None, {}) is None
    assert chosen_url(None, {ENV_URL_FILE: str(url_file)}) == c
    assert chosen_url(None, {ENV_URL: b, ENV_URL_FILE: str(url_file)}) == b
    assert chosen_url(a, {ENV_URL: b}) == a
    assert chosen_url("sqlite", {ENV_URL: b}) is None  # the file, whatever the environment says
    with pytest.raises(ConfigError, match="--store takes a postgresql:// URL") as err:
        chosen_url("mysql://root:hunter2@h/db", {})
    assert "hunter2" not in str(err.value)
    with pytest.raises(ConfigError, match=ENV_URL) as err:
        chosen_url(None, {ENV_URL: "hunter2"})
    assert "hunter2" not in str(err.value)
    with pytest.raises(ConfigError, match="cannot be read"):
        chosen_url(None, {ENV_URL_FILE: str(tmp_path / "missing")})


@pytest.mark.parametrize(
    "config",
    [
        {"store": "anything"},
        {"databaseUrl": "postgresql://x@h/db"},
        {"index": {"exclude": ["postgresql://attacker@evil/db"]}},
    ],
)
def test_a_repositorys_config_may_never_name_a_store(tmp_path: Path, config: dict[str, Any]) -> None:
    (tmp_path / ".igraph").mkdir()
    (tmp_path / ".igraph" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"may never choose the database.*--store URL or set IGRAPH_DATABASE_URL"):
        load_config(tmp_path, env={})


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:hunter2@h:5432/db", "postgresql://u:***@h:5432/db"),
        ("postgresql://u@h/db?password=hunter2&sslmode=require", "postgresql://u@h/db?password=***&sslmode=require"),
        ("postgresql://u@/db?host=/tmp/s", "postgresql://u@/db?host=/tmp/s"),
    ],
)
def test_a_url_is_shown_without_its_password(url: str, shown: str) -> None:
    assert safe_url(url) == shown


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    netloc = f"{user or 'igraph'}:{password}@{host}" if user or host else parts.netloc
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def test_no_password_in_status_errors_or_logs(
    url: str, names: list[str], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from igraph_mcp.service import IGraphService

    caplog.set_level(logging.DEBUG)
    secret = "hunter2-" + uuid.uuid4().hex[:6]
    name = _name(names)
    root = tmp_path / name
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    svc = IGraphService(root, store=_with_password(url, secret), embed=False)
    try:
        status = svc.status()
        assert status.store is not None and status.store.startswith("postgresql://") and not status.indexed
        assert secret not in status.model_dump_json()
    finally:
        svc.close()
    unreachable = "postgresql://igraph:" + secret + "@127.0.0.1:1/nothing?connect_timeout=2"
    with pytest.raises(StorageError, match="cannot be reached") as err:
        PgDatabase.open_for_write(unreachable, name)
    assert secret not in str(err.value) and err.value.__cause__ is None  # psycopg's own error is dropped
    assert secret not in caplog.text


def test_repository_names_and_revisions(tmp_path: Path) -> None:
    assert repo_name_for(tmp_path / "billing-api") == "billing-api"
    assert repo_name_for(tmp_path / "x", "team/api") == "team/api"
    with pytest.raises(Exception, match="--repo-name"):
        repo_name_for(tmp_path, "bad\nname")
    git = tmp_path / "repo" / ".git"
    (git / "refs" / "heads").mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    assert git_revision(tmp_path / "repo") == ""  # a branch with no commit yet
    (git / "packed-refs").write_text("# pack-refs\n" + "a" * 40 + " refs/heads/main\n", encoding="utf-8")
    assert git_revision(tmp_path / "repo") == "a" * 40
    (git / "refs" / "heads" / "main").write_text("b" * 40 + "\n", encoding="utf-8")
    assert git_revision(tmp_path / "repo") == "b" * 40
    assert git_revision(tmp_path) == ""


def test_open_store_picks_the_sqlite_file_by_default(tmp_path: Path) -> None:
    store = open_store(tmp_path, tmp_path / ".igraph", env={})
    assert store.dialect == "sqlite" and store.sqlite_path == tmp_path / ".igraph" / "igraph.db"
    assert not store.present()


def test_a_reader_reconnects_after_its_connection_is_lost(url: str, names: list[str]) -> None:
    from igraph_mcp.store.reader import IndexReader
    from igraph_mcp.store.target import PgSource

    name = _name(names)
    PgDatabase.open_for_write(url, name).close()
    reader = IndexReader(PgSource(url, name))
    try:
        first = reader.db
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s, 10000)", (first.raw.info.backend_pid,))  # type: ignore[attr-defined]
        with pytest.raises(StorageError, match="cannot be reached"):
            first.scalar("SELECT count(*) FROM files")
        assert reader.db is not first and reader.db.scalar("SELECT count(*) FROM files") == 0  # a new line
    finally:
        reader.close()


# -- the command line ------------------------------------------------------------------------------------------------
def test_index_search_and_status_from_the_command_line(
    url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from igraph_mcp.cli import main

    monkeypatch.setenv("IGRAPH_EMBEDDER", "none")
    root = tmp_path / "checkout"
    (root / "billing").mkdir(parents=True)
    (root / "billing" / "refunds.py").write_text(
        'def issue_refund(order):\n    """Give the customer their money back."""\n    return order.total\n',
        encoding="utf-8",
    )
    secret = "s3cret-" + uuid.uuid4().hex[:6]
    where = ["--store", _with_password(url, secret), "--repo-name", "billing-api", "--root", str(root)]
    assert main(["index", *where]) == 0
    assert main(["search", *where, "--channels", "fts", "--json", "refund money"]) == 0
    found, err = capsys.readouterr()
    assert main(["status", *where, "--json"]) == 0
    out, err2 = capsys.readouterr()
    assert '"issue_refund"' in found and secret not in found + err + out + err2
    status = json.loads(out)
    assert status["indexed"] and status["files"] == 1 and status["dbBytes"] > 0
    assert status["store"].endswith("(repository billing-api)") and "***" in status["store"]
    # Another name is another repository: nothing indexed there yet.
    assert main(["status", "--store", url, "--repo-name", "other", "--root", str(root), "--json"]) == 0
    assert '"indexed": false' in capsys.readouterr().out
    assert not (root / ".igraph" / "igraph.db").exists()  # nothing went to the SQLite file


def test_repo_name_is_refused_for_a_workspace(tmp_path: Path) -> None:
    from igraph_mcp.cli import build_parser
    from igraph_mcp.errors import InvalidInput
    from igraph_mcp.workspace import store_options

    args = build_parser().parse_args(["search", "--repo-name", "x", "--root", "a", "--root", "b", "q"])
    assert store_options(args, roots=1) == {"store": None, "repo_name": "x"}
    with pytest.raises(InvalidInput, match="--root NAME=PATH"):
        store_options(args, roots=2)


def test_a_sqlite_service_imports_no_postgresql_client(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from igraph_mcp.service import IGraphService\n"
        f"svc = IGraphService({str(tmp_path)!r}, embed=False)\n"
        "svc.index(embed=False); svc.status()\n"
        "print(sorted(m for m in ('psycopg', 'pgvector', 'igraph_mcp.store.pg_db') if m in sys.modules))\n"
    )
    (tmp_path / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("IGRAPH_DATABASE_URL")}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=env, timeout=120
    )
    assert out.stdout.strip() == "[]"
