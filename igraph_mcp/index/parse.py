"""Generic tree-sitter extraction driven by the query captures and the language table.

Capture names understood in queries/<language>.scm (this list is the convention; the .scm files follow it):
  @definition.<kind> + @name [+ @body] [+ @receiver]   a symbol; @receiver qualifies it ("Server.Start");
                                                       a @receiver holding @name qualifies with its text
                                                       before the name (C++ `A::B::f` -> "A.B.f")
  @declaration on a @definition node                   a declaration without an implementation (an overload or
                                                       interface signature, a prototype); any pattern naming the
                                                       same identifier with it marks the symbol
  @open on a @definition node                          a body-less scope (`namespace A.B;`) that encloses
                                                       its following siblings, up to the next @open one
  @scope + @name                                       a container that qualifies nested names (Rust impl)
  @reference.<call|inherits|implements|type> + @name [+ @qualifier]
  @import + @import.module [+ @import.name] [+ @import.alias | @import.default]
  @export                                              a node whose top-level definitions are exported
  @export.name                                         an identifier exported by a list (`export { a }`)
  @fact + @fact.name [+ @fact.value | @fact.type]     a name bound in the innermost scope (`x = Session()`,
                                                       `x: Session`; neither = opaque, e.g. a parameter);
  @fact.attr (same captures)                           binds an instance attribute (`self.x = ...`): stored in
                                                       the innermost scope under the name ".x";
  @fact.return + @fact.type                            a function's return annotation
A pattern's role is the capture on its outer node; @export patterns carry no other role.
Query pitfalls met so far: py-tree-sitter 0.26 ignores `#not-any-of?` (use `#not-match?`), and a
field repeated in one node (`name: a, name: b`) only matches its first child; drop the field name.
Nothing here branches on the language name: per-language rules are fields of LanguageSpec.
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree
from tree_sitter_language_pack import get_language, get_parser

from igraph_mcp.index.jsdoc import jsdoc_facts
from igraph_mcp.index.model import Fact, Import, ParsedFile, Reference, Symbol
from igraph_mcp.index.nesting import cap_nesting
from igraph_mcp.index.recover import (
    MAX_RESTARTS,
    PATIENCE,
    bracket_group_end,
    error_bytes,
    find_errors,
    hidden_lines,
    hiding_error,
    hiding_error_byte,
    line_bounds,
    merge_missing,
    new_symbols,
    sort_symbols,
)
from igraph_mcp.vocab.languages import FUNCTION_LIKE, LanguageSpec, get_spec
from igraph_mcp.vocab.source import normalize_source

log = logging.getLogger(__name__)

QUERY_DIR = Path(__file__).parent / "queries"
MAX_SIGNATURE = 200
MAX_DOCSTRING = 2000
MAX_QUALIFIER = 120
# Header bytes read when a definition has no body (type aliases, constants, prototypes).
_HEADER_SCAN = 600

_REF_KINDS = {
    "call": "calls",
    "inherits": "inherits",
    "implements": "implements",
    "type": "references",
    "references": "references",
}
_PLAIN_ROLES = frozenset({"scope", "import", "fact", "fact.attr", "fact.return"})
_TOP_KINDS = frozenset({"module", "namespace"})
# Innermost template/generic argument lists, removed until none is left (`A<B<T>>::C` -> `A::C`).
_TYPE_ARGS = re.compile(r"<[^<>]*>")

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[\w$#]+")
_LINE_MARKER = re.compile(r"^\s*(?:///?|//!|#+|--)\s?")
# Blanking keeps newlines, so every line number and byte offset after the blanked text stays valid.
_BLANK = re.compile(rb"[^\n]")
_blank_patterns: dict[str, re.Pattern[bytes]] = {}
_BLOCK_LINE = re.compile(r"^\s*\*(?!/)\s?")
_XML_DOC_TAG = re.compile(r"</?(?:summary|remarks|returns|para|value|example)\s*>")
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")

_compile_lock = threading.Lock()
_queries: dict[str, Query] = {}
_roles: dict[str, dict[int, str]] = {}  # language -> pattern index -> role capture name
_thread = threading.local()


def load_query(spec: LanguageSpec) -> Query:
    """Return the compiled query for a language, compiling and caching it on first use."""
    query = _queries.get(spec.name)
    if query is not None:
        return query
    with _compile_lock:
        query = _queries.get(spec.name)
        if query is None:
            parts = []
            for fname in spec.queries:
                path = QUERY_DIR / fname
                if path.is_file():
                    parts.append(path.read_text(encoding="utf-8"))
                else:
                    # A language whose queries are not written yet still yields its module symbol.
                    log.warning("query file %s missing; %s files get no symbols", fname, spec.name)
            query = Query(get_language(spec.grammar), "\n".join(parts))  # type: ignore[arg-type]
            _queries[spec.name] = query
    return query


def _parser(spec: LanguageSpec) -> Parser:
    # Parsers keep per-parse state, so each thread gets its own.
    cache: dict[str, Parser] | None = getattr(_thread, "parsers", None)
    if cache is None:
        cache = _thread.parsers = {}
    parser = cache.get(spec.name)
    if parser is None:
        parser = cache[spec.name] = get_parser(spec.grammar)  # type: ignore[arg-type]
    return parser


def _host_regions(spec: LanguageSpec, source: bytes) -> list[Range]:
    """Byte ranges of the embedded code (`<script>` of a Vue or Svelte file), found with the host grammar."""
    key = f"host:{spec.name}"
    query = _queries.get(key)
    if query is None:
        with _compile_lock:
            query = _queries[key] = Query(get_language(spec.host_grammar), spec.host_regions)  # type: ignore[arg-type]
    root = get_parser(spec.host_grammar).parse(source).root_node  # type: ignore[arg-type]
    nodes = [n for _p, caps in QueryCursor(query).matches(root) for n in caps.get("region", ())]
    return [
        Range(n.start_point, n.end_point, n.start_byte, n.end_byte) for n in sorted(nodes, key=lambda n: n.start_byte)
    ]


@dataclass(slots=True)
class _Def:
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


@dataclass(slots=True)
class _RawImport:
    """One @import match; `default` marks an ES default import bound by @import.default."""

    stmt: Node
    module: Node
    name: Node | None
    alias: Node | None
    module_end: int = 0  # several @import.module nodes (`scala.collection.Map`) span from first to last
    default: bool = False


@dataclass(slots=True)
class _Matches:
    """Captures of one file, sorted into their roles."""

    defs: list[_Def]
    refs: list[tuple[str, Node, Node | None]]
    imports: list[_RawImport]
    export_ranges: set[tuple[int, int]]
    export_names: set[str]
    facts: list[tuple[str, Node, Node | None, Node | None, Node | None]]  # role, node, name, value, type


def _text(source: bytes, node: Node) -> str:
    return source[node.start_byte : node.end_byte].decode("utf-8", "replace")


def _role_of(caps: dict[str, list[Node]]) -> str:
    """The capture that says what a pattern is about (fixed per pattern: it sits on the outer node)."""
    for key in caps:
        if key.startswith(("definition.", "reference.")) or key in _PLAIN_ROLES:
            return key
    return "export" if "export" in caps or "export.name" in caps else ""


def _collect(query: Query, root: Node, roles: dict[int, str]) -> _Matches:
    out = _Matches([], [], [], set(), set(), [])
    for pattern, caps in QueryCursor(query).matches(root):
        role = roles.get(pattern)
        if role is None:
            role = roles[pattern] = _role_of(caps)
        if role.startswith("reference."):
            kind = _REF_KINDS.get(role[10:])
            name_nodes = caps.get("name")
            if kind and name_nodes:
                qual = caps.get("qualifier")
                for name_node in name_nodes:
                    out.refs.append((kind, name_node, qual[0] if qual else None))
        elif role.startswith("definition.") or role == "scope":
            body = caps.get("body")
            recv = caps.get("receiver")
            # A @body after the definition node (Dart: signature, then body) extends the definition over it, and
            # so does a second node of the same capture (Haskell: type signature, then equation).
            last = max((*caps[role], *(body or ())), key=lambda n: n.end_byte)
            # `const a, b = 1, 2` names two symbols in one match; each gets the whole node.
            for name_node in caps.get("name", ()):
                out.defs.append(
                    _Def(
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
                        end_line=_end_line(last),
                    )
                )
        elif role == "import":
            modules = caps.get("import.module")
            if modules:
                names = caps.get("import.name")
                aliases = caps.get("import.alias") or caps.get("import.default")
                out.imports.append(
                    _RawImport(
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


def _dedupe_defs(defs: list[_Def]) -> list[_Def]:
    # Several patterns may name the same identifier (a decorated and a plain definition, an enum
    # and a class): the earliest pattern chooses the kind, the widest node gives the range.
    groups: dict[tuple[int, int], list[_Def]] = {}
    for d in defs:
        groups.setdefault((d.name_node.start_byte, d.name_node.end_byte), []).append(d)
    merged: list[_Def] = []
    for group in groups.values():
        group.sort(key=lambda d: d.pattern)
        first = group[0]
        if len(group) > 1:
            widest = max(group, key=lambda d: d.end_byte - d.node.start_byte)
            first.body = first.body or next((d.body for d in group if d.body is not None), None)
            if first.body is None:
                first.body = first.node.child_by_field_name("body")
            first.receiver = first.receiver or next((d.receiver for d in group if d.receiver), "")
            first.node, first.end_byte, first.end_line = widest.node, widest.end_byte, widest.end_line
            first.is_open = any(d.is_open for d in group)
            first.is_declaration = any(d.is_declaration for d in group)
        merged.append(first)
    _extend_open(merged)
    merged.sort(key=lambda d: (d.node.start_byte, -d.end_byte, d.pattern))
    return merged


def _extend_open(defs: list[_Def]) -> None:
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
            d.end_byte, d.end_line = last.end_byte, _end_line(last)


def _last_line(source: bytes) -> int:
    lines = source.count(b"\n")
    return max(1, lines if source.endswith(b"\n") else lines + 1)


def _end_line(node: Node) -> int:
    row, col = node.end_point
    start_row = node.start_point[0]
    # A node ending right after a newline ends on the previous line.
    return row if col == 0 and row > start_row else row + 1


def _signature(source: bytes, d: _Def) -> str:
    node = d.node
    body = d.body if d.body is not None else node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        header = source[node.start_byte : body.start_byte]
    else:
        header = source[node.start_byte : min(node.end_byte, node.start_byte + _HEADER_SCAN)]
    text = _WS.sub(" ", header.decode("utf-8", "replace")).strip().rstrip(":{ ").strip()
    return text[:MAX_SIGNATURE]


def _clean_python_string(raw: str) -> str:
    text = _STRING_PREFIX.sub("", raw.strip(), count=1)
    for quote in ('"""', "'''", '"', "'"):
        if text.startswith(quote) and text.endswith(quote) and len(text) >= 2 * len(quote):
            text = text[len(quote) : -len(quote)]
            break
    return _dedent(text.splitlines())


def _dedent(lines: list[str]) -> str:
    """Like inspect.cleandoc: strip the common indent of lines after the first, drop blank edges."""
    if not lines:
        return ""
    first = lines[0].strip()
    rest = lines[1:]
    indents = [len(ln) - len(ln.lstrip()) for ln in rest if ln.strip()]
    cut = min(indents) if indents else 0
    body = [first, *(ln[cut:].rstrip() for ln in rest)]
    while body and not body[0]:
        body.pop(0)
    while body and not body[-1]:
        body.pop()
    return "\n".join(body)[:MAX_DOCSTRING]


def _python_docstring(source: bytes, body: Node | None) -> str:
    if body is None:
        return ""
    first = body.named_children[0] if body.named_child_count else None
    if first is not None and first.type == "expression_statement" and first.named_child_count:
        first = first.named_children[0]
    if first is None or first.type != "string":
        return ""
    return _clean_python_string(_text(source, first))


def _clean_comment(raw: str) -> list[str]:
    text = raw.strip()
    if text.startswith("/*"):
        text = text[3:] if text.startswith(("/**", "/*!")) else text[2:]
        text = text.removesuffix("*/")
        return [_BLOCK_LINE.sub("", ln, count=1) for ln in text.splitlines()]
    return [_LINE_MARKER.sub("", ln, count=1) for ln in text.splitlines()]


def _is_comment(node: Node) -> bool:
    return "comment" in node.type


def _tail_comment(node: Node | None) -> Node | None:
    """A comment nested at the very end of `node` (Kotlin attaches the comments after an import to it)."""
    while node is not None and node.child_count:
        node = node.children[-1]
        if _is_comment(node):
            return node
    return None


def _comment_docstring(source: bytes, node: Node, skip: frozenset[str]) -> str:
    start: Node | None = None  # the comment nearest the definition, when not its own sibling
    # Climb through wrappers that start on the definition's line (`export`, `type (`, `const`).
    for _ in range(4):
        prev = node.prev_sibling
        while prev is not None and prev.type in skip:
            prev = prev.prev_sibling
        if prev is not None and _is_comment(prev):
            break
        start = _tail_comment(prev)
        if start is not None:
            break
        parent = node.parent
        wrapper = (prev is None or not prev.is_named) and parent is not None and parent.parent is not None
        if wrapper and parent is not None and parent.start_point[0] == node.start_point[0]:
            node = parent
            continue
        return ""
    comments: list[Node] = []
    top_row = node.start_point[0]
    cur = start if start is not None else node.prev_sibling
    while cur is not None:
        if cur.type in skip:
            top_row = cur.start_point[0]
        elif _is_comment(cur) and _end_line(cur) >= top_row:  # _end_line is 1-based: adjacent line
            comments.append(cur)
            top_row = cur.start_point[0]
        else:
            break
        cur = cur.prev_sibling
    # A comment trailing code on the same line belongs to that code, not to us.
    if comments and cur is not None and _end_line(cur) - 1 == comments[-1].start_point[0]:
        comments.pop()
    lines: list[str] = []
    for comment in reversed(comments):
        lines.extend(_clean_comment(_text(source, comment)))
    text = _XML_DOC_TAG.sub("", "\n".join(lines))
    return _dedent(text.splitlines())


def _docstring(source: bytes, spec: LanguageSpec, d: _Def) -> str:
    if spec.docstring == "python_string":
        body = d.body if d.body is not None else d.node.child_by_field_name("body")
        return _python_docstring(source, body)
    if spec.docstring == "preceding_comment":
        return _comment_docstring(source, d.node, spec.doc_skip_types)
    return ""


def _has_export_ancestor(node: Node, ranges: set[tuple[int, int]]) -> bool:
    cur: Node | None = node
    while cur is not None:
        if (cur.start_byte, cur.end_byte) in ranges:
            return True
        cur = cur.parent
    return False


def _is_exported(source: bytes, spec: LanguageSpec, d: _Def, parent: Symbol, m: _Matches) -> bool:
    if parent.kind in FUNCTION_LIKE or not parent.exported:
        return False  # locals and members of hidden types are not visible outside the file
    name = d.name_node.text.decode("utf-8", "replace") if d.name_node.text else ""
    rule = spec.export_rule
    top = parent.kind in _TOP_KINDS
    if rule == "always":
        return True
    if rule == "python_underscore":
        return not name.startswith("_") or (name.startswith("__") and name.endswith("__"))
    if rule == "go_capitalized":
        return name[:1].isupper()
    words = set(_WORD.findall(source[d.node.start_byte : d.name_node.start_byte].decode("utf-8", "replace")))
    if rule == "js_export_keyword_or_toplevel":
        if top and parent.kind == "module" and not d.receiver:  # `app.render = ...` is a member of app
            # A file without any export is a script or CommonJS module: its top level is public.
            if not m.export_ranges and not m.export_names:
                return True
            return name in m.export_names or _has_export_ancestor(d.node, m.export_ranges)
        return not name.startswith("#") and not words & spec.private_modifiers
    if rule == "modifier_not_private":
        return not words & spec.private_modifiers
    if rule == "modifier_public":
        return bool(words & spec.public_modifiers) or top or parent.kind == "interface"
    if rule == "modifier_required":
        return bool(words & spec.public_modifiers)
    raise ValueError(f"unknown export rule {rule!r} in the table row for {spec.name}")


def _build_symbols(source: bytes, spec: LanguageSpec, pf: ParsedFile, m: _Matches) -> None:
    stack: list[_Def] = []
    for d in _dedupe_defs(m.defs):
        start, end = d.node.start_byte, d.end_byte
        # Pop entries that end before this one ends; an identical range is a sibling, not a parent.
        while stack and (
            stack[-1].end_byte < end
            or stack[-1].end_byte <= start
            or (stack[-1].node.start_byte == start and stack[-1].end_byte == end)
        ):
            stack.pop()
        outer = stack[-1] if stack else None
        parent_index = outer.index if outer is not None else 0
        parent = pf.symbols[parent_index]
        name = _text(source, d.name_node).strip()
        if d.receiver and outer is not None and outer.kind in spec.receiver_scope_kinds:
            # C++ `namespace geo { void Shape::draw() {} }`: the receiver is relative to geo.
            qualified = f"{outer.qualified}.{d.receiver}.{name}"
        elif d.receiver:
            qualified = f"{d.receiver}.{name}"
        elif outer is not None:
            qualified = f"{outer.qualified}.{name}"
        else:
            qualified = name
        d.qualified = qualified
        if d.is_scope:
            d.index = parent_index
            stack.append(d)
            continue
        kind = d.kind
        in_class = outer is not None and (outer.is_scope or outer.kind in spec.class_kinds)
        if kind == "function" and (in_class or d.receiver):
            kind = "method"
        d.kind = kind
        d.index = len(pf.symbols)
        pf.symbols.append(
            Symbol(
                kind=kind,
                name=name,
                qualified_name=qualified,
                start_line=d.node.start_point[0] + 1,
                end_line=d.end_line,
                start_byte=start,
                end_byte=end,
                signature=_signature(source, d),
                docstring=_docstring(source, spec, d),
                parent=parent_index,
                exported=_is_exported(source, spec, d, parent, m),
                declaration=d.is_declaration,
            )
        )
        stack.append(d)


def _innermost(symbols: list[Symbol], starts: list[int], pos: int) -> int:
    i = bisect.bisect_right(starts, pos) - 1
    while i > 0:
        sym = symbols[i]
        if sym.start_byte <= pos < sym.end_byte:
            return i
        i = sym.parent or 0
    return 0


def _scope_owner(pf: ParsedFile, scopes: list[_Def], starts: list[int], node: Node) -> int:
    """Source of a reference in a scope but in no symbol of it: the symbol the scope names, if here.

    `impl Trait for Foo { ... }` (a @scope named Foo) implements Trait on behalf of struct Foo.
    """
    index = _innermost(pf.symbols, starts, node.start_byte)
    sym = pf.symbols[index]
    owner = None
    for d in scopes:
        inside_sym = sym.start_byte <= d.node.start_byte and d.node.end_byte <= sym.end_byte
        holds_ref = d.node.start_byte <= node.start_byte < d.node.end_byte
        if inside_sym and holds_ref and (owner is None or d.node.start_byte > owner.node.start_byte):
            owner = d
    if owner is None:
        return index
    return next((i for i, s in enumerate(pf.symbols) if i and s.qualified_name == owner.qualified), index)


def _add_facts(source: bytes, spec: LanguageSpec, pf: ParsedFile, m: _Matches, starts: list[int]) -> None:
    """Turn @fact matches into Facts owned by their innermost scope (the method, for `self.x = ...`)."""
    for role, node, name_node, value, type_node in m.facts:
        index = _innermost(pf.symbols, starts, node.start_byte)
        if role == "fact.return":
            name = "()"
        elif name_node is not None:
            # The value of `self.x = v` is written in the method: keep it there, where `v` can be looked up.
            name = ("." if role == "fact.attr" else "") + _text(source, name_node).strip()
        else:
            continue
        if type_node is not None:
            kind, text_node = "type", type_node
        elif value is not None:
            kind, text_node = "value", value
        else:
            kind, text_node = "opaque", None
        text = _WS.sub("", _text(source, text_node))[:MAX_QUALIFIER] if text_node is not None else ""
        pf.facts.append(Fact(source=index, name=name, kind=kind, text=text))


def _module_text(source: bytes, module: Node, name: Node | None, module_end: int = 0) -> str:
    """Module text; a name captured inside the module node is cut off with its separator.

    Kotlin's grammar has one node for `a.b.C`, so its query captures it whole as the module and
    `C` as the name: the module is then "a.b".
    """
    if name is not None and module.start_byte < name.start_byte and name.end_byte <= module.end_byte:
        head = source[module.start_byte : name.start_byte].decode("utf-8", "replace")
        return head.rstrip().rstrip(".:\\/")
    return source[module.start_byte : max(module.end_byte, module_end)].decode("utf-8", "replace")


def _clean_module(text: str) -> str:
    return text.strip().strip("\"'`<>").strip()


def _module_symbol(source: bytes, docstring: str) -> Symbol:
    return Symbol(
        kind="module",
        name="",
        qualified_name="",
        start_line=1,
        end_line=_last_line(source),
        start_byte=0,
        end_byte=len(source),
        docstring=docstring,
        parent=None,
        exported=True,
    )


def blank_matches(source: bytes, pattern: str) -> bytes:
    """`source` with what `pattern` matches (its group 1 when it has one) turned into spaces, newlines kept."""
    return rewrite_matches(source, pattern, (" ",))


def rewrite_matches(source: bytes, pattern: str, fills: tuple[str, ...]) -> bytes:
    """`source` with each group of `pattern`'s matches (the whole match when it has none) rewritten, same length.

    fills[i] rewrites group i + 1: a text of the group's exact length replaces it, a single character fills it
    (newlines kept), so every offset and line stays where it was. Groups that did not take part are left alone.
    """
    regex = _blank_patterns.get(pattern)
    if regex is None:
        regex = _blank_patterns[pattern] = re.compile(pattern.encode("utf-8"), re.M)
    groups = list(range(1, regex.groups + 1)) if regex.groups else [0]
    if len(fills) != len(groups) or not all(fills):
        raise ValueError(
            f"pattern {pattern!r} has {len(groups)} groups to rewrite but {len(fills)} fills (each fill non-empty)"
        )
    texts = [fill.encode("utf-8") for fill in fills]

    def rewrite(m: re.Match[bytes]) -> bytes:
        out, pos = [], m.start()
        for group, text in zip(groups, texts, strict=True):
            start, end = m.span(group)
            if start < 0:
                continue
            out.append(m.string[pos:start])
            if len(text) == end - start:
                out.append(text)
            else:
                out.append(bytes(c if c == 10 else text[0] for c in m.string[start:end]))  # newlines kept
            pos = end
        out.append(m.string[pos : m.end()])
        return b"".join(out)

    return regex.sub(rewrite, source)


def parse_source(source: bytes, language: str, path: str = "") -> ParsedFile:
    """Parse one file's bytes into symbols, references and imports; ValueError for an unknown language.

    ``path`` (optional) tells a declaration file (``spec.declaration_suffixes``, e.g. `.d.ts`): all its symbols,
    its module's included, are declarations.

    Syntax errors set has_error and keep what parsed, plus what a re-parse after the error finds (see recover.py)
    and, for C and C++, what a reading with the macros blanked finds; a `.h` header that C++ reads better than C is
    read as C++ (the result's language says which).
    Text nested past MAX_NESTING is parsed as blank (see nesting.py): has_error is set and deep_regions counts
    the regions. Offsets refer to normalize_source(source), which is `source` itself for UTF-8 input.
    """
    spec = get_spec(language)
    query = load_query(spec)
    original, source = source, normalize_source(source)
    for pattern in spec.blank_before_parse:
        source = blank_matches(source, pattern)
    for pattern, *fills in spec.rewrite_before_parse:
        source = rewrite_matches(source, pattern, tuple(fills))
    capped = cap_nesting(source)
    source = capped.source
    regions: list[Range] = []
    if spec.host_grammar:
        regions = _host_regions(spec, source)
    if spec.host_grammar and not regions:  # a component without a script: only its module symbol
        pf = ParsedFile(language=language, symbols=[_module_symbol(source, "")])
    else:
        pf, tree = _parse_document(source, spec, query, regions)
        if tree.root_node.has_error:
            if _reads_better_as_shared(source, spec, path, tree):
                return parse_source(original, spec.shared_header_language, path)
            hidden = hidden_lines(find_errors(tree.root_node))
            if hidden:
                pf = _recover(source, spec, query, regions, pf, tree, hidden)
            if spec.blank_on_error:
                pf = _macro_reading(source, spec, query, regions, pf, tree)
    if capped.regions:
        pf.deep_regions = capped.regions
        pf.has_error = True  # stored as a partial parse: the blanked text has no symbols
    if path and spec.declaration_suffixes and path.lower().endswith(spec.declaration_suffixes):
        for sym in pf.symbols:  # its module too: a file of signatures, to be read after the code it describes
            sym.declaration = True
    if spec.family == "ecmascript":
        pf.facts.extend(jsdoc_facts(pf.symbols))  # `@param {T} x` types x as the TypeScript compiler does
    return pf


def _recover(
    source: bytes, spec: LanguageSpec, query: Query, regions: list[Range], pf: ParsedFile, tree: Tree, hidden: int
) -> ParsedFile:
    """Blank the line of the first error while that shrinks the lines errors hide (incremental tree-sitter parses
    only, which are cheap), then extract once more; keep that reading if it found definitions `pf` lacks."""
    parser = _parser(spec)  # _parse_document left the host file's included ranges on it
    work, best, stale = source, hidden, 0
    errors = find_errors(tree.root_node)
    for _ in range(MAX_RESTARTS):
        node = hiding_error(errors)
        group = 0
        if stale and node is not None:
            # blanking the error's line hid as much as before: blank the whole bracket group that the hiding ERROR
            # node opens on its first line (Groovy's map literal of closures, `[key: { ... }, ...]`, which
            # tree-sitter-groovy cannot read and which hides everything after it, line by line or not), unless the
            # group reaches the ERROR's last line: then nothing would be left to recover (a C header's
            # `extern "C" {`), and blanking it only costs a second extraction; a line that opens no group (a C
            # header's ERROR starting at its licence comment) is not blanked either
            start = line_bounds(work, node.start_byte)[0]
            group = bracket_group_end(source, start, node.end_byte)  # brackets as written, none blanked
            lines = source.count(b"\n", start, group)
            if not lines or lines + node.start_point[0] >= node.end_point[0]:
                group = 0
        if group:
            end = group
        else:
            start, end = line_bounds(work, hiding_error_byte(errors))
        if not work[start:end].strip():  # the error sits on an empty line (a missing token at the end)
            break
        work = work[:start] + _BLANK.sub(b" ", work[start:end]) + work[end:]
        row, last = work.count(b"\n", 0, start), work.rfind(b"\n", start, end)
        end_point = (row, end - start) if last < 0 else (row + work.count(b"\n", start, end), end - last - 1)
        tree.edit(start, end, end, (row, 0), end_point, end_point)
        tree = parser.parse(work, tree)
        errors = find_errors(tree.root_node) if tree.root_node.has_error else []
        now = hidden_lines(errors)
        stale = stale + 1 if now >= best else 0
        best = min(best, now)
        if not now or stale == PATIENCE:
            break
    if best >= hidden:
        return pf  # blanking did not uncover anything
    again, _tree = _parse_document(work, spec, query, regions)
    if not new_symbols(pf, again):
        return pf
    # the new reading leads; the first one adds what it alone saw (definitions on the blanked lines)
    if merge_missing(again, pf, spec.class_kinds):
        sort_symbols(again)
    again.has_error = True  # the file itself is still broken: it is stored as a partial parse
    return again


def _reads_better_as_shared(source: bytes, spec: LanguageSpec, path: str, tree: Tree) -> bool:
    """Whether a shared header (a `.h` read as C with errors) reads with less text in errors as the other language
    (C++: `template <...>`, `namespace`, classes); one tree-sitter parse decides, the other reading is then made."""
    if not (spec.shared_header_language and path.lower().endswith(spec.shared_header_suffixes)):
        return False
    other = _parser(get_spec(spec.shared_header_language)).parse(source)
    return error_bytes(other.root_node) < error_bytes(tree.root_node)


def _macro_reading(
    source: bytes, spec: LanguageSpec, query: Query, regions: list[Range], pf: ParsedFile, tree: Tree
) -> ParsedFile:
    """Read a file with syntax errors again with its macros blanked (spec.blank_on_error); when that leaves less text
    inside ERROR nodes, the new reading leads and the first adds the definitions only it found (none is lost)."""
    work = source
    for pattern in spec.blank_on_error:
        work = blank_matches(work, pattern)
    if work == source:
        return pf
    parser = _parser(spec)  # the costly part is the extraction: a reading that is no better is not extracted
    if spec.host_grammar:
        parser.included_ranges = regions
    if error_bytes(parser.parse(work).root_node) >= error_bytes(tree.root_node):
        return pf
    lead, _tree = _parse_document(work, spec, query, regions, text=source)
    other = pf
    if merge_missing(lead, other, spec.class_kinds):
        sort_symbols(lead)
    lead.has_error = True  # the file itself is still one tree-sitter cannot read whole: a partial parse
    return lead


def _parse_document(
    source: bytes, spec: LanguageSpec, query: Query, regions: list[Range], text: bytes | None = None
) -> tuple[ParsedFile, Tree]:
    """Parse `source` as one document (only `regions` of it, when given) and extract everything from the tree;
    names, signatures and docstrings are read from `text` when given (`source` with parts blanked, same offsets)."""
    parser = _parser(spec)
    if spec.host_grammar:
        parser.included_ranges = regions
    tree = parser.parse(source)
    if text is not None:
        source = text
    root = tree.root_node
    pf = ParsedFile(language=spec.name, has_error=root.has_error)
    module_doc = ""
    if spec.docstring == "python_string":
        module_doc = _python_docstring(source, root)
    pf.symbols.append(_module_symbol(source, module_doc))
    m = _collect(query, root, _roles.setdefault(spec.name, {}))
    _build_symbols(source, spec, pf, m)

    starts = [s.start_byte for s in pf.symbols]
    scopes = [d for d in m.defs if d.is_scope and d.qualified]
    # A type reference pattern may also hit the name being defined (`type Alias = ...`).
    # A call pattern may also hit a definition's own head (Elixir `def draw(x)`, Julia `function f(x)`).
    seen: set[tuple[str, int]] = {(k, d.name_node.start_byte) for d in m.defs for k in ("references", "calls")}
    # When two patterns hit one name, the qualified reading (`pkg.Type`) wins over the bare one.
    for kind, name_node, qual_node in sorted(m.refs, key=lambda r: (r[1].start_byte, r[2] is None)):
        key = (kind, name_node.start_byte)
        if key in seen:
            continue
        seen.add(key)
        qualifier = _WS.sub("", _text(source, qual_node))[:MAX_QUALIFIER] if qual_node is not None else ""
        pf.references.append(
            Reference(
                kind=kind,
                name=_text(source, name_node).strip(),
                source=_scope_owner(pf, scopes, starts, name_node),
                line=name_node.start_point[0] + 1,
                qualifier=qualifier,
            )
        )

    _add_facts(source, spec, pf, m, starts)

    seen_imports: set[tuple[int, int, int]] = set()
    # A bare pattern (`import './x'`) also matches statements that bind names; keep only the bindings.
    bound = {(i.stmt.start_byte, i.module.start_byte) for i in m.imports if i.name or i.alias}
    for imp in sorted(m.imports, key=lambda i: i.stmt.start_byte):
        name, alias = imp.name, imp.alias
        if not (name or alias) and (imp.stmt.start_byte, imp.module.start_byte) in bound:
            continue
        ikey = (imp.module.start_byte, name.start_byte if name else -1, alias.start_byte if alias else -1)
        if ikey in seen_imports:
            continue
        seen_imports.add(ikey)
        name_text = _text(source, name).strip() if name is not None else ""
        pf.imports.append(
            Import(
                module=_clean_module(_module_text(source, imp.module, name, imp.module_end)),
                name="default" if imp.default else name_text,
                alias=_text(source, alias).strip() if alias is not None else "",
                line=imp.stmt.start_point[0] + 1,
            )
        )
    return pf, tree
