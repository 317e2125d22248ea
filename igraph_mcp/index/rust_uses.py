"""Rust `use` trees as imports, at any depth of nesting.

`use crate::{dfa::{accel::Accel, determinize}, nfa::thompson as t};` binds `Accel` from `crate::dfa::accel`,
`determinize` from `crate::dfa`, and `t` for `crate::nfa::thompson`. A query pattern sees one level of a list; the
tree is walked here instead, each leaf an Import of (the path before it, its name, its alias).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

from tree_sitter import Node, Query, QueryCursor
from tree_sitter_language_pack import get_language

from igraph_mcp.index.model import Import

_lock = threading.Lock()
_query: list[Query] = []


def _uses() -> Query:
    with _lock:
        if not _query:
            _query.append(Query(get_language("rust"), "(use_declaration argument: (_) @tree)"))  # type: ignore[arg-type]
    return _query[0]


def _text(source: bytes, node: Node) -> str:
    return "".join(source[node.start_byte : node.end_byte].decode("utf-8", "replace").split())


def _leaves(source: bytes, node: Node, prefix: list[str]) -> Iterator[tuple[list[str], str, str]]:
    """(module segments, name, alias) per name a use tree binds; a module bound whole has the name ""."""
    kind = node.type
    if kind == "use_list":
        for child in node.named_children:
            yield from _leaves(source, child, prefix)
    elif kind == "scoped_use_list":
        path = node.child_by_field_name("path")
        inner = prefix + (_text(source, path).split("::") if path is not None else [])
        listed = node.child_by_field_name("list")
        if listed is not None:
            yield from _leaves(source, listed, inner)
    elif kind == "use_as_clause":
        path, alias = node.child_by_field_name("path"), node.child_by_field_name("alias")
        if path is not None and alias is not None:
            *module, name = prefix + _text(source, path).split("::")
            yield (module, name, _text(source, alias)) if module else ([name], "", _text(source, alias))
    elif kind == "use_wildcard":
        yield prefix + [seg for seg in _text(source, node).removesuffix("*").split("::") if seg], "*", ""
    elif kind == "self":  # `use a::b::{self}`: the module b itself
        if prefix:
            yield prefix, "", ""
    elif kind in ("identifier", "scoped_identifier", "crate", "super"):
        *module, name = prefix + _text(source, node).split("::")
        yield (module, name, "") if module else ([name], "", "")


def use_imports(root: Node, source: bytes) -> list[Import]:
    """Every binding of every `use` declaration in a Rust file, in source order."""
    out: list[Import] = []
    for _pattern, caps in QueryCursor(_uses()).matches(root):
        for tree in caps.get("tree", ()):
            line = tree.start_point[0] + 1
            for module, name, alias in _leaves(source, tree, []):
                out.append(Import(module="::".join(module), name=name, alias=alias, line=line))
    return out
