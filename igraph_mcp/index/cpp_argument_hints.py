"""What a C++ call's arguments, a function's parameters and a declaration's declarator say about types, read from
the syntax tree, for choosing among overloads of one argument count (index/cpp_argument_types.py).

Types are compared in one written form: no `const`, `volatile` or references, no template arguments, namespaces
dropped but `std::` (`const std::vector<std::string> &` -> `std::vector`, `CLI::App *` -> `App*`), a `*` per level
of pointer (an array parameter is a pointer), `?` where the type is not known here (`auto`, a template's parameter, a
function pointer).

- A function's parameters are one text, ``(std::string,App*,?...) const``: `?...` a parameter pack, `...` C's
  variadic tail, ` const` a member callable on a const object.
- A call's arguments are comma-joined hints as Java's (index/argument_hints.py): a type the expression's form
  gives (`"a"` char*, `1` int, `true` bool, `nullptr`, `std::string(x)` std::string), ``=path`` for a name typed
  later in the caller's scope (`=opt`, `=this.parent_`, `=&x`, `=*p`, a namespace's `=CLI::ExistingFile`, a call
  `=CLI::Range()` that is a temporary where it names a class), ``?`` for anything else. A bare `0` is `?`:
  it is also a null pointer.
- A declaration's pointer levels and its `const` are a fact of kind "declarator" beside its "type" fact
  (``const*``: `const App *p`); a name declared neither `const` nor through a pointer has none.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from igraph_mcp.index.argument_hints import PATH, UNKNOWN, without_type_arguments

DECLARATOR_FACT = "declarator"  # the kind of the fact a declaration's `const` and pointer levels are written in
CONST = " const"  # the suffix of a const member's parameter text
PACK = "?..."
C_VARIADIC = "..."
NULLPTR = "nullptr"

# Words a written type keeps or drops on its way to the compared form.
_DROPPED = frozenset({"const", "volatile", "typename", "struct", "class", "enum", "union", "mutable", "constexpr"})
_STD_ALIASES = {"std::size_t": "size_t", "std::ptrdiff_t": "ptrdiff_t", "std::nullptr_t": NULLPTR}
_FIXED_WIDTH = re.compile(r"(?:std::)?(u?int(?:8|16|32|64|max|ptr)_t|u?int_(?:fast|least)\d+_t)$")
_PARAMETERS = frozenset({"parameter_declaration", "optional_parameter_declaration"})
_PACKS = frozenset({"variadic_parameter_declaration", "optional_type_parameter_declaration"})
_TEMPLATE_PARAMETERS = frozenset(
    {
        "type_parameter_declaration",
        "variadic_type_parameter_declaration",
        "optional_type_parameter_declaration",
        "template_template_parameter_declaration",
    }
)
_STRINGS = frozenset({"string_literal", "raw_string_literal", "concatenated_string"})
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})
_MAX_DEPTH = 32
_MAX_PATH = 120


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def cpp_type(text: str, pointers: int = 0, template_names: frozenset[str] = frozenset()) -> str:
    """A written type in the compared form (see the module docstring), ``pointers`` levels added by its declarator;
    ``?`` for `auto`, `decltype(..)` and a template's own parameter."""
    plain = without_type_arguments(text)  # `std::vector<std::string>` -> `std::vector`
    pointers += plain.count("*") + plain.count("[")
    words = [w for w in re.split(r"[\s*&\[\]]+", plain.replace("[]", " ")) if w and w not in _DROPPED]
    if not words:
        return UNKNOWN
    name = " ".join(words).lstrip(":")
    if name.startswith(("auto", "decltype")) or name in template_names:
        return UNKNOWN
    name = _STD_ALIASES.get(name, name)
    fixed = _FIXED_WIDTH.match(name)
    if fixed is not None:
        name = fixed.group(1)
    elif name.startswith("std::"):
        name = "std::" + name.rpartition("::")[2]
    else:
        name = name.rpartition("::")[2]
    return name + "*" * pointers


def _pointer_levels(declarator: Node | None) -> tuple[int, Node | None]:
    """How many `*` (and array brackets) a declarator adds before its name, and the innermost declarator."""
    levels = 0
    while declarator is not None and declarator.type in (
        "pointer_declarator",
        "abstract_pointer_declarator",
        "reference_declarator",
        "abstract_reference_declarator",
        "array_declarator",
        "abstract_array_declarator",
    ):
        if declarator.type not in ("reference_declarator", "abstract_reference_declarator"):
            levels += 1
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            inner = next((c for c in declarator.named_children if c.type.endswith("declarator")), None)
        declarator = inner
    return levels, declarator


def template_names(node: Node) -> frozenset[str]:
    """The type parameters of every template around ``node`` (`template <typename T, class... Args>`)."""
    names: set[str] = set()
    cur: Node | None = node
    while cur is not None:
        if cur.type == "template_declaration":
            params = cur.child_by_field_name("parameters")
            for p in params.named_children if params is not None else ():
                if p.type in _TEMPLATE_PARAMETERS:
                    names.update(_text(c) for c in p.named_children if c.type == "type_identifier")
        cur = cur.parent
    return frozenset(names)


def parameter_text(declarator: Node) -> str | None:
    """A `function_declarator`'s parameters as ``(T1,T2) const``; None without a parameter list."""
    parameters = declarator.child_by_field_name("parameters")
    if parameters is None:
        return None
    generic = template_names(declarator)
    out: list[str] = []
    for p in parameters.named_children:
        if p.type in _PARAMETERS:
            out.append(_parameter(p, generic))
        elif p.type in _PACKS:
            out.append(PACK)
    if [(c.type, c.text) for c in parameters.named_children] == [("parameter_declaration", b"void")]:
        out = []
    if (parameters.text or b"").rstrip(b") \t\r\n").endswith(b"...") and (not out or out[-1] != PACK):
        out.append(C_VARIADIC)
    const = any(c.type == "type_qualifier" and _text(c) == "const" for c in declarator.children)
    return "(" + ",".join(out) + ")" + (CONST if const else "")


def _parameter(p: Node, generic: frozenset[str]) -> str:
    written = p.child_by_field_name("type")
    if written is None:
        return UNKNOWN
    levels, inner = _pointer_levels(p.child_by_field_name("declarator"))
    if inner is not None and inner.type in ("function_declarator", "abstract_function_declarator"):
        return UNKNOWN  # a function pointer: its signature is not compared
    return cpp_type(_text(written), levels, generic)


def split_parameters(text: str) -> tuple[list[str], bool]:
    """``(T1,T2) const`` as ([T1, T2], const)."""
    const = text.endswith(CONST)
    inner = text[: -len(CONST)] if const else text
    inner = inner.removeprefix("(").removesuffix(")")
    return ([t for t in inner.split(",")] if inner else []), const


def declarator_text(declaration: Node, name: Node) -> str:
    """What a declaration's declarator says of the name it declares: ``const`` when the declaration is `const`
    (for a pointer, what it points to), a `*` per pointer level; "" for neither."""
    levels = 0
    cur: Node | None = name.parent
    while cur is not None and cur != declaration:
        if cur.type in ("pointer_declarator", "array_declarator"):
            levels += 1
        cur = cur.parent
    const = any(c.type == "type_qualifier" and _text(c) == "const" for c in declaration.children)
    return ("const" if const else "") + "*" * levels


def argument_hints(arguments: Node) -> str:
    """An `argument_list` as comma-joined hints, one per argument (see the module docstring)."""
    return ",".join(_hint(a) for a in arguments.named_children if a.type != "comment")


def _hint(node: Node, depth: int = 0) -> str:
    if depth > _MAX_DEPTH:
        return UNKNOWN
    kind = node.type
    if kind in _STRINGS:
        return "char*"
    if kind == "char_literal":
        return "char"
    if kind in ("true", "false"):
        return "bool"
    if kind == "null" or _text(node) == NULLPTR:
        return NULLPTR
    if kind == "number_literal":
        return _number(_text(node))
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _hint(node.named_children[0], depth + 1)
    if kind == "binary_expression":
        op = node.child_by_field_name("operator")
        return "bool" if op is not None and _text(op) in _COMPARISONS else UNKNOWN
    if kind == "unary_expression":
        op = node.child_by_field_name("operator")
        return "bool" if op is not None and _text(op) == "!" else UNKNOWN
    if kind == "cast_expression":
        written = node.child_by_field_name("type")
        return _descriptor(written) if written is not None else UNKNOWN
    if kind == "pointer_expression":
        op = node.child_by_field_name("operator")
        inner = node.child_by_field_name("argument")
        path = _path(inner) if inner is not None and op is not None else None
        return f"{PATH}{_text(op)}{path}" if path and op is not None and _text(op) in ("&", "*") else UNKNOWN
    if kind == "call_expression":
        return _call(node, depth)
    if kind == "qualified_identifier":  # `CLI::ExistingFile`: a variable or constant of a namespace
        named = "".join(_text(node).split())
        return PATH + named if len(named) <= _MAX_PATH and "<" not in named else UNKNOWN
    path = _path(node)
    return PATH + path if path else UNKNOWN


def _number(text: str) -> str:
    lowered = text.lower().replace("'", "")
    if lowered.startswith(("0x", "0b")):
        return "int" if lowered.rstrip("ul") == lowered else UNKNOWN
    if any(c in lowered for c in ".e"):
        return "float" if lowered.endswith("f") else "double"
    if lowered == "0":
        return UNKNOWN  # also a null pointer constant
    if lowered.isdigit():
        return "int"
    return "long" if lowered.rstrip("l") != lowered and "u" not in lowered else UNKNOWN


def _descriptor(node: Node) -> str:
    """A `type_descriptor` (a cast's or template argument's type) in the compared form."""
    written = node.child_by_field_name("type")
    if written is None:
        return UNKNOWN
    levels, _inner = _pointer_levels(node.child_by_field_name("declarator"))
    return cpp_type(_text(written), levels, template_names(node))


def _call(node: Node, depth: int) -> str:
    """`std::string(x)` and `std::to_string(x)` are a std::string, `static_cast<T>(x)` a T, `std::move(x)` x."""
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if function is None:
        return UNKNOWN
    name = "".join(_text(function).split())
    if name in ("std::string", "std::to_string", "std::string_view"):
        return "std::string_view" if name == "std::string_view" else "std::string"
    if name in ("std::move", "std::forward") or name.startswith("std::forward<"):
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
        return _hint(args[0], depth + 1) if len(args) == 1 else UNKNOWN
    if function.type == "template_function" and name.startswith(("static_cast<", "const_cast<")):
        targs = function.child_by_field_name("arguments")
        descriptors = [c for c in targs.named_children if c.type == "type_descriptor"] if targs else []
        return _descriptor(descriptors[0]) if len(descriptors) == 1 else UNKNOWN
    if function.type in ("identifier", "qualified_identifier") and "<" not in name and len(name) < _MAX_PATH:
        return f"{PATH}{name}()"  # `CLI::Range(1, 10)`: a temporary where the name is a class's
    return UNKNOWN


_NAMES = frozenset({"identifier", "this", "field_identifier"})


def _path(node: Node) -> str | None:
    """`x`, `this`, `this->x`, `a.b`, `p->f` as a path of at most two names (`->` read as `.`), else None (a
    longer chain is typed nowhere; a generated one may nest thousands deep)."""
    if node.type in _NAMES:
        return _text(node)
    if node.type != "field_expression":
        return None
    obj, field = node.child_by_field_name("argument"), node.child_by_field_name("field")
    if obj is None or field is None or obj.type not in _NAMES:
        return None
    path = f"{_text(obj)}.{_text(field)}"
    return path if len(path) <= _MAX_PATH else None
