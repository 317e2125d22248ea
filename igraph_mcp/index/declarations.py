"""Linking each declaration to its implementations: the ``declares`` edges an answer folds declarations by.

A declaration gets the links of every rule that finds some. Rules 1-3 look for its own definition, by its
qualified name, within its language family (a `.d.ts` declares JavaScript, a C header is defined in C or C++):
  1. in its own file (TypeScript overloads, a C forward declaration);
  2. in its companion file, the one of the same path stem (`lib/a.d.ts` and `lib/a.js`, `src/a.h` and `src/a.c`);
  3. elsewhere: the definitions in files that include the declaration's file, else those sharing the longest
     path tail (`types/pool.d.ts` and `lib/dispatcher/pool.js`) or its directory; with nothing relating them,
     only a name defined once.
  Where a member may be defined relative to its namespaces (C++: `using namespace app; int Session::run()`, or a
  reading that lost the enclosing `namespace app {`), a declaration with no definition of its own qualified name
  takes, by rules 1-2 and the include rule only, one whose qualified name ends it and still names the owner
  (`Session.run` for `app.Session.run`; never `tools.Session.run` or `Widget.run`).
Rules 4-5 look for the members of types that implement the declaration's type:
  4. the same-named members of the types that inherit or implement it, transitively through the graph's
     `inherits` / `implements` edges (a member written outside its type, Rust's `impl Trait for X` or C++'s
     `X::f`, by its qualified name `X.f`: in the type's file, else the nearest by folder);
  5. where interfaces are satisfied structurally (Go), the same-named method of every type in the interface's
     package that has its whole method set.
Every link joins two nodes of one simple name, so an incremental run re-links the declarations of the names it
changed (``link_declarations``) and leaves the same edges a clean build would.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from igraph_mcp import crashpoints
from igraph_mcp.store import declarations as store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import LinkNode
from igraph_mcp.vocab.languages import FUNCTION_LIKE, LANGUAGES, TYPE_KINDS, source_extension

# What may implement a declaration of each kind (an interface or a type alias has nothing to link to).
IMPLEMENTS: dict[str, frozenset[str]] = {
    "function": FUNCTION_LIKE,
    "method": FUNCTION_LIKE,
    "class": frozenset({"class"}),
}
# Subtypes followed from a declaration's type: levels of inheritance, and nodes in all.
MAX_DEPTH = 4
MAX_SUBTYPES = 200


def family_of(language: str) -> str:
    """The language family whose declarations and implementations link to each other."""
    spec = LANGUAGES.get(language)
    return spec.link_family if spec is not None else language


def path_stem(path: str, language: str) -> str:
    """The path without its declaration suffix or source extension (`lib/a.d.ts` -> `lib/a`)."""
    spec = LANGUAGES.get(language)
    lowered = path.lower()
    for suffix in spec.declaration_suffixes if spec is not None else ():
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    ext = source_extension(path)
    return path[: -len(ext)] if ext else path


def shared_tail(a: str, b: str) -> int:
    """How many trailing path segments two stems share (`types/pool` and `lib/dispatcher/pool`: 1)."""
    n = 0
    for x, y in zip(reversed(a.split("/")), reversed(b.split("/")), strict=False):
        if x != y:
            break
        n += 1
    return n


@dataclass(slots=True)
class LinkInputs:
    """What the rules read, gathered for one batch of declarations."""

    by_name: Mapping[str, Sequence[LinkNode]]  # implementations (not declarations) by simple name
    parents: Mapping[int, LinkNode] = field(default_factory=dict)  # a declaration's parent, by id
    subtypes: Mapping[int, Sequence[LinkNode]] = field(default_factory=dict)  # type id -> its (transitive) subtypes
    includes: set[tuple[int, int]] = field(default_factory=set)  # (file, file it includes)
    method_sets: Mapping[int, frozenset[str]] = field(default_factory=dict)  # structural interface -> its methods
    package_methods: Mapping[str, Sequence[LinkNode]] = field(default_factory=dict)  # directory -> its methods


def links_of(decl: LinkNode, inputs: LinkInputs) -> list[tuple[int, str]]:
    """(implementation id, rule) for one declaration, each implementation once, by rule then id."""
    allowed = IMPLEMENTS.get(decl.kind)
    if allowed is None:
        return []
    family = family_of(decl.language)
    same = [
        c
        for c in inputs.by_name.get(decl.name, ())
        if c.kind in allowed and not c.declaration and family_of(c.language) == family
    ]
    found: dict[int, str] = {}
    for impl, rule in _own_definitions(decl, same, inputs.includes):
        found.setdefault(impl, rule)
    parent = inputs.parents.get(decl.parent_id) if decl.parent_id is not None else None
    if parent is not None and parent.kind in TYPE_KINDS:
        for sub in inputs.subtypes.get(parent.id, ()):
            prefix = sub.qualified_name + "."
            owned = [c for c in same if c.parent_id == sub.id]
            # A member written outside its type (Rust's impl, C++'s X::f) is the one nearest the type: regex's three
            # crates each have a NoExpand with a replace_append, each implementing its own crate's Replacer.
            outside = [c for c in same if c.parent_id != sub.id and c.qualified_name == prefix + c.name]
            for c in owned + _nearest(outside, sub.path):
                found.setdefault(c.id, "inherits")
        members = inputs.method_sets.get(parent.id)
        if members:
            for impl in _method_set_matches(decl, members, inputs.package_methods.get(_directory(decl.path), ())):
                found.setdefault(impl, "method_set")
    return sorted(found.items(), key=lambda kv: (_RULE_ORDER[kv[1]], kv[0]))


_RULE_ORDER = {"same_file": 0, "companion": 1, "include": 2, "qualified_name": 3, "inherits": 4, "method_set": 5}


def _own_definitions(decl: LinkNode, same: Sequence[LinkNode], includes: set[tuple[int, int]]) -> list[tuple[int, str]]:
    named = [c for c in same if c.qualified_name == decl.qualified_name]
    if not named:
        # C++ defines a member relative to the namespaces in scope; C++ also needs the class declared before such a
        # definition, so only the declaring file, its companion and the files including it are read for one.
        return _related_files(decl, [c for c in same if _scope_relative(c, decl.qualified_name)], includes)
    return _related_files(decl, named, includes) or _elsewhere(decl, named)


def _scope_relative(impl: LinkNode, declared: str) -> bool:
    """``impl``'s qualified name is ``declared`` less some leading namespaces, owner kept, in a language that
    qualifies a member relative to the namespaces in scope (`Session.run` of `app.Session.run`)."""
    spec = LANGUAGES.get(impl.language)
    qualified = impl.qualified_name
    return (
        spec is not None
        and "namespace" in spec.receiver_scope_kinds
        and "." in qualified
        and declared.endswith("." + qualified)
    )


def _related_files(decl: LinkNode, named: Sequence[LinkNode], includes: set[tuple[int, int]]) -> list[tuple[int, str]]:
    """The first of rules 1-2 and the include rule that finds some of ``named``."""
    here = [c.id for c in named if c.file_id == decl.file_id]
    if here:
        return [(i, "same_file") for i in here]
    stem = path_stem(decl.path, decl.language)
    companion = [c.id for c in named if path_stem(c.path, c.language) == stem]
    if companion:
        return [(i, "companion") for i in companion]
    including = [c.id for c in named if (c.file_id, decl.file_id) in includes]
    return [(i, "include") for i in including]


def _elsewhere(decl: LinkNode, named: Sequence[LinkNode]) -> list[tuple[int, str]]:
    """Rule 3's last resort: the definitions sharing the longest path tail or the directory, else one alone."""
    if not named:
        return []
    stem = path_stem(decl.path, decl.language)
    directory = _directory(decl.path)
    scored = [(shared_tail(stem, path_stem(c.path, c.language)), _directory(c.path) == directory, c.id) for c in named]
    best = max((tail, same_dir) for tail, same_dir, _ in scored)
    if best == (0, False):
        return [(named[0].id, "qualified_name")] if len(named) == 1 else []
    return [(i, "qualified_name") for tail, same_dir, i in scored if (tail, same_dir) == best]


def _nearest(nodes: Sequence[LinkNode], path: str) -> list[LinkNode]:
    """The ``nodes`` in the file ``path``, else those whose folder shares the most leading folders with its folder."""
    here = [n for n in nodes if n.path == path]
    if here or not nodes:
        return here
    folders = _directory(path).split("/")
    shared = [len(posixpath.commonprefix([folders, _directory(n.path).split("/")])) for n in nodes]
    best = max(shared)
    return [n for n, k in zip(nodes, shared, strict=True) if k == best]


def _method_set_matches(decl: LinkNode, members: frozenset[str], methods: Sequence[LinkNode]) -> list[int]:
    """The same-named method of each type in ``methods`` (one package's) whose methods include all of ``members``."""
    by_type: dict[str, dict[str, int]] = {}
    for m in methods:
        owner, _, name = m.qualified_name.rpartition(".")
        if owner and family_of(m.language) == family_of(decl.language):
            by_type.setdefault(owner, {}).setdefault(name, m.id)
    return sorted(names[decl.name] for names in by_type.values() if members <= names.keys())


def _directory(path: str) -> str:
    return posixpath.dirname(path)


# -- reading the inputs and writing the edges ------------------------------------------------------------------------
def gather(db: Database, decls: Sequence[LinkNode]) -> LinkInputs:
    """Read what the rules need for ``decls`` from the store."""
    by_name: dict[str, list[LinkNode]] = {}
    for node in store.nodes_named(db, {d.name for d in decls}):
        if not node.declaration:
            by_name.setdefault(node.name, []).append(node)
    parents = store.nodes_by_ids(db, {d.parent_id for d in decls if d.parent_id is not None})
    types = [p.id for p in parents.values() if p.kind in TYPE_KINDS]
    inputs = LinkInputs(by_name, parents, _subtypes(db, types))
    inputs.includes = store.importers(db, {d.file_id for d in decls})
    structural = [p.id for p in parents.values() if _structural(p)]
    if structural:
        members = store.declared_children(db, structural)
        inputs.method_sets = {pid: frozenset(m.name for m in ms) for pid, ms in members.items()}
        directories = {_directory(parents[pid].path) for pid in members}
        inputs.package_methods = {d: store.methods_in_directory(db, d) for d in sorted(directories)}
    return inputs


def _structural(node: LinkNode) -> bool:
    """An interface that types satisfy by their method sets (Go)."""
    spec = LANGUAGES.get(node.language)
    return node.kind == "interface" and spec is not None and spec.structural_interfaces


def _subtypes(db: Database, types: Sequence[int]) -> dict[int, list[LinkNode]]:
    """type id -> the types that inherit or implement it, up to MAX_DEPTH levels and MAX_SUBTYPES nodes each."""
    children: dict[int, list[int]] = {}
    frontier = set(types)
    for _ in range(MAX_DEPTH):
        frontier -= children.keys()
        if not frontier:
            break
        found = store.subtypes(db, frontier)
        for t in frontier:
            children[t] = found.get(t, [])
        frontier = {s for subs in found.values() for s in subs}
    reach: dict[int, list[int]] = {}
    for root in types:
        seen: dict[int, None] = {}
        level = [root]
        for _ in range(MAX_DEPTH):
            level = [s for t in level for s in children.get(t, ()) if s != root and s not in seen]
            for s in level:
                seen.setdefault(s, None)
            if not level or len(seen) >= MAX_SUBTYPES:
                break
        reach[root] = list(seen)[:MAX_SUBTYPES]
    rows = store.nodes_by_ids(db, {s for subs in reach.values() for s in subs})
    return {t: [rows[s] for s in subs if s in rows] for t, subs in reach.items()}


def link_declarations(db: Database, names: Iterable[str] | None = None) -> int:
    """Re-link the declarations called one of ``names`` (every declaration when None) and return the links made.

    The declarations of an interface link as a whole (a Go type satisfies its whole method set), so the other
    members of an interface with a changed member are re-linked too.
    """
    wanted = None if names is None else set(names)
    if wanted is not None and not wanted:
        return 0
    decls = store.declarations(db, wanted)
    if wanted is not None:
        parents = store.nodes_by_ids(db, {d.parent_id for d in decls if d.parent_id is not None})
        known = {d.id for d in decls}
        for members in store.declared_children(db, [p.id for p in parents.values() if _structural(p)]).values():
            decls += [m for m in members if m.id not in known]
    links = []
    if decls:
        inputs = gather(db, decls)
        links = [(d, impl, rule) for d in decls for impl, rule in links_of(d, inputs)]
    with db.atomic() as con:
        store.replace_links(con, None if wanted is None else [d.id for d in decls], links)
        crashpoints.reached("index.link")
    return len(links)
