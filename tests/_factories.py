"""The tests' one factory module: repositories, services and the environment of a subprocess running igraph-mcp."""

from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pytest

import igraph_mcp
from igraph_mcp.cli import PERSON_WORDS
from igraph_mcp.config import CONFIG_DIR
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.models import Hit
from igraph_mcp.next_step import word
from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database, SqliteDatabase
from igraph_mcp.store.schema import SCHEMA_VERSION

# Unrelated code so BM25 IDF is not degenerate: common words appear in many rows, rare ones in few.
FILLER: dict[str, str] = {
    "filler/colors.py": '''
        """Colour helpers used by the report renderer."""

        def mix_colors(first, second):
            """Blend two colours evenly."""
            return tuple((a + b) // 2 for a, b in zip(first, second))

        def darken_color(color, amount):
            """Make a colour darker."""
            return tuple(max(0, c - amount) for c in color)

        class Palette:
            """A named set of colours."""

            def add_color(self, name, value):
                self.colors[name] = value

            def lookup_color(self, name):
                return self.colors.get(name)
        ''',
    "filler/geometry.py": '''
        """Shapes and their measurements."""

        import math

        def circle_area(radius):
            """Area of a circle."""
            return math.pi * radius * radius

        def rectangle_area(width, height):
            """Area of a rectangle."""
            return width * height

        class Polygon:
            """A closed shape with straight sides."""

            def perimeter(self):
                return sum(self.sides)

            def vertex_count(self):
                return len(self.sides)
        ''',
    "filler/text_utils.py": '''
        """String utilities."""

        def slugify_title(title):
            """Lowercase words joined by dashes."""
            return "-".join(title.lower().split())

        def count_vowels(text):
            """How many vowels a string holds."""
            return sum(ch in "aeiou" for ch in text)

        def reverse_words(sentence):
            return " ".join(reversed(sentence.split()))
        ''',
    "filler/queue_worker.py": '''
        """A toy background job queue."""

        class JobQueue:
            """First in, first out jobs."""

            def push_job(self, job):
                self.items.append(job)

            def pop_job(self):
                return self.items.pop(0)

        def drain_queue(queue):
            """Run every queued job."""
            while queue.items:
                queue.pop_job()
        ''',
}


# The directory holding the igraph_mcp package under test (the worktree, not an installed copy) and this one.
PACKAGE_PARENT = str(Path(igraph_mcp.__file__).resolve().parent.parent)
TESTS_DIR = str(Path(__file__).resolve().parent)


# /proc/locks is Linux's: where it is missing, a test cannot show which process holds a lock without taking it.
needs_proc_locks = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads lock holders from /proc/locks (Linux only)"
)


def flock_holders(lock_file: Path) -> set[int]:
    """Pids holding a flock on ``lock_file``, read from /proc/locks (looking never takes the lock)."""
    inode = lock_file.stat().st_ino
    holders: set[int] = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        # A "->" line is a process waiting for the lock, not holding it.
        if "FLOCK" in fields and "->" not in fields and fields[-3].rsplit(":", 1)[-1] == str(inode):
            holders.add(int(fields[-4]))
    return holders


def pg_lock_holder(url: str, repo: str) -> tuple[int, str] | None:
    """(pid, start) of the process holding repository ``repo``'s writer lock in the PostgreSQL database ``url``,
    read from pg_locks and its progress row without taking the lock; None when no one holds it."""
    import psycopg

    from igraph_mcp.store.pg_schema import REPO_LOCK_CLASS

    with psycopg.connect(url, autocommit=True) as con:
        try:
            row = con.execute(
                # Advisory keys are per database: another database's repository 1 holds its own lock.
                "SELECT p.pid, p.started_at FROM igraph.repos r JOIN pg_locks l ON l.locktype = 'advisory' "
                "AND l.classid = %s AND l.objid = r.id AND l.granted "
                "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                "LEFT JOIN igraph.index_progress p ON p.repo_id = r.id AND p.backend_pid = l.pid WHERE r.name = %s",
                (REPO_LOCK_CLASS, repo),
            ).fetchone()
        except psycopg.errors.UndefinedTable:
            return None  # nothing was ever indexed into this database
    if row is None:
        return None
    return (-1 if row[0] is None else int(row[0])), str(row[1])


def write_file(root: Path, rel: str, text: str | bytes, *, dedent: bool = True) -> Path:
    """Write one file under ``root`` (text dedented unless ``dedent`` is False), creating directories."""
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(textwrap.dedent(text).lstrip("\n") if dedent else text, encoding="utf-8")
    return target


def edit_file(root: Path, rel: str, text: str) -> Path:
    """Rewrite a file and move its mtime forward, so the stat cache cannot mistake it for unchanged."""
    target = root / rel
    old = target.stat().st_mtime_ns if target.exists() else 0
    write_file(root, rel, text)
    bumped = max(old, target.stat().st_mtime_ns) + 2_000_000_000
    os.utime(target, ns=(bumped, bumped))
    return target


def line_of(text: str, needle: str, nth: int = 1) -> int:
    """The 1-based line of the ``nth`` line holding ``needle`` in ``text`` as write_file writes it (dedented)."""
    lines = textwrap.dedent(text).lstrip("\n").splitlines()
    return [i for i, line in enumerate(lines, 1) if needle in line][nth - 1]


def make_repo(
    tmp_path: Path,
    files: Mapping[str, str | bytes] | None = None,
    *,
    filler: bool = True,
    name: str = "repo",
    dedent: bool = True,
) -> Path:
    """Create a repository in ``tmp_path/name`` with ``files`` (written as given when ``dedent`` is False) plus
    unrelated filler code unless ``filler`` is False."""
    root = tmp_path / name
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in {**(FILLER if filler else {}), **(files or {})}.items():
        write_file(root, rel, text, dedent=dedent)
    return root


def make_plain_repo(tmp_path: Path, files: Mapping[str, str | bytes], *, name: str = "repo") -> Path:
    """A repository of exactly ``files``, written as given (no filler, no dedent): for walker and fixture tests."""
    return make_repo(tmp_path, files, filler=False, name=name, dedent=False)


StoreKind = Literal["sqlite", "postgresql"]


@dataclass(frozen=True)
class StoreChoice:
    """The store the current test's services use: the SQLite file under the root, or one PostgreSQL database."""

    kind: StoreKind = "sqlite"
    url: str | None = None


_current_store = StoreChoice()


def current_store() -> StoreChoice:
    """The store chosen for the running test (conftest's ``store_kind`` fixture sets it; SQLite by default)."""
    return _current_store


def use_store(choice: StoreChoice) -> StoreChoice:
    """Make ``choice`` the store of every service the factories make from now on; returns the previous one."""
    global _current_store
    previous, _current_store = _current_store, choice
    return previous


# Which PostgreSQL store each root was first used with, while that store lives: a module's shared index stays in
# the module's database when a test's own fresh database becomes the current store.
_root_stores: dict[str, StoreChoice] = {}


def forget_store(url: str) -> None:
    """Forget the roots that were used with the database ``url`` (it is being dropped)."""
    for root in [r for r, choice in _root_stores.items() if choice.url == url]:
        del _root_stores[root]


def assign_store(root: Path | str, choice: StoreChoice) -> None:
    """Make ``choice`` the store of every service on ``root`` (a copy of a tree whose index is copied with it)."""
    _root_stores[os.path.realpath(root)] = choice


def store_for(root: Path | str) -> StoreChoice:
    """The store a service on ``root`` uses: the one the root was first used with, else the current one."""
    choice = current_store()
    if choice.url is None:
        return choice
    return _root_stores.setdefault(os.path.realpath(root), choice)


def store_kwargs(root: Path | str | None = None) -> dict[str, Any]:
    """The IGraphService keyword arguments that select the store for ``root`` (none for the SQLite default)."""
    choice = current_store() if root is None else store_for(root)
    return {} if choice.url is None else {"store": choice.url}


def make_service(root: Path, *, dim: int = 64, **kwargs: Any) -> IGraphService:
    """A service on ``root`` with the deterministic hashing embedder, on the current test's store; the caller
    closes it (or uses open_service)."""
    kwargs.setdefault("embedder", HashingEmbedder(dim))
    for key, value in store_kwargs(root).items():
        kwargs.setdefault(key, value)
    return IGraphService(root, **kwargs)


def index_repo(root: Path, **kwargs: Any) -> IGraphService:
    """Index ``root`` once with the hashing embedder and return the service (closed again if indexing fails)."""
    svc = make_service(root, **kwargs)
    try:
        svc.index()
    except BaseException:
        svc.close()
        raise
    return svc


@contextmanager
def open_service(root: Path, *, index: bool = False, **kwargs: Any) -> Iterator[IGraphService]:
    """A service from make_service (indexed once when ``index``), closed when the block ends, however it ends."""
    svc = index_repo(root, **kwargs) if index else make_service(root, **kwargs)
    try:
        yield svc
    finally:
        svc.close()


def call_edges(db: Database) -> set[tuple[str, ...]]:
    """Every call edge as (caller, line, callee name, target path, target qualified name, resolution)."""
    rows = db.rows(
        "SELECT s.qualified_name, e.line, e.target_name, ft.path, t.qualified_name, e.resolution FROM edges e "
        "JOIN nodes s ON s.id = e.source_id LEFT JOIN nodes t ON t.id = e.target_id "
        "LEFT JOIN files ft ON ft.id = t.file_id WHERE e.kind = 'calls'"
    )
    return {tuple(str(c) for c in r) for r in rows}


def change_incrementally(svc: IGraphService, root: Path, tmp_path: Path, change: Mapping[str, str | None]) -> None:
    """Write (or, for None, delete) the files of ``change``, index incrementally, and check that the call edges are
    those a full index of the same files has."""
    for rel, text in change.items():
        if text is None:
            (root / rel).unlink()
        else:
            write_file(root, rel, text)
    svc.index()
    copy = tmp_path / "full-copy"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".igraph"))
    full = make_service(copy)
    try:
        full.index(full=True)
        assert call_edges(svc.db) == call_edges(full.db)
    finally:
        full.close()


def subprocess_env(*, inherit: bool = True, tests: bool = False, **extra: str) -> dict[str, str]:
    """Environment for a child `python -m igraph_mcp`: it imports the package under test (and with ``tests``,
    this directory's modules), never reaches the Hugging Face hub, and gets ``extra`` on top.

    The caller's IGRAPH_* settings never reach the child (a developer's configured embedder would change what a
    test measures), except the current test's store: on PostgreSQL the child gets IGRAPH_DATABASE_URL. ``inherit``
    False also drops the rest of the environment but for PATH and HOME.
    """
    keep = os.environ if inherit else {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    base = {k: v for k, v in keep.items() if not k.startswith("IGRAPH_")}
    if current_store().url is not None:
        base["IGRAPH_DATABASE_URL"] = str(current_store().url)
    paths = [PACKAGE_PARENT, *([TESTS_DIR] if tests else []), os.environ.get("PYTHONPATH", "")]
    base.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=os.pathsep.join(p for p in paths if p))
    base.update(extra)
    return base


def snapshot(db: Database) -> dict[str, Any]:
    """The index content independent of row ids: files, nodes, edges, imports, FTS rows and the skipped files."""
    files = sorted(db.rows("SELECT path, language, sha256, size, parse_status FROM files"))
    nodes = sorted(
        db.rows(
            "SELECT f.path, n.kind, n.name, n.qualified_name, n.start_line, n.end_line, n.signature, n.body "
            "FROM nodes n JOIN files f ON f.id = n.file_id"
        )
    )
    edges = sorted(
        db.rows(
            "SELECT sf.path, s.qualified_name, e.kind, e.target_name, e.qualifier, tf.path, "
            "t.qualified_name, "
            "e.resolution, e.line FROM edges e JOIN nodes s ON s.id = e.source_id "
            "JOIN files sf ON sf.id = s.file_id "
            "LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id"
        ),
        key=repr,
    )
    imports = sorted(
        db.rows("SELECT f.path, i.module, i.name, i.alias, i.line FROM imports i JOIN files f ON f.id = i.file_id")
    )
    fts = sorted(
        db.rows(
            "SELECT f.path, n.qualified_name, x.name, x.path, x.words FROM nodes_fts x "
            "JOIN nodes n ON n.id = x.rowid "
            "JOIN files f ON f.id = n.file_id"
        )
    )
    return {
        "files": files,
        "nodes": nodes,
        "edges": edges,
        "imports": imports,
        "fts": fts,
        "fts_rows": db.scalar("SELECT count(*) FROM nodes_fts"),
        "node_rows": len(nodes),
        "skipped": sorted(db.rows("SELECT path, reason, detail FROM skipped_files")),
    }


def fts_names(db: Database, word: str) -> set[str]:
    """Qualified names of the symbols whose FTS row matches one literal word (on PostgreSQL: whose postings hold
    every term the word is cut into)."""
    if db.dialect == "postgresql":
        from igraph_mcp.store.fts import fts_terms
        from igraph_mcp.store.pg_text import term_key

        terms = [term_key(t) for t in fts_terms(word, query=True)]
        if not terms:
            return set()
        each = " AND ".join("n.id IN (SELECT row_id FROM nodes_fts_postings WHERE term = ?)" for _ in terms)
        return {str(r[0]) for r in db.rows(f"SELECT n.qualified_name FROM nodes n WHERE {each}", tuple(terms))}
    return {
        str(r[0])
        for r in db.rows(
            "SELECT n.qualified_name FROM nodes_fts x JOIN nodes n ON n.id = x.rowid WHERE nodes_fts MATCH ?",
            ('"' + word.replace('"', '""') + '"',),
        )
    }


def edge_target(db: Database, source_qname: str, target_name: str, kind: str = "calls") -> tuple[Any, ...]:
    """(target path, target qualified name, resolution) of the one edge from ``source_qname`` to a name."""
    rows = db.rows(
        "SELECT tf.path, t.qualified_name, e.resolution FROM edges e JOIN nodes s ON s.id = e.source_id "
        "LEFT JOIN nodes t ON t.id = e.target_id LEFT JOIN files tf ON tf.id = t.file_id "
        "WHERE s.qualified_name = ? AND e.target_name = ? AND e.kind = ?",
        (source_qname, target_name, kind),
    )
    assert rows, f"no {kind} edge {source_qname} -> {target_name}"
    assert len(set(rows)) == 1, rows
    return tuple(rows[0])


def as_agent(text: str) -> str:
    """A message below the fronts as the MCP server words its next steps (the tool calls to make)."""
    return word(text, AGENT_WORDS)


def as_person(text: str) -> str:
    """A message below the fronts as the CLI words its next steps (the commands to type)."""
    return word(text, PERSON_WORDS)


def function_hit(node_id: int, path: str, score: float, name: str = "f") -> Hit:
    """A ranked function hit in ``path`` with this fused score (lines 1-2), for ranking tests without an index."""
    return Hit(
        nodeId=node_id,
        name=name,
        qualifiedName=name,
        kind="function",
        filePath=path,
        startLine=1,
        endLine=2,
        score=score,
        matchChannel="fts5",
    )


def marked_for_reparse(index_path: Path) -> set[str]:
    """Open an SQLite index for writing (which migrates it) and return the paths its migrations left for the next run
    to parse again."""
    db = SqliteDatabase.open_for_write(index_path)
    try:
        return {str(p) for (p,) in db.rows("SELECT path FROM files WHERE sha256 = ''")}
    finally:
        db.close()


def undo_schema_16(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 15 (the tables are the same)."""
    con.execute("DELETE FROM migrations WHERE version >= 16")
    con.execute("UPDATE meta SET value = '15' WHERE key = 'schema_version'")


def undo_schema_15(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 14 (the tables are the same)."""
    undo_schema_16(con)
    con.execute("DELETE FROM migrations WHERE version >= 15")
    con.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")


def undo_schema_14(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 13: no Rust receiver facts."""
    undo_schema_15(con)
    con.execute(
        "DELETE FROM facts WHERE node_id IN (SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id "
        "WHERE f.language = 'rust')"
    )
    con.execute("DELETE FROM migrations WHERE version >= 14")
    con.execute("UPDATE meta SET value = '13' WHERE key = 'schema_version'")


def undo_schema_13(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 12: no C++ parameter types, argument hints or
    declarator facts."""
    undo_schema_14(con)
    con.execute("DELETE FROM facts WHERE kind = 'declarator' OR (name = '()p' AND text LIKE '(%')")
    con.execute(
        "UPDATE edges SET arguments = '' WHERE source_id IN (SELECT n.id FROM nodes n JOIN files f ON "
        "f.id = n.file_id WHERE f.language = 'cpp')"
    )
    con.execute("DELETE FROM migrations WHERE version >= 13")
    con.execute("UPDATE meta SET value = '12' WHERE key = 'schema_version'")


def undo_schema_12(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 11: no argument hints, no parameter types."""
    undo_schema_13(con)
    con.execute("ALTER TABLE edges DROP COLUMN arguments")
    con.execute("DELETE FROM facts WHERE name = '()p'")
    con.execute("DELETE FROM migrations WHERE version >= 12")
    con.execute("UPDATE meta SET value = '11' WHERE key = 'schema_version'")


def undo_schema_11(con: Any) -> None:
    """Take an SQLite index (an apsw connection) back to schema 10: no call arities, no argument ranges."""
    undo_schema_12(con)
    for table, column in (("edges", "arity"), ("nodes", "min_args"), ("nodes", "max_args")):
        con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    con.execute("DELETE FROM migrations WHERE version >= 11")
    con.execute("UPDATE meta SET value = '10' WHERE key = 'schema_version'")


def edges_by_place(db: Database) -> list[tuple[Any, ...]]:
    """Every edge keyed by paths, qualified names and lines instead of row ids (its candidates too, in their stored
    order: file path, then source order, whatever ids an incremental run gave a file), sorted: (source, kind, name,
    qualifier, line, target, resolution, confidence, candidates, arity). Two builds that mean the same compare equal."""
    key_of = {
        int(nid): (str(path), str(qname), int(line))
        for nid, path, qname, line in db.rows(
            "SELECT n.id, f.path, n.qualified_name, n.start_line FROM nodes n JOIN files f ON f.id = n.file_id"
        )
    }
    out = []
    for sid, tid, kind, name, qualifier, resolution, confidence, candidates, line, arity in db.rows(
        "SELECT source_id, target_id, kind, target_name, qualifier, resolution, confidence, candidates, line, arity "
        "FROM edges"
    ):
        cands = tuple(key_of.get(int(c), ("?", str(c), 0)) for c in (json.loads(candidates) if candidates else []))
        target = key_of.get(int(tid), ("?", str(tid), 0)) if tid is not None else None
        row = (key_of[int(sid)], kind, name, qualifier, int(line), target, resolution, round(float(confidence), 6))
        out.append((*row, cands, int(arity)))
    return sorted(out, key=repr)


def migrates_and_reads_again(
    tmp_path: Path,
    files: dict[str, str],
    undo: Callable[[Any], None],
    check: Callable[[Database], None] = lambda _db: None,
    built: Callable[[Database], None] = lambda _db: None,
    languages: tuple[str, ...] = ("java",),
) -> None:
    """Index ``files`` (``built`` checks that index), take it back a schema version with ``undo``, open it (it
    migrates: the files of ``languages`` are marked to be read again), ``check`` it, then index again: every file
    is read again and the edges are the first build's."""
    import apsw  # the SQLite driver, for the hand-made older index

    root = make_repo(tmp_path, files, filler=False)
    svc = index_repo(root)
    try:
        built(svc.db)
        want = edges_by_place(svc.db)
    finally:
        svc.close()
    path = root / CONFIG_DIR / "igraph.db"
    con = apsw.Connection(str(path))
    undo(con)
    con.close()
    db = SqliteDatabase.open_for_write(path)
    try:
        assert db.schema_version() == SCHEMA_VERSION
        marks = ",".join("?" * len(languages))
        assert db.rows(f"SELECT DISTINCT sha256 FROM files WHERE language IN ({marks})", languages) == [("",)]
        check(db)
    finally:
        db.close()
    svc = make_service(root)
    try:
        assert svc.index().parsed == len(files)
        assert edges_by_place(svc.db) == want
    finally:
        svc.close()
