"""Lookups by name or path: one symbol with its source and edges, one file's outline, a symbol's callers/callees."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from igraph_mcp.errors import InvalidInput
from igraph_mcp.models import EdgeRef, FileDetail, NodeDetail, RelatedResult, SkippedFile
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.paths import resolve_inside, strip_dot_slash
from igraph_mcp.retrieve.expand import expand
from igraph_mcp.retrieve.shapes import neighbours, node_summary
from igraph_mcp.store import declarations as decl_store
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import imports as import_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import skipped as skipped_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.reader import IndexReader
from igraph_mcp.store.records import NodeRow
from igraph_mcp.vocab.edges import CERTAIN
from igraph_mcp.vocab.languages import LANGUAGES, language_for_path
from igraph_mcp.vocab.skips import describe_skip
from igraph_mcp.vocab.source import source_lines

if TYPE_CHECKING:
    from igraph_mcp.retrieve.stages import StaleCheck  # the same check explore is given

MAX_SOURCE_LINES = 300
MAX_NAME_CHARS = 500
MAX_EDGE_REFS = 50  # callers / callees / bases listed per symbol
MAX_OUTLINE_SYMBOLS = 500
MAX_OUTLINE_IMPORTS = 200
DEFAULT_RELATED = 100  # symbols listed by related unless asked for more
MAX_RELATED = 1000
MAX_REACHED = 100_000  # a bound on ranking, far above any real neighbourhood


def _candidate_ids(text: str) -> list[int]:
    """Node ids stored in edges.candidates (a JSON list, "" for none)."""
    try:
        ids = json.loads(text) if text else []
    except ValueError:
        return []
    return [int(i) for i in ids if isinstance(i, int)]


def _top_level_form(name: str, rows: list[NodeRow]) -> str:
    """How to name the one candidate whose qualified name is ``name`` itself (a top-level function beside methods
    of that name): with its module before it, "viper.Get" for viper.go's `Get`; '' when there is no such one."""
    top = [r for r in rows if r.qualified_name == name]
    if len(top) != 1:
        return ""
    module = top[0].path.rsplit(".", 1)[0].replace("/", ".")
    return f" (`{module}.{name}` for the top-level one in {top[0].path})"


_FILE_LINE = re.compile(r"^(.+):(\d+)$")


def split_file_line(file: str) -> tuple[str, int | None]:
    """``path:LINE`` -> (path, LINE); a plain path -> (path, None)."""
    m = _FILE_LINE.match(file.strip())
    return (m.group(1), int(m.group(2))) if m else (file, None)


def _at_line(rows: list[NodeRow], line: int) -> list[NodeRow]:
    """The candidates starting on ``line``, else the innermost one spanning it (overloads share a name and a file,
    never a line)."""
    starting = [r for r in rows if r.start_line == line]
    if starting:
        return starting
    spanning = sorted((r for r in rows if r.start_line <= line <= r.end_line), key=lambda r: r.end_line - r.start_line)
    return spanning[:1]


def ambiguous(name: str, rows: list[NodeRow]) -> str:
    """What to call again with when ``name`` names several symbols: a qualified name tells them apart only when
    theirs differ, a file only when they lie in different files, both where each pair differs; overloads in one file
    need a line as well."""
    first = f"`{rows[0].path}:{rows[0].start_line}`"
    if len({r.qualified_name for r in rows}) == len(rows):
        how = f"a qualified name{_top_level_form(name, rows)} or {ask(NextStep.NARROW_FILE)}"
    elif len({r.path for r in rows}) == len(rows):
        how = f"{ask(NextStep.NARROW_FILE)}: the path of the one you mean"
    elif len({(r.qualified_name, r.path) for r in rows}) == len(rows):
        how = f"a qualified name and {ask(NextStep.NARROW_FILE)}: the path of the one you mean"
    else:
        how = f"{ask(NextStep.NARROW_FILE)}: its path and line as listed, e.g. {first}"
    return f"'{name}' is ambiguous ({len(rows)} symbols); call again with {how}"


def _family(path: str) -> str | None:
    """The language family whose declarations and bodies name each other (a C header's and a C++ file's)."""
    language = language_for_path(path)
    spec = LANGUAGES.get(language) if language is not None else None
    return spec.link_family if spec is not None else language


def _implemented(db: Database, rows: list[NodeRow]) -> tuple[list[NodeRow], dict[int, list[NodeRow]]]:
    """``rows`` without the declarations (a header's prototype, a `.d.ts` signature, an overload signature) whose
    implementation is among them, by a ``declares`` link or else by the same qualified name in the same language
    family (a prototype whose .c file includes its header only through another header), and those declarations by
    each implementation they stand aside for: asked for `ZSTD_compressStream`, an agent wants the body in the .c
    file, not the prototype in zstd.h as a second candidate."""
    declared = [r for r in rows if r.declaration]
    bodies = [r for r in rows if not r.declaration]
    if not declared or not bodies:
        return rows, {}
    ids = {r.id for r in bodies}
    linked = decl_store.implementations(db, [d.id for d in declared])
    aside: dict[int, list[NodeRow]] = {}
    for d in declared:
        mine = [i for i in linked.get(d.id, []) if i in ids] or [
            r.id for r in bodies if r.qualified_name == d.qualified_name and _family(r.path) == _family(d.path)
        ]
        for impl in mine:
            aside.setdefault(impl, []).append(d)
    folded = {d.id for ds in aside.values() for d in ds}
    return [r for r in rows if r.id not in folded], aside


def _gone(node_id: int) -> str:
    return f"no symbol with id {node_id}; the index may have been rebuilt: search again and pick it from the hits"


class Lookup:
    """Answers node, file and related questions against one repository's index."""

    def __init__(self, root: Path, reader: IndexReader, stale_check: StaleCheck) -> None:
        self.root = root
        self.reader = reader
        self.stale_check = stale_check

    # -- symbols ---------------------------------------------------------------------------------------------
    def find(self, name: str, file: str | None) -> list[NodeRow]:
        """Symbols matching a name, qualified name or dotted suffix; a dotted name's unique exact match wins; a
        declaration whose implementation matches too stands aside for it."""
        return self._find(name, file)[0]

    def _find(self, name: str, file: str | None) -> tuple[list[NodeRow], dict[int, list[NodeRow]]]:
        """``find``'s rows, and the declarations set aside for each of them (implementation id -> declarations)."""
        if not isinstance(name, str) or not name.strip():
            raise InvalidInput("name is empty; pass a symbol name such as `Session.request` or `parse_file`")
        if len(name) > MAX_NAME_CHARS:
            raise InvalidInput(f"name is longer than {MAX_NAME_CHARS} characters")
        name = name.strip().replace("::", ".").replace("#", ".")
        db = self.reader.require_index()
        rows = node_store.nodes_named(db, name)
        if not rows and "." in name:  # "module.Class.method" or "pkg.mod.func": try the qualified suffixes
            parts = name.split(".")
            for i in range(1, len(parts)):
                module, suffix = ".".join(parts[:i]), ".".join(parts[i:])
                named = node_store.nodes_named(db, suffix)
                rows = [r for r in named if r.path.replace("/", ".").find(module) >= 0]
                # "<module>.<qualified name>" names one symbol: `viper.Get` is the function, not the method
                # `Viper.Get` of the same file, whose own form is `viper.Viper.Get`.
                own = [r for r in rows if r.qualified_name == suffix]
                rows = own if len(own) == 1 else rows or (named if i == len(parts) - 1 else [])
                if rows:
                    break
        if file:
            path, line = split_file_line(file)
            norm = strip_dot_slash(path.strip().replace("\\", "/"))
            rows = [r for r in rows if r.path == norm or r.path.endswith("/" + norm)]
            if line is not None:
                rows = _at_line(rows, line)
        rows, declared = _implemented(db, rows)
        exact = [r for r in rows if r.qualified_name == name]
        if len(exact) == 1 and ("." in name or len(rows) == 1):
            return exact, declared
        # A bare name shared by several symbols (a function `get` and methods `A.get`, `B.get`) is ambiguous even
        # when one of them is top-level: picking that one silently would hide the others. All are candidates.
        return rows, declared

    def node(self, name: str, file: str | None = None) -> NodeDetail:
        """Detail of one symbol: source, signature, callers, callees; candidates when ambiguous; the declarations
        that stood aside for it named in the message."""
        rows, declared = self._find(name, file)
        if not rows:
            return NodeDetail(
                found=False,
                message=f"no symbol named '{name}'"
                + (f" in '{file}'" if file else "")
                + f"; try {ask(NextStep.EXPLORE)} with a description",
            )
        if len(rows) > 1:
            return NodeDetail(found=False, message=ambiguous(name, rows), candidates=[node_summary(r) for r in rows])
        aside = declared.get(rows[0].id, [])
        detail = self.detail(self.reader.db, rows[0], aside)
        if aside:
            places = ", ".join(f"{d.path}:{d.start_line}" for d in aside)
            detail.message = f"declared at {places} ({ask(NextStep.NARROW_FILE)} with that path shows the declaration)"
        return detail

    def node_by_id(self, node_id: int) -> NodeDetail:
        """``node`` for a symbol reached by id (a click in the view: a name may stand for several symbols)."""
        row = self._row(node_id)
        if row is None:
            return NodeDetail(found=False, message=_gone(node_id))
        return self.detail(self.reader.db, row)

    def _row(self, node_id: int) -> NodeRow | None:
        return node_store.nodes_by_ids(self.reader.require_index(), [node_id]).get(node_id)

    def detail(self, db: Database, row: NodeRow, declared: Sequence[NodeRow] = ()) -> NodeDetail:
        """What ``igraph_node`` says of one stored row (also reached by id, as the view does); the calls bound to
        its ``declared`` declarations (a header's prototype the callers include) are its callers too."""
        source, truncated = self.source(db, row)
        return NodeDetail(
            found=True,
            node=node_summary(row),
            docstring=row.docstring,
            source=source,
            sourceTruncated=truncated,
            callers=self.edge_refs(db, row.id, outgoing=False, kinds=("calls",), also=[d.id for d in declared]),
            callees=self.edge_refs(db, row.id, outgoing=True, kinds=("calls",)),
            bases=self.edge_refs(db, row.id, outgoing=True, kinds=("inherits", "implements")),
            stale=bool(self.stale_check([row.path])),
        )

    def source(self, db: Database, row: NodeRow) -> tuple[str, bool]:
        """The symbol's lines from the working tree (its indexed body when the file is gone), and a cut flag."""
        try:
            raw = (self.root / row.path).read_bytes()
        except OSError:
            body = node_store.node_bodies(db, [row.id]).get(row.id, "")
            return body, True
        lines = source_lines(raw)  # as the parser counted them, so start_line and end_line still fit
        chunk = lines[row.start_line - 1 : row.end_line]
        truncated = len(chunk) > MAX_SOURCE_LINES
        return "\n".join(chunk[:MAX_SOURCE_LINES]), truncated

    def edge_refs(
        self,
        db: Database,
        node_id: int,
        *,
        outgoing: bool,
        kinds: tuple[str, ...],
        limit: int = MAX_EDGE_REFS,
        also: Sequence[int] = (),
    ) -> list[EdgeRef]:
        """The other ends of a node's edges, certain ones first; unresolved callees by the name written at the call
        (``also``: more nodes whose edges count as this one's, its declarations that calls bind to).

        The other end is located at its definition; the call site is the caller's file and line.
        """
        ids = [node_id, *also]
        edges = edge_store.edges_of(db, ids, outgoing=outgoing, kinds=kinds, resolved_only=not outgoing)
        edges.sort(key=lambda e: (e.target_id is None, -e.confidence, e.line))
        other_ids = [e.target_id if outgoing else e.source_id for e in edges]
        candidate_ids = {c for e in edges if e.target_id is None for c in _candidate_ids(e.candidates)}
        rows = node_store.nodes_by_ids(db, [*(i for i in other_ids if i is not None), node_id, *candidate_ids])
        me = rows.get(node_id)
        out: list[EdgeRef] = []
        seen: set[tuple[int | None, str]] = set()
        for e, oid in zip(edges, other_ids, strict=True):
            r = rows.get(oid) if oid is not None else None
            key = (oid, e.target_name if r is None else "")
            if key in seen:
                continue
            seen.add(key)
            caller = me if outgoing else r
            out.append(
                EdgeRef(
                    nodeId=oid,
                    name=r.name if r else e.target_name,
                    qualifiedName=r.qualified_name
                    if r
                    else (f"{e.qualifier}.{e.target_name}" if e.qualifier else e.target_name),
                    kind=r.kind if r else "",
                    filePath=r.path if r else "",
                    line=r.start_line if r else 0,
                    callSite=f"{caller.path}:{e.line}" if caller is not None and e.line else "",
                    edgeKind=e.kind,
                    resolution=e.resolution,
                    confidence=e.confidence,
                    certain=e.target_id is not None and e.confidence >= CERTAIN,
                    candidates=[
                        f"{c.qualified_name} {c.path}:{c.start_line}"
                        for cid in _candidate_ids(e.candidates)
                        if (c := rows.get(cid)) is not None
                    ],
                )
            )
            if len(out) >= limit:
                break
        return out

    # -- files -----------------------------------------------------------------------------------------------
    def file(self, path: str) -> FileDetail:
        """Outline of one file: exact path or an unambiguous suffix."""
        db = self.reader.require_index()
        if not isinstance(path, str) or not path.strip():
            raise InvalidInput("path is empty; pass a path relative to the repository root")
        norm = path.strip().replace("\\", "/")
        if os.path.isabs(norm) or ".." in norm.split("/"):
            real = resolve_inside(self.root, norm)  # raises for paths outside the root
            norm = real.relative_to(self.root).as_posix()
        norm = strip_dot_slash(norm)
        matches = file_store.file_paths_with_suffix(db, norm)
        if not matches:
            return self._not_indexed(db, path, norm)
        exact = [m for m in matches if m == norm]
        if len(matches) > 1 and not exact:
            return FileDetail(
                found=False,
                message=f"'{path}' matches {len(matches)} files; give more of the path",
                candidates=matches,
            )
        chosen = exact[0] if exact else matches[0]
        row = file_store.file_row(db, chosen)
        assert row is not None
        nodes = [n for n in node_store.nodes_in_file(db, row.id) if n.kind != "module"]
        imports = [
            f"{m}{'.' + n if n else ''}{' as ' + a if a else ''}"
            for m, n, a in import_store.imports_by_file_id(db, row.id)
        ]
        return FileDetail(
            found=True,
            filePath=chosen,
            language=row.language,
            lines=row.line_count,
            parseStatus=row.parse_status,
            symbols=[node_summary(n) for n in nodes[:MAX_OUTLINE_SYMBOLS]],
            imports=imports[:MAX_OUTLINE_IMPORTS],
            stale=bool(self.stale_check([chosen])),
        )

    @staticmethod
    def _not_indexed(db: Database, path: str, norm: str) -> FileDetail:
        """The answer for a path no indexed file matches: why the last run skipped it, if it did."""
        skips = skipped_store.skipped_matching(db, norm)
        exact = [s for s in skips if s.path == norm]
        if exact or len(skips) == 1:
            skip = (exact or skips)[0]
            return FileDetail(
                found=False,
                filePath=skip.path,
                message=f"'{skip.path}' is not indexed: the last index run skipped it as {describe_skip(skip)}",
                skipped=SkippedFile.of(skip),
            )
        return FileDetail(
            found=False,
            message=f"no indexed file matches '{path}'; check the path or run {ask(NextStep.INDEX)} if it is new",
        )

    # -- graph -----------------------------------------------------------------------------------------------
    def related(
        self,
        name: str,
        direction: str = "both",
        hops: int | None = None,
        limit: int | None = None,
        file: str | None = None,
    ) -> RelatedResult:
        """Callers and/or callees of a symbol up to ``hops`` away; what did not fit is counted, never hidden
        (``file``: the path, or ``path:LINE``, that picks one symbol of an ambiguous name)."""
        rows, declared = self._find(name, file)
        if not rows:
            where = f" in '{file}'" if file else ""
            return RelatedResult(found=False, message=f"no symbol named '{name}'{where}; try {ask(NextStep.EXPLORE)}")
        if len(rows) > 1:
            return RelatedResult(found=False, message=ambiguous(name, rows), candidates=[node_summary(r) for r in rows])
        return self.related_to(rows[0], direction, hops, limit, declared.get(rows[0].id, ()))

    def related_by_id(
        self, node_id: int, direction: str = "both", hops: int | None = None, limit: int | None = None
    ) -> RelatedResult:
        """``related`` for a symbol reached by id."""
        row = self._row(node_id)
        if row is None:
            return RelatedResult(found=False, message=_gone(node_id))
        return self.related_to(row, direction, hops, limit)

    def related_to(
        self,
        row: NodeRow,
        direction: str = "both",
        hops: int | None = None,
        limit: int | None = None,
        declared: Sequence[NodeRow] = (),
    ) -> RelatedResult:
        """``related`` of one stored row, reached also through its ``declared`` declarations (the calls a header's
        prototype takes are calls of its body)."""
        if direction not in ("both", "callers", "callees"):
            raise InvalidInput("direction must be 'both', 'callers' or 'callees'")
        hops = 1 if hops is None else hops
        if not 1 <= hops <= 5:
            raise InvalidInput("hops must be between 1 and 5")
        limit = DEFAULT_RELATED if limit is None else limit
        if not 1 <= limit <= MAX_RELATED:
            raise InvalidInput(f"limit must be between 1 and {MAX_RELATED}")
        db = self.reader.db
        dirs = {"both": ("callee", "caller"), "callers": ("caller",), "callees": ("callee",)}[direction]
        cut: set[int] = set()
        # Everything reachable is ranked (the graph bounds it); each node may contribute up to `limit` neighbours,
        # so a hub's callers are cut only where the answer itself is, and every cut is counted.
        reached = expand(
            db,
            {row.id: 1.0, **{d.id: 1.0 for d in declared}},
            hops,
            limit=MAX_REACHED,
            directions=dirs,
            kinds=("calls", "inherits", "implements"),
            per_node_cap=limit,
            cut=cut,
        )
        shown = reached[:limit]
        omitted = len(reached) - len(shown) + len(cut - {r.node_id for r in reached})
        related = neighbours(db, shown, {row.id: row.qualified_name, **{d.id: d.qualified_name for d in declared}})
        message = None
        if omitted:
            message = (
                f"{omitted} more related symbols not listed (limit {limit}, best first); call again with a larger "
                f"limit (up to {MAX_RELATED}), one direction, or fewer hops"
                + ("; symbols two or more hops out may hide further ones" if hops > 1 else "")
            )
        return RelatedResult(
            found=True, node=node_summary(row), related=related, truncated=omitted > 0, omitted=omitted, message=message
        )
