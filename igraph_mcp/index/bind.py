"""Binding: the resolution pass after files are stored, over every reference edge or only those a change can reach.

Why the scoped pass is all a full rebuild would change: a reference reaches definitions only through its own file,
the files its file imports (transitively: re-exports, type facts, bases), or by its own name anywhere (a candidate of
a name-only guess); renames and package markers re-bind everything.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from igraph_mcp import crashpoints
from igraph_mcp.index import go_modules, rust_crates
from igraph_mcp.index.collector import collector_paused
from igraph_mcp.index.declarations import link_declarations
from igraph_mcp.index.resolve import Binding, Resolver
from igraph_mcp.index.symbols import OnDemand, Sym, SymbolTable, facts_by_name
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import facts as fact_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import imports as import_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.declarations import HERITAGE
from igraph_mcp.store.records import EdgeBinding, ImportRef, RefToResolve

log = logging.getLogger(__name__)

# Up to this many changed files (or 5% of the index) bind only what they can affect; more re-bind every edge.
SCOPED_MAX_FILES = 50
# Reference edges read, bound and written at a time when every edge is bound again.
REFERENCES_PER_PAGE = 50_000


@dataclass(frozen=True, slots=True)
class BindScope:
    """What a step of storing leaves for binding (``join`` adds up the steps' scopes)."""

    changed_ids: tuple[int, ...] = ()  # new file ids: every reference from them is bound
    reach: tuple[int, ...] = ()  # files whose interface changed: their importers are bound too
    names: frozenset[str] = frozenset()  # names whose definitions changed: every edge naming one
    edge_ids: tuple[int, ...] = ()  # edges that lost their target or a candidate
    scope: frozenset[int] = frozenset()  # files that imported a deleted file: every reference from them

    @classmethod
    def join(cls, steps: Iterable[BindScope]) -> BindScope:
        """The scopes of several steps as one, in the order they ran."""
        changed_ids: list[int] = []
        reach: list[int] = []
        names: set[str] = set()
        edge_ids: list[int] = []
        scope: set[int] = set()
        for step in steps:
            changed_ids += step.changed_ids
            reach += step.reach
            names |= step.names
            edge_ids += step.edge_ids
            scope |= step.scope
        return cls(tuple(changed_ids), tuple(reach), frozenset(names), tuple(edge_ids), frozenset(scope))

    @property
    def empty(self) -> bool:
        """Whether nothing was stored that a binding could depend on."""
        return not (self.changed_ids or self.names or self.edge_ids or self.scope)


def _is_package_marker(path: str) -> bool:
    """Whether a file makes its folder a Python package (``__init__.py``, ``__init__.pyi``)."""
    return path.rsplit("/", 1)[-1] in ("__init__.py", "__init__.pyi")


def binds_everything(changed: int, added: Iterable[str], gone: Collection[str], indexed: int) -> bool:
    """Whether a run of ``changed`` re-parsed and ``gone`` deleted files out of ``indexed`` re-binds every edge.

    Many changed files (a first build, a branch switch) reach most of the repository through their importers: one
    pass over every edge with the whole table read at once is then cheaper than scoping. A package marker that comes
    or goes changes which files absolute imports anywhere may name (infer.py).
    """
    if changed + len(gone) > max(indexed // 20, SCOPED_MAX_FILES):
        return True
    return any(_is_package_marker(p) for p in gone) or any(_is_package_marker(p) for p in added)


class _StoreSymbols:
    """The index's definitions read through the store's indexed lookups (a SymbolReader)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def file_symbols(self, file_id: int) -> list[Sym]:
        """Every definition of one file, in id order."""
        return node_store.file_symbols(self._db, file_id)

    def symbols_named(self, name: str) -> list[Sym]:
        """Every non-module definition called ``name``, by path, then id."""
        return node_store.symbols_named(self._db, name)

    def file_of_node(self, node_id: int) -> int | None:
        """The file of one node, if there is one."""
        return node_store.node_file(self._db, node_id)


class _StoreImports:
    """The index's imports read by word or all at once (an ImportRows, for importers_closure)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def mentioning(self, words: list[str]) -> dict[int, list[ImportRef]]:
        """Imports that may contain one of ``words``."""
        return import_store.imports_mentioning(self._db, words)

    def every(self) -> dict[int, list[ImportRef]]:
        """Every import."""
        return import_store.imports_by_file(self._db)


def scoped_table(db: Database, paths: dict[int, str], languages: dict[int, str]) -> SymbolTable:
    """A symbol table that reads definitions and imports when a question needs them (a scoped run)."""
    return SymbolTable(
        _StoreSymbols(db),
        paths,
        OnDemand(lambda fid: import_store.imports_in_file(db, fid)),
        languages=languages,
        import_rows=_StoreImports(db),
        go_modules=go_modules.stored(db),
        rust_crates=rust_crates.stored(db),
    )


def deletion_scope(db: Database, gone_ids: list[int]) -> BindScope:
    """What deleting ``gone_ids`` leaves to bind, read while the files are still in the index: their names, the
    files importing them (directly or through others), and the edges into their definitions."""
    names = frozenset(node_store.names_in_files(db, gone_ids))
    # A deleted file's importers may now resolve to another file or none, which no row left behind names.
    before = scoped_table(db, file_store.file_paths(db), {})
    importers = frozenset(before.importers_closure(gone_ids) - set(gone_ids))
    edge_ids: list[int] = []
    for fid in gone_ids:
        nodes = [s.id for s in node_store.file_symbols(db, fid)]
        edge_ids += [b.edge_id for b in edge_store.incoming_bindings(db, nodes)]
    return BindScope(names=names, edge_ids=tuple(edge_ids), scope=importers)


def bind(db: Database, scope: BindScope, *, everything: bool) -> int:
    """Bind reference edges and return how many: those from changed files, from files that import a file whose
    interface changed or a deleted file (directly or through others), edges elsewhere naming a name whose
    definitions changed, and edges that lost their target; every reference edge when ``everything``."""
    with collector_paused():
        return _bind(db, scope, everything=everything)


def _mark_bound(db: Database) -> None:
    """Clear the flag that says stored files still wait for their edges to be bound."""
    with db.atomic() as con:
        db.set_meta(con, "resolve_pending", "0")
        crashpoints.reached("index.resolve")


def _bind(db: Database, scope: BindScope, *, everything: bool) -> int:
    if not everything and scope.empty:
        _mark_bound(db)
        return 0
    heritage: set[int] = set()  # nodes on either end of an inheritance edge whose binding changed
    bound = _bind_references(db, scope, everything=everything, heritage=heritage)
    # Declarations are linked to their implementations once every edge is bound (the links follow inheritance);
    # resolve_pending stays set until they are, so a run that dies in between links everything next time.
    if everything:
        link_declarations(db)
    else:
        files = {f for n in heritage if (f := node_store.node_file(db, n)) is not None}
        names = set(scope.names) | node_store.names_in_files(db, [*scope.changed_ids, *files])
        link_declarations(db, names)
    _mark_bound(db)
    return bound


def _table(db: Database, paths: dict[int, str], *, everything: bool) -> SymbolTable:
    """The symbol table of a pass: read whole for every edge, read as questions need it for a scoped pass."""
    languages = file_store.file_language_ids(db)
    if everything:
        return SymbolTable(
            node_store.symbol_table(db),
            paths,
            import_store.imports_by_file(db),
            languages=languages,
            go_modules=go_modules.stored(db),
            rust_crates=rust_crates.stored(db),
        )
    return scoped_table(db, paths, languages)


def _bind_references(db: Database, scope: BindScope, *, everything: bool, heritage: set[int]) -> int:
    """Bind the reference edges in scope; the ends of inheritance edges whose binding changed go to ``heritage``."""
    paths = file_store.file_paths(db)
    table = _table(db, paths, everything=everything)
    if everything:
        table.set_facts(fact_store.facts_by_node(db), edge_store.base_refs(db))
        resolver = Resolver(table)
        bound = 0
        # Page by page in one transaction: the bindings of a page are written before the next is read, so the
        # edges and their bindings are never all in memory at once.
        with db.atomic() as con, edge_store.rebinding_every_edge(con):
            for rows in edge_store.reference_edge_pages(db, REFERENCES_PER_PAGE):
                edge_store.set_edge_targets(con, _bindings(resolver, rows, heritage))
                bound += len(rows)
                del rows  # the next page is read without this one held
        return bound
    # A binding may go through any file the source imports, transitively (re-exports, type facts, bases).
    files = set(scope.changed_ids) | scope.scope
    if scope.reach:
        files |= table.importers_closure(list(scope.reach))
    rows = edge_store.edges_to_resolve(db, sorted(files), set(scope.names), list(scope.edge_ids))
    if len(files) > len(paths) // 20:
        table.set_facts(fact_store.facts_by_node(db), edge_store.base_refs(db))
    else:
        # A few hundred edges consult a few hundred scopes: read those, not every fact (0.3-0.5 s at 113k);
        # past 5% of the files one read of every fact costs less than a query per scope.
        table.set_facts(
            OnDemand(lambda nid: facts_by_name(fact_store.facts_of_node(db, nid))),
            OnDemand(lambda cid: edge_store.base_refs_of(db, cid)),
        )
    updates = _bindings(Resolver(table), rows, heritage)
    with db.atomic() as con:
        edge_store.set_edge_targets(con, updates)
    return len(rows)


def _bindings(resolver: Resolver, rows: list[RefToResolve], heritage: set[int]) -> list[EdgeBinding]:
    """The bindings of ``rows`` that differ from what is stored; inheritance edges among them add to ``heritage``."""
    updates: list[EdgeBinding] = []
    # A definition often makes the same reference more than once (one name called on several lines): each is
    # resolved once. Edges come in id order, so one file's lie together and the memo holds one file's at a time.
    seen: dict[tuple[int, str, str, str, int, str], tuple[Binding, str]] = {}
    seen_file = -1
    for r in rows:
        if r.file_id != seen_file:
            seen.clear()
            seen_file = r.file_id
        key = (r.source_id, r.kind, r.target_name, r.qualifier, r.arity, r.arguments)
        known = seen.get(key)
        if known is None:
            b = _binding(resolver, r)
            known = seen[key] = (b, b.candidates_json())
        b, candidates = known
        if (b.target, b.how, b.confidence, candidates) != (r.target_id, r.resolution, r.confidence, r.candidates):
            # Most references of a fresh build stay unresolved as inserted: no write for those.
            updates.append(EdgeBinding(b.target, b.how, b.confidence, candidates, r.edge_id))
            if r.kind in HERITAGE:
                heritage.update(n for n in (r.source_id, r.target_id, b.target) if n is not None)
    return updates


def _binding(resolver: Resolver, r: RefToResolve) -> Binding:
    """The binding of one reference edge; unresolved where resolving it recursed too deeply."""
    try:
        if r.kind == "imports":
            return resolver.resolve_import(r.file_id, r.qualifier, r.target_name)
        return resolver.resolve(r.source_id, r.file_id, r.kind, r.target_name, r.qualifier, r.arity, r.arguments)
    except RecursionError:  # one pathological chain of definitions must not stop the run
        log.warning("resolving %s recursed too deeply; left unresolved", r.target_name[:80])
        return Binding(None, "unresolved")
