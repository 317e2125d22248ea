"""SQL for mounted resources: sources, chunks, their FTS rows and vectors, and links to code nodes."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.bind import batches, placeholders
from igraph_mcp.store.db import Database
from igraph_mcp.store.dialect import inserted_id, table_exists
from igraph_mcp.store.fts import RESOURCE_BM25_WEIGHTS, like_literal
from igraph_mcp.store.records import CodeCandidate, LinkRow, NewChunk, ResourceRow, SourceRow
from igraph_mcp.store.vectors import embedding_sql, has_node_vectors, has_resource_vectors, vector_bytes
from igraph_mcp.text.identifiers import identifier_words

# -- sources -------------------------------------------------------------------------------------------------
_SOURCE_SQL = (
    "SELECT s.id, s.path, s.name, s.source_type, s.sha256, s.mounted_at, s.problems, "
    "(SELECT count(*) FROM resources r WHERE r.source_id = s.id), "
    "(SELECT count(*) FROM resource_links l JOIN resources r ON r.id = l.resource_id "
    "WHERE r.source_id = s.id) "
    "FROM resource_sources s"
)


def _source(row: Sequence[Any]) -> SourceRow:
    return SourceRow(
        int(row[0]),
        str(row[1]),
        str(row[2]),
        str(row[3]),
        str(row[4]),
        float(row[5]),
        json.loads(row[6] or "[]"),
        int(row[7]),
        int(row[8]),
    )


def list_sources(db: Database) -> list[SourceRow]:
    """Every mounted source with its chunk and link counts, by id."""
    return [_source(r) for r in db.rows(_SOURCE_SQL + " ORDER BY s.id")]


def source_by_path(db: Database, path: str) -> SourceRow | None:
    """The source stored under ``path`` (the root-relative or absolute key), if any."""
    row = db.one(_SOURCE_SQL + " WHERE s.path = ?", (path,))
    return None if row is None else _source(row)


def source_by_id(db: Database, source_id: int) -> SourceRow | None:
    """The source with this id, if any."""
    row = db.one(_SOURCE_SQL + " WHERE s.id = ?", (source_id,))
    return None if row is None else _source(row)


def insert_source(
    con: WriteConnection,
    path: str,
    name: str,
    source_type: str,
    sha256: str,
    now: float,
    problems: list[dict[str, Any]],
) -> int:
    """Insert a source row and return its id."""
    return inserted_id(
        con,
        "INSERT INTO resource_sources(path, name, source_type, sha256, mounted_at, problems) VALUES(?,?,?,?,?,?)",
        (path, name, source_type, sha256, now, json.dumps(problems)),
    )


def delete_source(con: WriteConnection, source_id: int) -> None:
    """Delete a source with its chunks, their FTS rows, vectors and links."""
    con.db.text.delete_source(con, source_id)
    if _exists(con, "resource_vectors"):
        con.execute(
            "DELETE FROM resource_vectors WHERE resource_id IN (SELECT id FROM resources WHERE source_id = ?)",
            (source_id,),
        )
    # resources and resource_links go by ON DELETE CASCADE; said explicitly so it holds even without FKs.
    con.execute(
        "DELETE FROM resource_links WHERE resource_id IN (SELECT id FROM resources WHERE source_id = ?)",
        (source_id,),
    )
    con.execute("DELETE FROM resources WHERE source_id = ?", (source_id,))
    con.execute("DELETE FROM resource_sources WHERE id = ?", (source_id,))


def _exists(con: WriteConnection, table: str) -> bool:
    return table_exists(con, table)


# -- chunks --------------------------------------------------------------------------------------------------
def insert_chunks(con: WriteConnection, source_id: int, chunks: Sequence[NewChunk]) -> list[int]:
    """Insert chunks and their FTS rows; returns the new resource ids in chunk order."""
    ids: list[int] = []
    texts: list[tuple[int, str, str, str, str]] = []
    for c in chunks:
        rid = inserted_id(
            con,
            "INSERT INTO resources(source_id, kind, title, heading_path, text, start_line, end_line, "
            "identifiers, columns) VALUES(?,?,?,?,?,?,?,?,?)",
            (
                source_id,
                c.kind,
                c.title,
                json.dumps(c.heading_path),
                c.text,
                c.start_line,
                c.end_line,
                json.dumps(c.identifiers),
                json.dumps(c.columns),
            ),
        )
        ids.append(rid)
        # Identifiers are indexed whole (total_cents) and as words (total cents) so prose queries match too.
        idents = " ".join(c.identifiers) + " " + identifier_words(*c.identifiers)
        texts.append((rid, c.title, " › ".join(c.heading_path), idents, c.text))
    con.db.text.insert_resources(con, texts)
    return ids


_RESOURCE_SQL = (
    "SELECT r.id, r.source_id, r.kind, r.title, r.heading_path, r.text, r.start_line, r.end_line, "
    "r.identifiers, r.columns, s.name, s.path FROM resources r JOIN resource_sources s ON s.id = r.source_id"
)


def _resource(row: Sequence[Any]) -> ResourceRow:
    return ResourceRow(
        int(row[0]),
        int(row[1]),
        str(row[2]),
        str(row[3]),
        json.loads(row[4]),
        str(row[5]),
        int(row[6]),
        int(row[7]),
        json.loads(row[8]),
        json.loads(row[9]),
        str(row[10]),
        str(row[11]),
    )


def resources_by_ids(db: Database, ids: Sequence[int]) -> dict[int, ResourceRow]:
    """Fetch chunks by id."""
    out: dict[int, ResourceRow] = {}
    for chunk in batches(list(ids)):
        for r in db.rows(_RESOURCE_SQL + f" WHERE r.id IN ({placeholders(len(chunk))})", tuple(chunk)):
            out[int(r[0])] = _resource(r)
    return out


def all_resources(db: Database) -> list[ResourceRow]:
    """Every stored chunk, by id."""
    return [_resource(r) for r in db.rows(_RESOURCE_SQL + " ORDER BY r.id")]


def resources_of_sources(db: Database, source_ids: Sequence[int]) -> list[ResourceRow]:
    """Every chunk of some sources, by id."""
    out: list[ResourceRow] = []
    for chunk in batches(list(source_ids)):
        out += [
            _resource(r)
            for r in db.rows(
                _RESOURCE_SQL + f" WHERE r.source_id IN ({placeholders(len(chunk))}) ORDER BY r.id", tuple(chunk)
            )
        ]
    return out


def resources_to_embed(db: Database) -> list[ResourceRow]:
    """Chunks without a vector (never embedded, or their vectors were dropped with the embedder)."""
    return [_resource(r) for r in db.rows(_RESOURCE_SQL + " WHERE r.embed_hash IS NULL ORDER BY r.id")]


def source_vectors(db: Database, source_id: int) -> dict[str, bytes]:
    """embed_hash -> vector of a source's chunks, so a remount does not re-embed unchanged sections."""
    if not has_resource_vectors(db):
        return {}
    return {
        str(h): vector_bytes(db, v)
        for h, v in db.rows(
            f"SELECT r.embed_hash, {embedding_sql(db, 'v.embedding')} FROM resources r "  # noqa: S608
            "JOIN resource_vectors v ON v.resource_id = r.id "
            "WHERE r.source_id = ? AND r.embed_hash IS NOT NULL",
            (source_id,),
        )
    }


def resource_vectors_by_id(db: Database, ids: Sequence[int]) -> dict[int, bytes]:
    """Stored vectors of some chunks."""
    if not ids or not has_resource_vectors(db):
        return {}
    out: dict[int, bytes] = {}
    for chunk in batches(list(ids)):
        for rid, blob in db.rows(
            f"SELECT resource_id, {embedding_sql(db, 'embedding')} FROM resource_vectors "  # noqa: S608
            f"WHERE resource_id IN ({placeholders(len(chunk))})",
            tuple(chunk),
        ):
            out[int(rid)] = vector_bytes(db, blob)
    return out


def fts_resources(db: Database, tokens: list[str], limit: int) -> list[tuple[int, float]]:
    """Rank chunks by BM25 over an OR of quoted tokens: (resource id, score) best first."""
    return db.text.search_resources(tokens, limit, RESOURCE_BM25_WEIGHTS)


# -- links ---------------------------------------------------------------------------------------------------
def insert_links(con: WriteConnection, links: Iterable[LinkRow]) -> int:
    """Insert or refresh links (one per resource, node and method); returns how many were written."""
    n = 0
    for link in links:
        con.execute(
            "INSERT INTO resource_links(resource_id, node_id, score, method, evidence) VALUES(?,?,?,?,?) "
            "ON CONFLICT(resource_id, node_id, method) DO UPDATE SET score = excluded.score, "
            "evidence = excluded.evidence",
            (link.resource_id, link.node_id, link.score, link.method, link.evidence),
        )
        n += 1
    return n


def delete_links(con: WriteConnection, *, method: str) -> None:
    """Delete every link made by one method (e.g. semantic links of an embedder that was replaced)."""
    con.execute("DELETE FROM resource_links WHERE method = ?", (method,))


def links_for_nodes(db: Database, node_ids: Sequence[int], min_score: float = 0.0) -> list[LinkRow]:
    """Links into some code nodes, strongest first."""
    out: list[LinkRow] = []
    for chunk in batches(list(node_ids)):
        out += [
            LinkRow(int(r[0]), int(r[1]), float(r[2]), str(r[3]), str(r[4]))
            for r in db.rows(
                "SELECT resource_id, node_id, score, method, evidence FROM resource_links "  # noqa: S608
                f"WHERE node_id IN ({placeholders(len(chunk))}) AND score >= ?",
                (*chunk, min_score),
            )
        ]
    out.sort(key=lambda link: (-link.score, link.resource_id, link.node_id))
    return out


# -- code side of linking ----------------------------------------------------------------------------------
def files_indexed_after(db: Database, since: float) -> list[int]:
    """Ids of files (re)indexed after ``since`` (seconds since the epoch)."""
    return [int(r[0]) for r in db.rows("SELECT id FROM files WHERE indexed_at > ? ORDER BY id", (since,))]


def latest_index_time(db: Database) -> float:
    """When the most recently (re)indexed file was written; 0 for an empty index."""
    return float(db.scalar("SELECT max(indexed_at) FROM files", default=None) or 0.0)


def nodes_mentioning(db: Database, tokens: list[str], limit: int, file_ids: Sequence[int] | None = None) -> list[int]:
    """Ids of nodes whose name, words, signature or body contain any of the tokens (BM25 order).

    With ``file_ids`` (up to one batch of them) only nodes of those files are searched.
    """
    return db.text.node_ids_mentioning(tokens, limit, file_ids)


def code_candidates(db: Database, node_ids: Sequence[int]) -> list[CodeCandidate]:
    """Name, signature and stored body of some nodes, for identifier evidence."""
    out: list[CodeCandidate] = []
    for chunk in batches(list(node_ids)):
        out += [
            CodeCandidate(int(r[0]), int(r[1]), str(r[2]), str(r[3]), str(r[4]), str(r[5]), str(r[6]))
            for r in db.rows(
                "SELECT id, file_id, kind, name, qualified_name, signature, body FROM nodes "  # noqa: S608
                f"WHERE id IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        ]
    return out


def nodes_with_qualified_name(db: Database, name: str, limit: int = 20) -> list[int]:
    """Ids of nodes whose qualified name is ``name`` or ends with ``.name``."""
    like = "%." + like_literal(name)
    return [
        int(r[0])
        for r in db.rows(
            f"SELECT id FROM nodes WHERE qualified_name = ? OR qualified_name {db.like} ? "  # noqa: S608
            "ESCAPE '\\' ORDER BY id LIMIT ?",
            (name, like, limit),
        )
    ]


def module_nodes_for_path(db: Database, path: str, limit: int = 5) -> list[int]:
    """Module nodes of files whose path is ``path`` or ends with ``/path``."""
    like = "%/" + like_literal(path)
    return [
        int(r[0])
        for r in db.rows(
            f"SELECT n.id FROM nodes n JOIN files f ON f.id = n.file_id WHERE n.kind = 'module' "  # noqa: S608
            f"AND (f.path = ? OR f.path {db.like} ? ESCAPE '\\') ORDER BY n.id LIMIT ?",
            (path, like, limit),
        )
    ]


def node_vectors_of_files(db: Database, file_ids: Sequence[int]) -> list[tuple[int, bytes]]:
    """(node id, vector) of the nodes of some files (for comparing a few changed files in memory)."""
    if not has_node_vectors(db):
        return []
    out: list[tuple[int, bytes]] = []
    for chunk in batches(list(file_ids)):
        out += [
            (int(r[0]), vector_bytes(db, r[1]))
            for r in db.rows(
                f"SELECT node_id, {embedding_sql(db, 'embedding')} FROM node_vectors "  # noqa: S608
                f"WHERE file_id IN ({placeholders(len(chunk))})",
                tuple(chunk),
            )
        ]
    return out
