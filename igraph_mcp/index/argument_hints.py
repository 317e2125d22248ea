"""What a Java call's arguments and a method's parameters say about their types, read from the syntax tree.

Java picks among overloads of one argument count by the arguments' types (index/overloads.py). Parsing cannot
type a variable, so an argument is written down as one of three hints, comma-joined per call:

- a type the expression has by its form: `"a"` String, `1` int, `2L` long, `X.class` Class, `new Foo(..)` Foo,
  `(Bar) y` Bar, `"a" + b` String, `x == y` boolean, `c ? "a" : "b"` String;
- ``=path`` for a name, field or call chain typed later from the caller's scope (`=codeWriter`, `=this.out`,
  `=TypeName.get()`);
- ``?`` for anything else (a lambda, a ternary, an array element).

A method's parameter types are one text too, ``String,Object...``. Type names lose their type arguments and
qualifiers (`java.util.List<String>` -> `List`); arrays keep their brackets.
"""

from __future__ import annotations

from tree_sitter import Node

UNKNOWN = "?"
PATH = "="  # prefix of a path typed from the caller's scope
PARAMETERS_FACT = "()p"  # the fact name of a method's parameter types (kind "params")

_LITERALS = {
    "string_literal": "String",
    "character_literal": "char",
    "true": "boolean",
    "false": "boolean",
    "null_literal": "null",
    "class_literal": "Class",
    "instanceof_expression": "boolean",
}
_INTEGERS = frozenset(
    {"decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal"}
)
_FLOATS = frozenset({"decimal_floating_point_literal", "hex_floating_point_literal"})
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">=", "&&", "||"})
# Numeric promotion of a binary operation: the wider operand's type, int at least.
_WIDTH = {"byte": 0, "short": 0, "char": 0, "int": 0, "long": 1, "float": 2, "double": 3}
_BY_WIDTH = ("int", "long", "float", "double")
_MAX_PATH = 120
# How deep an argument's expression is read: a generated 5,000-term string concatenation or call chain nests that deep,
# past Python's recursion limit; the type of what lies deeper is unknown ("a" + ... still reads String).
_MAX_DEPTH = 48


def without_type_arguments(text: str) -> str:
    """``text`` without what its angle brackets hold (`Map<K, List<V>>[]` -> `Map[]`)."""
    if "<" not in text:
        return text
    depth, kept = 0, []
    for ch in text:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(depth - 1, 0)
        elif depth == 0:
            kept.append(ch)
    return "".join(kept)


def type_name(text: str) -> str:
    """A written type as overloads compare it: no type arguments or package, brackets kept
    (`java.util.Map<K, V>[]` -> `Map[]`; a parameter's annotations are its modifiers, not its type)."""
    plain = "".join(without_type_arguments(text).split())
    if "[" not in plain and "." not in plain:
        return plain
    brackets = plain.count("[]")
    base = plain.replace("[]", "").replace("...", "")
    return base.rpartition(".")[2] + "[]" * brackets


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace")


def parameter_types(parameters: Node) -> str:
    """A `formal_parameters` list as ``String,int,Object...`` (a receiver parameter `Foo this` takes no argument)."""
    out: list[str] = []
    for p in parameters.named_children:
        if p.type == "formal_parameter":
            t = p.child_by_field_name("type")
            out.append(type_name(_text(t)) if t is not None else UNKNOWN)
        elif p.type == "spread_parameter":
            t = next((c for c in p.named_children if c.type not in ("modifiers", "variable_declarator")), None)
            out.append((type_name(_text(t)) if t is not None else UNKNOWN) + "...")
    return ",".join(out)


def argument_hints(arguments: Node) -> str:
    """An `argument_list` as comma-joined hints, one per argument (see the module docstring)."""
    return ",".join(_hint(a) for a in arguments.named_children if "comment" not in a.type)


def _hint(node: Node, depth: int = 0) -> str:
    if depth > _MAX_DEPTH:
        return UNKNOWN
    kind = node.type
    if kind in _LITERALS:
        return _LITERALS[kind]
    if kind in _INTEGERS:
        return "long" if _text(node)[-1:] in ("l", "L") else "int"
    if kind in _FLOATS:
        return "float" if _text(node)[-1:] in ("f", "F") else "double"
    if kind in ("object_creation_expression", "array_creation_expression", "cast_expression"):
        t = node.child_by_field_name("type")
        if t is None:
            return UNKNOWN
        suffix = "[]" * _dimensions(node) if kind == "array_creation_expression" else ""
        return type_name(_text(t)) + suffix
    if kind == "parenthesized_expression" and node.named_child_count == 1:
        return _hint(node.named_children[0], depth + 1)
    if kind == "binary_expression":
        return _binary(node, depth + 1)
    if kind == "ternary_expression":
        branches = (node.child_by_field_name("consequence"), node.child_by_field_name("alternative"))
        sides = {_hint(s, depth + 1) for s in branches if s is not None}
        if len(sides) == 2 and "null" in sides:  # `x != null ? x : null`: whatever the other one is
            sides.discard("null")
        one = sides.pop() if len(sides) == 1 else UNKNOWN
        return one if not one.startswith(PATH) else UNKNOWN
    if kind == "unary_expression":
        op = node.child_by_field_name("operator")
        inner = node.child_by_field_name("operand")
        if op is not None and _text(op) == "!":
            return "boolean"
        hint = _hint(inner, depth + 1) if inner is not None else UNKNOWN
        return hint if hint in _WIDTH else UNKNOWN
    path = _path(node, depth)
    return PATH + path if path and len(path) <= _MAX_PATH else UNKNOWN


def _dimensions(node: Node) -> int:
    """How many `[]` an array creation has (`new int[3][]`: 2)."""
    count = 0
    for c in node.named_children:
        if c.type in ("dimensions_expr", "dimensions"):
            count += _text(c).count("[") if c.type == "dimensions" else 1
    return max(count, 1)


def _binary(node: Node, depth: int) -> str:
    op_node = node.child_by_field_name("operator")
    op = _text(op_node) if op_node is not None else ""
    if op in _COMPARISONS:
        return "boolean"
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    sides = [_hint(s, depth + 1) if s is not None else UNKNOWN for s in (left, right)]
    if op == "+" and "String" in sides:
        return "String"
    if all(s in _WIDTH for s in sides):
        return _BY_WIDTH[max(_WIDTH[s] for s in sides)]
    return UNKNOWN


def _path(node: Node, depth: int = 0) -> str | None:
    """`x`, `this.x`, `a.b.c`, `f()`, `a.f().g`, `new Foo(x).g()` as a receiver path (call arguments dropped;
    a creation reads `Foo.new()`, as parse.py writes qualifiers), else None."""
    kind = node.type
    if depth > _MAX_DEPTH:
        return None
    if kind in ("identifier", "this"):
        return _text(node)
    if kind == "object_creation_expression":
        created = node.child_by_field_name("type")
        return f"{type_name(_text(created))}.new()" if created is not None else None
    if kind == "field_access":
        obj, field = node.child_by_field_name("object"), node.child_by_field_name("field")
        head = _path(obj, depth + 1) if obj is not None else None
        return f"{head}.{_text(field)}" if head and field is not None else None
    if kind == "method_invocation":
        obj, name = node.child_by_field_name("object"), node.child_by_field_name("name")
        if name is None:
            return None
        if obj is None:
            return _text(name) + "()"
        head = _path(obj, depth + 1)
        return f"{head}.{_text(name)}()" if head else None
    return None
