"""The SQLite text index: FTS5 tables ``nodes_fts`` and ``resources_fts`` (store/schema.py) ranked by bm25()."""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence

from igraph_mcp.store.backend import Ranked, StoreReader, TextIndex, WriteConnection
from igraph_mcp.store.bind import MAX_BOUND, batches, placeholders
from igraph_mcp.store.fts import fts_or_query
from igraph_mcp.store.records import NodeText

DOC_COUNT_CACHE_TERMS = 200_000  # term counts a reader keeps between queries (a few MB); emptied when full


class Fts5TextIndex(TextIndex):
    """FTS5 with the unicode61 tokenizer; a row's rowid is its node's (or chunk's) id.

    ``stamp`` names the state of the database (it changes with any commit): the terms' row counts are kept while
    it stays the same, so a warm server counts a word's rows once, not at every query that has it.
    """

    def __init__(self, db: StoreReader, stamp: Callable[[], Hashable] | None = None) -> None:
        self.db = db
        self._stamp = stamp
        self._docs_lock = threading.Lock()
        self._docs_stamp: Hashable = None
        self._docs: dict[str, int | None] = {}  # term -> rows holding it (None: in no row)

    def insert_nodes(self, con: WriteConnection, rows: Iterable[NodeText]) -> None:
        """Index the text rows of new nodes."""
        con.executemany(
            "INSERT INTO nodes_fts(rowid, name, words, qualified_name, path, signature, docstring, body) "
            "VALUES(?,?,?,?,?,?,?,?)",
            rows,
        )

    def delete_file_nodes(self, con: WriteConnection, file_id: int, node_ids: Sequence[int]) -> None:
        """Remove the rows of one file's nodes."""
        con.execute("DELETE FROM nodes_fts WHERE rowid IN (SELECT id FROM nodes WHERE file_id = ?)", (file_id,))

    def set_path(self, con: WriteConnection, file_id: int, path: str, symbols_sql: str) -> None:
        """Set the path column of the rows ``symbols_sql`` returns."""
        con.execute(f"UPDATE nodes_fts SET path = ? WHERE rowid IN ({symbols_sql})", (path, file_id))  # noqa: S608

    def rename_module(self, con: WriteConnection, file_id: int, name: str, qualified_name: str, words: str) -> None:
        """Give the row of one file's module node a new name, qualified name and words."""
        con.execute(
            "UPDATE nodes_fts SET name = ?, qualified_name = ?, words = ? "
            "WHERE rowid IN (SELECT id FROM nodes WHERE file_id = ? AND kind = 'module')",
            (name, qualified_name, words, file_id),
        )

    def clear_nodes(self, con: WriteConnection) -> None:
        """Empty the node rows."""
        con.execute("DELETE FROM nodes_fts")

    def search_nodes(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Node ids by bm25() over an OR of the quoted tokens, best first."""
        query = fts_or_query(tokens)
        if not query:
            return []
        weight_args = ",".join(str(float(w)) for w in weights)
        rows = self.db.rows(
            f"SELECT rowid, -bm25(nodes_fts, {weight_args}) AS s FROM nodes_fts WHERE nodes_fts MATCH ? "  # noqa: S608
            "ORDER BY bm25(nodes_fts, " + weight_args + ") LIMIT ?",
            (query, limit),
        )
        return [(int(r[0]), float(r[1])) for r in rows]

    def node_ids_mentioning(self, tokens: list[str], limit: int, file_ids: Sequence[int] | None) -> list[int]:
        """Node ids matching any token, by FTS5's ``rank``."""
        query = fts_or_query(tokens)
        if not query:
            return []
        if file_ids is not None and len(file_ids) <= MAX_BOUND:
            return [
                int(r[0])
                for r in self.db.rows(
                    "SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid IN "  # noqa: S608
                    f"(SELECT id FROM nodes WHERE file_id IN ({placeholders(len(file_ids))})) ORDER BY rank LIMIT ?",
                    (query, *file_ids, limit),
                )
            ]
        return [
            int(r[0])
            for r in self.db.rows(
                "SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? ORDER BY rank LIMIT ?", (query, limit)
            )
        ]

    def doc_counts(self, terms: list[str]) -> dict[str, int]:
        """term -> node rows holding it (fts5vocab's 'row' table; terms in no row are left out)."""
        if self._stamp is None:
            return self._count_docs(terms)
        # fts5vocab counts a term's rows by reading its whole posting list: for an issue's ~130 terms on a large
        # tree that was a tenth of the query, mostly for the same common words every time.
        stamp = self._stamp()
        with self._docs_lock:
            if stamp != self._docs_stamp or len(self._docs) > DOC_COUNT_CACHE_TERMS:
                self._docs_stamp, self._docs = stamp, {}  # a new dict: one counted under another state stays there
            known = self._docs
            missing = [t for t in terms if t not in known]
        found = self._count_docs(missing) if missing else {}
        with self._docs_lock:
            known.update((t, found.get(t)) for t in missing)
            counts = {t: known[t] for t in terms}
        return {t: n for t, n in counts.items() if n is not None}

    def _count_docs(self, terms: list[str]) -> dict[str, int]:
        docs: dict[str, int] = {}
        for chunk in batches(terms):
            for term, doc in self.db.rows(
                f"SELECT term, doc FROM nodes_fts_vocab WHERE term IN ({placeholders(len(chunk))})",  # noqa: S608
                tuple(chunk),
            ):
                docs[str(term)] = int(doc)
        return docs

    def insert_resources(self, con: WriteConnection, rows: Sequence[tuple[int, str, str, str, str]]) -> None:
        """Index chunks as (resource id, title, heading path, identifiers, text)."""
        con.executemany(
            "INSERT INTO resources_fts(rowid, title, heading_path, identifiers, text) VALUES(?,?,?,?,?)", rows
        )

    def delete_source(self, con: WriteConnection, source_id: int) -> None:
        """Remove the rows of one source's chunks."""
        con.execute(
            "DELETE FROM resources_fts WHERE rowid IN (SELECT id FROM resources WHERE source_id = ?)",
            (source_id,),
        )

    def search_resources(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Resource ids by bm25() over an OR of the quoted tokens, best first."""
        query = fts_or_query(tokens)
        if not query:
            return []
        weight_args = ",".join(str(w) for w in weights)
        rows = self.db.rows(
            f"SELECT rowid, -bm25(resources_fts, {weight_args}) FROM resources_fts WHERE resources_fts MATCH ? "  # noqa: S608
            f"ORDER BY bm25(resources_fts, {weight_args}) LIMIT ?",
            (query, limit),
        )
        return [(int(r[0]), float(r[1])) for r in rows]
