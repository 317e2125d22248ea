"""Small factories shared by the store, indexer, resolver, retrieval, service and CLI tests."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.service import IGraphService
from igraph_mcp.store.db import Database

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


def write_file(root: Path, rel: str, text: str | bytes) -> Path:
    """Write one file under ``root`` (dedented text), creating directories; returns its path."""
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return target


def edit_file(root: Path, rel: str, text: str) -> Path:
    """Rewrite a file and move its mtime forward, so the stat cache cannot mistake it for unchanged."""
    target = root / rel
    old = target.stat().st_mtime_ns if target.exists() else 0
    write_file(root, rel, text)
    bumped = max(old, target.stat().st_mtime_ns) + 2_000_000_000
    os.utime(target, ns=(bumped, bumped))
    return target


def make_repo(
    tmp_path: Path, files: Mapping[str, str | bytes] | None = None, *, filler: bool = True, name: str = "repo"
) -> Path:
    """Create a repository in ``tmp_path/name`` with ``files`` plus unrelated filler code."""
    root = tmp_path / name
    root.mkdir(parents=True, exist_ok=True)
    for rel, text in {**(FILLER if filler else {}), **(files or {})}.items():
        write_file(root, rel, text)
    return root


def make_service(root: Path, *, dim: int = 64, **kwargs: Any) -> IGraphService:
    """A service on ``root`` with the deterministic hashing embedder."""
    kwargs.setdefault("embedder", HashingEmbedder(dim))
    return IGraphService(root, **kwargs)


def index_repo(root: Path, **kwargs: Any) -> IGraphService:
    """Index ``root`` once with the hashing embedder and return the service."""
    svc = make_service(root, **kwargs)
    svc.index()
    return svc


def snapshot(db: Database) -> dict[str, Any]:
    """The index content independent of row ids: files, nodes, edges, imports and FTS rows."""
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
    }


def fts_names(db: Database, word: str) -> set[str]:
    """Qualified names of the symbols whose FTS row matches one literal word."""
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
