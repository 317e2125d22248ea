"""Implementation before declaration, one name once: the hits after fusion, as an agent should read them (pure).

A declaration hit (an overload or interface signature, a prototype, a `.d.ts` symbol) is folded into its
implementation: one hit, at the better of the two scores, with the declaration's place and signature attached; a
forwarder (a wrapper that only passes its call on to a definition of its own name) is folded into that definition.
For a question about behaviour, what only describes a type (an interface, a type alias, a declaration left
unfolded) is demoted; for a question about a type (it says "interface", "type", "struct"..., or names an interface
or type alias among the candidates) nothing is folded or demoted. Then each qualified name appears once per answer,
in its best-placed hit, and a neighbour repeating a name the answer already holds is left out.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence

from igraph_mcp.models import Hit, Neighbour
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.shapes import location
from igraph_mcp.store.records import NodeRow
from igraph_mcp.vocab.testcode import is_non_source, is_test_path

# Kinds that describe a type and run nothing.
TYPE_ONLY_KINDS = frozenset({"interface", "type"})
# A hit that only describes a type, for a question about behaviour: its score times this (measured on two
# TypeScript/JavaScript packages, benchmarks/declarations.py).
TYPE_ONLY = 0.5

# Words that make a question about types or declarations. "type" after a word that makes it a value ("content-type",
# "MIME type", "event type") does not: that question asks how something is done.
_TYPE_WORDS = re.compile(
    r"(?<![\w-])(?:interfaces?|traits?|structs?|enums?|typedefs?|typings?|signatures?|declarations?|declared|"
    r"overloads?|prototypes?|(?<!mime )(?<!media )(?<!content )(?<!file )(?<!event )(?<!message )types?)(?![\w-])",
    re.IGNORECASE,
)
_PASCAL = re.compile(r"^[A-Z][a-z0-9]+[A-Z]\w*$|^[A-Z][a-z0-9]+$")


def is_type_query(qa: QueryAnalysis, type_names: Collection[str]) -> bool:
    """True when the question is about a type: it says so in words, asks about a `.d.ts` file, or names (in
    PascalCase) one of ``type_names``, the interfaces and type aliases among the candidates."""
    if _TYPE_WORDS.search(qa.text):
        return True
    if any(p.lower().endswith((".d.ts", ".d.mts", ".d.cts")) for p in qa.paths):
        return True
    return any(_PASCAL.match(i) and i in type_names for i in qa.identifiers)


def fold_declarations(
    hits: Sequence[Hit],
    rows: Mapping[int, NodeRow],
    links: Mapping[int, Sequence[int]],
    *,
    type_query: bool,
    type_only: float = TYPE_ONLY,
    kinds: Collection[str] | None = None,
) -> list[Hit]:
    """Hits best first with each linked declaration folded into its implementation, type-only hits demoted
    (``type_only``) unless ``type_query``; ``rows`` holds every hit's and linked implementation's stored row,
    ``links`` each declaration's implementations. A declaration whose implementations are not among the hits is
    replaced by its implementation only when it has one (and that one is of ``kinds``, when given)."""
    if type_query:
        return list(hits)
    by_id = {h.nodeId: h for h in hits}
    order = {h.nodeId: i for i, h in enumerate(hits)}
    out: dict[int, Hit] = {}
    for h in hits:
        row = rows.get(h.nodeId)
        if row is not None and row.declaration and links.get(h.nodeId):
            impls = links[h.nodeId]
            present = sorted((i for i in impls if i in by_id), key=order.__getitem__)
            if present:
                target = out.get(present[0])
                if target is None or target is by_id[present[0]]:
                    target = by_id[present[0]].model_copy()
            elif len(impls) == 1 and impls[0] in rows and (not kinds or rows[impls[0]].kind in kinds):
                target = out.get(impls[0]) or _hit_of(rows[impls[0]], h)
            else:
                out.setdefault(h.nodeId, h)
                continue
            if h.score > target.score:
                target.score = h.score
            if not target.declaredAt:
                target.declaredAt = f"{h.filePath}:{h.startLine}"
                target.declaredSignature = h.signature
            out[target.nodeId] = target
            continue
        out.setdefault(h.nodeId, h)
    # The caller's hits are never changed: a hit is copied where it changes (folded into, or demoted).
    folded = list(out.values())
    for i, h in enumerate(folded):
        row = rows.get(h.nodeId)
        if h.kind in TYPE_ONLY_KINDS or (row is not None and row.declaration and not h.declaredAt):
            h = folded[i] = h if h is not by_id.get(h.nodeId) else h.model_copy()
            h.score *= type_only
            h.boosts = [*h.boosts, "typeOnly"]
    folded.sort(key=lambda h: (-h.score, h.nodeId))
    return folded


# A function or method of at most this many lines whose one call is to a same-named definition only passes its
# arguments on (Go's package-level `func Get(key string) any { return v.Get(key) }` beside `Viper.Get`).
FORWARDER_LINES = 3


def fold_forwarders(hits: Sequence[Hit], forwards: Mapping[int, NodeRow]) -> list[Hit]:
    """Hits best first with each forwarder (``forwards``: its id -> the definition it calls) folded into what it
    calls: one hit, at the better of the two scores, the forwarder listed in ``alsoAt``; a forwarder whose callee
    is not a hit is replaced by it. The caller's hits are never changed."""
    if not forwards:
        return list(hits)
    by_id = {h.nodeId: h for h in hits}
    out: dict[int, Hit] = {}
    copied: set[int] = set()
    for h in hits:
        target = forwards.get(h.nodeId)
        if target is None:
            out.setdefault(h.nodeId, h)
            continue
        kept = out.get(target.id) or by_id.get(target.id) or _hit_of(target, h, why="forwarder")
        if kept.nodeId not in copied:
            kept = kept.model_copy()
            copied.add(kept.nodeId)
        kept.score = max(kept.score, h.score)
        place = f"{h.filePath}:{h.startLine}"
        if place not in kept.alsoAt and len(kept.alsoAt) < ALSO_AT_MAX:
            kept.alsoAt = [*kept.alsoAt, place]
        out[target.id] = kept
    folded = list(out.values())
    folded.sort(key=lambda h: (-h.score, h.nodeId))
    return folded


def _hit_of(row: NodeRow, declaration: Hit, why: str = "declaration") -> Hit:
    """The implementation as a hit found through its declaration (its channels and boosts)."""
    return Hit(
        **location(row),
        score=declaration.score,
        matchChannel=declaration.matchChannel,
        ranks=dict(declaration.ranks),
        boosts=[*declaration.boosts, why],
        docstring=row.docstring[:300],
    )


def name_key(kind: str, qualified_name: str, name: str, path: str) -> str:
    """What makes two entries of one answer the same name (a module is its file)."""
    return path if kind == "module" else qualified_name or name


# Same-named definitions in other files that one hit lists (``alsoAt``): three say "there are several" at ~8 tokens
# each; more than that is what igraph_node / a name search is for.
ALSO_AT_MAX = 3


def without_modules_after_their_files(hits: Sequence[Hit], found_by_part: Collection[int]) -> list[Hit]:
    """The hits without a module placed below another hit of its own file, unless a part of the module's top-level
    code matched (``found_by_part``: then the hit points at those lines). Found by its path, names and head alone, it
    says "this file", which the hit above it already says; its slot goes to the next definition."""
    files: set[tuple[str | None, str]] = set()
    out: list[Hit] = []
    for h in hits:
        where = (h.repo, h.filePath)
        if h.kind == "module" and where in files and h.nodeId not in found_by_part:
            continue
        files.add(where)
        out.append(h)
    return out


def unique_names(hits: Sequence[Hit], *, per_file: bool = False) -> list[Hit]:
    """The hits with each qualified name once (once per file, with ``per_file``), at its best-placed hit's place.

    The definition kept is the best-placed one, or, where that one is a copy (a bundle, a demo, a vendored or
    generated copy: non-source but not a test), the best-placed definition with the same signature in the project's
    own code: js-yaml's ``readBlockMapping`` is lib/'s, not demo/'s. A same-named definition in another file (hono's
    ``serveStatic`` in every adapter, Django's two ``CharField.__init__``) is no longer a hit of its own but is not
    hidden either: the kept hit lists where it is (``alsoAt``, at most ALSO_AT_MAX), unless it is in non-source code
    and the kept hit is not. One in the same file (an overload, a property's setter) is left out.
    """
    groups: dict[tuple[str, str], list[Hit]] = {}
    for h in hits:
        key = (h.filePath if per_file else "", name_key(h.kind, h.qualifiedName, h.name, h.filePath))
        groups.setdefault(key, []).append(h)
    out: list[Hit] = []
    for group in groups.values():
        kept = group[0]
        if _is_copy(kept.filePath):
            kept = next((h for h in group if not is_non_source(h.filePath) and _same_code(h, kept)), kept)
        places = list(kept.alsoAt)
        for h in group:
            place = f"{h.filePath}:{h.startLine}"
            if h.filePath == kept.filePath or len(places) >= ALSO_AT_MAX or place in places:
                continue
            # A generated, vendored or test copy of the kept definition is not worth the agent's tokens.
            if not is_non_source(h.filePath) or is_non_source(kept.filePath):
                places.append(place)
        # A copy where a place was added: the caller's hits are not changed.
        out.append(kept if places == kept.alsoAt else kept.model_copy(update={"alsoAt": places}))
    return out


def _same_code(a: Hit, b: Hit) -> bool:
    """Two definitions whose signatures read the same (spacing aside): one is a copy of the other. Sphinx's
    doc/conf.py ``setup(app)`` is no copy of an extension's ``setup(app: Sphinx) -> dict``."""
    return " ".join(a.signature.split()) == " ".join(b.signature.split())


def _is_copy(path: str) -> bool:
    """Non-source code that is not a test: a demo, a benchmark, a bundle, a vendored or generated copy."""
    return is_non_source(path) and not is_test_path(path)


def unique_neighbours(hits: Sequence[Hit], neighbours: Sequence[Neighbour]) -> list[Neighbour]:
    """The neighbours whose qualified name neither a hit nor an earlier neighbour holds."""
    seen = {name_key(h.kind, h.qualifiedName, h.name, h.filePath) for h in hits}
    out: list[Neighbour] = []
    for n in neighbours:
        key = name_key(n.kind, n.qualifiedName, n.name, n.filePath)
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out
