"""Query captures sorted into their roles: one file's definitions, references, imports, facts and exports as the
matches of its language's query found them (the capture names are listed in parse.py), before they become records."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import NamedTuple

from tree_sitter import Node, Query, QueryCursor

_REF_KINDS = {
    "call": "calls",
    "inherits": "inherits",
    "implements": "implements",
    "type": "references",
    "references": "references",
}
_PLAIN_ROLES = frozenset(
    {
        "scope",
        "import",
        "fact",
        "fact.attr",
        "fact.return",
        "fact.return2",
        "fact.element",
        "fact.variadic",
        "fact.second",
        "fact.positional",
        "fact.unwrap",
    }
)
# Children of a parameter list that take no argument (Java's `Foo this`), any number (`T... xs`) or may be left out.
_NOT_PARAMETERS = frozenset({"receiver_parameter"})
_VARIADIC = frozenset({"spread_parameter", "variadic_parameter_declaration"})
_OPTIONAL = frozenset({"optional_parameter_declaration"})  # C++'s `bool on = true`
# Innermost template/generic argument lists, removed until none is left (`A<B<T>>::C` -> `A::C`).
_TYPE_ARGS = re.compile(r"<[^<>]*>")


@dataclass(slots=True)
class DefMatch:
    """A definition (or qualifying scope) match before it becomes a Symbol."""

    kind: str
    node: Node
    name_node: Node
    body: Node | None
    receiver: str
    pattern: int
    is_scope: bool = False
    is_open: bool = False  # @open: extends over the siblings that follow it
    is_declaration: bool = False  # @declaration: a signature whose implementation lives elsewhere
    end_byte: int = 0  # the node's end, or an @open scope's extended end
    end_line: int = 0
    qualified: str = ""
    index: int = 0  # index in ParsedFile.symbols (the nearest real symbol for scopes)
    arg_range: tuple[int, int] | None = None  # (min, max or -1) from @parameters; None when not captured
    parameters: Node | None = None  # the @parameters list itself (Java: its types tell overloads apart)


class RefMatch(NamedTuple):
    """A reference match before it becomes a Reference: its kind, name, qualifier and, at a call whose pattern
    captures @arguments, the argument count (-1 otherwise) and the argument list."""

    kind: str
    name: Node
    qualifier: Node | None
    arity: int
    arguments: Node | None = None


@dataclass(slots=True)
class ImportMatch:
    """One @import match; `default` marks an ES default import bound by @import.default."""

    stmt: Node
    module: Node
    name: Node | None
    alias: Node | None
    module_end: int = 0  # several @import.module nodes (`scala.collection.Map`) span from first to last
    default: bool = False


@dataclass(slots=True)
class Matches:
    """Captures of one file, sorted into their roles."""

    defs: list[DefMatch]
    refs: list[RefMatch]
    imports: list[ImportMatch]
    export_ranges: set[tuple[int, int]]
    export_names: set[str]
    facts: list[tuple[str, Node, Node | None, Node | None, Node | None]]  # role, node, name, value, type


def _named_children(node: Node) -> list[Node]:
    """A list node's items, comments left out."""
    return [c for c in node.named_children if "comment" not in c.type]


def argument_count(arguments: Node) -> int:
    """How many arguments an argument list passes."""
    return len(_named_children(arguments))


def argument_range(parameters: Node) -> tuple[int, int]:
    """(fewest, most) arguments a parameter list accepts: most is -1 after a variadic parameter (Java's `T... xs`,
    C++'s pack, C's `...`), a parameter with a default is optional (C++), and C's `(void)` takes none."""
    params = [c for c in _named_children(parameters) if c.type not in _NOT_PARAMETERS]
    if [(c.type, c.text) for c in params] == [("parameter_declaration", b"void")]:
        return 0, 0
    optional = sum(1 for c in params if c.type in _OPTIONAL)
    required = len(params) - optional
    if params and params[-1].type in _VARIADIC:
        return required - 1, -1
    if (parameters.text or b"").rstrip(b") \t\r\n").endswith(b"..."):  # C's `...` is no named node
        return required, -1
    return required, required + optional


# C and C++: what leads from a function's name up to the declarator that holds its parameter list.
_C_NAME_WRAPPERS = frozenset({"qualified_identifier", "destructor_name", "operator_name", "template_function"})


def c_declarator(name_node: Node) -> Node | None:
    """The `function_declarator` of the C or C++ function named at ``name_node``; None where it has none (a
    macro)."""
    node = name_node.parent
    while node is not None and node.type in _C_NAME_WRAPPERS:
        node = node.parent
    return node if node is not None and node.type == "function_declarator" else None


def c_argument_range(name_node: Node) -> tuple[int, int] | None:
    """argument_range of the parameter list of the C or C++ function named at ``name_node``; None where it has
    none (a macro)."""
    node = c_declarator(name_node)
    parameters = node.child_by_field_name("parameters") if node is not None else None
    return argument_range(parameters) if parameters is not None else None


def node_text(source: bytes, node: Node) -> str:
    """The source text a node spans."""
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _role_of(caps: dict[str, list[Node]]) -> str:
    """The capture that says what a pattern is about (fixed per pattern: it sits on the outer node)."""
    for key in caps:
        if key.startswith(("definition.", "reference.")) or key in _PLAIN_ROLES:
            return key
    return "export" if "export" in caps or "export.name" in caps else ""


def collect(query: Query, root: Node, roles: dict[int, str]) -> Matches:
    """Run ``query`` over a tree and sort its captures by role (``roles`` caches each pattern's role)."""
    out = Matches([], [], [], set(), set(), [])
    for pattern, caps in QueryCursor(query).matches(root):
        role = roles.get(pattern)
        if role is None:
            role = roles[pattern] = _role_of(caps)
        if role.startswith("reference."):
            kind = _REF_KINDS.get(role[10:])
            name_nodes = caps.get("name")
            if kind and name_nodes:
                qual = caps.get("qualifier")
                args = caps.get("arguments")
                arity = argument_count(args[0]) if args else -1
                for name_node in name_nodes:
                    out.refs.append(
                        RefMatch(kind, name_node, qual[0] if qual else None, arity, args[0] if args else None)
                    )
        elif role.startswith("definition.") or role == "scope":
            body = caps.get("body")
            recv = caps.get("receiver")
            params = caps.get("parameters")
            # A @body after the definition node (Dart: signature, then body) extends the definition over it, and
            # so does a second node of the same capture (Haskell: type signature, then equation).
            last = max((*caps[role], *(body or ())), key=lambda n: n.end_byte)
            # `const a, b = 1, 2` names two symbols in one match; each gets the whole node.
            for name_node in caps.get("name", ()):
                out.defs.append(
                    DefMatch(
                        kind=role[len("definition.") :] if role != "scope" else "scope",
                        node=caps[role][0],
                        name_node=name_node,
                        body=body[0] if body else None,
                        receiver=_receiver(recv[0], name_node) if recv else "",
                        pattern=pattern,
                        is_scope=role == "scope",
                        is_open="open" in caps,
                        is_declaration="declaration" in caps,
                        end_byte=last.end_byte,
                        end_line=end_line(last),
                        arg_range=argument_range(params[0]) if params else None,
                        parameters=params[0] if params else None,
                    )
                )
        elif role == "import":
            modules = caps.get("import.module")
            if modules:
                names = caps.get("import.name")
                aliases = caps.get("import.alias") or caps.get("import.default")
                out.imports.append(
                    ImportMatch(
                        stmt=caps["import"][0],
                        module=min(modules, key=lambda n: n.start_byte),
                        module_end=max(n.end_byte for n in modules),
                        name=names[0] if names else None,
                        alias=aliases[0] if aliases else None,
                        default="import.default" in caps,
                    )
                )
        elif role.startswith("fact"):
            first: dict[str, Node | None] = {
                k: caps[k][0] if caps.get(k) else None for k in ("fact.name", "fact.value", "fact.type")
            }
            out.facts.append((role, caps[role][0], first["fact.name"], first["fact.value"], first["fact.type"]))
        elif role == "export":
            for node in caps.get("export", ()):
                out.export_ranges.add((node.start_byte, node.end_byte))
            for node in caps.get("export.name", ()):
                out.export_names.add((node.text or b"").decode("utf-8", "replace"))
    return out


def _receiver(recv: Node, name: Node) -> str:
    """Receiver text: the captured type, or for a receiver holding the name, the path before it."""
    raw = recv.text or b""
    if recv.start_byte <= name.start_byte and name.end_byte <= recv.end_byte:
        text = raw[: name.start_byte - recv.start_byte].decode("utf-8", "replace")
        while "<" in text:
            stripped = _TYPE_ARGS.sub("", text)
            if stripped == text:
                break  # unbalanced `<`: _clean_type cuts at it
            text = stripped
        return _clean_type(text.encode("utf-8")).strip(".")
    return _clean_type(raw)


def _clean_type(raw: bytes) -> str:
    """Reduce a receiver/impl type like `*Server[T]` or `ns::Foo<T>` to `Server` / `ns.Foo`."""
    text = raw.decode("utf-8", "replace")
    for stop in "<[(":
        text = text.split(stop, 1)[0]
    text = text.replace("::", ".").replace("*", " ").replace("&", " ")
    words = text.split()
    return words[-1] if words else ""


def dedupe_defs(defs: list[DefMatch]) -> list[DefMatch]:
    """One match per defined name, in source order, @open scopes stretched over what they enclose."""
    # Several patterns may name the same identifier (a decorated and a plain definition, an enum
    # and a class): the earliest pattern chooses the kind, the widest node gives the range.
    groups: dict[tuple[int, int], list[DefMatch]] = {}
    for d in defs:
        groups.setdefault((d.name_node.start_byte, d.name_node.end_byte), []).append(d)
    names: list[tuple[int, int]] = []  # every name's range, sorted: only read where a scope is also a definition
    merged: list[DefMatch] = []
    for group in groups.values():
        group.sort(key=lambda d: d.pattern)
        first = group[0]
        also = next((d for d in group if not d.is_scope), None) if first.is_scope else None
        if also is not None and not _encloses_another(first, names or (names := sorted(groups))):
            # `export const Build = { isDev: true }`: a scope with nothing to qualify is the constant it also is.
            first = also
            group = [first, *(d for d in group if d is not first)]
        if len(group) > 1:
            widest = max(group, key=lambda d: d.end_byte - d.node.start_byte)
            first.body = first.body or next((d.body for d in group if d.body is not None), None)
            if first.body is None:
                first.body = first.node.child_by_field_name("body")
            first.receiver = first.receiver or next((d.receiver for d in group if d.receiver), "")
            first.arg_range = first.arg_range or next((d.arg_range for d in group if d.arg_range), None)
            first.parameters = first.parameters or next((d.parameters for d in group if d.parameters), None)
            first.node, first.end_byte, first.end_line = widest.node, widest.end_byte, widest.end_line
            first.is_open = any(d.is_open for d in group)
            first.is_declaration = any(d.is_declaration for d in group)
        merged.append(first)
    _extend_open(merged)
    merged.sort(key=lambda d: (d.node.start_byte, -d.end_byte, d.pattern))
    return merged


def _encloses_another(scope: DefMatch, names: list[tuple[int, int]]) -> bool:
    """Whether another definition's name lies inside ``scope``'s node (``names``: every name's byte range, sorted)."""
    i = bisect.bisect_right(names, (scope.name_node.start_byte, scope.name_node.end_byte))
    return i < len(names) and names[i][0] < scope.node.end_byte


def _extend_open(defs: list[DefMatch]) -> None:
    """Stretch each @open scope over its following siblings, up to the next @open one or its parent's end."""
    opens = sorted((d for d in defs if d.is_open), key=lambda d: d.node.start_byte)
    for i, d in enumerate(opens):
        parent = d.node.parent
        if parent is None:
            continue
        last: Node = parent
        nxt = opens[i + 1].node if i + 1 < len(opens) else None
        if nxt is not None and nxt.parent == parent:
            # `namespace A; ... namespace B; ...` (PHP): A ends with the statement before B.
            last = nxt.prev_sibling or d.node
        if last.end_byte > d.end_byte:
            d.end_byte, d.end_line = last.end_byte, end_line(last)


def end_line(node: Node) -> int:
    """The 1-based line a node ends on."""
    row, col = node.end_point
    start_row = node.start_point[0]
    # A node ending right after a newline ends on the previous line.
    return row if col == 0 and row > start_row else row + 1
