"""Rust syntax that query patterns cannot read whole: `use` trees, paths among a macro's tokens, blanket impls.

`use crate::{dfa::{accel::Accel, determinize}, nfa::thompson as t};` binds `Accel` from `crate::dfa::accel`,
`determinize` from `crate::dfa`, and `t` for `crate::nfa::thompson`: a query pattern sees one level of a list, so
the tree is walked here, each leaf an Import of (the path before it, its name, its alias). A call among a macro's
arguments (`assert!(self.tt.next(p))`) is tokens to the grammar: the path before its name is read from them.
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
            _query.append(Query(get_language("rust"), "(use_declaration argument: (_) @tree)"))
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


# Tokens before a name in a macro's arguments that make it no call: a definition the macro writes (`fn f(`), a
# metavariable's fragment (`$x:ident (`), a macro's own name (`m!(`).
_NOT_A_CALL = frozenset({"fn", "struct", "enum", "union", "trait", "impl", "mod", "type", "$", ":", "metavariable"})
_PATH_TOKENS = frozenset({"identifier", "self", "super", "crate", "integer_literal"})  # `self.0.end()`
_PATH_WORDS = frozenset({"self", "super", "crate"})
_PREDICATE_MACROS = frozenset({b"cfg", b"cfg_attr"})


def token_path(name: Node) -> str | None:
    """The receiver or path written before a call's name among a Rust macro's tokens (`self.tt`, `crate::util`,
    `a.b()` in `a.b().c(x)`); "" for a bare call; None where the tokens make it no call (an attribute's or
    `cfg!`'s predicate, a definition the macro writes) or a receiver this reading does not follow (`xs[0].f()`,
    `(a + b).f()`, `<T as X>::f()`)."""
    holder = name.parent
    while holder is not None and holder.type == "token_tree":
        holder = holder.parent
    if (
        holder is None
        or holder.type == "attribute"
        or (holder.type == "macro_invocation" and _macro_name(holder) in _PREDICATE_MACROS)
    ):
        return None  # `#[cfg(not(windows))]`, `cfg!(any(..))`: predicates, no calls
    parts: list[str] = []
    node = name.prev_sibling
    while node is not None and node.type in (".", "::"):
        before = node.prev_sibling
        if before is not None and before.type == "token_tree" and (before.text or b"").startswith(b"("):
            callee = before.prev_sibling  # `b()` of `a.b().c()`
            if callee is None or callee.type not in _PATH_TOKENS:
                return None
            parts.append((callee.text or b"").decode("utf-8", "replace") + "()" + node.type)
            node = callee.prev_sibling
        elif before is not None and before.type in _PATH_TOKENS:
            parts.append((before.text or b"").decode("utf-8", "replace") + node.type)
            node = before.prev_sibling
        else:
            return None
    if node is not None and node.type in _NOT_A_CALL:
        return None
    path = "".join(reversed(parts))
    return path[:-2] if path.endswith("::") else path[:-1] if path.endswith(".") else path


def _macro_name(invocation: Node) -> bytes:
    macro = invocation.child_by_field_name("macro")
    return (macro.text or b"") if macro is not None else b""


def is_path_word(qualifier: Node | None) -> bool:
    """Whether a call's qualifier is Rust's `self`, `super` or `crate` beginning a path (`self::f()`)."""
    parent = qualifier.parent if qualifier is not None else None
    return (
        qualifier is not None
        and qualifier.type in _PATH_WORDS
        and parent is not None
        and (parent.type == "scoped_identifier")
    )


_NAMED_SELF_TYPES = frozenset({"type_identifier", "generic_type", "scoped_type_identifier"})


def blanket_impl(trait_name: Node) -> bool:
    """Whether the Rust `impl` whose trait this names is for no named type: `impl<T> Log for &T`, `for Box<T>` of
    a parameter, `for T`, `for u32`. A reference to a named type (`impl Pattern for &'r Regex`) is that type's."""
    impl = trait_name.parent
    while impl is not None and impl.type != "impl_item":
        impl = impl.parent
    if impl is None:
        return False
    self_type = impl.child_by_field_name("type")
    while self_type is not None and self_type.type == "reference_type":
        self_type = self_type.child_by_field_name("type")
    if self_type is None:
        return False
    if self_type.type not in _NAMED_SELF_TYPES:
        return True
    params = impl.child_by_field_name("type_parameters")
    head = self_type.child_by_field_name("type") if self_type.type == "generic_type" else self_type
    if head is not None and head.type == "scoped_type_identifier":
        head = head.child_by_field_name("name")
    named = (head.text or b"") if head is not None else b""
    if named in (b"Box", b"Rc", b"Arc"):
        return True
    return params is not None and any((p.child_by_field_name("name") or p).text == named for p in params.named_children)
