"""Row building: pure functions from one parsed file to the rows the store keeps for it.

Nothing here reads or writes the store. The writer reserves node ids for a file's layout (its definitions, module
first, then the parts of its long ones) and hands them back to ``file_rows``. Training's miners cut bodies with the
same ``stored_body`` and ``first_child_starts``, so what they learn from is what the index embeds.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from igraph_mcp.index.model import ParsedFile, Symbol
from igraph_mcp.index.parts import Part, split_parts
from igraph_mcp.store.records import NewEdge, NewFile, NewImport, NewNode, NodeText
from igraph_mcp.text.identifiers import identifier_words, split_identifier
from igraph_mcp.vocab.languages import CONTAINER_KINDS, PART_KIND
from igraph_mcp.vocab.source import normalize_source

MAX_BODY_CHARS = 4000  # stored per node: enough for snippets, FTS and the embedded head of a body
MODULE_HEAD_CHARS = 1500
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")

FactRow = tuple[int, str, str, str]  # scope node id, name, kind, text


def first_child_starts(symbols: list[Symbol], source: bytes) -> dict[int, int]:
    """Where each symbol's first child starts (by index in ``symbols``): a class-like body is cut there, above the
    doc comment the child has (its docstring, not the class's words)."""
    starts: dict[int, int] = {}
    for s in symbols[1:]:
        if s.parent is not None and s.parent not in starts:
            starts[s.parent] = doc_start(source, s)
    return starts


def doc_start(source: bytes, s: Symbol) -> int:
    """The byte where ``s`` starts, or the line its doc comment starts on (Symbol.doc_line) when it has one."""
    at = s.start_byte
    if not 0 < s.doc_line < s.start_line:
        return at
    at = source.rfind(b"\n", 0, at) + 1  # the start of the definition's first line
    for _ in range(s.start_line - s.doc_line):
        at = source.rfind(b"\n", 0, max(at - 1, 0)) + 1
    return at


def stored_body(source: bytes, sym: Symbol, first_child_start: int | None) -> str:
    """The body stored (and embedded) for a non-module symbol; training's miners cut it the same way."""
    end = sym.end_byte
    if sym.kind in CONTAINER_KINDS and first_child_start is not None:
        # A class body would repeat every method; keep its header, docstring and attributes.
        end = max(first_child_start, sym.start_byte)
    end = min(end, sym.start_byte + MAX_BODY_CHARS * 2)
    return source[sym.start_byte : end].decode("utf-8", "replace")[:MAX_BODY_CHARS]


def _one_word(name: str) -> bool:
    """Whether an ASCII identifier is one word without splitting it: letters only, all of one case or capitalised
    (most of a body's identifiers; splitting each was a fifth of building a large tree's rows)."""
    return name.isalpha() and (name.islower() or name.isupper() or name[1:].islower())


def fts_body(body: str) -> str:
    """Body text for FTS plus the words of its compound identifiers (``resolve_parameter`` also as ``resolve
    parameter``, ``getAttribute`` as ``get attribute``), so prose queries reach code that only names things."""
    compound = {m for m in set(_IDENTIFIER.findall(body)) if not _one_word(m) and len(split_identifier(m)) > 1}
    return body + "\n" + identifier_words(*sorted(compound)) if compound else body


def module_names(path: str) -> tuple[str, str]:
    """(name, qualified name) of a file's module node: ``pkg/mod.py`` -> ("mod", "pkg.mod")."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return stem.rsplit("/", 1)[-1], stem.replace("/", ".")


@dataclass(frozen=True, slots=True)
class FileLayout:
    """A parsed file's nodes in id order: its definitions (module first), then the parts of its long ones."""

    source: bytes  # the file's text as the parser read it (normalize_source)
    symbols: list[Symbol]
    parts: list[Part]

    @property
    def line_count(self) -> int:
        """Lines of the file's text."""
        return self.source.count(b"\n") + 1

    @property
    def node_count(self) -> int:
        """How many node ids the file needs."""
        return len(self.symbols) + len(self.parts)


def file_layout(data: bytes, pf: ParsedFile) -> FileLayout:
    """The nodes one parsed file becomes; a file without symbols still gets its module node."""
    source = normalize_source(data)
    symbols = pf.symbols or [Symbol("module", "", "", 1, source.count(b"\n") + 1, 0, len(source))]
    parts = split_parts(source, symbols, skip_lines={imp.line for imp in pf.imports})
    return FileLayout(source, symbols, parts)


def file_record(path: str, size: int, mtime_ns: int, sha256: str, pf: ParsedFile, draft: FileDraft) -> NewFile:
    """The file row of one parsed file, stamped with the time it is stored."""
    return NewFile(
        path=path,
        language=pf.language,  # a `.h` header read as C++ is stored as C++ (parse.py, shared headers)
        sha256=sha256,
        size=size,
        mtime_ns=mtime_ns,
        line_count=draft.line_count,
        parse_status="partial" if pf.has_error else "ok",
        indexed_at=time.time(),
    )


@dataclass(frozen=True, slots=True)
class FileRows:
    """Every row of one file but the file row itself, in the order they are inserted."""

    nodes: list[NewNode]
    texts: list[NodeText]
    edges: list[NewEdge]
    facts: list[FactRow]
    imports: list[NewImport]


@dataclass(frozen=True, slots=True)
class FileDraft:
    """A parsed file's node and FTS rows before the store gives it ids: cut, decoded and split in the parse worker,
    where a core is free, so the writer only puts ids in (``file_rows``). A node's ``parent_id`` and a text's
    ``node_id`` are places in the layout (module first, then definitions, then parts); ``file_id`` is 0."""

    line_count: int
    symbol_count: int  # definitions, module included; the parts follow them
    nodes: list[NewNode]
    texts: list[NodeText]

    @property
    def node_count(self) -> int:
        """How many node ids the file needs."""
        return len(self.nodes)


def draft_file(data: bytes, pf: ParsedFile, path: str) -> FileDraft:
    """The node and FTS rows of one parsed file, without ids (``FileDraft``)."""
    layout = file_layout(data, pf)
    nodes, texts = _symbol_rows(layout, path)
    part_nodes, part_texts = _part_rows(layout)
    return FileDraft(layout.line_count, len(layout.symbols), nodes + part_nodes, texts + part_texts)


def _symbol_rows(layout: FileLayout, path: str) -> tuple[list[NewNode], list[NodeText]]:
    """The drafted node and FTS rows of a file's definitions (places, not ids; ``FileDraft``)."""
    source, symbols = layout.source, layout.symbols
    mod_name, mod_qname = module_names(path)
    first_child = first_child_starts(symbols, source)
    nodes: list[NewNode] = []
    texts: list[NodeText] = []
    for i, s in enumerate(symbols):
        if i == 0:
            name, qname = mod_name, mod_qname
            body = source[: MODULE_HEAD_CHARS * 2].decode("utf-8", "replace")[:MODULE_HEAD_CHARS]
        else:
            name, qname = s.name, s.qualified_name
            body = stored_body(source, s, first_child.get(i))
        parent = s.parent if i > 0 and s.parent is not None and s.parent < i else None
        nodes.append(
            NewNode(
                file_id=0,
                parent_id=parent,
                kind=s.kind,
                name=name,
                qualified_name=qname,
                signature=s.signature,
                docstring=s.docstring,
                body=body,
                start_line=s.start_line,
                end_line=s.end_line,
                start_byte=s.start_byte,
                end_byte=s.end_byte,
                exported=s.exported,
                declaration=s.declaration,
                min_args=s.min_args,
                max_args=s.max_args,
            ),
        )
        texts.append(
            NodeText(
                node_id=i,
                name=name,
                words=identifier_words(name, qname),
                qualified_name=qname,
                path=path,
                signature=s.signature,
                docstring=s.docstring,
                body=fts_body(body) if i > 0 else "",
            )
        )
    return nodes, texts


def _part_rows(layout: FileLayout) -> tuple[list[NewNode], list[NodeText]]:
    """The drafted node and FTS rows of a file's parts, placed after its definitions (``FileDraft``)."""
    nodes: list[NewNode] = []
    texts: list[NodeText] = []
    for place, p in enumerate(layout.parts, len(layout.symbols)):
        body = p.text[:MAX_BODY_CHARS]
        nodes.append(
            NewNode(
                file_id=0,
                parent_id=p.owner,
                kind=PART_KIND,
                name="",
                qualified_name="",
                signature="",
                docstring="",
                body=body,
                start_line=p.start_line,
                end_line=p.end_line,
                start_byte=p.start_byte,
                end_byte=p.end_byte,
                exported=False,
            )
        )
        # Only the part's text: its definition's row has the names, so a name never ranks a part.
        texts.append(NodeText(place, "", "", "", "", "", "", fts_body(body)))
    return nodes, texts


def file_rows(draft: FileDraft, pf: ParsedFile, file_id: int, ids: list[int]) -> FileRows:
    """The rows of one parsed file, given its file id and one node id per node of its draft (module first)."""
    nodes = [NewNode(file_id, None if n.parent_id is None else ids[n.parent_id], *n[2:]) for n in draft.nodes]
    texts = [NodeText(ids[t.node_id], *t[1:]) for t in draft.texts]
    edges = [
        NewEdge(
            n.parent_id if n.parent_id is not None else ids[0],
            ids[i],
            "contains",
            n.name,
            "",
            "same_file",
            n.start_line,
        )
        for i, n in enumerate(nodes[1 : draft.symbol_count], 1)
    ]
    for ref in pf.references:
        src_id = ids[ref.source] if 0 <= ref.source < len(ids) else ids[0]
        edges.append(
            NewEdge(src_id, None, ref.kind, ref.name, ref.qualifier, "unresolved", ref.line, ref.arity, ref.arguments)
        )
    for imp in pf.imports:
        edges.append(NewEdge(ids[0], None, "imports", imp.name, imp.module, "unresolved", imp.line))
    return FileRows(
        nodes=nodes,
        texts=texts,
        edges=edges,
        facts=[(ids[f.source], f.name, f.kind, f.text) for f in pf.facts if f.source < len(ids)],
        imports=[NewImport(file_id, imp.module, imp.name, imp.alias, imp.line) for imp in pf.imports],
    )
