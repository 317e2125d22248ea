"""Numbered schema migrations. Vector tables are created on demand (their dimension comes from the embedder)."""

from __future__ import annotations

from pathlib import Path

from igraph_mcp.errors import SchemaTooNew
from igraph_mcp.next_step import NextStep, ask

SCHEMA_VERSION = 16


def schema_too_new(path: Path, version: int) -> SchemaTooNew:
    """The error for an index at ``path`` whose schema ``version`` is newer than this igraph-mcp reads."""
    return SchemaTooNew(
        f"the index at {path} has schema version {version}, newer than this igraph-mcp "
        f"supports ({SCHEMA_VERSION}); upgrade igraph-mcp or run {ask(NextStep.FULL_REBUILD)}"
    )


_V1 = [
    """CREATE TABLE files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        language TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        line_count INTEGER NOT NULL DEFAULT 0,
        parse_status TEXT NOT NULL DEFAULT 'ok',
        indexed_at REAL NOT NULL
    )""",
    """CREATE TABLE nodes(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        parent_id INTEGER REFERENCES nodes(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        qualified_name TEXT NOT NULL,
        signature TEXT NOT NULL DEFAULT '',
        docstring TEXT NOT NULL DEFAULT '',
        body TEXT NOT NULL DEFAULT '',
        start_line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        start_byte INTEGER NOT NULL,
        end_byte INTEGER NOT NULL,
        exported INTEGER NOT NULL DEFAULT 1,
        embed_hash TEXT
    )""",
    "CREATE INDEX nodes_file ON nodes(file_id)",
    "CREATE INDEX nodes_name ON nodes(name)",
    "CREATE INDEX nodes_qname ON nodes(qualified_name)",
    "CREATE INDEX nodes_parent ON nodes(parent_id)",
    # A reference is kept whether or not its target is known: target_id NULL means unresolved or ambiguous.
    # Deleting a target node only unbinds the edge (SET NULL) so the next resolve pass can re-bind it.
    """CREATE TABLE edges(
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        target_id INTEGER REFERENCES nodes(id) ON DELETE SET NULL,
        kind TEXT NOT NULL,
        target_name TEXT NOT NULL DEFAULT '',
        qualifier TEXT NOT NULL DEFAULT '',
        resolution TEXT NOT NULL DEFAULT 'unresolved',
        line INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX edges_source ON edges(source_id)",
    "CREATE INDEX edges_target ON edges(target_id)",
    "CREATE INDEX edges_target_name ON edges(target_name) WHERE target_id IS NULL",
    "CREATE INDEX edges_name_all ON edges(target_name)",
    """CREATE VIEW unresolved_refs AS
        SELECT id, source_id, kind, target_name, qualifier, resolution, line FROM edges WHERE target_id IS NULL""",
    """CREATE TABLE imports(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        module TEXT NOT NULL,
        name TEXT NOT NULL DEFAULT '',
        alias TEXT NOT NULL DEFAULT '',
        line INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX imports_file ON imports(file_id)",
    # Column order matters: bm25() weights are positional (see store/fts.py).
    """CREATE VIRTUAL TABLE nodes_fts USING fts5(
        name, words, qualified_name, path, signature, docstring, body,
        tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
    )""",
    "CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab(nodes_fts, 'row')",
    """CREATE TABLE resource_sources(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        source_type TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        mounted_at REAL NOT NULL,
        problems TEXT NOT NULL DEFAULT '[]'
    )""",
    """CREATE TABLE resources(
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES resource_sources(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        text TEXT NOT NULL,
        start_line INTEGER NOT NULL DEFAULT 0,
        end_line INTEGER NOT NULL DEFAULT 0,
        identifiers TEXT NOT NULL DEFAULT '[]',
        columns TEXT NOT NULL DEFAULT '[]',
        embed_hash TEXT
    )""",
    "CREATE INDEX resources_source ON resources(source_id)",
    """CREATE VIRTUAL TABLE resources_fts USING fts5(
        title, heading_path, identifiers, text,
        tokenize = "unicode61 remove_diacritics 2 tokenchars '_'"
    )""",
    """CREATE TABLE resource_links(
        id INTEGER PRIMARY KEY,
        resource_id INTEGER NOT NULL REFERENCES resources(id) ON DELETE CASCADE,
        node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        score REAL NOT NULL,
        method TEXT NOT NULL,
        evidence TEXT NOT NULL DEFAULT '',
        UNIQUE(resource_id, node_id, method)
    )""",
    "CREATE INDEX resource_links_node ON resource_links(node_id)",
]

# Version 2: how sure each edge is (confidence, 0 for an unbound reference), the candidates an ambiguous
# reference could mean (JSON list of node ids), and the facts a scope states about its names (`x = Session()`,
# `x: Session`, `-> Session`) from which the resolver infers receivers.
_V2 = [
    "ALTER TABLE edges ADD COLUMN confidence REAL NOT NULL DEFAULT 0",
    "ALTER TABLE edges ADD COLUMN candidates TEXT NOT NULL DEFAULT ''",
    """CREATE TABLE facts(
        id INTEGER PRIMARY KEY,
        node_id INTEGER NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        kind TEXT NOT NULL,
        text TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX facts_node ON facts(node_id)",
    # Files indexed before have no facts: make the next index run re-parse them (vectors are kept by hash).
    "UPDATE files SET sha256 = '', mtime_ns = 0",
]

# Version 3: edge indexes in the order graph expansion takes a node's edges (by kind, the other end, the edge),
# with the confidence in the key, so it reads a hub's first few callers of each kind and certainty from one
# index range instead of all of its thousands (graph.first_edges_of).
_V3 = [
    "CREATE INDEX edges_source_order ON edges(source_id, kind, target_id, id, confidence)",
    "CREATE INDEX edges_target_order ON edges(target_id, kind, source_id, id, confidence)",
    "DROP INDEX edges_source",  # both are prefixes of the new ones
    "DROP INDEX edges_target",
]

# Version 4: PostgreSQL only (the text index's change log, store/pg_text.py); nothing changes in a SQLite file.
_V4: list[str] = []

# Version 5: the files the last walk skipped for a reason a user is told about (vocab/skips.FILE_REASONS), so status
# counts them and a lookup of one says why it is not indexed. Replaced whole by every index run (store/skipped.py).
# On PostgreSQL the table lands in each repository's own schema, like every table here (pg_schema.repo_migrations).
_V5 = [
    """CREATE TABLE skipped_files(
        path TEXT PRIMARY KEY,
        reason TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT ''
    )""",
    "CREATE INDEX skipped_files_reason ON skipped_files(reason, path)",
]

# Version 6: a node that only declares (an overload or interface signature, a prototype, a `.d.ts` symbol) is flagged,
# and linked to its implementations by `declares` edges (index/declarations.py). Files indexed before carry no flag:
# the next index run re-parses them (vectors are kept by hash).
_V6 = [
    "ALTER TABLE nodes ADD COLUMN declaration INTEGER NOT NULL DEFAULT 0",
    "CREATE INDEX nodes_declaration ON nodes(name) WHERE declaration = 1",
    "UPDATE files SET sha256 = '', mtime_ns = 0",
]

# Version 7: the parts of long definitions (index/parts.py) are nodes of kind 'part'; this index counts them (status
# subtracts them from the symbols) and finds a definition's parts. Files indexed before have no parts: the next index
# run re-parses them (vectors are kept by hash).
_V7 = [
    "CREATE INDEX nodes_parts ON nodes(parent_id) WHERE kind = 'part'",
    "UPDATE files SET sha256 = '', mtime_ns = 0",
]

# Version 8: the nodes still without a vector. Counting them scanned every row, bodies included (0.25 s at 59k
# nodes), on every status call and progress poll while a build embeds; the partial index holds only what is left.
_V8 = [
    "CREATE INDEX nodes_unembedded ON nodes(id) WHERE embed_hash IS NULL",
]

# Version 9: status's edge counts kept by triggers, in SQLite's own statements (store/sqlite_counts.py, run by
# store/db.py); PostgreSQL has kept its counts since version 4 (store/pg_counts.py).
_V9: list[str] = []

# Version 10: SQLite's edge counts are kept by the bulk writer's edge writes, a statement per batch, not by row
# triggers (store/sqlite_counts.py drops them and counts once); nothing changes on PostgreSQL.
_V10: list[str] = []

# Version 11: how many arguments a call passes (edges.arity, -1 unknown) and how many a method or constructor accepts
# (nodes.min_args / max_args, max -1 unbounded; 0 and -1 together accept any call), so a Java call binds the one
# overload its argument count fits (index/overloads.py). Java files indexed before are re-parsed by the next index
# run, so no Java overload is left without its range; other languages store no counts yet.
_V11 = [
    "ALTER TABLE edges ADD COLUMN arity INTEGER NOT NULL DEFAULT -1",
    "ALTER TABLE nodes ADD COLUMN min_args INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE nodes ADD COLUMN max_args INTEGER NOT NULL DEFAULT -1",
    "UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language = 'java'",
]

# Version 12: what a Java call's arguments say of their types (edges.arguments, index/argument_hints.py) and each
# method's parameter types (a "()p" fact), so a call binds the one overload of its argument count that its argument
# types fit. Java files indexed before are re-parsed by the next index run.
_V12 = [
    "ALTER TABLE edges ADD COLUMN arguments TEXT NOT NULL DEFAULT ''",
    "UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language = 'java'",
]

# Version 13: C and C++ files state more than they did (C++: parameter types and `const`, argument forms, receiver
# facts; C: the functions a macro defines), so C++ overloads of one count bind by type; they are re-parsed by the
# next index run. Nothing changes in the tables.
_V13 = ["UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language IN ('c', 'cpp')"]

# Version 14: Rust files state what their names hold (parameter, `let`, field and result types; names a pattern
# binds) and their `use` trees are read at any depth, so `self.x.f()`, `Type::f()` and another crate's paths bind;
# they are re-parsed by the next index run. Nothing changes in the tables.
_V14 = ["UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language = 'rust'"]

# Version 15: a Rust `impl` for a reference or a primitive type (`impl Pattern for &'r Regex`, `impl Int for u32`)
# qualifies its methods by that type (`Regex.find`, not a free function `find`), so Rust files are re-parsed by the
# next index run. So is a file one of whose `contains` edges ends in another file: on SQLite, an incremental run that
# re-parsed two linked files in one batch could bind a new edge by the id of a deleted one (index/write.py).
# Re-reading a Rust file links its names' declarations again, each trait's method to its own crate's impls.
# Nothing changes in the tables.
_V15 = [
    "UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language = 'rust' OR id IN (SELECT s.file_id FROM edges e "
    "JOIN nodes s ON s.id = e.source_id JOIN nodes t ON t.id = e.target_id "
    "WHERE e.kind = 'contains' AND t.file_id != s.file_id)"
]

# Version 16: a doc comment written above a definition is the definition's alone (its docstring): no longer cut into
# the parts of the code around it (a Go file's top-level lines, a Java class's own lines, index/parts.py), nor the
# tail of its class's stored body when it documents the first member (index/rows.py). Files in a language whose
# docstrings are such comments (all but Python) are re-parsed by the next index run; unchanged texts keep their
# vectors. Nothing changes in the tables.
_V16 = ["UPDATE files SET sha256 = '', mtime_ns = 0 WHERE language != 'python'"]

MIGRATIONS: list[tuple[int, list[str]]] = [
    (1, _V1),
    (2, _V2),
    (3, _V3),
    (4, _V4),
    (5, _V5),
    (6, _V6),
    (7, _V7),
    (8, _V8),
    (9, _V9),
    (10, _V10),
    (11, _V11),
    (12, _V12),
    (13, _V13),
    (14, _V14),
    (15, _V15),
    (16, _V16),
]
