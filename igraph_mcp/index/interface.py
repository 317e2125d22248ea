"""What other files can see of one file, compared before and after it is re-parsed.

Another file's reference reaches this file only through its definitions (by name, kind, parent and, in Java, the
calls they accept), the facts the resolver may evaluate from outside (module and class scopes, a method's ``self.x``
assignments with the locals they name, result types), its imports (re-exports, star imports) and its classes' bases.
An edit that leaves all of these equal (a function body) binds no other file's reference differently: only the file's
own references need binding again. A definition that keeps its place among the definitions of its name is the same
definition to every other file: edges and candidates that named its old id take its new one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from igraph_mcp.index.argument_hints import PARAMETERS_FACT
from igraph_mcp.index.model import ParsedFile
from igraph_mcp.index.symbols import Sym
from igraph_mcp.store.records import ImportRef, NodeBaseRef, NodeFact
from igraph_mcp.vocab.languages import FUNCTION_LIKE

BASE_KINDS = ("inherits", "implements")
# The facts of a function that other files' bindings read (see model.Fact): its result types, a Go function's second
# too. A Java method's parameter types are part of its Definition.
_SEEN_OUTSIDE = frozenset({"()", "()2"})


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition as other files tell it apart (the module node is index 0, named by its path elsewhere)."""

    kind: str
    name: str
    qualified_name: str
    parent: int | None  # index of the enclosing definition in the file's list
    # The arguments a call of it may pass and their types (Java overloads): another range or another type may bind
    # other files' calls elsewhere.
    min_args: int = 0
    max_args: int = -1
    parameters: str = ""


@dataclass(frozen=True, slots=True)
class Interface:
    """The parts of one file other files' bindings can depend on, in source order, by definition index."""

    definitions: tuple[Definition, ...]
    facts: tuple[tuple[int, str, str, str], ...]  # (scope index, name, kind, text) that lookups from outside read
    imports: tuple[tuple[str, str, str], ...]  # (module, name, alias)
    bases: tuple[tuple[int, str, str], ...]  # (class index, base name, qualifier)


Fact = tuple[int, str, str, str]  # (scope index, name, kind, text)


def _visible_facts(definitions: Sequence[Definition], facts: list[Fact]) -> tuple[Fact, ...]:
    """The facts a lookup from another file may evaluate: every fact of a module or class scope; of a function,
    its result types, and all of them when it assigns ``self.`` attributes (evaluated in its scope) or holds
    nested definitions (whose annotations and bases are evaluated there)."""
    open_scopes = {scope for scope, name, _kind, _text in facts if name.startswith(".")}
    open_scopes |= {d.parent for d in definitions if d.parent is not None}
    kept: list[Fact] = []
    for fact in facts:
        scope, name = fact[0], fact[1]
        function = 0 <= scope < len(definitions) and definitions[scope].kind in FUNCTION_LIKE
        if not function or name in _SEEN_OUTSIDE or scope in open_scopes:
            kept.append(fact)
    return tuple(kept)


def parsed_interface(pf: ParsedFile) -> Interface:
    """The interface of a freshly parsed file, as the indexer will store it."""
    definitions = [Definition("module", "", "", None)]
    count = max(len(pf.symbols), 1)
    facts = [(f.source, f.name, f.kind, f.text) for f in pf.facts if f.source < count]
    parameters = _parameters(facts)
    for i, s in enumerate(pf.symbols[1:], start=1):
        parent = s.parent if s.parent is not None and s.parent < i else None
        definitions.append(
            Definition(s.kind, s.name, s.qualified_name, parent, s.min_args, s.max_args, parameters.get(i, ""))
        )
    bases = tuple(
        (r.source if 0 <= r.source < count else 0, r.name, r.qualifier) for r in pf.references if r.kind in BASE_KINDS
    )
    return Interface(
        tuple(definitions),
        _visible_facts(definitions, facts),
        tuple((imp.module, imp.name, imp.alias) for imp in pf.imports),
        bases,
    )


def stored_interface(
    symbols: list[Sym],
    facts: list[NodeFact],
    imports: list[ImportRef],
    bases: list[NodeBaseRef],
) -> Interface:
    """The interface of a stored file from its rows: nodes in id order, facts (node id, name, kind, text), imports
    and base references (class id, name, qualifier), each in insertion order."""
    index = {s.id: i for i, s in enumerate(symbols)}
    indexed = [(index.get(n, -1), name, kind, text) for n, name, kind, text in facts]
    parameters = _parameters(indexed)
    definitions = [Definition("module", "", "", None)]
    for i, s in enumerate(symbols[1:], start=1):
        parent = index.get(s.parent_id) if s.parent_id is not None else None
        definitions.append(
            Definition(s.kind, s.name, s.qualified_name, parent, s.min_args, s.max_args, parameters.get(i, ""))
        )
    return Interface(
        tuple(definitions),
        _visible_facts(definitions, indexed),
        tuple(imports),
        tuple((index.get(c, 0), name, qual) for c, name, qual in bases),
    )


def _parameters(facts: list[Fact]) -> dict[int, str]:
    """Definition index -> its parameter types, from the "()p" facts."""
    return {scope: text for scope, name, _kind, text in facts if name == PARAMETERS_FACT}


def _key(defs: Sequence[Definition], d: Definition) -> tuple[object, ...]:
    """What other files tell a definition apart by: kind, qualified name, parent's kind and name, and the calls it
    accepts (which overload a call binds)."""
    parent = defs[d.parent] if d.parent is not None else None
    parent_key = (parent.kind, parent.name) if parent is not None else ("", "")
    return (d.kind, d.qualified_name, parent_key, d.min_args, d.max_args, d.parameters)


def matched_ids(
    old: Interface, old_ids: Sequence[int], new: Interface, new_ids: Sequence[int]
) -> tuple[dict[int, int], set[str]]:
    """(old node id -> new node id, names whose definitions changed).

    A name's definitions are unchanged when, in source order, each keeps its key (_key): in every candidate list
    (file path order, then source order) they then stand where they stood. The module node always maps to the
    module node.
    """
    by_name: dict[str, tuple[list[int], list[int]]] = {}
    for side, interface in ((0, old), (1, new)):
        for i, d in enumerate(interface.definitions[1:], start=1):
            by_name.setdefault(d.name, ([], []))[side].append(i)
    mapping = {old_ids[0]: new_ids[0]} if old_ids and new_ids else {}
    changed: set[str] = set()
    for name, (olds, news) in by_name.items():
        keys_old = [_key(old.definitions, old.definitions[i]) for i in olds]
        keys_new = [_key(new.definitions, new.definitions[i]) for i in news]
        if keys_old != keys_new:
            changed.add(name)
            continue
        for i, j in zip(olds, news, strict=True):
            mapping[old_ids[i]] = new_ids[j]
    return mapping, changed
