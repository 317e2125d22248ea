"""Receiver types for languages bound by name (TypeScript/JavaScript, Go): what `x.f()` calls when a parameter, a
variable, a field or a function's result says what `x` is (the @fact captures of their queries).

The answer is a definition of the repository, "outside" (a type the repository does not define: the language's
own, a dependency's), or unknown; a member is looked up in the type and then in its bases (`extends`, Go
embedding). Nothing here guesses by name: an unknown receiver leaves the caller's other steps to decide.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from igraph_mcp.index import rust_crates, rust_types
from igraph_mcp.index.argument_hints import PARAMETERS_FACT
from igraph_mcp.index.overloads import Pick, as_given
from igraph_mcp.index.resolve_rules import rules_for
from igraph_mcp.index.symbols import GO_TEST_SUFFIX, Sym, SymbolTable, module_key
from igraph_mcp.vocab.languages import TYPE_KINDS

# A type the repository cannot define: the result of a lookup that knows the receiver is not ours.
OUTSIDE = "outside"
Found = Sym | str | None  # a repository definition, OUTSIDE, or None (unknown)


def as_sym(found: Found) -> Sym | None:
    """The repository definition a lookup found, or None (outside or unknown)."""
    return None if found is None or isinstance(found, str) else found


Bindings = Callable[[int], dict[str, tuple[list[int], str]]]

# Types no repository defines (TypeScript's and Go's own); a call on one is never repository code.
_PRIMITIVES = frozenset(
    {
        "string", "number", "boolean", "bigint", "symbol", "object", "any", "unknown", "never", "void", "Function",
        "bool", "byte", "rune", "error", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16",
        "uint32", "uint64", "uintptr", "float32", "float64", "complex64", "complex128",
    }
)  # fmt: skip
_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?")
_UNPACK_TYPED = re.compile(r"\{[^{}:=]*\}:(.+)$", re.DOTALL)
_COMPOSITE = re.compile(r"&?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)\{")
_INDEXED = re.compile(r"((?:[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)?)\[[^\[\]]*\]$")  # Go `xs[i]`, `v.m[k]`
_MADE = re.compile(r"(?:::)?std::make_(?:shared|unique)<(.+)>\(\)$")  # C++ `std::make_shared<App>(..)`: an App
_ASSERTION = re.compile(r"\.\(\*?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)\)$")  # Go `x.(*T)`
# C++: the standard library's wrappers of one object (a call through one is a call on that object) and its
# containers (a range-for over one gives its elements); any other `std::` type is the library's.
_CPP_WRAPPER = re.compile(r"(?:::)?std::(?:shared_ptr|unique_ptr|weak_ptr|optional|reference_wrapper)<(.+)>$")
_CPP_CONTAINER = re.compile(
    r"(?:::)?std::(?:vector|list|deque|forward_list|set|unordered_set|multiset|array|span|initializer_list)"
    r"<(.+?)(?:,[^<>]*)?>$"
)
# a name, a call of one (Rust: `f()?`, the value its result holds), or a Rust tuple field (`self.0`)
_PART = re.compile(r"(?:[A-Za-z_$][\w$]*(?:\(.*\)\??)?|[0-9]+)$", re.DOTALL)
_FUNCTIONS = frozenset({"function", "method"})
_ASSOCIATED_TYPES = frozenset({"type"})  # Rust's `type Item = State` in an impl
_FREE = frozenset({"function"})
_THIS = frozenset({"this"})
_MAX_DEPTH = 5
# A destructuring declaration's text as its fact holds it: `{gen,it}=cxt`, `{opts}=this.self`.
_UNPACK = re.compile(r"\{[^{}:=]*\}=((?:this|[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*)$")
# The kind of a holder: a name whose members are the definitions qualified by it (see ReceiverTypes.holder).
HOLDER = "holder"
_HOLDS = frozenset({"function", "class"})


def _holder(file_id: int, qualified: str, parent_id: int | None) -> Sym:
    """A stand-in for an object literal, or a function or class used as a namespace: no definition of its own."""
    return Sym(-1, file_id, HOLDER, qualified.rpartition(".")[2], qualified, parent_id)


def _is_object_literal(text: str) -> bool:
    """A value fact holding `{ ... }` (not a destructuring declaration's `{a,b}=x` or `{a}:T`)."""
    return text.startswith("{") and not _UNPACK.match(text) and not _UNPACK_TYPED.match(text)


def type_text_name(text: str) -> str | None:
    """The named type an annotation or a Go type stands for: ``*Parser`` -> Parser, ``ast.Node`` -> ast.Node,
    ``Foo<T> | undefined`` -> Foo; None for slices, maps, functions, unions of several types."""
    if text.startswith("(") and text.endswith(")"):  # JSDoc `{(Command|null)}`
        text = text[1:-1]
    parts = [p for p in text.split("|") if p not in ("null", "undefined", "")]
    if len(parts) != 1:
        return None
    core = parts[0].removeprefix("readonly").lstrip("*&")
    match = _NAME.match(core)
    if match is None:
        return None
    rest = core[match.end() :]
    if rest and rest[0] not in "<[":  # `T[]` is an array in TypeScript, `T[K]` an indexed type: not a T
        return None
    if rest.startswith("[]"):
        return None
    return match.group(0)


def unscoped_type(text: str) -> str:
    """A C++ type as the repository would define it: ``std::shared_ptr<ns::App>`` -> App, ``ns::Outer::Inner<T>``
    -> Inner<T>; OUTSIDE for the standard library's own (``std::string``)."""
    while (wrapped := _CPP_WRAPPER.match(text)) is not None:
        text = wrapped.group(1)
    if text.lstrip(":").startswith("std::"):
        return OUTSIDE
    angle = text.find("<")
    head, args = (text, "") if angle < 0 else (text[:angle], text[angle:])
    return head.rpartition("::")[2] + args


def element_type(text: str) -> str | None:
    """The element type of a Go collection type or a C++ standard container (``std::vector<App_p>`` -> App_p)."""
    container = _CPP_CONTAINER.match(text.strip())
    return container.group(1) if container is not None else go_element_type(text)


def go_element_type(text: str) -> str | None:
    """The element type of a Go collection type: ``[]*T``, ``[4]T``, ``...T`` -> T, ``map[K]V`` -> V, ``chan T``
    -> T; None for anything else (a named type whose underlying type is a slice is not followed)."""
    text = text.strip()
    if text.startswith("..."):
        return text[3:]
    if text.startswith("map["):
        depth = 0
        for i, ch in enumerate(text):
            depth += (ch == "[") - (ch == "]")
            if ch == "]" and depth == 0:
                return text[i + 1 :] or None
        return None
    if text.startswith("["):
        end = text.find("]")
        return (text[end + 1 :] or None) if end > 0 else None
    for prefix in ("<-chan ", "chan<- ", "chan "):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return None


def split_path(text: str) -> list[str] | None:
    """``a.b(x.y).c`` -> [a, b(x.y), c]: a receiver path split at its top-level dots; None when a part is not a
    name or a call of one (an index, a literal, a parenthesised expression)."""
    parts: list[str] = []
    depth = start = 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "." and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts if depth == 0 and all(_PART.match(p) for p in parts) else None


class ReceiverTypes:
    """Types of receivers from scope facts, and members of types through their bases."""

    def __init__(self, table: SymbolTable, bindings: Bindings) -> None:
        self.t = table
        self._bindings = bindings
        self._definitions: dict[tuple[str, int, frozenset[str]], Found] = {}
        self._qualified: dict[str, dict[str, list[Sym]]] = {}
        # (class, name, kinds, side) -> the overloads its bases add (Java), for the pass
        self._inherited_cache: dict[tuple[int, str, frozenset[str], str], list[Sym]] = {}
        # (class, name, kinds, overloads, side) -> ``member``'s answer where no call's arguments choose, for the pass
        self._members: dict[tuple[int, str, frozenset[str], bool, str], tuple[Sym | None, bool]] = {}
        # (class, name, side, result key) -> an overload standing for all of them that state one result type
        self._alike: dict[tuple[int, str, str, str], Sym | None] = {}
        self._assigned: dict[int, dict[str, tuple[Sym, list[tuple[str, str]]]]] = {}
        # (files, name, kinds, depth) -> ``exported``'s answer, for the pass
        self._exported: dict[tuple[tuple[int, ...], str, frozenset[str], int], list[Sym]] = {}
        # (folder, a test file's side) -> name -> (module, facts): a Go package's top-level names.
        self._packages: dict[tuple[str | None, bool], dict[str, list[tuple[Sym, list[tuple[str, str]]]]]] = {}

    # -- types ---------------------------------------------------------------------------------------------------
    def of_name(
        self, source: Sym, name: str, depth: int = 0, *, module_variables: bool = False, package: bool = False
    ) -> Found:
        """The type of a bare name at ``source``: the nearest function-like scope stating something about it, else
        (``module_variables``) a variable the file declares at its top level, else (``package``) one that another
        file of its package declares there."""
        scope: Sym | None = source
        while scope is not None and scope.kind != "module":
            if scope.kind not in TYPE_KINDS:  # a class body's fields are reached through `this`, not by name
                facts = self.t.facts.get(scope.id, {}).get(name)
                if facts:
                    unpacked = next((m for kind, text in facts if kind == "value" and (m := _UNPACK.match(text))), None)
                    if unpacked is not None:  # `const {gen} = cxt`: gen is the field gen of cxt
                        owner = as_sym(self.of_path(unpacked.group(1), scope, depth + 1))
                        return self.of_attribute(owner, name, depth + 1) if owner is not None else None
                    typed_unpack = next(
                        (m for k, text in facts if k == "value" and (m := _UNPACK_TYPED.match(text))), None
                    )
                    if typed_unpack is not None:  # `f({gen}: SchemaCxt)`: gen is the field gen of a SchemaCxt
                        owner = as_sym(self.named(typed_unpack.group(1), scope.file_id, depth + 1))
                        return self.of_attribute(owner, name, depth + 1) if owner is not None else None
                    if not any(k == "type" for k, _t in facts) and any(
                        k == "value" and _is_object_literal(t) for k, t in facts[:1]
                    ):  # `const obj = { replace() {...} }`: its methods are qualified by obj (`edit.obj.replace`)
                        return _holder(scope.file_id, f"{scope.qualified_name}.{name}", scope.id)
                    return self._of_facts(facts, scope, depth + 1)
            scope = self.t.parent(scope)
        if not module_variables:
            return None
        module = self.t.module_of_file.get(source.file_id)
        facts = self.t.facts.get(module.id, {}).get(name) if module is not None else None
        if module is not None and facts:
            return self._of_facts(facts, module, depth + 1)
        return self._package_variable(source.file_id, name, depth) if package else None

    def _package_variable(self, file_id: int, name: str, depth: int) -> Found:
        """The type of a top-level variable ``name`` of another file of ``file_id``'s package, read in that file;
        None where no file or files of different types declare it (per-platform files may each declare one)."""
        declared = self._package_declarations(file_id).get(name)
        if not declared:
            return None
        types = [self._of_facts(facts, module, depth + 1) for module, facts in declared]
        return types[0] if all(t == types[0] for t in types) else None

    def _package_declarations(self, file_id: int) -> dict[str, list[tuple[Sym, list[tuple[str, str]]]]]:
        """name -> (module, facts) of every top-level name the files of ``file_id``'s package that it sees state,
        read once per package and side (a pass asks for thousands of receivers)."""
        key = (self.t.dir_of_file.get(file_id), self.t.file_paths.get(file_id, "").endswith(GO_TEST_SUFFIX))
        found = self._packages.get(key)
        if found is None:
            found = self._packages[key] = {}
            for fid in [file_id, *self.t.package_files(file_id)]:
                module = self.t.module_of_file.get(fid)
                if module is None:
                    continue
                for name, facts in self.t.facts.get(module.id, {}).items():
                    found.setdefault(name, []).append((module, facts))
        return found

    def default_export(self, files: list[int]) -> str | None:
        """The name the first of ``files`` that says so exports as its default (`export default class Ajv`)."""
        for file_id in files:
            module = self.t.module_of_file.get(file_id)
            facts = self.t.facts.get(module.id, {}).get("default", []) if module is not None else []
            named = next((text for kind, text in facts if kind == "value" and text.isidentifier()), None)
            if named is not None:
                return named
        return None

    def holder(self, head: str, scope: Sym) -> Sym | None:
        """`X.f()` where X names no local: a function, class or module-level object literal X of this file, or one
        imported by name, whose members are the definitions qualified `X.f` (`marked.walkTokens = function`,
        `const api = { f() {} }`, a static method)."""
        if self.is_local(scope, head):
            return None
        file_id, name = scope.file_id, head
        bound = self._bindings(file_id).get(head)
        if bound is not None:
            files, member = bound
            if len(files) != 1 or not member or member == "default":
                return None
            file_id, name = files[0], member
        defined = [s for s in self.t.by_file_name.get((file_id, name), []) if s.kind in _HOLDS]
        if len(defined) == 1:
            return _holder(file_id, defined[0].qualified_name, defined[0].id)
        module = self.t.module_of_file.get(file_id)
        facts = self.t.facts.get(module.id, {}).get(name) if module is not None else None
        if not defined and facts and len(facts) == 1 and facts[0][0] == "value" and _is_object_literal(facts[0][1]):
            return _holder(file_id, name, module.id if module is not None else None)
        return None

    def of_path(
        self,
        path: str,
        scope: Sym,
        depth: int = 0,
        this: frozenset[str] = _THIS,
        *,
        holders: bool = False,
        methods: bool = False,
        module_variables: bool = False,
        package_variables: bool = False,
        result: str = "()",
    ) -> Found:
        """The type of ``this``, ``x``, ``x.field``, ``NewT()``, ``pkg.NewT()`` or ``x.Method().field`` seen from
        ``scope`` (``this``: the names meaning the enclosing type; ``holders``: a bare ``X`` naming no local may
        be a function, class or object literal whose members are qualified by it, see holder; ``methods``: a bare
        ``f()`` is a method of the enclosing class and a bare ``x`` may be its field; ``module_variables``: a bare
        ``x`` no function binds may be the file's top-level variable, ``package_variables``: or its package's;
        ``result``: which result of a final call the path gives, "()2" for a Go call's second)."""
        rules = rules_for(self.t.language_of(scope.file_id))
        if rules.impl_blocks:  # Rust: `Type::f()` and `module::f()` paths; `self` and `Self` in every path
            this = this | rules.self_names
            path, type_ref = rust_types.receiver_path(path)
            head = path.split(".", 1)[0]
            if not type_ref and head[:1].isupper() and "(" not in head and not self.is_local(scope, head):
                type_ref, _, path = path.partition(".")  # `StateID::new()`: a type's own function, no other's
            if type_ref:  # `dense::DFA::new(x).f()`: from the type, by its module where one is written
                rest = split_path(path) if path else []
                if rest is None or depth >= _MAX_DEPTH:
                    return None
                typed = (
                    self.t.enclosing(scope, TYPE_KINDS)
                    if type_ref in this
                    else self._definition(type_ref, scope.file_id, TYPE_KINDS)
                )
                return self._walk(typed, rest, True, depth, result) if typed is not None else None
        parts = split_path(path)
        if not parts or depth >= _MAX_DEPTH:
            return None
        # A path met inside another (`auto o = add(x);`, `return obj;`) reads as the language reads its own.
        methods = methods or rules.bare_calls_are_methods
        head, rest = parts[0], parts[1:]
        bindings = self._bindings(scope.file_id)
        found: Found
        static_head = False
        if head in this:
            found = self.t.enclosing(scope, TYPE_KINDS)
            if found is None and head == "this":  # a TypeScript function that states `this: T` as a parameter
                found = self.of_name(scope, head, depth)
        elif head.endswith((")", ")?")):
            callee: Found
            owner = self.t.enclosing(scope, TYPE_KINDS) if methods else None
            key = ("()" if rest else result) + ("?" if head.endswith("?") else "")
            if owner is not None:  # Java: the class's method (a static import: unknown)
                found = self._member_result(owner, head[: head.index("(")], "", depth, key)
            else:
                found = self._result(self._definition(head[: head.index("(")], scope.file_id, _FREE), depth, key)
        elif head in bindings and rest and not methods and self.of_name(scope, head, depth) is None:
            # `pkg.NewT()` / `pkg.Var`: a member of an imported module, not a local's field.
            member, rest = rest[0], rest[1:]
            if not member.endswith(")"):
                return None
            callee = self._definition(f"{head}.{member[: member.index('(')]}", scope.file_id, _FREE)
            found = self._result(callee, depth, "()" if rest else result)
        else:
            found = self.of_name(scope, head, depth, module_variables=module_variables, package=package_variables)
            if found is None and holders and not rest:
                found = self.holder(head, scope)
            if found is None and methods and not self.is_local(scope, head):
                # Java reads a field of the enclosing class without `this.`: `componentType.emit(out)`.
                owner = self.t.enclosing(scope, TYPE_KINDS)
                found = self.of_attribute(owner, head, depth + 1) if owner is not None else None
                if found is None and rest:  # `CodeBlock.builder().build()`: a class's static member
                    found = as_sym(self._definition(head, scope.file_id, TYPE_KINDS))
                    static_head = found is not None
        return self._walk(found, rest, static_head, depth, result)

    def _walk(self, found: Found, rest: list[str], static_head: bool, depth: int, result: str) -> Found:
        """The type at the end of ``rest`` (fields and calls) from the type ``found`` of the path's head."""
        for i, part in enumerate(rest, 1):
            owner = as_sym(found)
            if owner is None:
                return found if found == OUTSIDE else None
            if part == "new()" and static_head:  # Java's `Foo.new()`, as parse.py writes `new Foo(x)`: a Foo
                static_head = False
                continue
            if part.endswith((")", ")?")):
                side = "static" if owner.kind == HOLDER or static_head else "instance"
                key = (result if i == len(rest) else "()") + ("?" if part.endswith("?") else "")
                found = self._member_result(owner, part[: part.index("(")], side, depth, key)
                static_head = False
            else:
                found = self.of_attribute(owner, part, depth + 1)
                if found is None and static_head:
                    found, static_head = self._static_part(owner, part)
        return found

    def _static_part(self, owner: Sym, part: str) -> tuple[Sym | None, bool]:
        """`Outer.Inner` (a nested type: still static) or `Kind.CLASS` (a constant of the enum: an instance of it) for
        a name that is no field of ``owner``; else unknown."""
        nested = [s for s in self.t.children.get((owner.id, part), []) if s.kind in TYPE_KINDS]
        if len(nested) == 1:
            return nested[0], True
        return (owner, False) if owner.kind == "enum" and not nested else (None, False)

    def _member_result(self, owner: Sym, name: str, side: str, depth: int, key: str) -> Found:
        """What calling ``owner``'s method ``name`` gives; of overloads (which one a call binds is not known here),
        the type they all state (C++'s `App *add_subcommand(std::string)` and `App *add_subcommand(App_p)`)."""
        method, _complete = self.member(owner, name, _FUNCTIONS, side=side)
        if method is not None:
            return self._result(method, depth, key)
        cache = (owner.id, name, side, key)
        if cache not in self._alike:
            self._alike[cache] = self._alike_result(owner, name, side, key)
        alike = self._alike[cache]
        return self._result(alike, depth, key) if alike is not None else None

    def _alike_result(self, owner: Sym, name: str, side: str, key: str) -> Sym | None:
        """One of ``owner``'s overloads ``name`` where all of them, inherited ones too, state one result type."""
        own = self.on_side(self._own_members(owner, name, _FUNCTIONS), side)
        if not own:
            return None
        # inherited ones too: Java's `attr(k)` is a base's, of another type than the class's own `attr(k, v)`
        every = own + self._inherited_once(owner, name, _FUNCTIONS, side, own)
        stated = {t for s in every for k, t in self.t.facts.get(s.id, {}).get(key, ()) if k == "type"}
        if len(every) < 2 or len(stated) != 1 or any(not self.t.facts.get(s.id, {}).get(key) for s in every):
            return None
        return own[0]

    def _result(self, fn: Found, depth: int, key: str = "()") -> Found:
        """What calling ``fn`` gives: its first result or return annotation (the "()" fact), or the result ``key``
        names ("()2": a Go function's second)."""
        callee = as_sym(fn)
        if callee is None:
            return fn if fn == OUTSIDE else None
        unwrap = key.endswith("?")  # Rust's `f()?`: the value its `Result` or `Option` holds
        returns = self.t.facts.get(callee.id, {}).get(key.removesuffix("?"))
        if not returns:
            return None
        typed = [text for kind, text in returns if kind == "type"]
        if not typed:  # `return obj`: what obj holds where the callee states it
            return self.of_path(returns[0][1], callee, depth + 1) if returns[0][0] == "value" and not unwrap else None
        stated = rust_types.unwrapped(typed[0]) if unwrap else typed[0]
        if stated is None:
            return None
        if stated == "this" or self._is_self_type(stated, callee):  # `: this`, Rust's `-> Self`: its own type
            return self.t.enclosing(callee, TYPE_KINDS)
        return self.named(stated, callee.file_id, depth + 1)

    def is_local(self, source: Sym, name: str) -> bool:
        """Whether a function scope around ``source`` binds ``name`` to a parameter or variable rather than to a
        definition of its own: `mangle(text)` calling a callback parameter is no call to a file's mangle."""
        scope: Sym | None = source
        while scope is not None and scope.kind != "module":
            if scope.kind not in TYPE_KINDS and self.t.facts.get(scope.id, {}).get(name):
                return not self.t.children.get((scope.id, name))
            scope = self.t.parent(scope)
        return False

    def _rust(self, file_id: int) -> bool:
        return rules_for(self.t.language_of(file_id)).impl_blocks

    def _is_self_type(self, text: str, scope: Sym) -> bool:
        """Whether a type written in ``scope`` is Rust's `Self` (`&mut Self`, `Box<Self>`): the impl's own type."""
        return "Self" in text and self._rust(scope.file_id) and rust_types.type_name(text) == rust_types.SELF

    def _generic(self, text: str, scope: Sym, depth: int) -> Found:
        """A Rust parameter typed by a generic parameter of its function (`x: &E` with `E: Endian`): the type of
        the parameter's first bound; None for any other type."""
        if not self._rust(scope.file_id) or depth >= _MAX_DEPTH:
            return None
        name = rust_types.type_name(text)
        if not name.isidentifier() or not self.is_local(scope, name):
            return None
        return self.of_name(scope, name, depth + 1)

    def _of_facts(self, facts: list[tuple[str, str]], scope: Sym, depth: int) -> Found:
        if len(set(facts)) > 1 and self._rust(scope.file_id):
            # Rust: `let e = ..` beside `if let Some(e) = ..` or `|e| ..`; which one a use sees is not known
            return None
        typed = [text for kind, text in facts if kind == "type"]
        if typed:
            if self._is_self_type(typed[0], scope):
                return self.t.enclosing(scope, TYPE_KINDS)
            generic = self._generic(typed[0], scope, depth)
            if generic is not None:
                return generic
            return self.named(typed[0], scope.file_id, depth)
        values = [text for kind, text in facts if kind == "value"]
        if values:
            return self._of_value(values[0], scope, depth)
        elements = [text for kind, text in facts if kind == "element"]
        if elements:
            return self._of_element(elements[0], scope, depth)
        unwrapped = [text for kind, text in facts if kind == "unwrap"]  # Rust's `if let Some(m) = self.find(x)`
        if unwrapped:
            return self.of_path(unwrapped[0] + "?", scope, depth + 1)
        seconds = [text for kind, text in facts if kind == "second"]  # `line, seg := r.PeekLine()`
        return self.of_path(seconds[0], scope, depth + 1, result="()2") if seconds else None

    def _of_value(self, text: str, scope: Sym, depth: int) -> Found:
        """``&T{...}`` / ``T{...}`` and ``x.(*T)`` are a T, ``xs[i]`` an element of xs; any other path (``y``,
        ``NewT()``, ``x.Lines()``) is what that path is (of_path)."""
        composite = _COMPOSITE.match(text)
        if composite:
            return self.named(composite.group(1), scope.file_id, depth)
        asserted = _ASSERTION.search(text) or _MADE.match(text)
        if asserted:
            return self.named(asserted.group(1), scope.file_id, depth)
        indexed = _INDEXED.match(text)
        if indexed:
            return self._of_element(indexed.group(1), scope, depth)
        return self.of_path(text, scope, depth + 1)

    def _of_element(self, path: str, scope: Sym, depth: int) -> Found:
        """The type of an element of what ``path`` names, where its declaration states a Go slice, array, map
        (its values) or channel of a named type: `opts ...Option`, `pflags map[string]FlagValue`."""
        if self._rust(scope.file_id):
            return self._rust_element(path, scope, depth)
        declared = self.declared_type(path, scope, depth + 1)
        element = element_type(declared[0]) if declared is not None else None
        return self.named(element, declared[1], depth) if declared is not None and element else None

    def _rust_element(self, text: str, scope: Sym, depth: int) -> Found:
        """What a Rust `for` loop takes from ``text``: an element of a `Vec`, slice or set the declaration states
        (`for s in &self.states`, `.iter()` too), else the `Item` that the `Iterator` impl of the value's type
        names (`for state in dfa.states()`: `StateIter`'s `type Item = State`)."""
        text = rust_types.ITERATION.sub("", rust_types.BORROW.sub("", text.strip()))
        declared = self.declared_type(text, scope, depth + 1) or self._result_type(text, scope, depth + 1)
        element = rust_types.element_type(declared[0]) if declared is not None else None
        if declared is not None and element:
            return self.named(element, declared[1], depth)
        iterated = as_sym(self.of_path(text, scope, depth + 1))
        item, _complete = self.member(iterated, "Item", _ASSOCIATED_TYPES) if iterated is not None else (None, False)
        stated = [t for kind, t in self.t.facts.get(item.id, {}).get("()", []) if kind == "type"] if item else []
        return self.named(stated[0], item.file_id, depth) if item is not None and stated else None

    def _result_type(self, path: str, scope: Sym, depth: int) -> tuple[str, int] | None:
        """(the result type text, the file it is written in) of the call ``path`` ends with (`f.hits()`, `hits()`),
        where the callee states one; None otherwise."""
        parts = split_path(path)
        if not parts or not parts[-1].endswith(")") or depth >= _MAX_DEPTH:
            return None
        name = parts[-1][: parts[-1].index("(")]
        if len(parts) == 1:
            callee = as_sym(self._definition(name, scope.file_id, _FREE))
        else:
            owner = as_sym(self.of_path(".".join(parts[:-1]), scope, depth + 1))
            callee = self.member(owner, name, _FUNCTIONS)[0] if owner is not None else None
        stated = [t for kind, t in self.t.facts.get(callee.id, {}).get("()", []) if kind == "type"] if callee else []
        return (stated[0], callee.file_id) if callee is not None and stated else None

    def declared_type(self, path: str, scope: Sym, depth: int) -> tuple[str, int] | None:
        """(the type text, the file it is written in) that declares a bare name seen from ``scope`` or a field
        ``x.f`` of a typed ``x``."""
        found = self.declaration(path, scope, depth)
        if found is None:
            return None
        typed = [text for kind, text in found[0] if kind == "type"]
        return (typed[0], found[1]) if typed else None

    def declaration(self, path: str, scope: Sym, depth: int) -> tuple[list[tuple[str, str]], int] | None:
        """(the facts, the file they are written in) of the declaration of a bare name seen from ``scope`` or of a
        field ``x.f`` of a typed ``x``."""
        parts = split_path(path)
        if not parts or depth >= _MAX_DEPTH or any(p.endswith(")") for p in parts) or len(parts) > 2:
            return None
        if len(parts) == 1:
            owner: Sym | None = scope
            while owner is not None and owner.kind != "module" and not self.t.facts.get(owner.id, {}).get(path):
                owner = self.t.scope_parent(owner)
            if owner is None or owner.kind == "module":
                return None
        else:
            owner = as_sym(self.of_path(parts[0], scope, depth + 1))
            if owner is None:
                return None
        facts = self.t.facts.get(owner.id, {}).get(parts[-1])
        return (facts, owner.file_id) if facts else None

    def named(self, text: str, file_id: int, depth: int = 0) -> Found:
        """The repository type an annotation names, as seen from ``file_id``; a C++ alias (`using App_p =
        std::shared_ptr<App>`) is the type it stands for."""
        if self._rust(file_id):  # a path of modules and the type (`regex_syntax.hir.Hir`); an alias stays itself
            text = rust_types.type_name(text)
            if not text:
                return OUTSIDE  # the standard library's
            dotted = text.split("<", 1)[0]
            if not rust_types.is_type_path(dotted) or rust_types.is_generic(dotted):
                return None  # a tuple, a slice, a function type; `T`, `D2`: a generic parameter, of any type
            return self._definition(dotted, file_id, TYPE_KINDS)
        if text.endswith(("*", "&")):  # C++'s `std::vector<Option *>` holds Option pointers: Options to call on
            text = text.rstrip("*& ").removeprefix("const ")
        if "::" in text:
            text = unscoped_type(text)
            if text == OUTSIDE:
                return OUTSIDE
        name = type_text_name(text)
        if name is None:
            return None
        if name in _PRIMITIVES:
            return OUTSIDE
        found = self._definition(name, file_id, TYPE_KINDS)
        if found == OUTSIDE and self.t.language_of(file_id) == "cpp":
            return None  # a template's parameter (`BasicJsonType`) as much as another library's type: unknown
        alias = as_sym(found)
        if alias is not None and alias.kind == "type" and depth < _MAX_DEPTH:
            stands_for = [t for kind, t in self.t.facts.get(alias.id, {}).get("()", []) if kind == "type"]
            if stands_for:
                return self.named(stands_for[0], alias.file_id, depth + 1)
        return found

    def _definition(self, dotted: str, file_id: int, kinds: frozenset[str]) -> Found:
        """A definition named ``name`` or ``pkg.name`` as ``file_id`` sees it: its own file, its imports, its
        folder (a Go package), then the one definition of that name; OUTSIDE when the repository has none."""
        # Remembered for the pass: a file's every call through a typed receiver looks up the same types and bases
        # again (a third of binding OpenJDK's java.base); the table does not change while its edges are bound.
        key = (dotted, file_id, kinds)
        try:
            return self._definitions[key]
        except KeyError:
            found = self._definitions[key] = self._find_definition(dotted, file_id, kinds)
            return found

    def _find_definition(self, dotted: str, file_id: int, kinds: frozenset[str]) -> Found:
        qualifier, _, name = dotted.rpartition(".")
        bindings = self._bindings(file_id)
        if qualifier:
            bound = bindings.get(qualifier)
            if bound is None:
                return self._nested(qualifier, name, file_id, kinds)
            files, _member = bound
            if not files:
                return OUTSIDE  # `bytes.Buffer`: an import the repository does not hold
            return self._one(self.exported(files, name, kinds))
        own = [s for s in self.t.by_file_name.get((file_id, name), []) if s.kind in kinds]
        if own:
            return self._one(own)
        bound = bindings.get(name)
        if bound is not None:
            files, member = bound
            if not files:
                return OUTSIDE
            wanted = (self.default_export(files) or name) if member == "default" else member or name
            return self._one(self.exported(files, wanted, kinds))
        everywhere = [s for s in self.t.by_name.get(name, []) if s.kind in kinds]
        folder = self.t.dir_of_file.get(file_id)
        near = [s for s in everywhere if self.t.dir_of_file.get(s.file_id) == folder]
        if near:
            return self._one(near)
        if not everywhere:
            return OUTSIDE
        return everywhere[0] if len(everywhere) == 1 else None

    def _nested(self, outer: str, name: str, file_id: int, kinds: frozenset[str]) -> Found:
        """`Outer.Inner` where no import binds Outer: a type ``name`` declared inside the type ``outer`` names
        (Java's `AnnotationSpec.Builder`, `CodeBlock.Builder`), else unknown."""
        owner = as_sym(self._definition(outer, file_id, TYPE_KINDS))
        if owner is None:
            if self._rust(file_id):  # Rust's `dense::DFA` with no `use` of dense: a crate's or a child module's
                files = self.rust_module_files(outer, file_id)
                # a path no module of the tree answers starts at an outside crate (`aho_corasick::AhoCorasick`)
                return self._one(self.exported(files, name, kinds)) if files else OUTSIDE
            return None
        return self._one([s for s in self.t.children.get((owner.id, name), []) if s.kind in kinds])

    def rust_module_files(self, dotted: str, file_id: int) -> list[int]:
        """The files of the module a Rust path names from ``file_id``: from `crate`, `self`, `super` or another
        crate of the tree, else a child module of the file's own (`mod dense;`); never another module that merely
        ends the same way (`aho_corasick::AhoCorasick` is the outside crate's, not `prefilter/aho_corasick.rs`)."""
        importer = self.t.file_paths.get(file_id, "")
        words = dotted.split(".")
        bound = self._bindings(file_id).get(words[0])
        if bound is not None and len(bound[0]) == 1 and not bound[1]:  # `use crate::dfa;` .. `dfa::dense::DFA`
            module = module_key(self.t.file_paths.get(bound[0][0], ""))
            folder: str | None = posixpath.join(module, *words[1:])
        else:
            folder = rust_crates.module_folder(importer, self.t.rust_crates, words)
            if folder is None:
                folder = rust_crates.module_folder(importer, self.t.rust_crates, ["self", *words])
        return self.t.files_for_module(folder, file_id) if folder else []

    def exported(self, files: list[int], name: str, kinds: frozenset[str], depth: int = 0) -> list[Sym]:
        """Definitions called ``name`` in ``files``, else where their re-exports lead (`export * from`, `export
        { name } from`, an index file's imports, a C++ header's includes), remembered for the pass: a header
        reached through many others was walked once per path (190k walks binding nlohmann/json, 2.4 s)."""
        key = (tuple(files), name, kinds, depth)
        found = self._exported.get(key)
        if found is None:
            found = self._exported[key] = self._exported_from(files, name, kinds, depth)
        return list(found)

    def _exported_from(self, files: list[int], name: str, kinds: frozenset[str], depth: int) -> list[Sym]:
        hits = [s for f in files for s in self.t.by_file_name.get((f, name), []) if s.kind in kinds]
        if hits or depth >= _MAX_DEPTH or not files or not self._reexports(files[0]):
            return hits
        found: list[Sym] = []
        for f in files:
            for module, imported, alias in self.t.imports.get(f, []):
                if (alias or imported) == name or (not imported and not alias):
                    wanted = imported if imported and imported != "*" else name
                    targets = self.t.files_for_module(module, f)
                    found += self.exported(targets, wanted, kinds, depth + 1) if targets else []
        return list(dict.fromkeys(found))

    def _reexports(self, file_id: int) -> bool:
        """Whether the language of ``file_id`` lets a module's imports stand for its own names."""
        return rules_for(self.t.language_of(file_id)).reexports

    @staticmethod
    def _one(hits: list[Sym]) -> Sym | None:
        """The single definition, or the last of one file's declarations of it (TypeScript overloads)."""
        if len(hits) == 1:
            return hits[0]
        if hits and len({(s.file_id, s.parent_id) for s in hits}) == 1:
            return hits[-1]
        return None

    def of_attribute(self, owner: Sym, attr: str, depth: int = 0) -> Found:
        """The type of ``owner``'s field ``attr``: a declared field, or `this.attr = new T()` in a method."""
        if depth >= _MAX_DEPTH:
            return None
        facts = self.t.facts.get(owner.id, {}).get(attr)
        if facts:
            return self._of_facts(facts, owner, depth + 1)
        assigned = self._assigned_attributes(owner).get(attr)
        return self._of_facts(assigned[1], assigned[0], depth + 1) if assigned is not None else None

    def _assigned_attributes(self, owner: Sym) -> dict[str, tuple[Sym, list[tuple[str, str]]]]:
        """Attribute -> (the first method of ``owner`` assigning `this.attr = ...`, that assignment's facts), read
        once per class for the pass: a lookup per attribute went through every method (a Java class's fields are
        looked up at every call on a bare name)."""
        found = self._assigned.get(owner.id)
        if found is None:
            found = self._assigned[owner.id] = {}
            for method in self.t.members.get(owner.id, []):
                for name, facts in self.t.facts.get(method.id, {}).items():
                    if name.startswith(".") and facts:
                        found.setdefault(name[1:], (method, facts))
        return found

    # -- members -------------------------------------------------------------------------------------------------
    def member(
        self,
        owner: Sym,
        name: str,
        kinds: frozenset[str],
        *,
        overloads: bool = False,
        side: str = "",
        pick: Pick = as_given,
    ) -> tuple[Sym | None, bool]:
        """``owner``'s member ``name`` (its own, else its bases'), and whether every base was the repository's (so
        a member not found is not inherited from outside). Several members of one name are, when ``side``
        ("static" or "instance") leaves one of them, that one; else the one ``pick`` chooses (Java overloads, by
        the call's arguments); else TypeScript overloads (the last is the body) when ``overloads``, else no
        answer."""
        if pick is not as_given:
            return self._member_in(owner, name, kinds, overloads, side, pick, set(), 0)
        # Without arguments to choose by, the answer is the class's (java.base asks 85k times for 29k of them).
        key = (owner.id, name, kinds, overloads, side)
        found = self._members.get(key)
        if found is None:
            found = self._members[key] = self._member_in(owner, name, kinds, overloads, side, pick, set(), 0)
        return found

    def _member_in(
        self,
        cls: Sym,
        name: str,
        kinds: frozenset[str],
        overloads: bool,
        side: str,
        pick: Pick,
        seen: set[int],
        depth: int,
    ) -> tuple[Sym | None, bool]:
        """``member`` for ``cls`` and its bases. A method, not a nested function that calls itself: such a
        function is a reference cycle, and binding runs with the cyclic collector paused (index/bind.py), so
        every call's closure stayed in memory (a 15k-file Java tree: hundreds of MB)."""
        if cls.id in seen or depth > _MAX_DEPTH:
            return None, False
        seen.add(cls.id)
        own = self.on_side(self._own_members(cls, name, kinds), side)
        if own and pick is not as_given:
            # Java chooses among every overload the class has, inherited ones too: `Sub.get(x)` may call a base's
            # `get(Type)` beside Sub's own `get(Class, Type...)`.
            own = own + self._inherited_once(cls, name, kinds, side, own)
        own = pick(own)
        if own:
            return (self._one(own) if overloads or len(own) == 1 else None), overloads or len(own) == 1
        aliased = self._aliased(cls) if cls.kind == "type" else None
        if aliased is not None:  # Rust's `impl OwnedDFA` beside `impl DFA<T>`: the alias's type has the rest
            return self._member_in(aliased, name, kinds, overloads, side, pick, seen, depth + 1)
        complete = True
        for base_name, qualifier in self.t.bases.get(cls.id, []):
            base = self.base_type(base_name, qualifier, cls.file_id)
            if base is None:
                complete = False
                continue
            found, base_complete = self._member_in(base, name, kinds, overloads, side, pick, seen, depth + 1)
            if found is not None:
                return found, True
            complete &= base_complete
        return None, complete

    def _aliased(self, alias: Sym) -> Sym | None:
        """The repository type an alias stands for (`type OwnedDFA = DFA<Vec<u32>>`, `using App_p = ...`)."""
        stands_for = [t for kind, t in self.t.facts.get(alias.id, {}).get("()", []) if kind == "type"]
        return as_sym(self.named(stands_for[0], alias.file_id)) if stands_for else None

    def _inherited_once(self, cls: Sym, name: str, kinds: frozenset[str], side: str, own: list[Sym]) -> list[Sym]:
        """``_inherited``, remembered for the pass (``own`` is always the class's own members of that name)."""
        key = (cls.id, name, kinds, side)
        inherited = self._inherited_cache.get(key)
        if inherited is None:
            inherited = self._inherited_cache[key] = self._inherited(cls, name, kinds, side, own)
        return inherited

    def _inherited(self, cls: Sym, name: str, kinds: frozenset[str], side: str, own: list[Sym]) -> list[Sym]:
        """The members ``name`` that the bases of ``cls`` declare and that neither ``cls`` nor a nearer base
        overrides (the same parameter types)."""
        signatures = {self.parameters(s) for s in own}
        out: list[Sym] = []
        seen = {cls.id}
        level = [cls]
        for _depth in range(_MAX_DEPTH):
            below: list[Sym] = []
            for cur in level:
                for base_name, qualifier in self.t.bases.get(cur.id, []):
                    base = self.base_type(base_name, qualifier, cur.file_id)
                    if base is None or base.id in seen:
                        continue
                    seen.add(base.id)
                    below.append(base)
                    for s in self.on_side(self._own_members(base, name, kinds), side):
                        signature = self.parameters(s)
                        if signature not in signatures:
                            signatures.add(signature)
                            out.append(s)
            level = below
        return out

    def parameters(self, method: Sym) -> str:
        """A Java or C++ method's parameter types as its "()p" fact states them ("" for none)."""
        stated = self.t.facts.get(method.id, {}).get(PARAMETERS_FACT)
        return stated[0][1] if stated else ""

    def base_type(self, name: str, qualifier: str, file_id: int) -> Sym | None:
        """The repository type a base written in ``file_id`` names (`extends Foo`, `implements a.B`), or None."""
        return as_sym(self._definition(f"{qualifier}.{name}" if qualifier else name, file_id, TYPE_KINDS))

    def is_static(self, sym: Sym) -> bool:
        """Whether a method is declared `static` (its "static" fact)."""
        return "static" in self.t.facts.get(sym.id, {})

    def on_side(self, members: list[Sym], side: str) -> list[Sym]:
        """Of several members of one name, the one a static (``side`` "static") or an instance ("instance")
        receiver reaches, when only one is; else all of them."""
        if len(members) < 2 or not side:
            return members
        narrowed = [s for s in members if self.is_static(s) == (side == "static")]
        return narrowed if len(narrowed) == 1 else members

    def this_side(self, source: Sym, owner: Sym) -> str:
        """What `this` is in ``source`` inside class ``owner``: "static" in a static method, else "instance"."""
        scope: Sym | None = source
        while scope is not None and scope.parent_id != owner.id:
            scope = self.t.parent(scope)
        return "static" if scope is not None and self.is_static(scope) else "instance"

    def _own_members(self, cls: Sym, name: str, kinds: frozenset[str]) -> list[Sym]:
        if cls.kind == HOLDER:  # its members are named by it, in its file: `obj.f = ...`, `{ f() {} }`
            qualified = f"{cls.qualified_name}.{name}"
            return [
                s
                for s in self.t.by_file_name.get((cls.file_id, name), [])
                if s.kind in kinds and s.qualified_name == qualified and s.id != cls.parent_id
            ]
        nested = [s for s in self.t.children.get((cls.id, name), []) if s.kind in kinds]
        if nested:
            return nested
        # Go declares methods beside the type, in any file of its package: `func (p *Parser) Parse()`; Rust in `impl`
        # blocks, which belong to the type of that name their module sees (another module's DFA has its own).
        qualified = f"{cls.qualified_name}.{name}"
        same_name = [s for s in self._by_qualified_name(name).get(qualified, ()) if s.kind in kinds]
        if self._rust(cls.file_id):
            return [s for s in same_name if (owner := self.t.scope_parent(s)) is not None and owner.id == cls.id]
        folder = self.t.dir_of_file.get(cls.file_id)
        return [s for s in same_name if self.t.dir_of_file.get(s.file_id) == folder]

    def _by_qualified_name(self, name: str) -> dict[str, list[Sym]]:
        """The definitions called ``name`` by qualified name (in the table's order), grouped once per name for the
        pass: every call of an inherited method asks each class up the chain, and a common name (`get`,
        `toString`) has thousands of definitions to look through."""
        groups = self._qualified.get(name)
        if groups is None:
            groups = self._qualified[name] = {}
            for s in self.t.by_name.get(name, []):
                groups.setdefault(s.qualified_name, []).append(s)
        return groups
