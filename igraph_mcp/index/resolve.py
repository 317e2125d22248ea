"""Binding references to definitions, and how sure each binding is.

Languages whose row in resolve_rules.RULES is lexical (Python) are resolved by scope and inferred receiver types
(index/infer.py): nothing is bound by name alone. Other languages use, in order: self/this members, typed receivers
(index/receivers.py: a parameter, variable, field or result whose type the scope states; `super.f()` in the
bases; in JavaScript/TypeScript `X.f()` for the definition qualified X.f), import binding (through re-exports; in Java a
name imported from a library binds nothing), same file, `Type.member`, same directory, unique global name; the
last two are name-only guesses,
never from library code into test code (vocab/testcode.py), and carry a low confidence (vocab/edges.py). Both
ways read one SymbolTable (index/symbols.py). Where a language's rules say so (Java), several same-named methods a
step finds are narrowed to the one the call's argument count fits (index/overloads.py) before that step gives up.
Whatever does not bind to exactly one definition stays unbound ("ambiguous" with its candidates, "external" for
the language's own names, or "unresolved"). A declaration whose body is among a step's definitions (a header's
prototype, a C forward declaration, a C++ member declared in its class, a `.d.ts` signature: the same qualified
name in the same language family) is no second candidate, and a call that finds only the declaration binds the
body: an answer's callers and callees are the function's, not its prototype's. In C and C++, where several
definitions share a bare name, the one the caller's includes make visible (the file and the headers it reaches;
a body where its prototype is visible) is bound as an import, before the name-only guesses.
An incremental run re-binds edges from changed files and from the files importing a file whose interface changed
(index/interface.py; transitively, so a type fact or a re-export elsewhere that went through it is refreshed),
edges naming a name whose definitions changed, and edges whose target vanished; an edge or candidate naming a
re-parsed definition that kept its place takes its new id. Candidates come in file path order, then source order
(a fresh build's id order), so the same MAX_CANDIDATES are kept: it leaves the edges a full index would
(tests/test_incremental_edges.py).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from igraph_mcp.index import go_modules
from igraph_mcp.index.argument_types import ArgumentTypes
from igraph_mcp.index.cpp_argument_types import CppArgumentTypes
from igraph_mcp.index.declarations import family_of
from igraph_mcp.index.infer import MAX_CANDIDATES, ScopeInference, Value
from igraph_mcp.index.overloads import Pick, as_given
from igraph_mcp.index.receivers import HOLDER, OUTSIDE, Found, ReceiverTypes, as_sym
from igraph_mcp.index.resolve_rules import ResolveRules, rules_for
from igraph_mcp.index.symbols import Sym, SymbolTable, submodule
from igraph_mcp.vocab.edges import CONFIDENCE
from igraph_mcp.vocab.languages import TYPE_KINDS
from igraph_mcp.vocab.testcode import is_test_side

# How many files one file's includes may reach before the walk stops (a header of everything includes thousands).
MAX_INCLUDED = 4000
INCLUDED_KEPT = 64  # files whose reach is remembered

# Kinds a reference of each kind may point at.
_CALLABLE = frozenset({"function", "method", "class", "struct", "constant", "type", "enum", "interface", "trait"})
_BARE_CALLABLE = _CALLABLE - {"method"}  # what a bare `f()` may call where no `this.` is implied
_TYPE_LIKE = TYPE_KINDS
TARGET_KINDS: dict[str, frozenset[str]] = {
    "calls": _CALLABLE,
    "inherits": _TYPE_LIKE,
    "implements": _TYPE_LIKE,
    "references": _TYPE_LIKE | {"constant", "function"},
    "imports": _CALLABLE | _TYPE_LIKE | {"module"},
}


@dataclass(frozen=True, slots=True)
class Binding:
    """The outcome of resolving one reference."""

    target: int | None
    how: str
    confidence: float = 0.0
    candidates: tuple[int, ...] = ()

    def candidates_json(self) -> str:
        """Candidate node ids as stored in edges.candidates ("" when there are none)."""
        return json.dumps(list(self.candidates)) if self.candidates else ""


def _bound(target: int, how: str) -> Binding:
    return Binding(target, how, CONFIDENCE.get(how, 0.5))


@dataclass(frozen=True, slots=True)
class _Candidates:
    """The definitions of one name a reference may point at, in table order, and the groups the name-only steps
    look up: by the name of the enclosing definition (`Type.member`) and by directory."""

    every: tuple[Sym, ...]
    ids: frozenset[int]
    methods: tuple[Sym, ...]
    by_owner: dict[str, list[Sym]]
    by_dir: dict[str | None, list[Sym]]
    plain: tuple[Sym, ...]  # every, less the constructors of a class among them (see _without_constructors)
    plain_ids: frozenset[int]
    # file id -> the candidates a file makes visible: those it defines, and bodies whose declaration it holds
    by_file: dict[int, list[Sym]]

    @classmethod
    def of(
        cls,
        every: list[Sym],
        owner_of: Callable[[Sym], str],
        dir_of: Callable[[int], str | None],
        stands_for: dict[int, Sym],
        declared_in: dict[int, set[int]],
    ) -> _Candidates:
        """Group ``every`` once; a body that a declaration stood aside for is also a member of the declaration's
        owner (C++'s `int Widget::draw()` lies outside the class that declares it), and visible where the
        declaration is (``declared_in``: body id -> the files of its declarations)."""
        by_owner: dict[str, list[Sym]] = {}
        by_dir: dict[str | None, list[Sym]] = {}
        by_file: dict[int, list[Sym]] = {}
        for s in every:
            for f in sorted({s.file_id, *declared_in.get(s.id, ())}):
                by_file.setdefault(f, []).append(s)
            owners = {owner_of(s)} - {""}
            declared = stands_for.get(s.id)
            if declared is not None and declared.parent_id is not None:
                owners.add(owner_of(declared))
            for owner in sorted(owners):
                by_owner.setdefault(owner, []).append(s)
            by_dir.setdefault(dir_of(s.file_id), []).append(s)
        methods = tuple(s for s in every if s.kind == "method")
        plain = tuple(_without_constructors(every))
        return cls(
            tuple(every),
            frozenset(s.id for s in every),
            methods,
            by_owner,
            by_dir,
            plain,
            frozenset(s.id for s in plain),
            by_file,
        )

    def visible_from(self, files: frozenset[int]) -> list[Sym]:
        """The candidates ``files`` make visible, in table order."""
        if len(files) < len(self.by_file):
            found = {s.id: s for f in files for s in self.by_file.get(f, ())}
        else:
            found = {s.id: s for f, group in self.by_file.items() if f in files for s in group}
        return [s for s in self.every if s.id in found]


def _without_constructors(candidates: Sequence[Sym]) -> list[Sym]:
    """``candidates`` (one name's definitions) less the constructors of a class among them: a member named like its
    class is its constructor."""
    classes = {s.id for s in candidates if s.kind in _TYPE_LIKE}
    return [s for s in candidates if s.parent_id not in classes]


def _method_syntax(qualifier: str, local_head: bool) -> bool:
    """Whether a Rust call's qualifier is a value (`self.x.f()`, `g().f()`, `v.f()` on a local), not a path
    (`m::f()`, `Type::f()`: the qualifier `m` or `Type` reads the same as a local's name)."""
    if "::" in qualifier:
        return False
    return qualifier == "self" or "." in qualifier or "(" in qualifier or local_head


def _module_path(qualifier: str) -> bool:
    """Whether a Rust call's qualifier is a path of modules (`wire`, `crate::util::wire`), not a type's
    (`wire::Endian`) or a value."""
    words = qualifier.removesuffix("::").split("::")  # `self::f()` reads `self::` (parse.py)
    return all(w.isidentifier() and w[:1].islower() for w in words)


def _others(group: Sequence[Sym], source_id: int) -> list[Sym]:
    """``group`` without the referring definition itself (a definition is never its own target)."""
    return [s for s in group if s.id != source_id]


class _ImportBindings:
    """A file's imports as the resolver reads them, worked out once per file. An object of its own, not a method of
    the Resolver: the receiver types hold it, and a bound method made the two a reference cycle, which kept the
    resolver's caches and its symbol table alive after binding (the collector is paused then) while declarations
    were linked, the run's peak of memory."""

    def __init__(self, table: SymbolTable) -> None:
        self.table = table
        self._cache: dict[int, dict[str, tuple[list[int], str]]] = {}

    def __call__(self, file_id: int) -> dict[str, tuple[list[int], str]]:
        """Local name -> (files the import points at, imported member name or "" for a module binding)."""
        cached = self._cache.get(file_id)
        if cached is not None:
            return cached
        out: dict[str, tuple[list[int], str]] = {}
        for module, name, alias in self.table.imports.get(file_id, []):
            files = self.table.files_for_module(module, file_id)
            if name and name != "*":
                sub = self.table.files_for_module(submodule(module, name), file_id) if "/" not in module else []
                local = alias or name
                # `from pkg import mod` binds a module when pkg/mod exists, otherwise a member of pkg.
                out[local] = (sub, "") if sub else (files, name)
            elif alias or self.table.language_of(file_id) != "go":
                local = alias or module.replace("::", ".").replace("/", ".").rstrip(".").split(".")[-1]
                out[local] = (files, "")
            else:  # Go: the package's name, which is not always the path's last word (`.../v2`, `go-git`)
                for local in go_modules.import_names(module):
                    out.setdefault(local, (files, ""))
        self._cache[file_id] = out
        return out


class Resolver:
    """Binds reference edges over one SymbolTable of the index."""

    def __init__(self, table: SymbolTable) -> None:
        self.table = table
        self._inference: dict[ResolveRules, ScopeInference] = {}
        self._by_name_cache: dict[tuple[str, frozenset[str], bool], _Candidates] = {}
        self._test_side_of: dict[int, bool] = {}
        self._included_cache: OrderedDict[int, frozenset[int]] = OrderedDict()
        self._bindings = _ImportBindings(table)
        self.receivers = ReceiverTypes(table, self._bindings)
        self.arguments = ArgumentTypes(table, self.receivers)
        self.cpp_arguments = CppArgumentTypes(table, self.receivers, self.arguments)

    # -- imports -----------------------------------------------------------------------------------------------
    def resolve_import(self, file_id: int, module: str, name: str) -> Binding:
        """Target of an import statement: the imported symbol, else the module node of the imported file."""
        files = self.table.files_for_module(module, file_id)
        if name and name != "*":
            sub = self.table.files_for_module(submodule(module, name), file_id)
            sub_node = self.table.module_of_file.get(sub[0]) if len(sub) == 1 else None
            if sub_node is not None:
                return _bound(sub_node.id, "import")
            hits = [s for f in files for s in self.table.by_file_name.get((f, name), [])]
            if len(hits) == 1:
                return _bound(hits[0].id, "import")
        file_node = self.table.module_of_file.get(files[0]) if len(files) == 1 else None
        if file_node is not None:
            return _bound(file_node.id, "import")
        if len(files) > 1:
            return Binding(None, "ambiguous", candidates=self._module_ids(files))
        return Binding(None, "unresolved")

    def _module_ids(self, files: list[int]) -> tuple[int, ...]:
        modules = (self.table.module_of_file.get(f) for f in files[:MAX_CANDIDATES])
        return tuple(m.id for m in modules if m is not None)

    # -- references --------------------------------------------------------------------------------------------
    def rules(self, file_id: int) -> ResolveRules:
        """The resolution rules of a file's language."""
        return rules_for(self.table.language_of(file_id))

    def resolve(
        self,
        source_id: int,
        file_id: int,
        kind: str,
        name: str,
        qualifier: str,
        arity: int = -1,
        arguments: str = "",
    ) -> Binding:
        """Bind one reference: its target (or None), the resolution method, a confidence, the candidates.
        ``arity`` is a call's argument count (-1 unknown) and ``arguments`` what their forms say of their types
        (index/argument_hints.py): they pick among overloads where the rules say so."""
        rules = self.rules(file_id)
        source = self.table.by_id.get(source_id)
        if rules.lexical and source is not None:
            return self._resolve_lexical(rules, source, file_id, kind, name, qualifier)
        pick: Pick = as_given
        if rules.cpp_overloads:
            pick = self.cpp_arguments.picker(arity, arguments, source, qualifier)
        elif rules.overloads_by_arity:
            pick = self.arguments.picker(arity, arguments, source)
        found = self._resolve_by_name(rules, source_id, file_id, kind, name, qualifier, pick)
        target = self.table.by_id.get(found.target) if found.target is not None else None
        if target is not None and target.declaration:
            # A member found in its class (`this->f()`, `w.f()`) is the declaration of `int Widget::f() {...}`.
            body = self._body_of(target)
            # A call that its receiver's type binds may be recursive (`child.remaining()` in `App::remaining`);
            # one bound by name alone is no call of the caller's own body.
            if body is not None and (body.id != source_id or found.how == "inferred"):
                return Binding(body.id, found.how, found.confidence)
        return found

    def _resolve_lexical(
        self, rules: ResolveRules, source: Sym, file_id: int, kind: str, name: str, qualifier: str
    ) -> Binding:
        inference = self._inference.get(rules)
        if inference is None:
            inference = self._inference[rules] = ScopeInference(self.table, rules)
        value = inference.resolve(source, file_id, kind, name, qualifier)
        return self._binding_of(value, kind, name, bool(qualifier))

    def _binding_of(self, value: Value, kind: str, name: str, qualified: bool) -> Binding:
        allowed = TARGET_KINDS.get(kind, _CALLABLE)
        if value.kind in ("class", "function"):
            target = self.table.by_id.get(value.ref)
            if target is not None and target.kind in allowed:
                return _bound(target.id, value.how or "same_file")
            return Binding(None, "unresolved")
        if value.kind == "ambiguous":
            return Binding(None, "ambiguous", candidates=value.candidates)
        if value.kind == "external":
            return Binding(None, "external")
        if qualified and value.kind == "unknown":
            # A receiver of unknown type: record what it might be, bind nothing.
            same = self._candidates(name, allowed, library_only=False).every[:MAX_CANDIDATES]
            if same:
                return Binding(None, "ambiguous", candidates=tuple(s.id for s in same))
        return Binding(None, "unresolved")

    def _resolve_by_name(
        self, rules: ResolveRules, source_id: int, file_id: int, kind: str, name: str, qualifier: str, pick: Pick
    ) -> Binding:
        t = self.table
        allowed = TARGET_KINDS.get(kind, _CALLABLE)
        if kind == "calls" and not qualifier and not rules.bare_calls_reach_methods:
            allowed = _BARE_CALLABLE
        source = t.by_id.get(source_id)
        head = qualifier.split(".")[0] if qualifier else ""
        own = rules.own_receivers  # self/this/cls/super...: the enclosing type or its parent

        # `this.f()` names this instance; `this.gen.f()` a field of it (typed below), never this class's own f.
        own_call = head in own and qualifier == head
        # 1. self/this calls: a member of the enclosing class-like definition.
        if own_call and head != rules.super_name and source is not None:
            owner = t.enclosing(source, _TYPE_LIKE)
            if owner is not None:
                members = [s for s in t.by_file_name.get((file_id, name), []) if s.parent_id == owner.id]
                members = self.receivers.on_side(members, self.receivers.this_side(source, owner))
                members = pick(members)
                if len(members) == 1:
                    return _bound(members[0].id, "same_file")
                if len(members) > 1 and not rules.overloads_before_body:
                    # Several of one name that static/instance and the argument count do not tell apart (Java
                    # overloads, a method without the "static" fact): which one `this.f()` means is not known here.
                    return Binding(None, "ambiguous", candidates=tuple(s.id for s in members[:MAX_CANDIDATES]))

        # 1b. a typed receiver: a parameter, variable or field whose type the scope states, or this/super; a
        # bare name a parameter or variable holds is no definition's.
        if qualifier and source is not None:
            if rules.members_are_fields and kind == "calls" and not own_call:
                return Binding(None, "unresolved")  # C: a function pointer a struct holds
            typed = self._typed_receiver(rules, source, name, qualifier, allowed, pick)
            if typed is not None:
                return typed
            # C++ `handler.run()` on a local of a type not known here, Rust's method syntax `x.f()` (a module's
            # function is `m::f()`): some class's member, no free function. Asked only where a rule says so: the
            # scope walk runs for every qualified call of a large tree.
            asks = kind == "calls" and (rules.objects_hold_members or rules.impl_blocks)
            local_head = asks and self.receivers.is_local(source, head)
            on_object = (rules.objects_hold_members and local_head) or (
                rules.impl_blocks and _method_syntax(qualifier, local_head)
            )
            if asks and on_object:
                methods = _others(self._candidates(name, allowed, library_only=False).methods, source_id)
                if methods:
                    return Binding(None, "ambiguous", candidates=tuple(s.id for s in methods[:MAX_CANDIDATES]))
                return Binding(None, "unresolved")
        elif source is not None:
            if not rules.methods_apart_from_variables and self.receivers.is_local(source, name):
                # A bare name a parameter or variable holds is no definition's; Java keeps methods and variables
                # apart (`superclass(superclass, true)` in a method whose parameter is named superclass).
                return Binding(None, "unresolved")
            if rules.bare_calls_are_methods:
                bound_here = self._own_method(source, name, allowed, pick)
                if bound_here is not None:
                    return bound_here

        # 2. import binding: the name itself, or the qualifier's head, was imported.
        bindings = self._bindings(file_id)
        bound = bindings.get(name) if not qualifier else bindings.get(head)
        if bound is not None:
            files, member = bound
            wanted = name if qualifier or not member else member
            hits = self.receivers.exported(files, wanted, allowed)
            if not hits and member == "default":
                # `import AjvCore from "./core"`: what core says it exports as its default (`export default class
                # Ajv`), else by convention the local name (`import makeWidget from './widget'`).
                named = None if qualifier else self.receivers.default_export(files)
                hits = self.receivers.exported(files, named, allowed) if named else []
                if not hits:
                    hits = [s for f in files for s in t.by_file_name.get((f, name), []) if s.kind in allowed]
            one = self._single(pick(hits), rules)
            if one is not None:
                return _bound(one.id, "import")
            if (
                rules.imports_are_exact
                and not files
                and not qualifier
                and self._imported_from_library(file_id, name, allowed, source_id)
            ):
                # `import static org.junit.Assert.fail`: a name another library defines, no guess of ours.
                return Binding(None, "external")
            if (
                rules.packages_are_exact
                and not files
                and qualifier
                and source is not None
                and not self.receivers.is_local(source, head)
            ):
                return Binding(None, "external")  # `unicode.IsPunct(r)`: the standard library's

        # 2b. Rust's `m::f()`, `crate::m::f()`, `other_crate::f()`: the module the path names, else an outside crate's
        rust_path = qualifier and rules.impl_blocks and kind == "calls" and _module_path(qualifier)
        if rust_path and source is not None and not self.receivers.is_local(source, head):
            files = self.receivers.rust_module_files(qualifier.removesuffix("::").replace("::", "."), file_id)
            one = self._single(pick(self.receivers.exported(files, name, allowed)), rules) if files else None
            if one is not None:
                return _bound(one.id, "import")
            if not files and head not in bindings:
                return Binding(None, "external")

        # 3. same file (unqualified or self-qualified names).
        if not qualifier or own_call:
            # Overloads are told apart before the caller leaves itself out: a recursive `f(x)` is no call of f(x, y).
            local = [s for s in t.by_file_name.get((file_id, name), []) if s.kind in allowed]
            one = self._single(_others(pick(local), source_id), rules)
            if one is not None:
                return _bound(one.id, "same_file")
        if not qualifier and name in rules.builtins:
            return Binding(None, "external")  # the language's own function, not shadowed in this file
        if (
            qualifier
            and head in rules.builtins
            and head not in bindings
            and not t.by_file_name.get((file_id, head))
            and not (source is not None and self.receivers.is_local(source, head))
        ):
            return Binding(None, "external")  # `JSON.stringify`: a member of the language's own global object

        # Library code never calls into tests or their inputs: no candidates for a name-only guess.
        candidates = self._candidates(name, allowed, library_only=not self._test_side(file_id))
        if rules.includes_are_visible and not qualifier and len(candidates.every) > 1:
            # 3b. what the file's includes make visible, where several definitions share the name.
            visible = _others(pick(candidates.visible_from(self._included(file_id))), source_id)
            if rules.constructors_are_the_class:
                visible = _without_constructors(visible)
            if len(visible) == 1:
                return _bound(visible[0].id, "import")
            if len(visible) > 1:
                here = t.dir_of_file.get(file_id)
                near = [s for s in visible if t.dir_of_file.get(s.file_id) == here]
                if len(near) == 1:
                    return _bound(near[0].id, "same_directory")
                return Binding(None, "ambiguous", candidates=tuple(s.id for s in visible[:MAX_CANDIDATES]))
        if qualifier and not own_call:
            # `Foo.bar()` or `Foo::bar`: prefer members of a type whose name is the qualifier's last part.
            owner_name = qualifier.split(".")[-1].split("::")[-1]
            owned = _others(self._owned(candidates.by_owner.get(owner_name, ()), name, allowed, pick), source_id)
            if len(owned) == 1:
                return _bound(owned[0].id, "qualified_name")
        if qualifier and not own_call and not rules.bind_unknown_receivers:
            # `x.update()` with x of unknown type: a same-named method nearby is a guess that was wrong in 84-94%
            # of cases on Python (issue 12); record the candidates, bind nothing. Module-qualified calls to free
            # functions (`pkg.Func()`) still fall through to the name-only steps.
            methods = _others(candidates.methods[: MAX_CANDIDATES + 1], source_id)
            if methods:
                return Binding(None, "ambiguous", candidates=tuple(s.id for s in methods[:MAX_CANDIDATES]))
        # 4. same directory.
        same_dir = _others(candidates.by_dir.get(t.dir_of_file.get(file_id), ()), source_id)
        if rules.constructors_are_the_class:
            same_dir = _without_constructors(same_dir)
        if len(same_dir) == 1:
            return _bound(same_dir[0].id, "same_directory")
        # 5. unique global name.
        pool, pool_ids = (
            (candidates.plain, candidates.plain_ids)
            if rules.constructors_are_the_class
            else (candidates.every, candidates.ids)
        )
        first = _others(pool[: MAX_CANDIDATES + 1], source_id)
        if len(pool) - (source_id in pool_ids) == 1:
            return _bound(first[0].id, "unique_global")
        if first:
            return Binding(None, "ambiguous", candidates=tuple(s.id for s in first[:MAX_CANDIDATES]))
        return Binding(None, "unresolved")

    def _owned(self, group: Sequence[Sym], name: str, allowed: frozenset[str], pick: Pick) -> list[Sym]:
        """`Cap.f()`: of the members ``group`` of types named Cap, the one the call binds (a list of one), else all
        of them. A Java call chooses among Cap's inherited overloads too."""
        parents = {s.parent_id for s in group}
        parent = next(iter(parents)) if len(parents) == 1 and pick is not as_given else None
        owner = self.table.by_id.get(parent) if parent is not None else None
        if owner is None:
            return pick(group)
        found, _complete = self.receivers.member(owner, name, allowed, pick=pick)
        return [found] if found is not None else list(group)

    def _own_method(self, source: Sym, name: str, allowed: frozenset[str], pick: Pick) -> Binding | None:
        """Java: a bare `f()` in a class is its method f or one it inherits; of overloads, the one the argument
        count fits, else none (which one the argument types choose is not known here, and "the other one" of two is
        no answer). `new Owner()` in Owner names the class, not its constructors: left to the other steps."""
        owner = self.table.enclosing(source, _TYPE_LIKE)
        if owner is None or owner.name == name:
            return None
        found, _complete = self.receivers.member(owner, name, allowed, pick=pick)
        built = self.table.enclosing(found, _TYPE_LIKE) if found is not None and found.kind not in _TYPE_LIKE else None
        if built is not None and built.name == name:
            return None  # a base's constructor (C++'s `Derived() : Base(x)`): the class, as the other steps bind it
        siblings = [s for s in self.table.children.get((owner.id, name), []) if s.kind in allowed]
        if found is not None and (found.id != source.id or len(siblings) > 1):
            # the caller itself only where the arguments chose it among its overloads: a recursive call
            return _bound(found.id, "inferred")
        overloads = pick(siblings)
        if len(overloads) > 1:
            return Binding(None, "ambiguous", candidates=tuple(s.id for s in overloads[:MAX_CANDIDATES]))
        return None

    def _imported_from_library(self, file_id: int, name: str, allowed: frozenset[str], source_id: int) -> bool:
        """Whether ``name``, bound by an import to no file of the repository, is another library's: not a relative
        import (one this index failed to follow) and not defined in the file itself (a Java class's own method
        shadows a static import)."""
        t = self.table
        if any(s.kind in allowed and s.id != source_id for s in t.by_file_name.get((file_id, name), [])):
            return False
        modules = [m for m, imported, alias in t.imports.get(file_id, []) if (alias or imported) == name]
        return bool(modules) and not any(m.strip().strip("'\"").startswith(".") for m in modules)

    def _candidates(self, name: str, allowed: frozenset[str], *, library_only: bool) -> _Candidates:
        """The definitions a name-only guess for ``name`` chooses from, grouped once per name: a common name
        (`get`, `toString`) is called from thousands of places and has thousands of definitions, and filtering
        them per call made binding quadratic (95% of a 15k-file Java tree's index time)."""
        key = (name, allowed, library_only)
        found = self._by_name_cache.get(key)
        if found is None:
            every = [s for s in self.table.by_name.get(name, []) if s.kind in allowed]
            if library_only:
                every = [s for s in every if not self._test_side(s.file_id)]
            every, stands_for, declared_in = self._stand_in(every)
            found = self._by_name_cache[key] = _Candidates.of(
                every, self._owner_name, self.table.dir_of_file.get, stands_for, declared_in
            )
        return found

    def _included(self, file_id: int) -> frozenset[int]:
        """The file and every file its includes reach, directly or through others (each include names the files
        closest to its includer), at most MAX_INCLUDED of them. Edges come file by file, so the last few files'
        answers are kept, not every file's (a C++ tree's headers reach thousands of files each)."""
        found = self._included_cache.get(file_id)
        if found is not None:
            self._included_cache.move_to_end(file_id)
            return found
        seen = {file_id}
        frontier = [file_id]
        while frontier and len(seen) < MAX_INCLUDED:
            f = frontier.pop()
            for module, _name, _alias in self.table.imports.get(f, []):
                for target in self.table.files_for_module(module, f):
                    if target not in seen:
                        seen.add(target)
                        frontier.append(target)
        found = self._included_cache[file_id] = frozenset(seen)
        if len(self._included_cache) > INCLUDED_KEPT:
            self._included_cache.popitem(last=False)
        return found

    def _test_side(self, file_id: int) -> bool:
        side = self._test_side_of.get(file_id)
        if side is None:
            side = self._test_side_of[file_id] = is_test_side(self.table.file_paths.get(file_id, ""))
        return side

    def _typed_receiver(
        self, rules: ResolveRules, source: Sym, name: str, qualifier: str, allowed: frozenset[str], pick: Pick
    ) -> Binding | None:
        """`x.f()` / `this.x.f()` / `super.f()` where the receiver's type is known: its member (or its bases'),
        "external" for a type the repository does not define; None when the type is unknown."""
        head, _, rest = qualifier.partition(".")
        if head in rules.own_receivers and head not in rules.self_names:  # super, or a class receiver
            owner = self.table.enclosing(source, _TYPE_LIKE)
            if owner is None:
                return None
            if head == rules.super_name and not rest:
                return self._in_bases(rules, owner, name, allowed, pick) or Binding(None, "unresolved")
            if rest:
                return None
            receiver: Found = owner
        else:
            receiver = self.receivers.of_path(
                qualifier,
                source,
                this=rules.self_names,
                holders=rules.namespace_members,
                methods=rules.bare_calls_are_methods,
                module_variables=rules.module_variables,
                package_variables=rules.package_variables,
            )
        if receiver == OUTSIDE:
            return Binding(None, "external")
        typed = as_sym(receiver)
        if typed is None:
            return None
        if typed.kind == HOLDER:
            side = "static"
        elif head in rules.self_names and not rest:
            side = self.receivers.this_side(source, typed)
        else:
            side = "instance"
        found, complete = self.receivers.member(
            typed, name, allowed, overloads=rules.overloads_before_body, side=side, pick=pick
        )
        if found is not None:
            return _bound(found.id, "inferred")
        # A holder lists only the members defined under its name (not a spread, not a later `Object.assign`).
        return Binding(None, "unresolved") if complete and typed.kind != HOLDER else None

    def _in_bases(
        self, rules: ResolveRules, cls: Sym, name: str, allowed: frozenset[str], pick: Pick
    ) -> Binding | None:
        """`super.f()`: f as the bases of ``cls`` define it (never ``cls``'s own override)."""
        for base_name, base_qualifier in self.table.bases.get(cls.id, []):
            dotted = f"{base_qualifier}.{base_name}" if base_qualifier else base_name
            base = self.receivers.named(dotted, cls.file_id)
            if base == OUTSIDE:
                return Binding(None, "external")
            base_sym = as_sym(base)
            if base_sym is not None:
                found, _complete = self.receivers.member(
                    base_sym, name, allowed, overloads=rules.overloads_before_body, pick=pick
                )
                if found is not None:
                    return _bound(found.id, "inferred")
        return None

    def _single(self, hits: list[Sym], rules: ResolveRules) -> Sym | None:
        """The one definition among ``hits``, or among several the only one at the top of its file; TypeScript
        overloads (one file, one scope) are their last definition, the body."""
        if len(hits) > 1:
            hits = self._bodies(hits)
        if len(hits) == 1:
            return hits[0]
        if rules.overloads_before_body and hits and len({(s.file_id, s.parent_id) for s in hits}) == 1:
            return hits[-1]
        top = [s for s in hits if s.parent_id is None or self._is_module(s.parent_id)]
        return top[0] if len(hits) > 1 and len(top) == 1 else None

    def _bodies(self, syms: list[Sym]) -> list[Sym]:
        """``syms`` less each declaration whose definition is among them (see _stand_in)."""
        return self._stand_in(syms)[0]

    def _stand_in(self, syms: list[Sym]) -> tuple[list[Sym], dict[int, Sym], dict[int, set[int]]]:
        """``syms`` less each declaration whose definition is among them (the same qualified name in the same
        language family), body id -> a declaration it stands in for, and body id -> the files of those
        declarations: a call names the function, and a header's prototype, a C forward declaration, a C++ member
        declared in its class or a `.d.ts` signature is not a second one to choose from."""
        if not any(s.declaration for s in syms):
            return syms, {}, {}
        bodies: dict[tuple[str, str], list[Sym]] = {}
        for s in syms:
            if not s.declaration:
                bodies.setdefault(self._linked_as(s), []).append(s)
        if not bodies:
            return syms, {}, {}
        kept: list[Sym] = []
        stands_for: dict[int, Sym] = {}
        declared_in: dict[int, set[int]] = {}
        for s in syms:
            same = bodies.get(self._linked_as(s)) if s.declaration else None
            if not same:
                kept.append(s)
                continue
            for body in same:  # overloads defined outside their class: each is a member of the declaring owner
                stands_for.setdefault(body.id, s)
                if body.kind == s.kind:  # a prototype makes a function visible, not a macro of its name
                    declared_in.setdefault(body.id, set()).add(s.file_id)
        return kept, stands_for, declared_in

    def _body_of(self, declaration: Sym) -> Sym | None:
        """The one definition a declaration stands for (its qualified name, its language family), if any; of C++
        overloads defined outside their class, the one with as many parameters (defaults are the declaration's),
        then the one with the same parameter types and `const`."""
        linked = self._linked_as(declaration)
        named = self.table.by_name.get(declaration.name, [])
        bodies = [s for s in named if not s.declaration and self._linked_as(s) == linked]
        if len(bodies) > 1:
            bodies = [s for s in bodies if s.max_args == declaration.max_args]
        if len(bodies) > 1:
            stated = self.receivers.parameters(declaration)
            bodies = [s for s in bodies if stated and self.receivers.parameters(s) == stated]
        return bodies[0] if len(bodies) == 1 else None

    def _linked_as(self, sym: Sym) -> tuple[str, str]:
        """What a declaration and its body share: the qualified name and the language family."""
        return sym.qualified_name, family_of(self.table.language_of(sym.file_id))

    def _is_module(self, node_id: int) -> bool:
        sym = self.table.by_id.get(node_id)
        return sym is not None and sym.kind == "module"

    def _owner_name(self, sym: Sym) -> str:
        """The name `Owner.f()` calls ``sym`` by: its parent's; a method of an `impl` block, its type's (the block's
        module is no owner: `dfa.stride()` on a local named dfa is no call into the module `dfa`)."""
        if sym.kind == "method" and rules_for(self.table.language_of(sym.file_id)).impl_blocks:
            return sym.qualified_name.rpartition(".")[0].rpartition(".")[2]
        parent = self.table.by_id.get(sym.parent_id) if sym.parent_id is not None else None
        return parent.name if parent is not None else ""
