"""Typed records that cross the store boundary, so no caller reads or writes a column by position.

Every row type of the store lives here. Write records are NamedTuples: their field order is the column order of
the INSERT that takes them (written next to each in the store module that inserts it), so a batch binds straight to
``executemany`` without copying. Read rows are frozen dataclasses. A mounted chunk comes in as ``NewChunk``, a
protocol, so the store needs nothing from ``resources/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol


class NewFile(NamedTuple):
    """A file row to insert."""

    path: str
    language: str
    sha256: str
    size: int
    mtime_ns: int
    line_count: int
    parse_status: str  # "ok" or "partial" (the parser recovered from syntax errors)
    indexed_at: float


class NewNode(NamedTuple):
    """A symbol row to insert (the module node of a file included)."""

    file_id: int
    parent_id: int | None
    kind: str
    name: str
    qualified_name: str
    signature: str
    docstring: str
    body: str
    start_line: int
    end_line: int
    start_byte: int
    end_byte: int
    exported: bool
    declaration: bool = False  # says what, not how: its implementations are linked by `declares` edges
    min_args: int = 0  # arguments a call of it may pass; max -1 = no bound (both defaults: unknown)
    max_args: int = -1


class NodeText(NamedTuple):
    """A node's row in the FTS index (rowid = node id)."""

    node_id: int
    name: str
    words: str  # identifier words, camelCase and snake_case split
    qualified_name: str
    path: str
    signature: str
    docstring: str
    body: str


class NewEdge(NamedTuple):
    """An edge to insert; ``target_id`` None until the resolver binds it."""

    source_id: int
    target_id: int | None
    kind: str
    target_name: str
    qualifier: str
    resolution: str
    line: int
    arity: int = -1  # arguments at a call, when the language's query counts them; -1 = unknown
    arguments: str = ""  # Java: the hints of a call's argument types (index/argument_hints.py)


class NewImport(NamedTuple):
    """One import statement's binding in a file."""

    file_id: int
    module: str
    name: str
    alias: str
    line: int


class ImportRef(NamedTuple):
    """An import as the resolver reads it: the module string, the imported name ("" for the module) and its alias."""

    module: str
    name: str
    alias: str


class ScopeFact(NamedTuple):
    """What a scope states about one of its names (an assignment's type, a decorator ...), for the resolver."""

    name: str
    kind: str
    text: str


class NodeFact(NamedTuple):
    """A ScopeFact with the scope's node id (one file's facts, read before it is re-parsed)."""

    node_id: int
    name: str
    kind: str
    text: str


class BaseRef(NamedTuple):
    """A base a class names (`inherits` / `implements`), as written: the name and its qualifier."""

    name: str
    qualifier: str


class NodeBaseRef(NamedTuple):
    """A BaseRef with the class's node id."""

    class_id: int
    name: str
    qualifier: str


class AmbiguousEdge(NamedTuple):
    """An edge left ambiguous, with its candidates as stored (a JSON list of node ids)."""

    edge_id: int
    candidates: str


class NewEdgeRow(NamedTuple):
    """An edge as the bulk writer inserts it: ``NewEdge`` and the confidence of its binding at insertion."""

    source_id: int
    target_id: int | None
    kind: str
    target_name: str
    qualifier: str
    resolution: str
    line: int
    arity: int
    arguments: str
    confidence: float


class FileStat(NamedTuple):
    """What was recorded of a file at indexing: its size and modification time."""

    size: int
    mtime_ns: int


class IndexTotals(NamedTuple):
    """What an index run reports: files, symbols and bound edges."""

    files: int
    symbols: int
    edges: int


class NodeToEmbed(NamedTuple):
    """A node without a vector, with what its embedded text is made of (a part: its definition's kind and names)."""

    id: int
    file_id: int
    kind: str
    name: str
    qualified_name: str
    path: str
    signature: str
    docstring: str
    body: str


class NodeVector(NamedTuple):
    """A node's vector to store: float32 bytes and the hash of the text embedded."""

    node_id: int
    file_id: int
    vector: bytes
    text_hash: str


class Neighbour(NamedTuple):
    """A node near a query vector."""

    node_id: int
    file_id: int
    similarity: float  # cosine


class DefinitionSpan(NamedTuple):
    """A definition's place, for measuring the graph."""

    path: str
    name: str
    kind: str
    start_line: int
    end_line: int


class RefToResolve(NamedTuple):
    """A reference edge the resolver must (re-)bind, with its source's file."""

    edge_id: int
    source_id: int
    file_id: int
    kind: str
    target_name: str
    qualifier: str
    # The edge's binding as stored now, so a binding that did not change is not written again.
    target_id: int | None = None
    resolution: str = ""
    confidence: float = 0.0
    candidates: str = ""
    arity: int = -1  # arguments at the call, -1 = unknown
    arguments: str = ""  # Java: the hints of the arguments' types


class EdgeBinding(NamedTuple):
    """The resolver's answer for one edge."""

    target_id: int | None
    resolution: str
    confidence: float  # see vocab/edges.CONFIDENCE; 0 for an unbound reference
    candidates: str  # JSON list of node ids an ambiguous reference may mean, "" when none
    edge_id: int


class SymbolKey(NamedTuple):
    """What the resolver needs to know about every definition."""

    id: int
    file_id: int
    kind: str
    name: str
    qualified_name: str
    parent_id: int | None
    min_args: int = 0  # the arguments a call of it may pass (max -1: no bound); the defaults accept any call
    max_args: int = -1
    declaration: int = 0  # 1 for a declaration without a body (a prototype, a `.d.ts` or overload signature)


class LinkNode(NamedTuple):
    """A node as the declaration linker sees it (index/declarations.py)."""

    id: int
    file_id: int
    path: str
    language: str
    kind: str
    name: str
    qualified_name: str
    parent_id: int | None
    declaration: bool


@dataclass(frozen=True, slots=True)
class FileRow:
    """A stored file as the outline shows it."""

    id: int
    path: str
    language: str
    sha256: str
    size: int
    line_count: int
    parse_status: str
    indexed_at: float


@dataclass(frozen=True, slots=True)
class NodeRow:
    """A stored symbol with its file path."""

    id: int
    file_id: int
    path: str
    kind: str
    name: str
    qualified_name: str
    signature: str
    docstring: str
    start_line: int
    end_line: int
    parent_id: int | None
    exported: bool
    declaration: bool = False  # an overload or interface signature, a prototype, a `.d.ts` symbol


class PartSpan(NamedTuple):
    """Where a part of a long definition lies: its definition's node id and the part's own lines."""

    owner_id: int
    start_line: int
    end_line: int


class FileState(NamedTuple):
    """What the index remembers about one file, to detect changes (a tuple: every run reads one per file, and
    18k frozen dataclasses took 0.23 s)."""

    id: int
    path: str
    sha256: str
    size: int
    mtime_ns: int


# An EdgeRow's columns, in its field order, of `edges e`.
EDGE_COLUMNS = (
    "e.id, e.source_id, e.target_id, e.kind, e.target_name, e.qualifier, e.resolution, e.line, e.confidence, "
    "e.candidates"
)


@dataclass(frozen=True, slots=True)
class EdgeRow:
    """One edge (resolved or not) with both ends' node ids."""

    id: int
    source_id: int
    target_id: int | None
    kind: str
    target_name: str
    qualifier: str
    resolution: str
    line: int  # the reference's line in the source node's file (the call site)
    confidence: float = 0.0  # see vocab/edges.CONFIDENCE
    candidates: str = ""  # JSON list of node ids an unbound reference may mean


# -- resources -----------------------------------------------------------------------------------------------
class NewChunk(Protocol):
    """A mounted source's chunk to insert (resources.model.Chunk is one)."""

    @property
    def kind(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def heading_path(self) -> Sequence[str]: ...
    @property
    def text(self) -> str: ...
    @property
    def start_line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def identifiers(self) -> Sequence[str]: ...
    @property
    def columns(self) -> Sequence[Mapping[str, str]]: ...


@dataclass(frozen=True, slots=True)
class SourceRow:
    """One mounted source file."""

    id: int
    path: str
    name: str
    source_type: str
    sha256: str
    mounted_at: float
    problems: list[dict[str, Any]]
    chunks: int
    links: int


@dataclass(frozen=True, slots=True)
class ResourceRow:
    """One stored chunk with the name and path of its source."""

    id: int
    source_id: int
    kind: str
    title: str
    heading_path: list[str]
    text: str
    start_line: int
    end_line: int
    identifiers: list[str]
    columns: list[dict[str, str]]
    source_name: str
    source_path: str


@dataclass(frozen=True, slots=True)
class LinkRow:
    """A link from a resource chunk to a code node."""

    resource_id: int
    node_id: int
    score: float
    method: str
    evidence: str


@dataclass(frozen=True, slots=True)
class CodeCandidate:
    """A node considered for an identifier link: what it is called and the text it contains."""

    id: int
    file_id: int
    kind: str
    name: str
    qualified_name: str
    signature: str
    body: str


@dataclass(frozen=True, slots=True)
class IndexSummary:
    """What status reports of an index, read in one store call (store/status.py)."""

    files: int
    symbols: int
    edges: int  # bound
    unresolved_refs: int
    edge_kinds: dict[str, int]  # bound edges by kind
    languages: dict[str, int]  # files by language
    recorded: dict[str, FileStat]  # every indexed file's size and mtime (status checks them against the tree)
    nodes: int  # module nodes and parts included: dense coverage's denominator
    vectors: int  # node vectors (0 where vectors cannot be used)
    embedder_id: str | None
    embedder_dimension: int | None
    last_build: float | None
    schema_version: int  # as the meta table records it
    resources: int
    resource_sources: int
    skipped: dict[str, int]  # skipped files by reason
    db_bytes: int
