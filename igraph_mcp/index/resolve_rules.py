"""Per-language resolution rules, as data (how sure each resolution method is lives in vocab/edges.py)."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field, replace


@dataclass(frozen=True, slots=True)
class ResolveRules:
    """How one language binds names.

    lexical: names are looked up by scope (locals, enclosing functions, module, imports, builtins) and a
    method call binds only when its receiver's type is inferred; nothing is bound by name alone.
    builtins: names the language itself defines; an unshadowed use of one is never repository code.
    self_names / class_names: receivers meaning this instance / this class; super_name: the parent's view.
    bind_unknown_receivers: whether a method call on a receiver of unknown type may be bound by name alone.
    overloads_before_body: a name defined several times in one scope is overload signatures followed by the one
    body (TypeScript), so the last definition is the callee.
    namespace_members: `X.f()` binds the definition qualified `X.f` when X is a function, class or object literal
    of the file (or imported by name): `marked.walkTokens = function`, `const api = { f() {} }`, static methods.
    bare_calls_are_methods: a bare `f()` in a class is its method f or an inherited one, `make().add()` starts
    from it, and a bare `x` may be a field of the class (Java, C++); methods_apart_from_variables: even where a
    local or parameter of that name is in scope (Java), where in C++ the local hides the method.
    members_are_fields: `x.f()` and `p->f()` call a function pointer held in a field (C has no methods), so no
    function named f is their callee. objects_hold_members: `x.f()` on a local or parameter x whose type is not
    known (a template's parameter) calls some class's member f, never a free function f (C++; `ns::f()` reads
    the same qualifier, but ns is no local).
    imports_are_exact: a name imported from no file of the repository (`import static org.junit.Assert.fail`)
    binds nothing; elsewhere an import this index could not follow (Rust's `crate::`, path aliases) may still be
    the repository's.
    overloads_by_arity: several same-named methods of one class are overloads, and a call with a counted argument
    list binds the only one its count fits (index/overloads.py), wherever they would leave it ambiguous (Java, C++);
    then the arguments' types choose among those of one count, by Java's phases (index/argument_types.py) or,
    with cpp_overloads, by what C++'s conversions surely rule out and a receiver's `const`
    (index/cpp_argument_types.py).
    constructors_are_the_class: `new Foo(x)` names the class Foo, so where a name-only guess finds a class and its
    constructors (all named Foo), the constructors are no candidates of their own (Java, C++: `throw Error(x)`).
    reexports: a module's imports may make names of other modules its own (`export * from`, an index file's
    imports, Python's `from .x import y` in a package); where they cannot (Go: `pkg.F` is defined in pkg's folder),
    a name a module does not define is never looked for in what it imports.
    module_variables: a receiver no function scope binds may be a variable the file declares at its top level, of
    the type that declaration states (Go's package-level `var v *Viper` or `var std = New()`, which the package's
    wrapper functions call through).
    bare_calls_reach_methods: a bare `f()` may call a method (C++, Java, C#, Kotlin, Swift and Ruby read `this.`
    into it; unknown languages too); in JavaScript, TypeScript and Go it names a function or a class, never an
    object literal's or a class's method (immer's `has(x)` is the imported helper, not `objectTraps.has`).
    packages_are_exact: `pkg.F()` through an import of a package the repository holds no file of is that
    library's (Go: an import path names one package; `unicode.IsPunct` is never util.IsPunct nearby).
    package_variables: ... or a top-level variable of another file of its package (Go: the files of one folder,
    a test file seeing the others but not the other way round); those files are each other's importers when a
    change is bound (SymbolTable.importers_closure).
    includes_are_visible: a bare name means what the file and the headers it includes, directly or through
    others, define or declare (C, C++): of several definitions, the only one they make visible is the callee, a
    body counting where a prototype of it is visible (a macro of a common name, `assert`, `MIN`, `DEBUGLOG`,
    defined in several folders).
    """

    lexical: bool = False
    builtins: frozenset[str] = frozenset()
    self_names: frozenset[str] = frozenset({"self", "this", "Self", "@", "$this"})
    class_names: frozenset[str] = frozenset({"cls", "static", "parent"})
    super_name: str = "super"
    # Bind `x.m()` with x of unknown type to a same-named method by directory or unique name (a guess).
    bind_unknown_receivers: bool = False
    overloads_before_body: bool = False
    namespace_members: bool = False
    # A bare `f()` in a class calls its method f (Java, C++), not a free function of the file.
    bare_calls_are_methods: bool = False
    # ... even where a local of that name is in scope (Java: methods and variables are apart).
    methods_apart_from_variables: bool = False
    # `x.f()` / `x->f()` calls what a field of x holds (C: a struct has no methods), never a function named f.
    members_are_fields: bool = False
    # `x.f()` on a local or parameter calls a member of its type, never a free function named f (C++).
    objects_hold_members: bool = False
    # An import that names no file of the repository names a library's definition (Java: a package is a folder).
    imports_are_exact: bool = False
    # Of several overloads, the one the call's argument count fits (Java); never applied to an uncounted call.
    overloads_by_arity: bool = False
    # ... and among those of one count, by C++'s conversions rather than Java's phases.
    cpp_overloads: bool = False
    # `new Foo(x)` binds the class, not one of its constructors (which share its name).
    constructors_are_the_class: bool = False
    # A top-level `var v T` of the file types the receiver `v` in its functions (Go).
    module_variables: bool = False
    # ... or another file of the package declares it there (Go).
    package_variables: bool = False
    # `pkg.F()` through an import of no repository file is the library's (Go).
    packages_are_exact: bool = False
    # A bare `f()` may name a method (implicit `this`).
    bare_calls_reach_methods: bool = True
    # What a module imports may be reached through it (not in Go).
    reexports: bool = True
    # A bare name is what the file's includes make visible, where they tell several apart (C, C++).
    includes_are_visible: bool = False
    # Methods are written in `impl` blocks beside their type: `Foo::f()` names the method its qualified name puts
    # under Foo, whatever module holds the block (Rust), never a function of a module that happens to be named foo.
    impl_blocks: bool = False
    # Every receiver that names this instance, this class or its parent: derived, never set.
    own_receivers: frozenset[str] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        own = self.self_names | self.class_names | {self.super_name}
        object.__setattr__(self, "own_receivers", own - {""})


PYTHON = ResolveRules(
    lexical=True,
    builtins=frozenset(dir(builtins)),
    self_names=frozenset({"self"}),
    class_names=frozenset({"cls"}),
    super_name="super",
)

# The global objects and functions of JavaScript runtimes: `JSON.stringify`, `Object.keys`, `Error()` unshadowed
# are never repository code.
_ECMASCRIPT_GLOBALS = frozenset(
    {
        "Array", "BigInt", "Boolean", "Buffer", "Date", "Error", "Intl", "JSON", "Map", "Math", "Number", "Object",
        "Promise", "Proxy", "Reflect", "RegExp", "Set", "String", "Symbol", "TypeError", "RangeError", "URL",
        "WeakMap", "WeakSet", "console", "document", "globalThis", "process", "window", "parseInt", "parseFloat",
        "isNaN", "isFinite", "setTimeout", "clearTimeout", "setInterval", "clearInterval", "encodeURIComponent",
        "decodeURIComponent", "encodeURI", "decodeURI", "require", "structuredClone", "queueMicrotask",
    }
)  # fmt: skip
# Go's builtins a package hardly redefines (a package-level `copy` or `max` would shadow them in every file).
_GO_BUILTINS = frozenset({"append", "cap", "complex", "imag", "len", "make", "new", "panic", "real", "recover"})
# `parent`, `cls` and `static` are ordinary names in these languages (a Go parameter, a DOM node), never receivers.
JAVASCRIPT = ResolveRules(
    builtins=_ECMASCRIPT_GLOBALS,
    self_names=frozenset({"this", "self"}),
    class_names=frozenset(),
    namespace_members=True,
    bare_calls_reach_methods=False,
)
TYPESCRIPT = ResolveRules(
    builtins=_ECMASCRIPT_GLOBALS,
    self_names=frozenset({"this", "self"}),
    class_names=frozenset(),
    overloads_before_body=True,
    namespace_members=True,
    bare_calls_reach_methods=False,
)
# Java: `this` and `super` only (`parent`, `cls` are plain names there too).
JAVA = ResolveRules(
    self_names=frozenset({"this"}),
    class_names=frozenset(),
    bare_calls_are_methods=True,
    methods_apart_from_variables=True,
    imports_are_exact=True,
    overloads_by_arity=True,
    constructors_are_the_class=True,
)
GO = ResolveRules(
    builtins=_GO_BUILTINS,
    self_names=frozenset(),
    class_names=frozenset(),
    super_name="",
    module_variables=True,
    package_variables=True,
    packages_are_exact=True,
    bare_calls_reach_methods=False,
    reexports=False,
)

# C and C++ keep the name-only steps; the includes only choose among several definitions of one name. The
# standard's macros that a repository defines again only as a fallback (`#ifndef assert`, zstd's debug.h; hiredis's
# `va_copy` for old compilers) are the standard's unless the file itself defines them.
C = ResolveRules(
    includes_are_visible=True,
    builtins=frozenset({"assert", "offsetof", "va_arg", "va_copy", "va_end", "va_start"}),
    self_names=frozenset(),
    class_names=frozenset(),
    super_name="",
    members_are_fields=True,
)
# C++, C's row but for: `this`; inside a class a bare name is its member (or an inherited one) before anything
# else; `std::f()` is the standard library's; a call's argument count picks among overloads (defaults counted);
# `Error(x)` constructs the class.
CPP = replace(
    C,
    builtins=C.builtins | {"std"},
    self_names=frozenset({"this"}),
    members_are_fields=False,
    bare_calls_are_methods=True,
    overloads_by_arity=True,
    cpp_overloads=True,
    objects_hold_members=True,
    constructors_are_the_class=True,
)

# Rust: `self` and `Self` name the impl's type; `super::f()` and `crate::f()` are module paths, and `parent` or
# `cls` plain names; a bare `f()` is a function, never a method (those need `self.` or `Self::`).
RUST = ResolveRules(
    self_names=frozenset({"self", "Self"}),
    class_names=frozenset(),
    super_name="",
    bare_calls_reach_methods=False,
    impl_blocks=True,
)

RULES: dict[str, ResolveRules] = {
    "python": PYTHON,
    "javascript": JAVASCRIPT,
    **dict.fromkeys(("typescript", "tsx", "vue", "svelte"), TYPESCRIPT),
    "go": GO,
    "java": JAVA,
    "c": C,
    "cpp": CPP,
    "rust": RUST,
}
DEFAULT_RULES = ResolveRules()


def rules_for(language: str) -> ResolveRules:
    """The resolution rules of a language (name-only fallbacks for languages without their own row)."""
    return RULES.get(language, DEFAULT_RULES)
