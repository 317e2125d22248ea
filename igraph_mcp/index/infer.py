"""Scope lookup and receiver inference for lexically scoped languages (Python).

A name is looked up the way the language does it: the enclosing functions (not class bodies), the module,
its imports (followed through re-exports in package `__init__` files), star imports, then the builtins. A
receiver expression (`self.session`, `x`, `requests.Session()`, `self._get(url).json`) is evaluated step by
step to a value: a module, a class, an instance of a class, a function, something outside the repository,
or unknown. Types come from what the code states: constructors, assignments, annotations of parameters,
attributes and return values. Nothing is bound by name alone: what cannot be decided stays unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from igraph_mcp.index.python_imports import PythonImports
from igraph_mcp.index.resolve_rules import ResolveRules
from igraph_mcp.index.symbols import Sym, SymbolTable, submodule
from igraph_mcp.vocab.languages import CLASS_LIKE, FUNCTION_LIKE

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Annotation wrappers that do not change which class a value is an instance of.
_TYPE_WRAPPERS = frozenset({"Optional", "ClassVar", "Final", "Annotated", "Required", "NotRequired", "ReadOnly"})
_CLASS_WRAPPERS = frozenset({"Type", "type"})
_MAX_DEPTH = 12
_MAX_EVAL_DEPTH = 24
MAX_CANDIDATES = 8


@dataclass(frozen=True, slots=True)
class Value:
    """What an expression evaluates to.

    kind: "module" (ref = importing file id, module = module string), "class", "instance", "function"
    (ref = symbol id), "super" (ref = the class whose parents are searched), "external" (outside the
    repository: builtins, standard library, dependencies), "ambiguous" (candidates), "unknown".
    how: the resolution method a reference ending here gets ("same_file", "import", "self", "inferred").
    """

    kind: str
    ref: int = 0
    module: str = ""
    how: str = ""
    candidates: tuple[int, ...] = ()


UNKNOWN = Value("unknown")
EXTERNAL = Value("external")
_RANK = {"inferred": 4, "self": 3, "import": 2, "same_file": 1}


def _how(a: str, b: str) -> str:
    """The weaker of two methods: inference anywhere on the way makes the result inferred."""
    return a if _RANK.get(a, 0) >= _RANK.get(b, 0) else b


def chain(text: str) -> list[tuple[str, str]] | None:
    """Split a receiver expression into steps: name, then attr / call / index; None if it is not a chain."""
    m = _IDENT.match(text)
    if m is None:
        return None
    steps = [("name", m.group())]
    i = m.end()
    while i < len(text):
        c = text[i]
        if c == ".":
            m = _IDENT.match(text, i + 1)
            if m is None:
                return None
            steps.append(("attr", m.group()))
            i = m.end()
        elif c in "([":
            close = _closing(text, i)
            if close < 0:
                return None
            steps.append(("call" if c == "(" else "index", ""))
            i = close + 1
        else:
            return None
    return steps


def _closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at ``start`` (quotes skipped), or -1."""
    depth, i, quote = 0, start, ""
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def is_literal(text: str) -> bool:
    """A literal or display (`"x"`, `b''`, `1`, `[...]`, `{...}`, f-strings): its methods are the language's."""
    if not text:
        return False
    head = text[0]
    if head in "'\"[{" or head.isdigit():
        return True
    return bool(re.match(r"[rRbBuUfF]{1,2}['\"]", text))


def type_core(text: str) -> tuple[str, bool] | None:
    """The class an annotation names: (dotted name, is the class itself) or None (unions, generics, ...)."""
    text = text.strip().strip("'\"")
    parts = [p for p in _split_top(text, "|") if p not in ("None", "")]
    if len(parts) != 1:
        return None
    t = parts[0]
    is_class = False
    for _ in range(4):
        m = re.fullmatch(r"((?:[A-Za-z_]\w*\.)*)([A-Za-z_]\w*)\[(.*)\]", t)
        if m is None:
            break
        wrapper, inner = m.group(2), m.group(3)
        if wrapper in _TYPE_WRAPPERS:
            t = _split_top(inner, ",")[0]
        elif wrapper in _CLASS_WRAPPERS:
            t, is_class = _split_top(inner, ",")[0], True
        else:
            t = m.group(1) + wrapper  # `Foo[int]`: an instance of Foo
        t = t.strip().strip("'\"")
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", t):
        return None
    return t, is_class


def _split_top(text: str, sep: str) -> list[str]:
    out: list[str] = []
    cur: list[str] = []
    depth = 0
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    out.append("".join(cur).strip())
    return out


def _with_how(value: Value, how: str) -> Value:
    """``value`` reached by ``how`` as well: the weaker method of the two."""
    return replace(value, how=_how(value.how, how)) if value.how else replace(value, how=how)


def _value_of_symbol(sym: Sym, how: str) -> Value:
    """What naming one definition evaluates to."""
    if sym.kind in CLASS_LIKE:
        return Value("class", sym.id, how=how)
    if sym.kind in FUNCTION_LIKE:
        return Value("function", sym.id, how=how)
    return Value("unknown", how=how)  # constants and type aliases: their value is not tracked


def _value_of_defs(defs: list[Sym], how: str) -> Value:
    """What a name with these definitions in one scope evaluates to."""
    values = {_value_of_symbol(d, how) for d in defs}
    if len(values) == 1:
        return values.pop()
    # `try: def f(): ... except: def f(): ...` or overloads: several definitions, none certain.
    return Value("ambiguous", how=how, candidates=tuple(d.id for d in defs[:MAX_CANDIDATES]))


def class_order(table: SymbolTable, cid: int, evaluate: Callable[[str, Sym, int], Value]) -> tuple[list[int], bool]:
    """A class and its bases, depth first left to right (C3 agrees on simple hierarchies), each base evaluated
    where its class is defined; and whether every base is a repository class (so a missing member is not inherited
    from outside)."""
    order: list[int] = []
    complete = True

    def visit(c: int, depth: int) -> None:
        nonlocal complete
        if c in order or depth > _MAX_DEPTH:
            return
        order.append(c)
        sym = table.by_id.get(c)
        if sym is None:
            return
        scope = table.parent(sym)
        for base, qualifier in table.bases.get(c, []):
            if not qualifier and base == "object":
                continue
            text = f"{qualifier}.{base}" if qualifier else base
            value = evaluate(text, scope or sym, sym.file_id)
            if value.kind == "class":
                visit(value.ref, depth + 1)
            else:
                complete = False

    visit(cid, 0)
    return order, complete


class ScopeInference:
    """Evaluates names and receiver expressions over a symbol table, with memoisation."""

    def __init__(self, table: SymbolTable, rules: ResolveRules) -> None:
        self.t = table
        self.rules = rules
        self._names: dict[tuple[int, str], Value] = {}
        self._members: dict[tuple[int, str], Value | None] = {}
        self._mros: dict[int, tuple[list[int], bool]] = {}
        self._busy: set[tuple[str, int, str]] = set()
        self.imports = PythonImports(table)
        self._depth = 0

    # -- entry point --------------------------------------------------------------------------------------------
    def resolve(self, source: Sym, file_id: int, kind: str, name: str, qualifier: str) -> Value:
        """What the reference names: a class or function value, or why it stays unbound."""
        scope = source
        if kind in ("inherits", "implements") and source.parent_id is not None:
            scope = self.t.by_id.get(source.parent_id, source)  # bases are evaluated outside the class body
        if not qualifier:
            return self.lookup(scope, file_id, name)
        receiver = self.evaluate(qualifier, scope, file_id)
        return self.attribute(receiver, name)

    # -- names --------------------------------------------------------------------------------------------------
    def lookup(self, scope: Sym, file_id: int, name: str) -> Value:
        """Look a bare name up from ``scope``: enclosing functions, module, imports, star imports, builtins."""
        key = (scope.id, name)
        hit = self._names.get(key)
        if hit is not None:
            return hit
        guard = ("name", scope.id, name)
        if guard in self._busy or len(self._busy) > _MAX_DEPTH * 4:
            return UNKNOWN
        self._busy.add(guard)
        try:
            value = self._lookup(scope, file_id, name)
        finally:
            self._busy.discard(guard)
        self._names[key] = value
        return value

    def _lookup(self, scope: Sym, file_id: int, name: str) -> Value:
        cur: Sym | None = scope
        first = True
        while cur is not None and cur.kind != "module":
            # A class body's names are visible in the body itself, not in the methods nested in it.
            if first or cur.kind not in CLASS_LIKE:
                found = self._in_scope(cur, file_id, name, local=True)
                if found is not None:
                    return found
            first = False
            cur = self.t.parent(cur)
        module = self.t.module_of_file.get(file_id)
        if module is not None:
            found = self._in_scope(module, file_id, name, local=False)
            if found is not None:
                return found
        found = self._imported(file_id, name)
        if found is not None:
            return found
        if name in self.rules.builtins:
            return EXTERNAL
        return UNKNOWN

    def _in_scope(self, scope: Sym, file_id: int, name: str, *, local: bool) -> Value | None:
        """A name defined or bound directly in one scope (a nested definition first, then its facts)."""
        defs = self.t.children.get((scope.id, name), [])
        if defs:
            return _value_of_defs(defs, "same_file")
        facts = self.t.facts.get(scope.id, {}).get(name)
        if facts:
            return self._from_facts(facts, scope, file_id)
        return None

    def _from_facts(self, facts: list[tuple[str, str]], scope: Sym, file_id: int) -> Value:
        typed = [text for kind, text in facts if kind == "type"]
        valued = [text for kind, text in facts if kind == "value"]
        if typed:
            values = {self.evaluate_type(t, scope, file_id) for t in typed}
        elif valued and len(valued) == len(facts):
            values = {self.evaluate(v, scope, file_id) for v in valued}
        else:
            return UNKNOWN  # a parameter, loop variable or mixed bindings: shadows outer names, value unknown
        if len(values) != 1:
            return UNKNOWN
        value = values.pop()
        return replace(value, how="inferred") if value.kind in ("class", "instance", "function") else value

    # -- imports ------------------------------------------------------------------------------------------------
    def _imported(self, file_id: int, name: str) -> Value | None:
        named, stars = self.imports.bindings(file_id)
        entry = named.get(name)
        if entry is not None:
            module, member, alias = entry
            if member:
                return _with_how(self.module_member(module, file_id, member), "import")
            if alias:
                return Value("module", file_id, module=module, how="import")
            return Value("module", file_id, module=name, how="import")  # `import a.b` binds `a`
        for module in stars:
            found = self.module_member(module, file_id, name, star=True)
            if found.kind not in ("unknown", "external"):
                return _with_how(found, "import")
        return None

    def module_member(self, module: str, importer: int, name: str, *, star: bool = False) -> Value:
        """``module.name``: a definition or binding in the module's file, else a submodule."""
        files = self.imports.module_files(module, importer)
        for f in files:
            found = self.file_member(f, name)
            if found is not None:
                return found
        sub = submodule(module, name)
        if not star and self.imports.module_files(sub, importer):
            return Value("module", importer, module=sub, how="import")
        return UNKNOWN if files else EXTERNAL

    def file_member(self, file_id: int, name: str) -> Value | None:
        """A top-level name of one file, following its own imports (re-exports)."""
        key = (-file_id, name)
        if key in self._members:
            return self._members[key]
        guard = ("file", file_id, name)
        if guard in self._busy or len(self._busy) > _MAX_DEPTH * 4:
            return None
        self._busy.add(guard)
        try:
            module = self.t.module_of_file.get(file_id)
            found = self._in_scope(module, file_id, name, local=False) if module is not None else None
            if found is None:
                found = self._imported(file_id, name)
        finally:
            self._busy.discard(guard)
        self._members[key] = found
        return found

    # -- expressions --------------------------------------------------------------------------------------------
    def evaluate(self, text: str, scope: Sym, file_id: int) -> Value:
        """Evaluate a receiver expression written in ``scope``."""
        # Facts refer to facts (attributes typed by other attributes, bases through aliases): bound the chase.
        if self._depth >= _MAX_EVAL_DEPTH:
            return UNKNOWN
        self._depth += 1
        try:
            return self._evaluate(text, scope, file_id)
        finally:
            self._depth -= 1

    def _evaluate(self, text: str, scope: Sym, file_id: int) -> Value:
        if is_literal(text):
            return EXTERNAL
        steps = chain(text)
        if steps is None:
            return UNKNOWN
        head = steps[0][1]
        rest = steps[1:]
        owner = self.t.enclosing(scope, CLASS_LIKE)
        if head in self.rules.self_names and owner is not None:
            value = Value("instance", owner.id, how="self")
        elif head in self.rules.class_names and owner is not None:
            value = Value("class", owner.id, how="self")
        elif head == self.rules.super_name and rest[:1] == [("call", "")] and owner is not None:
            value, rest = Value("super", owner.id, how="self"), rest[1:]
        else:
            value = self.lookup(scope, file_id, head)
        for step, arg in rest:
            if value.kind in ("unknown", "ambiguous"):
                return UNKNOWN
            value = self._step(value, step, arg)
        return value

    def _step(self, value: Value, step: str, arg: str) -> Value:
        if value.kind == "external":
            return EXTERNAL
        if step == "attr":
            return self.attribute(value, arg)
        if step == "call":
            if value.kind == "class":
                return Value("instance", value.ref, how=value.how)
            if value.kind == "function":
                return self._returns(value)
            return UNKNOWN
        return UNKNOWN  # subscripts: element types are not tracked

    def attribute(self, value: Value, name: str) -> Value:
        """``value.name``."""
        if value.kind == "module":
            return _with_how(self.module_member(value.module, value.ref, name), value.how)
        if value.kind in ("class", "instance", "super"):
            mro, complete = self.mro(value.ref)
            if value.kind == "super":
                mro = mro[1:]
            for cid in mro:
                found = self._class_member(cid, name)
                if found is not None:
                    return _with_how(found, value.how) if found.how else replace(found, how=value.how)
            # Not defined in the repository: inherited from an outside base (dict, Exception), or dynamic.
            return UNKNOWN if complete else EXTERNAL
        if value.kind == "external":
            return EXTERNAL
        return UNKNOWN

    def _class_member(self, cid: int, name: str) -> Value | None:
        key = (cid, name)
        if key in self._members:
            return self._members[key]
        guard = ("member", cid, name)
        if guard in self._busy:
            return None  # `self.x = self.x.y`: the attribute's own fact does not tell its type
        found: Value | None = None
        defs = self.t.children.get((cid, name), [])
        if defs:
            found = _value_of_defs(defs, "")
        else:
            self._busy.add(guard)
            try:
                found = self._attribute_facts(cid, name)
            finally:
                self._busy.discard(guard)
        self._members[key] = found
        return found

    def _attribute_facts(self, cid: int, name: str) -> Value | None:
        """An attribute's type from the class body (`x: T`, `x = T()`) or its methods (`self.x = T()`)."""
        cls = self.t.by_id.get(cid)
        if cls is None:
            return None
        values: set[Value] = set()
        facts = self.t.facts.get(cid, {}).get(name)
        if facts:
            values.add(self._from_facts(facts, cls, cls.file_id))
        for method in self.t.members.get(cid, []):
            facts = self.t.facts.get(method.id, {}).get("." + name)
            if facts:
                values.add(self._from_facts(facts, method, method.file_id))
        if not values:
            return None
        known = {v for v in values if v.kind != "unknown"}
        # `self.x = x` from an untyped parameter in one method, `self.x = Session()` in another: the one
        # value that is known is the type; two different known values leave it undecided.
        return known.pop() if len(known) == 1 else UNKNOWN

    def _returns(self, fn: Value) -> Value:
        sym = self.t.by_id.get(fn.ref)
        if sym is None:
            return UNKNOWN
        if sym.name == "__init__":
            return UNKNOWN
        annotations = [t for kind, t in self.t.facts.get(sym.id, {}).get("()", []) if kind == "type"]
        if len(annotations) != 1:
            return UNKNOWN
        value = self.evaluate_type(annotations[0], sym, sym.file_id)
        return replace(value, how="inferred") if value.kind == "instance" else value

    def evaluate_type(self, text: str, scope: Sym, file_id: int) -> Value:
        """The value an annotation promises: an instance of the class it names (or the class, for type[X])."""
        core = type_core(text)
        if core is None:
            return UNKNOWN
        dotted, is_class = core
        if dotted == "Self":
            owner = self.t.enclosing(scope, CLASS_LIKE)
            return Value("instance", owner.id, how="inferred") if owner is not None else UNKNOWN
        # Annotations are evaluated where the function is defined: its parameters do not shadow them.
        outer = self.t.by_id.get(scope.parent_id) if scope.kind in FUNCTION_LIKE and scope.parent_id else None
        value = self.evaluate(dotted, outer or scope, file_id)
        if value.kind == "class":
            return value if is_class else Value("instance", value.ref, how=value.how)
        return EXTERNAL if value.kind == "external" else UNKNOWN

    # -- classes --------------------------------------------------------------------------------------------------
    def mro(self, cid: int) -> tuple[list[int], bool]:
        """The class and its bases, depth first left to right (C3 agrees on simple hierarchies); and whether
        every base is a repository class (so a missing member is not inherited from outside)."""
        cached = self._mros.get(cid)
        if cached is not None:
            return cached
        self._mros[cid] = ([cid], False)  # a cycle through this class sees a partial answer, not a loop
        found = self._mros[cid] = class_order(self.t, cid, self.evaluate)
        return found
