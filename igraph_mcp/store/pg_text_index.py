"""The PostgreSQL text index: FTS5's bm25() over postings tables (store/pg_text.py), answered from a reader's
resident copy where it has one (store/pg_resident.py)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from igraph_mcp.store import pg_text
from igraph_mcp.store.backend import Ranked, StoreReader, TextIndex, WriteConnection
from igraph_mcp.store.records import NodeText

_NODES = pg_text.NODE_TEXT
_RESOURCES = pg_text.RESOURCE_TEXT


class PgTextIndex(TextIndex):
    """The node and resource text tables of one repository's schema."""

    def __init__(self, db: StoreReader) -> None:
        self.db = db

    def insert_nodes(self, con: WriteConnection, rows: Iterable[NodeText]) -> None:
        """Index the text rows of new nodes."""
        pg_text.insert_rows(con, _NODES, rows)

    def delete_file_nodes(self, con: WriteConnection, file_id: int, node_ids: Sequence[int]) -> None:
        """Remove the rows of one file's nodes, by their listed ids (a subquery may be planned as a scan of every
        text row hash-joined to the file's nodes)."""
        pg_text.delete_rows(con, _NODES, "SELECT unnest(?::bigint[])", (list(node_ids),))

    def set_path(self, con: WriteConnection, file_id: int, path: str, symbols_sql: str) -> None:
        """Set the path column of the rows ``symbols_sql`` returns."""
        pg_text.update_rows(con, _NODES, {"path": path}, symbols_sql, (file_id,))

    def rename_module(self, con: WriteConnection, file_id: int, name: str, qualified_name: str, words: str) -> None:
        """Give the row of one file's module node a new name, qualified name and words."""
        pg_text.update_rows(
            con,
            _NODES,
            {"name": name, "qualified_name": qualified_name, "words": words},
            "SELECT id FROM nodes WHERE file_id = ? AND kind = 'module'",
            (file_id,),
        )

    def clear_nodes(self, con: WriteConnection) -> None:
        """Empty the node rows."""
        pg_text.clear(con, _NODES)

    def search_nodes(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Node ids by bm25() with these column weights, best first."""
        return pg_text.search(self.db, _NODES, tokens, limit, weights)

    def node_ids_mentioning(self, tokens: list[str], limit: int, file_ids: Sequence[int] | None) -> list[int]:
        """Node ids matching any token by FTS5's ``rank``: bm25() with every column weighted 1."""
        within = "SELECT id FROM nodes WHERE file_id = ANY(?::bigint[])" if file_ids is not None else None
        ranked = pg_text.search(
            self.db,
            _NODES,
            tokens,
            limit,
            (1.0,) * len(_NODES.columns),
            within_sql=within,
            within_params=(list(file_ids),) if file_ids is not None else (),
        )
        return [rid for rid, _ in ranked]

    def doc_counts(self, terms: list[str]) -> dict[str, int]:
        """term -> node rows holding it."""
        return pg_text.doc_freqs(self.db, _NODES, terms)

    def insert_resources(self, con: WriteConnection, rows: Sequence[tuple[int, str, str, str, str]]) -> None:
        """Index chunks as (resource id, title, heading path, identifiers, text)."""
        pg_text.insert_rows(con, _RESOURCES, rows)

    def delete_source(self, con: WriteConnection, source_id: int) -> None:
        """Remove the rows of one source's chunks."""
        pg_text.delete_rows(con, _RESOURCES, "SELECT id FROM resources WHERE source_id = ?", (source_id,))

    def search_resources(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Resource ids by bm25() with these column weights, best first."""
        return pg_text.search(self.db, _RESOURCES, tokens, limit, weights)
