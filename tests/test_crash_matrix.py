"""Crash matrix (RELIABILITY D1): SIGKILL the indexer at counted write boundaries, then check what is left.

Each kill point is ``<site>:<n>`` from ``igraph_mcp.crashpoints``: the process kills itself the n-th time it
reaches that commit or savepoint boundary, inside the open transaction, so every point leaves the index as the
commits before it made it. The points of a run are counted first (``IGRAPH_CRASH_TRACE``), then the run is
repeated once per point on a fresh copy of the same starting state. After each kill:

- ``PRAGMA integrity_check`` and ``foreign_key_check`` pass and nothing was moved aside as corrupt (SQLite);
- a read-only reader opens the index and sees, file by file, either the old or the new version of each file
  (for ``--full``, which is one transaction, the whole index is the old or the new one); FTS rows, vectors and
  mounted documents agree with the nodes they belong to;
- the next run completes, and its result equals a clean build of the same tree (vectors and mounts included).

CI runs a sample of points; ``-m long`` runs every point of every scenario. Both on each store: on PostgreSQL each
copy of a tree gets a copy of its database (``CREATE DATABASE ... TEMPLATE``), so a kill point starts from the same
committed state as on SQLite, where the index is copied with the tree.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import apsw
import pytest
from _counts import assert_counts_exact
from _factories import (
    StoreChoice,
    assign_store,
    edit_file,
    make_service,
    snapshot,
    store_for,
    subprocess_env,
    write_file,
)
from _pg_server import PgServer

from igraph_mcp.config import CONFIG_DIR, DB_FILE
from igraph_mcp.errors import NotIndexed
from igraph_mcp.service import IGraphService
from igraph_mcp.store.vectors import embedding_sql, vector_bytes

pytestmark = pytest.mark.both_stores

DOC = "docs/spec.md"
# Every copy of a tree keeps the folder name of the original: on PostgreSQL a repository is named by its folder.
TREE = "tree"


@dataclass(frozen=True)
class Places:
    """Where a tree's index lives: beside it (SQLite, copied with it), or in a database of its own (PostgreSQL)."""

    server: PgServer | None
    made: list[str] = field(default_factory=list)  # databases to drop when the test ends

    def _database(self, source: str | None = None) -> str:
        assert self.server is not None
        url = self.server.new_database() if source is None else self.server.clone_database(source)
        self.made.append(url)
        return url

    def new(self, root: Path) -> Path:
        """An empty folder for a tree, with an empty index place."""
        root.mkdir(parents=True)
        if self.server is not None:
            assign_store(root, StoreChoice("postgresql", self._database()))
        return root

    def copy(self, src: Path, dest: Path, *, with_index: bool = True) -> Path:
        """``src`` copied to ``dest`` with its index (or without it, to build it afresh)."""
        shutil.copytree(src, dest, ignore=None if with_index else shutil.ignore_patterns(CONFIG_DIR))
        if self.server is not None:
            url = store_for(src).url
            assert url is not None
            copied = self._database(url if with_index else None)
            assign_store(dest, StoreChoice("postgresql", copied))
            if with_index:
                _moved(copied, dest)
        return dest

    def remove(self, root: Path) -> None:
        """Remove a tree and its index."""
        url = store_for(root).url
        if self.server is not None and url is not None:
            self.server.drop_database(url)
            self.made.remove(url)
        shutil.rmtree(root)

    def has_index(self, root: Path) -> bool:
        """Whether an index of ``root`` was written (a first build may have been cut short before any commit)."""
        if self.server is None:
            return (root / CONFIG_DIR / DB_FILE).exists()
        svc = make_service(root)
        try:
            return svc.db.scalar("SELECT count(*) FROM files") is not None
        except NotIndexed:
            return False
        finally:
            svc.close()


def _moved(url: str, root: Path) -> None:
    """Record in a cloned database that its tree now lies at ``root``: the index moved with the tree, as the SQLite
    file does (a name is bound to its tree's path when there is no git, so the copy would be another repository)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as con:
        if con.execute("SELECT to_regclass('igraph.repos') IS NOT NULL").fetchone() == (True,):
            con.execute("UPDATE igraph.repos SET root = %s", (os.path.realpath(root),))


@pytest.fixture
def places(store_kind: str, request: pytest.FixtureRequest) -> Iterator[Places]:
    """Where this run's trees keep their indexes; their databases are dropped when the test ends."""
    made = Places(request.getfixturevalue("pg_server") if store_kind == "postgresql" else None)
    yield made
    if made.server is not None:
        for url in made.made:
            made.server.drop_database(url)


# -- the repository ------------------------------------------------------------------------------------------
def _module(i: int, n: int, version: int = 0) -> str:
    nxt = (i + 1) % n
    extra = f"\n\ndef revised_{i}_v{version}(x):\n    return step_{i}(x) - {version}\n" if version else ""
    return (
        f'"""Ledger module {i}."""\n\n'
        f"from gen.mod_{nxt} import step_{nxt}\n\n\n"
        f"def step_{i}(value):\n"
        f'    """Advance the ledger by one step ({i})."""\n'
        f"    return step_{nxt}(value) + {i + version}\n\n\n"
        f"class Account{i}:\n"
        f"    def post_entry_{i}(self, amount):\n"
        f"        return step_{i}(amount)\n"
        f"{extra}"
    )


def _doc(version: int) -> str:
    return (
        "# Ledger specification\n\nEntries are posted through `post_entry_1` and advanced by `step_2`.\n\n"
        f"## Balances (revision {version})\n\nA balance is the sum of its entries; `step_3` computes it.\n"
        + (f"\n## Refunds\n\nRefunds reverse an entry with `revised_4_v{version}`.\n" if version else "")
    )


def _write_tree(root: Path, n: int) -> None:
    for i in range(n):
        write_file(root, f"gen/mod_{i}.py", _module(i, n))
    write_file(root, DOC, _doc(0))


def _change_tree(root: Path, n: int) -> None:
    """Edits, deletes, renames and additions, as a branch switch would make them."""
    for i in range(n):
        if i % 3 == 0:
            edit_file(root, f"gen/mod_{i}.py", _module(i, n, version=1))
        elif i % 11 == 1:
            (root / f"gen/mod_{i}.py").unlink()
        elif i % 13 == 2:
            os.rename(root / f"gen/mod_{i}.py", root / f"gen/moved_{i}.py")
    for i in range(n, n + n // 10):
        write_file(root, f"gen/mod_{i}.py", _module(i, n))


def _service(root: Path) -> IGraphService:
    return make_service(root)  # HashingEmbedder(64): the same vectors as the CLI's IGRAPH_EMBEDDER=hash


# -- scenarios -----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Scenario:
    """A starting state, the command killed in it, and how the end state is rebuilt cleanly."""

    name: str
    prepare: Callable[[Path, int], None]  # writes the starting tree (and index) into an empty directory
    argv: tuple[str, ...]
    whole: bool  # the structure is written in one transaction (--full): old or new, for the whole index
    mounted: bool  # the end state has DOC mounted


def _prep_cold(root: Path, n: int) -> None:
    _write_tree(root, n)


def _prep_indexed(root: Path, n: int, *, mount: bool = True) -> None:
    _write_tree(root, n)
    svc = _service(root)
    svc.index()
    if mount:
        svc.mount(DOC)
    svc.close()


def _prep_incremental(root: Path, n: int) -> None:
    _prep_indexed(root, n)
    _change_tree(root, n)
    edit_file(root, DOC, _doc(1))


def _prep_full(root: Path, n: int) -> None:
    _prep_indexed(root, n)
    _change_tree(root, n)


def _prep_mount(root: Path, n: int) -> None:
    _prep_indexed(root, n, mount=False)


def _prep_remount(root: Path, n: int) -> None:
    _prep_indexed(root, n)
    edit_file(root, DOC, _doc(2))


SCENARIOS = {
    s.name: s
    for s in (
        Scenario("cold", _prep_cold, ("index",), whole=False, mounted=False),
        Scenario("incremental", _prep_incremental, ("index",), whole=False, mounted=True),
        Scenario("full", _prep_full, ("index", "--full"), whole=True, mounted=True),
        Scenario("mount", _prep_mount, ("mount", DOC), whole=False, mounted=True),
        Scenario("remount", _prep_remount, ("mount", DOC), whole=False, mounted=True),
    )
}


# -- what the index holds --------------------------------------------------------------------------------------
def _per_file(db: Any) -> dict[str, tuple[Any, ...]]:
    """Each file's own rows (nodes, outgoing references, imports), independent of row ids."""
    out: dict[str, tuple[Any, ...]] = {}
    for fid, path, sha in db.rows("SELECT id, path, sha256 FROM files"):
        nodes = sorted(
            db.rows(
                "SELECT kind, qualified_name, start_line, end_line, body FROM nodes WHERE file_id = ?",
                (fid,),
            )
        )
        refs = sorted(
            db.rows(
                "SELECT s.qualified_name, e.kind, e.target_name, e.qualifier, e.line FROM edges e "
                "JOIN nodes s ON s.id = e.source_id WHERE s.file_id = ?",
                (fid,),
            )
        )
        imports = sorted(db.rows("SELECT module, name, alias, line FROM imports WHERE file_id = ?", (fid,)))
        out[path] = (sha, nodes, refs, imports)
    return out


def _vectors(db: Any) -> dict[tuple[Any, ...], bytes]:
    """Vectors by node, leaving out those marked for re-embedding (a renamed file's: its path is in the text)."""
    if not db.has_table("node_vectors"):
        return {}
    return {
        (path, kind, qname, start, body): vector_bytes(db, blob)
        for path, kind, qname, start, body, blob in db.rows(
            f"SELECT f.path, n.kind, n.qualified_name, n.start_line, n.body, {embedding_sql(db, 'v.embedding')} "
            "FROM node_vectors v JOIN nodes n ON n.id = v.node_id JOIN files f ON f.id = n.file_id "
            "WHERE n.embed_hash IS NOT NULL"
        )
    }


def _sources(db: Any) -> dict[str, tuple[Any, ...]]:
    return {
        path: (sha, tuple(sorted(db.rows("SELECT heading_path, text FROM resources WHERE source_id = ?", (sid,)))))
        for sid, path, sha in db.rows("SELECT id, path, sha256 FROM resource_sources")
    }


@dataclass
class State:
    """Everything compared between a killed run, its recovery and a clean build."""

    snap: dict[str, Any]
    files: dict[str, tuple[Any, ...]]
    vectors: dict[tuple[Any, ...], bytes]
    sources: dict[str, tuple[Any, ...]]

    @classmethod
    def of(cls, svc: IGraphService) -> State:
        db = svc.db
        return cls(snapshot(db), _per_file(db), _vectors(db), _sources(db))


def _clean_state(scenario: Scenario, root: Path, where: Path, places: Places) -> State:
    """A from-scratch build of the tree the killed run was bringing the index to."""
    places.copy(root, where, with_index=False)
    svc = _service(where)
    svc.index()
    if scenario.mounted:
        svc.mount(DOC)
    state = State.of(svc)
    svc.close()
    return state


# -- running and checking one point --------------------------------------------------------------------------
def _env(**extra: str) -> dict[str, str]:
    return subprocess_env(IGRAPH_EMBEDDER="hash", **extra)


def _run(scenario: Scenario, root: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    url = store_for(root).url
    return subprocess.run(
        [sys.executable, "-m", "igraph_mcp", *scenario.argv, "--root", str(root)],
        env=_env(**env, **({"IGRAPH_DATABASE_URL": url} if url else {})),
        capture_output=True,
        timeout=600,
    )


@dataclass
class Prepared:
    """A scenario's starting state on disk, its old and new states, and its counted kill points."""

    scenario: Scenario
    start: Path
    old: State | None
    new: State
    points: list[tuple[str, int]]
    places: Places


def _prepare(scenario: Scenario, n: int, base: Path, places: Places) -> Prepared:
    start = places.new(base / "start" / TREE)
    scenario.prepare(start, n)
    old: State | None = None
    if places.has_index(start):
        svc = _service(start)
        old = State.of(svc)
        svc.close()
    new = _clean_state(scenario, start, base / "clean" / TREE, places)
    traced = places.copy(start, base / "traced" / TREE)
    trace = base / "trace.txt"
    done = _run(scenario, traced, IGRAPH_CRASH_TRACE=str(trace))
    assert done.returncode == 0, done.stderr.decode()
    counts = Counter(trace.read_text(encoding="utf-8").split())
    points = [(site, i) for site in sorted(counts) for i in range(1, counts[site] + 1)]
    return Prepared(scenario, start, old, new, points, places)


def _check_reader_sees_old_or_new(p: Prepared, svc: IGraphService) -> None:
    db = svc.db
    assert db.readonly
    seen = State.of(svc)
    old = p.old or State({}, {}, {}, {})
    if p.scenario.whole:
        assert seen.snap in (old.snap, p.new.snap), "a reader saw a half-applied --full rebuild"
    else:
        for path, rows in seen.files.items():
            assert rows in (old.files.get(path), p.new.files.get(path)), f"{path} is neither its old nor new self"
    # Derived rows agree with the nodes they belong to: FTS one row per node, vectors from the node's own text.
    assert db.scalar("SELECT count(*) FROM nodes_fts") == db.scalar("SELECT count(*) FROM nodes")
    assert db.scalar("SELECT count(*) FROM nodes_fts WHERE rowid NOT IN (SELECT id FROM nodes)") == 0
    for key, blob in seen.vectors.items():
        assert blob in (old.vectors.get(key), p.new.vectors.get(key)), f"vector of {key[:3]} is mixed"
    for path, source in seen.sources.items():
        assert source in (old.sources.get(path), p.new.sources.get(path)), f"mounted {path} is half stored"
    for path in old.sources:  # a mount the user had is never lost, whatever was killed
        assert path in seen.sources
    # The reader answers: from the last completed build, or (a first build was cut short) "no index yet".
    assert svc.status().files == len(seen.files)
    if db.get_meta("last_build") is None:
        with pytest.raises(NotIndexed):
            svc.explore("advance the ledger step", channels=("fts",), hops=0)
    else:
        assert svc.explore("advance the ledger step", channels=("fts",), hops=0).hits


def _mounts_json(root: Path) -> list[str]:
    path = root / CONFIG_DIR / "mounts.json"
    return [m["path"] for m in json.loads(path.read_text())["mounts"]] if path.exists() else []


def _check_killed(p: Prepared, root: Path) -> None:
    """What a kill left: a whole SQLite file, and a reader that sees each file old or new (D1)."""
    db_path = root / CONFIG_DIR / DB_FILE
    if not p.places.has_index(root):
        return
    if p.places.server is None:
        con = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert con.execute("PRAGMA foreign_key_check").fetchall() == []
        finally:
            con.close()
    reader = _service(root)
    try:
        _check_reader_sees_old_or_new(p, reader)
        assert_counts_exact(reader.db)  # the kept counts rolled back with the rows
    finally:
        reader.close()


def _check_equals_clean(p: Prepared, root: Path, svc: IGraphService) -> None:
    """The finished index equals a clean build of the same tree: structure, vectors, mounts."""
    assert svc.db.recovered_from is None and not list((root / CONFIG_DIR).glob("*.corrupt-*"))
    got = State.of(svc)
    assert got.snap == p.new.snap
    assert_counts_exact(svc.db)
    assert got.vectors == p.new.vectors
    assert got.snap["node_rows"] == len(got.vectors)  # every node embedded, none left stale
    assert got.sources == p.new.sources
    assert _mounts_json(root) == ([DOC] if p.scenario.mounted else [])


def _kill_and_check(p: Prepared, site: str, nth: int, work: Path) -> None:
    root = p.places.copy(p.start, work / f"{site}-{nth}" / TREE)
    killed = _run(p.scenario, root, IGRAPH_CRASH_AT=f"{site}:{nth}")
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr.decode()[-2000:])
    _check_killed(p, root)
    # The next run (the same command again, then an update) completes and equals a clean build.
    svc = _service(root)
    try:
        if p.scenario.argv[0] == "mount":
            svc.mount(DOC)
        svc.index()
        _check_equals_clean(p, root, svc)
    finally:
        svc.close()
    p.places.remove(root)


# -- a server killed while it embeds (RELIABILITY F1) -------------------------------------------------------------
# `serve` on a tree: the server indexes it on its own, is SIGKILLed at a batch of its embedding (and, in some runs,
# again at a batch of the embedding it resumed), then a server started once more must finish the index with no
# request at all. Its progress is read from the store, polled against a deadline.
SERVE_DEADLINE_S = 300.0
POLL_S = 0.05


def _serve(root: Path, log: Path, **env: str) -> subprocess.Popen[bytes]:
    """`igraph-mcp serve` (stdio) on ``root``; stdin stays open and no client ever sends a request."""
    url = store_for(root).url
    with open(log, "ab") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "igraph_mcp", "serve", "--root", str(root)],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err,
            env=_env(**env, **({"IGRAPH_DATABASE_URL": url} if url else {})),
        )


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Close the server's stdin (its client went away) and reap it."""
    assert proc.stdin is not None
    proc.stdin.close()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def _wait_killed(proc: subprocess.Popen[bytes], log: Path) -> None:
    """The server reached its kill point and died of SIGKILL (reaped: no zombie left to look alive)."""
    try:
        code = proc.wait(timeout=SERVE_DEADLINE_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == -signal.SIGKILL, (code, log.read_text(errors="replace")[-2000:])


def _wait_whole(root: Path, proc: subprocess.Popen[bytes], log: Path) -> None:
    """Poll the store until every symbol has a vector and no build holds the lock: the server finished alone."""
    deadline = time.monotonic() + SERVE_DEADLINE_S
    svc = _service(root)
    try:
        while True:
            assert proc.poll() is None, f"the server exited: {log.read_text(errors='replace')[-2000:]}"
            if _whole(svc):
                return
            assert time.monotonic() < deadline, f"not finished in {SERVE_DEADLINE_S} s: {svc.status()}"
            threading.Event().wait(POLL_S)
    finally:
        svc.close()


def _whole(svc: IGraphService) -> bool:
    """Every file indexed as it is now, every symbol embedded, and no process building (the steps after embedding
    are done too)."""
    try:
        status = svc.status()
    except NotIndexed:
        return False
    whole = status.vectors == status.symbols + status.files and status.staleCount == 0
    return status.indexed and whole and status.activity is None


def _served_copy(p: Prepared, dest: Path) -> Path:
    """A copy of the starting tree for a server. On PostgreSQL the copied database still names the original tree as
    the repository's checkout, and a server leaves another checkout's changes alone: record the copy instead."""
    root = p.places.copy(p.start, dest)
    url = store_for(root).url
    if url is not None and p.places.has_index(root):
        import psycopg

        with psycopg.connect(url, autocommit=True) as con:
            con.execute("UPDATE igraph.repos SET root = %s WHERE name = %s", (str(root), TREE))
    return root


def _serve_kill_and_check(p: Prepared, nth: int, resumed_nth: int | None, work: Path) -> None:
    """Kill a server at its ``nth`` embedding batch (then, when given, the next one at its resumed embedding's
    ``resumed_nth`` batch); a server started once more finishes alone, and the index equals a clean build."""
    root = _served_copy(p, work / f"serve-{nth}-{resumed_nth}" / TREE)
    log = root.parent / "serve.log"
    _wait_killed(_serve(root, log, IGRAPH_CRASH_AT=f"embed.batch:{nth}"), log)
    _check_killed(p, root)
    if resumed_nth is not None:
        _wait_killed(_serve(root, log, IGRAPH_CRASH_AT=f"embed.batch:{resumed_nth}"), log)
        _check_killed(p, root)
    server = _serve(root, log)
    try:
        _wait_whole(root, server, log)
    finally:
        _stop(server)
    svc = _service(root)
    try:
        _check_equals_clean(p, root, svc)
        assert svc.unfinished_work() is None
    finally:
        svc.close()
    p.places.remove(root)


def _embed_batches(p: Prepared, work: Path) -> int:
    """How many embedding batches a server's own build of the starting tree commits (counted by tracing one)."""
    root = _served_copy(p, work / "serve-traced" / TREE)
    log, trace = root.parent / "serve.log", root.parent / "serve-trace.txt"
    server = _serve(root, log, IGRAPH_CRASH_TRACE=str(trace))
    try:
        _wait_whole(root, server, log)
    finally:
        _stop(server)
    p.places.remove(root)
    return trace.read_text(encoding="utf-8").split().count("embed.batch")


# -- the tests -----------------------------------------------------------------------------------------------
# A sample for CI: one point in each phase (cold batches, --full's savepoints, an update's deletes, its declaration
# links and its embedding, storing a mount and recording it in mounts.json).
SAMPLE = [
    ("cold", "index.batch", 2),
    ("full", "index.batch", 1),
    ("incremental", "index.delete", 1),
    ("incremental", "embed.batch", 1),
    ("incremental", "index.link", 1),  # references bound, declarations not yet linked
    ("mount", "mount.store", 1),
    ("remount", "mount.save", 1),
]
SAMPLE_FILES = 150


@pytest.mark.parametrize("scenario", sorted({s for s, _, _ in SAMPLE}))
def test_crash_points_sample(scenario: str, tmp_path: Path, places: Places) -> None:
    p = _prepare(SCENARIOS[scenario], SAMPLE_FILES, tmp_path, places)
    for name, site, nth in SAMPLE:
        if name == scenario:
            assert (site, nth) in p.points, f"{site}:{nth} is not reached in {scenario}: {p.points}"
            _kill_and_check(p, site, nth, tmp_path)


LONG_FILES = 450


@pytest.mark.long
@pytest.mark.timeout(3600)
def test_crash_matrix_every_point(tmp_path: Path, places: Places) -> None:
    failures: list[str] = []
    total = 0
    for name, scenario in SCENARIOS.items():
        p = _prepare(scenario, LONG_FILES, tmp_path / name, places)
        for site, nth in p.points:
            total += 1
            try:
                _kill_and_check(p, site, nth, tmp_path / name)
            except AssertionError as exc:
                failures.append(f"{name} {site}:{nth}: {str(exc)[:300]}")
        sys.stderr.write(f"crash matrix: {name}: {len(p.points)} points {Counter(s for s, _ in p.points)}\n")
    sys.stderr.write(f"crash matrix: {total} kill points, {len(failures)} inconsistent\n")
    assert total >= 50
    assert not failures, "\n".join(failures)


def test_server_resumes_after_kills_while_embedding(tmp_path: Path, places: Places) -> None:
    # A server killed at its second embedding batch, the next one killed at the first batch of the embedding it
    # resumed; a third, left alone, finishes.
    p = _prepare(SCENARIOS["cold"], SAMPLE_FILES, tmp_path, places)
    _serve_kill_and_check(p, 2, 1, tmp_path)


@pytest.mark.long
@pytest.mark.timeout(3600)
def test_server_resume_every_embedding_point(tmp_path: Path, places: Places) -> None:
    failures: list[str] = []
    runs: list[tuple[int, int | None]] = []
    for name in ("cold", "incremental"):
        p = _prepare(SCENARIOS[name], LONG_FILES, tmp_path / name, places)
        batches = _embed_batches(p, tmp_path / name)
        assert batches >= 3, batches
        # Every batch of the first embedding; after each, also a kill in the resumed embedding (its first batch,
        # and its last one, where the resumed run has more than one).
        runs = [(nth, None) for nth in range(1, batches + 1)]
        runs += [(nth, 1) for nth in range(1, batches + 1)]
        runs += [(nth, batches - nth + 1) for nth in range(1, batches) if batches - nth + 1 > 1]
        for nth, resumed in runs:
            try:
                _serve_kill_and_check(p, nth, resumed, tmp_path / name)
            except AssertionError as exc:
                failures.append(f"{name} serve embed.batch:{nth} resumed {resumed}: {str(exc)[:300]}")
        sys.stderr.write(f"crash matrix: serve {name}: {batches} batches, {len(runs)} kill runs\n")
    assert not failures, "\n".join(failures)
