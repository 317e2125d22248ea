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
  @parameters on a @definition's parameter list         the argument counts a call of it may pass (overloads) and,
                                                       in Java, its parameter types (a "()p" fact)
  @reference.<call|inherits|implements|type> + @name [+ @qualifier] [+ @arguments]
                                                       @arguments: a call's argument list, counted
  @import + @import.module [+ @import.name] [+ @import.alias | @import.default]
  @export                                              a node whose top-level definitions are exported
  @export.name                                         an identifier exported by a list (`export { a }`)
  @fact + @fact.name [+ @fact.value | @fact.type]     a name bound in the innermost scope (`x = Session()`,
                                                       `x: Session`; neither = opaque, e.g. a parameter);
  @fact.attr (same captures)                           binds an instance attribute (`self.x = ...`): stored in
                                                       the innermost scope under the name ".x";
  @fact.return + @fact.type                            a function's return annotation
  @fact.element + @fact.name + @fact.value             a name bound to an element of the value (Go's range)
  @fact.variadic + @fact.name + @fact.type             a parameter holding any number of the type (`...T`)
  @fact.second + @fact.name + @fact.value              a name bound to the second result of the call (Go)
  @fact.return2 + @fact.type                           a function's second result (stored as "()2")
A pattern's role is the capture on its outer node; @export patterns carry no other role.
Query pitfalls met so far: py-tree-sitter 0.26 ignores `#not-any-of?` (use `#not-match?`), and a
field repeated in one node (`name: a, name: b`) only matches its first child; drop the field name.
Nothing here branches on the language name: per-language rules are fields of LanguageSpec.
The matches are sorted into their roles by captures.py; docstrings are read by docstrings.py.
"""

from __future__ import annotations

import bisect
import logging
import re
import threading
from collections.abc import Callable
from pathlib import Path

from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree
from tree_sitter_language_pack import get_language, get_parser

from igraph_mcp.index import cpp_argument_hints as cpp_hints
from igraph_mcp.index.argument_hints import PARAMETERS_FACT, argument_hints, parameter_types, type_name
from igraph_mcp.index.captures import (
    DefMatch,
    Matches,
    argument_count,
    c_argument_range,
    c_declarator,
    collect,
    dedupe_defs,
    node_text,
)
from igraph_mcp.index.docstrings import docstring, python_docstring
from igraph_mcp.index.jsdoc import jsdoc_facts
from igraph_mcp.index.macro_defs import add_macro_definitions
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
from igraph_mcp.index.rust_syntax import blanket_impl, is_path_word, token_path, use_imports
from igraph_mcp.vocab.languages import FUNCTION_LIKE, LanguageSpec, get_spec
from igraph_mcp.vocab.source import normalize_source

log = logging.getLogger(__name__)

QUERY_DIR = Path(__file__).parent / "queries"
MAX_SIGNATURE = 200
MAX_QUALIFIER = 120
# Header bytes read when a definition has no body (type aliases, constants, prototypes).
_HEADER_SCAN = 600

_TOP_KINDS = frozenset({"module", "namespace"})

_WS = re.compile(r"\s+")
_WORD = re.compile(r"[\w$#]+")
# Blanking keeps newlines, so every line number and byte offset after the blanked text stays valid.
_BLANK = re.compile(rb"[^\n]")
_blank_patterns: dict[str, re.Pattern[bytes]] = {}

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


def _last_line(source: bytes) -> int:
    lines = source.count(b"\n")
    return max(1, lines if source.endswith(b"\n") else lines + 1)


def _signature(source: bytes, d: DefMatch) -> str:
    node = d.node
    body = d.body if d.body is not None else node.child_by_field_name("body")
    if body is not None and body.start_byte > node.start_byte:
        header = source[node.start_byte : body.start_byte]
    else:
        header = source[node.start_byte : min(node.end_byte, node.start_byte + _HEADER_SCAN)]
    text = _WS.sub(" ", header.decode("utf-8", "replace")).strip().rstrip(":{ ").strip()
    return text[:MAX_SIGNATURE]


def _has_export_ancestor(node: Node, ranges: set[tuple[int, int]]) -> bool:
    cur: Node | None = node
    while cur is not None:
        if (cur.start_byte, cur.end_byte) in ranges:
            return True
        cur = cur.parent
    return False


def _is_exported(source: bytes, spec: LanguageSpec, d: DefMatch, parent: Symbol, m: Matches) -> bool:
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


def _build_symbols(source: bytes, spec: LanguageSpec, pf: ParsedFile, m: Matches) -> None:
    stack: list[DefMatch] = []
    for d in dedupe_defs(m.defs):
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
        name = node_text(source, d.name_node).strip()
        if name in spec.statement_keywords:
            continue
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
        doc, doc_line = docstring(source, spec, d.node, d.body)
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
                docstring=doc,
                parent=parent_index,
                exported=_is_exported(source, spec, d, parent, m),
                declaration=d.is_declaration,
                **_arg_range(d, spec),
                doc_line=doc_line,
            )
        )
        if d.parameters is not None and d.arg_range not in (None, (0, 0)):
            # Java: overloads of one count are told apart by their parameter types (index/overloads.py).
            pf.facts.append(Fact(d.index, PARAMETERS_FACT, "params", parameter_types(d.parameters)))
        elif spec.name == "cpp" and kind in ("function", "method"):
            # C++ too, and a member by its `const` (index/cpp_argument_types.py).
            declarator = c_declarator(d.name_node)
            written = cpp_hints.parameter_text(declarator) if declarator is not None else None
            if written is not None:
                pf.facts.append(Fact(d.index, PARAMETERS_FACT, "params", written))
        stack.append(d)


def _arg_range(d: DefMatch, spec: LanguageSpec) -> dict[str, int]:
    """Symbol's min_args/max_args from a @parameters capture, or a C or C++ function's declarator; none (the
    "unknown" defaults) without one."""
    found = d.arg_range
    if found is None and spec.family == "c" and d.kind in ("function", "method"):
        found = c_argument_range(d.name_node)
    return {} if found is None else {"min_args": found[0], "max_args": found[1]}


# C and C++: what a called name sits in, up to its call (`a.b->f<T>(x)`, `ns::f(x)`).
_C_CALLEE_WRAPPERS = frozenset({"field_expression", "qualified_identifier", "template_function", "template_method"})


def _c_arguments(name_node: Node) -> Node | None:
    """The argument list of the C or C++ call or `new` whose callee is named at ``name_node``."""
    node = name_node.parent
    while node is not None and node.type in _C_CALLEE_WRAPPERS:
        node = node.parent
    if node is not None and node.type == "field_initializer":
        return next((c for c in node.named_children if c.type == "argument_list"), None)
    if node is None or node.type not in ("call_expression", "new_expression"):
        return None
    arguments = node.child_by_field_name("arguments")
    return arguments if arguments is not None and arguments.type == "argument_list" else None


def _in_initialiser(name_node: Node) -> bool:
    """Whether a name is what a C++ constructor's initialiser (`: Base(x)`, `: name_(x)`) initialises."""
    parent = name_node.parent
    if parent is not None and parent.type == "template_method":
        parent = parent.parent
    return parent is not None and parent.type == "field_initializer"


def _initialises_field(name_node: Node) -> bool:
    """Whether a C++ constructor's initialiser `name(x)` names a field (or anything else) rather than a base class
    of its class, or the class itself (a delegating constructor). A constructor defined outside its class knows
    only the class's own name."""
    node = name_node.parent
    while node is not None and node.type != "function_definition":
        node = node.parent
    declarator = node.child_by_field_name("declarator") if node is not None else None
    if node is None or declarator is None:
        return True
    own = declarator.child_by_field_name("declarator")
    name = (own.text or b"").rpartition(b"::")[2] if own is not None else b""
    if name_node.text == name:
        return False
    cls = node.parent.parent if node.parent is not None and node.parent.type == "field_declaration_list" else None
    clause = next((c for c in cls.children if c.type == "base_class_clause"), None) if cls is not None else None
    if clause is None:
        return True
    bases = set()
    for base in clause.named_children:
        while base.type in ("qualified_identifier", "template_type"):
            inner = base.child_by_field_name("name")
            if inner is None:
                break
            base = inner
        bases.add(base.text)
    return name_node.text not in bases


def _innermost(symbols: list[Symbol], starts: list[int], pos: int) -> int:
    i = bisect.bisect_right(starts, pos) - 1
    while i > 0:
        sym = symbols[i]
        if sym.start_byte <= pos < sym.end_byte:
            return i
        i = sym.parent or 0
    return 0


def _scope_owner(pf: ParsedFile, scopes: list[DefMatch], starts: list[int], node: Node) -> int:
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


# Argument lists and comments inside a receiver path, per language family: what the receiver is does not depend on
# them, and a builder chain's strings and regular expressions (`edit(/a(b/).replace('x', y)`) would break the path
# apart. Java's `new Foo(x).f()` reads `Foo.new().f()`: with whitespace dropped, `new Foo` would read as one name.
_ARGUMENT_NODES = {
    "ecmascript": frozenset({"arguments"}),
    "java": frozenset({"argument_list"}),
    "rust": frozenset({"arguments"}),
    "c": frozenset({"argument_list"}),
}
_CREATION = "object_creation_expression"
# Nodes a qualifier's walk visits at most; an ordinary receiver path takes tens.
_WALK_BUDGET = 120


def _expression_text(source: bytes, spec: LanguageSpec, node: Node) -> str:
    """A qualifier's or a fact's text without whitespace, cut at MAX_QUALIFIER; in ECMAScript and Java each call's
    arguments read `()` and comments are dropped (`edit(re).replace('a', b)` -> `edit().replace()`), a Java
    `new Foo(x)` reads `Foo.new()`, and C's and C++'s `p->f` reads `p.f` (a receiver path, pointer or not)."""
    family = spec.family or spec.name
    collapsed = _ARGUMENT_NODES.get(family)
    raw = node_text(source, node)
    if collapsed is None or not ("(" in raw or "/" in raw):  # no call, creation or comment in it: nothing to rewrite
        return _path_text(raw, family)
    pieces: list[bytes] = []
    at = node.start_byte
    stack = [node]
    budget = _WALK_BUDGET
    while stack:
        budget -= 1
        if budget < 0:  # a generated chain thousands of calls deep: each of its calls' qualifiers walked it all
            return _path_text(raw, family)
        cur = stack.pop()
        created = cur.child_by_field_name("type") if family == "java" and cur.type == _CREATION else None
        if created is not None:
            pieces.append(source[at : cur.start_byte])
            pieces.append(f"{type_name(node_text(source, created))}.new()".encode())
            at = cur.end_byte
            continue
        collapse = cur.type in collapsed and cur.start_byte > node.start_byte
        if collapse or "comment" in cur.type:
            pieces.append(source[at : cur.start_byte])
            pieces.append(b"()" if collapse else b"")
            at = cur.end_byte
            continue
        stack.extend(reversed(cur.children))
    pieces.append(source[at : node.end_byte])
    return _path_text(b"".join(pieces).decode("utf-8", "replace"), family)


def _path_text(text: str, family: str) -> str:
    """``text`` without whitespace (C's and C++'s `p->f` as `p.f`), cut at MAX_QUALIFIER."""
    text = _WS.sub("", text)
    return (text.replace("->", ".") if family == "c" else text)[:MAX_QUALIFIER]


def _add_facts(source: bytes, spec: LanguageSpec, pf: ParsedFile, m: Matches, starts: list[int]) -> None:
    """Turn @fact matches into Facts owned by their innermost scope (the method, for `self.x = ...`); in Rust, a
    name a pattern states nothing about is left out where another pattern types the same name (`Some(m)`)."""
    typed = {n.start_byte for _r, _n, n, v, t in m.facts if n is not None and (v is not None or t is not None)}
    stated = typed if spec.name == "rust" else set()
    for role, node, name_node, value, type_node in m.facts:
        if value is None and type_node is None and name_node is not None and name_node.start_byte in stated:
            continue
        index = _innermost(pf.symbols, starts, node.start_byte)
        if role in ("fact.return", "fact.return2"):
            name = "()2" if role == "fact.return2" else "()"
        elif role == "fact.positional" and type_node is not None:  # a tuple struct's field: `self.0`
            name = str(next(i for i, t in enumerate(node.children_by_field_name("type")) if t.id == type_node.id))
        elif name_node is not None:
            # The value of `self.x = v` is written in the method: keep it there, where `v` can be looked up.
            name = ("." if role == "fact.attr" else "") + node_text(source, name_node).strip()
        else:
            continue
        if role == "fact.element" and value is not None:
            kind, text_node = "element", value
        elif role == "fact.unwrap" and value is not None:  # Rust's `if let Some(x) = v`: what v's result holds
            kind, text_node = "unwrap", value
        elif role == "fact.second" and value is not None:
            kind, text_node = "second", value
        elif type_node is not None:
            kind, text_node = "type", type_node
        elif value is not None:
            kind, text_node = "value", value
        else:
            kind, text_node = "opaque", None
        if spec.name == "rust" and text_node is not None and text_node.type == "reference_expression":
            text_node = text_node.child_by_field_name("value") or text_node  # `for s in &mut xs`: what xs holds
        text = _expression_text(source, spec, text_node) if text_node is not None else ""
        if spec.name == "rust" and kind == "type" and text_node is not None:
            text = " ".join(node_text(source, text_node).split())  # `&'a mut T`, `dyn T`: its words apart
        if role == "fact.variadic" and kind == "type":  # `opts ...T` is a slice of T, never a T
            text = "..." + text
        pf.facts.append(Fact(source=index, name=name, kind=kind, text=text))
        if spec.name == "cpp" and kind == "type" and name_node is not None and role == "fact":
            declared = cpp_hints.declarator_text(node, name_node)
            if declared:
                pf.facts.append(Fact(source=index, name=name, kind=cpp_hints.DECLARATOR_FACT, text=declared))


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
        pf.facts.extend(jsdoc_facts(source, pf.symbols))  # `@param {T} x` types x as the TypeScript compiler does
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
    if merge_missing(lead, other, spec.class_kinds, _name_blanked(source, work)):
        sort_symbols(lead)
    lead.has_error = True  # the file itself is still one tree-sitter cannot read whole: a partial parse
    return lead


def _name_blanked(source: bytes, work: bytes) -> Callable[[Symbol], bool]:
    """Whether a definition's name, where it is first written inside the definition, is blanked in `work` (the
    same bytes as `source` with runs turned into spaces): a macro the first reading took for a definition. A
    `#define` of that macro is never blanked, so it stays."""

    def blanked(sym: Symbol) -> bool:
        name = sym.name.encode("utf-8")
        if not name:
            return False
        at = re.compile(rb"(?<![\w$])" + re.escape(name) + rb"(?![\w$])").search(source, sym.start_byte, sym.end_byte)
        return at is not None and work[at.start()] != source[at.start()]

    return blanked


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
        module_doc = python_docstring(source, root)
    pf.symbols.append(_module_symbol(source, module_doc))
    m = collect(query, root, _roles.setdefault(spec.name, {}))
    _build_symbols(source, spec, pf, m)
    if spec.family == "c" and add_macro_definitions(source, pf):
        sort_symbols(pf)

    starts = [s.start_byte for s in pf.symbols]
    scopes = [d for d in m.defs if d.is_scope and d.qualified]
    # A type reference pattern may also hit the name being defined (`type Alias = ...`).
    # A call pattern may also hit a definition's own head (Elixir `def draw(x)`, Julia `function f(x)`).
    seen: set[tuple[str, int]] = {(k, d.name_node.start_byte) for d in m.defs for k in ("references", "calls")}
    # When two patterns hit one name, the qualified reading (`pkg.Type`) wins over the bare one.
    for kind, name_node, qual_node, arity, args in sorted(
        m.refs, key=lambda r: (r.name.start_byte, r.qualifier is None)
    ):
        key = (kind, name_node.start_byte)
        if key in seen:
            continue
        seen.add(key)
        qualifier = _expression_text(source, spec, qual_node) if qual_node is not None else ""
        if spec.name == "rust" and name_node.parent is not None and name_node.parent.type == "token_tree":
            path = token_path(name_node)  # a call inside a macro's arguments: its path from the tokens
            if path is None:
                continue
            qualifier = path
        if spec.name == "rust" and is_path_word(qual_node):
            qualifier += "::"  # Rust's `self::f()` is this module's f, where `self.f()` is a method
        hints = argument_hints(args) if args is not None and arity > 0 else ""
        if spec.name == "cpp" and kind == "calls" and _in_initialiser(name_node) and _initialises_field(name_node):
            continue
        if kind == "implements" and spec.name == "rust" and blanket_impl(name_node):
            continue  # `impl<T> Log for &T`: no definition implements it, nor does the module ("src.lib implements")
        source_index = _scope_owner(pf, scopes, starts, name_node)
        if spec.family == "c" and kind == "calls" and args is None:
            # counted for C++ overloads, and C++'s argument forms read for their types
            counted = _c_arguments(name_node)
            arity = argument_count(counted) if counted is not None else -1
            if counted is not None and arity > 0 and spec.name == "cpp":
                hints = cpp_hints.argument_hints(counted)
        pf.references.append(
            Reference(
                kind=kind,
                name=node_text(source, name_node).strip(),
                source=source_index,
                line=name_node.start_point[0] + 1,
                qualifier=qualifier,
                arity=arity,
                arguments=hints,
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
        name_text = node_text(source, name).strip() if name is not None else ""
        pf.imports.append(
            Import(
                module=_clean_module(_module_text(source, imp.module, name, imp.module_end)),
                name="default" if imp.default else name_text,
                alias=node_text(source, alias).strip() if alias is not None else "",
                line=imp.stmt.start_point[0] + 1,
            )
        )
    if spec.name == "rust":
        pf.imports.extend(use_imports(tree.root_node, source))
        pf.imports.sort(key=lambda i: i.line)
    return pf, tree
