"""What a store backend is (docs/store-backends.md): the connection its transactions yield, and the three parts
every backend carries: a text index, a vector index and a bulk writer.

Query code reaches the parts through the database object (``db.text``, ``db.vectors``, ``db.bulk``) or a write
connection's ``con.db``, and never asks which backend it is on. A part's reads go through the database it was made
for; its writes take the write connection, so they join the caller's transaction.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from igraph_mcp.store.records import EdgeBinding, Neighbour, NewEdgeRow, NewImport, NodeText, NodeVector

Ranked = list[tuple[int, float]]  # (row id, score) best first


class Backend(Protocol):
    """The backend's parts and SQL words, as a write connection reaches them (``con.db``)."""

    @property
    def text(self) -> TextIndex:
        """The text index."""

    @property
    def vectors(self) -> VectorIndex:
        """The vector index."""

    @property
    def bulk(self) -> BulkWriter:
        """The bulk writer."""

    @property
    def table_exists_sql(self) -> str:
        """One row when the table named by its one parameter exists."""

    @property
    def last_id_sql(self) -> str:
        """Reads the id of the row the connection last inserted ("": an INSERT returns it)."""


class WriteConnection(Protocol):
    """What ``Database.atomic()`` yields: ``?`` SQL over the backend's connection, and the database it writes."""

    @property
    def db(self) -> Backend:
        """The database this transaction writes (its parts do the backend's own writes)."""

    def execute(self, sql: str, params: Any = ..., /) -> Any:
        """Run one statement; the result iterates over rows and has ``fetchone()``."""

    def executemany(self, sql: str, rows: Any, /) -> Any:
        """Run one statement for each parameter row."""


class StoreReader(Protocol):
    """The database's read API, as its parts use it."""

    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
        """Run a read query and return all rows."""

    def scalar(self, sql: str, params: Any = (), default: Any = None) -> Any:
        """Run a read query and return the first column of the first row."""

    def has_table(self, name: str) -> bool:
        """True when the table exists."""

    def atomic(self) -> AbstractContextManager[WriteConnection]:
        """A write transaction."""


class TextIndex(ABC):
    """BM25 over the node text rows (nodes_fts's columns) and the resource chunk rows (resources_fts's), with FTS5's
    scores: the rows a write adds or removes, and the ranked ids a search returns."""

    # -- node rows: written with their nodes ----------------------------------------------------------------------
    @abstractmethod
    def insert_nodes(self, con: WriteConnection, rows: Iterable[NodeText]) -> None:
        """Index the text rows of new nodes."""

    @abstractmethod
    def delete_file_nodes(self, con: WriteConnection, file_id: int, node_ids: Sequence[int]) -> None:
        """Remove the rows of one file's nodes (``node_ids``: all of them, listed by the caller)."""

    @abstractmethod
    def set_path(self, con: WriteConnection, file_id: int, path: str, symbols_sql: str) -> None:
        """Set the path column of the rows ``symbols_sql`` (one ``?``: the file id) returns: a renamed file."""

    @abstractmethod
    def rename_module(self, con: WriteConnection, file_id: int, name: str, qualified_name: str, words: str) -> None:
        """Give the row of one file's module node a new name, qualified name and words."""

    @abstractmethod
    def clear_nodes(self, con: WriteConnection) -> None:
        """Empty the node rows (a full rebuild)."""

    # -- node search ------------------------------------------------------------------------------------------------
    @abstractmethod
    def search_nodes(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Node ids by bm25() with these column weights over an OR of the tokens, best first (score > 0)."""

    @abstractmethod
    def node_ids_mentioning(self, tokens: list[str], limit: int, file_ids: Sequence[int] | None) -> list[int]:
        """Node ids matching any token by FTS5's ``rank`` (every column weighted 1), within some files if given."""

    @abstractmethod
    def doc_counts(self, terms: list[str]) -> dict[str, int]:
        """term (tokenizer output) -> node rows holding it, for the terms some row holds."""

    # -- resource chunks ----------------------------------------------------------------------------------------------
    @abstractmethod
    def insert_resources(self, con: WriteConnection, rows: Sequence[tuple[int, str, str, str, str]]) -> None:
        """Index chunks as (resource id, title, heading path, identifiers, text)."""

    @abstractmethod
    def delete_source(self, con: WriteConnection, source_id: int) -> None:
        """Remove the rows of one source's chunks."""

    @abstractmethod
    def search_resources(self, tokens: list[str], limit: int, weights: Sequence[float]) -> Ranked:
        """Resource ids by bm25() with these column weights over an OR of the tokens, best first."""


class VectorIndex(ABC):
    """Node and resource vectors by cosine distance: the tables, what is stored, and the nearest neighbours."""

    indexed_knn: bool  # KNN answered from an index (no reader needs every vector in memory)

    @abstractmethod
    def column_sql(self, column: str) -> str:
        """SQL reading a vector column so that ``to_bytes`` turns each value into float32 bytes."""

    @abstractmethod
    def node_count(self) -> int:
        """Stored node vectors (the node vector table must exist)."""

    @abstractmethod
    def to_bytes(self, value: Any) -> bytes:
        """float32 bytes of a value read through ``column_sql``."""

    @abstractmethod
    def create_tables(self, con: WriteConnection, dimension: int) -> None:
        """Create node_vectors(node_id, file_id, embedding) and resource_vectors(resource_id, embedding)."""

    @abstractmethod
    def clear_nodes(self, con: WriteConnection) -> None:
        """Remove every node vector (a full rebuild, same embedder)."""

    @abstractmethod
    def store_nodes(self, con: WriteConnection, rows: Iterable[NodeVector]) -> None:
        """Write node vectors and record each node's text hash (``nodes.embed_hash``)."""

    @abstractmethod
    def store_resources(self, con: WriteConnection, rows: Iterable[tuple[int, bytes, str]]) -> None:
        """Write (resource id, vector, text hash) rows and record each chunk's hash (``resources.embed_hash``)."""

    @abstractmethod
    def shared(self, embedder_id: str, dimension: int, hashes: Sequence[str]) -> dict[str, bytes]:
        """text hash -> vector other repositories of the same store already made with this embedder."""

    @abstractmethod
    def bulk_loading(self, adding: int) -> AbstractContextManager[None]:
        """Around adding ``adding`` node vectors (a backend may rebuild its index once afterwards)."""

    @abstractmethod
    def knn_nodes(self, query: bytes, k: int) -> list[Neighbour]:
        """Nearest nodes overall, best first."""

    @abstractmethod
    def similarities_in_files(self, query: bytes, file_ids: Sequence[int], k: int) -> list[Neighbour]:
        """Exact similarity of the nodes of some files, best first, at most ``k``."""

    @abstractmethod
    def knn_resources(self, query: bytes, k: int) -> Ranked:
        """Nearest resource chunks: (resource id, cosine similarity) best first."""


class BulkWriter(ABC):
    """The many-row writes of an index run: nodes under reserved ids, edges, imports, facts, and edge bindings."""

    @abstractmethod
    def reserve_node_ids(self, con: WriteConnection, n: int, above: int) -> list[int]:
        """``n`` fresh node ids, ascending and greater than ``above``."""

    @abstractmethod
    def insert_nodes(self, con: WriteConnection, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert (id, *NewNode) rows."""

    @abstractmethod
    def insert_edges(self, con: WriteConnection, rows: Iterable[NewEdgeRow]) -> None:
        """Insert edges with their confidence."""

    @abstractmethod
    def insert_imports(self, con: WriteConnection, rows: Iterable[NewImport]) -> None:
        """Insert imports."""

    @abstractmethod
    def insert_facts(self, con: WriteConnection, rows: Iterable[tuple[int, str, str, str]]) -> None:
        """Insert facts."""

    @abstractmethod
    def delete_edges(self, con: WriteConnection, where: str, params: Sequence[Any]) -> None:
        """Delete the edges matching ``where`` (a condition on the edges' columns with ``?`` placeholders)."""

    @abstractmethod
    def unbind_edges(self, con: WriteConnection, where: str, params: Sequence[Any], resolution: str) -> None:
        """Unbind the resolved edges matching ``where``, labelled ``resolution``."""

    @abstractmethod
    def clear_edges(self, con: WriteConnection) -> None:
        """Delete every edge."""

    @abstractmethod
    def bind_edges(self, con: WriteConnection, rows: list[EdgeBinding]) -> None:
        """Set each edge's target, resolution, confidence and candidates (rows in edge id order)."""

    @abstractmethod
    def defer_binding_indexes(self, con: WriteConnection) -> bool:
        """Before a build that binds every edge writes into an empty edges table: set the indexes ``rebinding``
        rebuilds aside until then (True if it did)."""

    @abstractmethod
    def rebinding(self, con: WriteConnection) -> AbstractContextManager[None]:
        """Around binding every edge of the repository again, page by page, inside ``con``'s transaction."""
