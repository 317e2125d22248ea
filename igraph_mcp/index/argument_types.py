"""The types of a Java call's arguments as its caller's scope states them, and how each fits a parameter: what
index/overloads.py needs to choose among overloads of one argument count.

An argument's type is a name (`String`, `int`, `CodeBlock[]`) and, for a type the repository defines, its
definition; a type nothing states is unknown and fits any parameter "maybe". A "no" must be certain: a final
class of `java.lang` has known supertypes, a repository class whose bases are all the repository's has known
supertypes, and a type no repository file defines cannot extend one that a repository file does.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from igraph_mcp.index.argument_hints import PARAMETERS_FACT, PATH, UNKNOWN, type_name
from igraph_mcp.index.overloads import Fit, Fits, Pick, accepts, as_given, by_arity, by_types, counted
from igraph_mcp.index.receivers import ReceiverTypes, as_sym
from igraph_mcp.index.symbols import Sym, SymbolTable
from igraph_mcp.vocab.languages import TYPE_KINDS

_WIDENS = {
    "byte": {"short", "int", "long", "float", "double"},
    "short": {"int", "long", "float", "double"},
    "char": {"int", "long", "float", "double"},
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "double": set(),
    "boolean": set(),
}
_BOXES = {
    "byte": "Byte", "short": "Short", "char": "Character", "int": "Integer", "long": "Long", "float": "Float",
    "double": "Double", "boolean": "Boolean",
}  # fmt: skip
_UNBOXES = {box: prim for prim, box in _BOXES.items()}
_NUMBER = frozenset({"Byte", "Short", "Integer", "Long", "Float", "Double"})
# java.lang's final classes an argument's form gives (literals, `X.class`, boxes): every supertype they have.
_BOX_SUPERS = frozenset({"Object", "Serializable", "Comparable", "Constable"})
_FINAL_SUPERS: dict[str, frozenset[str]] = {
    "String": frozenset({"Object", "CharSequence", "Comparable", "Serializable", "Constable", "ConstantDesc"}),
    "Class": frozenset({"Object", "Type", "GenericDeclaration", "AnnotatedElement", "Serializable", "Constable"}),
    **{box: _BOX_SUPERS | {"Number", "ConstantDesc"} for box in _NUMBER},
    "Boolean": _BOX_SUPERS,
    "Character": _BOX_SUPERS,
}
# Supertypes every enum and record has by the language, not by a written base.
_IMPLIED = {"enum": frozenset({"Enum", "Comparable", "Serializable", "Constable"}), "record": frozenset({"Record"})}
# Common JDK types an argument is declared as, with every supertype they have (java.util, java.io; JDK 21's
# Sequenced* included), so a parameter that is none of them surely does not take them.
_COLLECTION = frozenset({"Collection", "Iterable"})
_SEQUENCED = frozenset({"SequencedCollection"}) | _COLLECTION
_CLOSEABLE = frozenset({"Closeable", "AutoCloseable"})
_JDK_SUPERS: dict[str, frozenset[str]] = {
    "Iterable": frozenset(),
    "Collection": frozenset({"Iterable"}),
    "List": _SEQUENCED,
    "Set": _COLLECTION,
    "Queue": _COLLECTION,
    "Deque": _SEQUENCED | {"Queue"},
    "ArrayList": _SEQUENCED
    | {"List", "AbstractList", "AbstractCollection", "RandomAccess", "Cloneable", "Serializable"},
    "LinkedList": _SEQUENCED
    | {
        "List",
        "Deque",
        "Queue",
        "AbstractSequentialList",
        "AbstractList",
        "AbstractCollection",
        "Cloneable",
        "Serializable",
    },
    "HashSet": _COLLECTION | {"Set", "AbstractSet", "AbstractCollection", "Cloneable", "Serializable"},
    "LinkedHashSet": _SEQUENCED
    | {"Set", "SequencedSet", "HashSet", "AbstractSet", "AbstractCollection", "Cloneable", "Serializable"},
    "Map": frozenset(),
    "HashMap": frozenset({"Map", "AbstractMap", "Cloneable", "Serializable"}),
    "LinkedHashMap": frozenset({"Map", "SequencedMap", "HashMap", "AbstractMap", "Cloneable", "Serializable"}),
    "Iterator": frozenset(),
    "StringBuilder": frozenset({"CharSequence", "Appendable", "Comparable", "Serializable", "AbstractStringBuilder"}),
    "Writer": _CLOSEABLE | {"Appendable", "Flushable"},
    "StringWriter": _CLOSEABLE | {"Writer", "Appendable", "Flushable"},
    "Reader": _CLOSEABLE | {"Readable"},
    "InputStream": _CLOSEABLE,
    "OutputStream": _CLOSEABLE | {"Flushable"},
    "File": frozenset({"Serializable", "Comparable"}),
    "Path": frozenset({"Comparable", "Iterable", "Watchable"}),
}
_METHODS = frozenset({"method"})
_TYPE_VARIABLE = re.compile(r"[A-Z][A-Z0-9]?$")  # `T`, `K`, `V`, `T2`: a generic parameter, bound unknown
_MAX_BASES = 32


class ArgType(NamedTuple):
    """An argument's static type: its name as overloads compare it and, where the repository defines it, that
    definition."""

    name: str
    sym: Sym | None = None


class ArgumentTypes:
    """Typing a call's argument hints (index/argument_hints.py) in its caller's scope and choosing the overload."""

    def __init__(self, table: SymbolTable, receivers: ReceiverTypes) -> None:
        self.t = table
        self.receivers = receivers
        self._supers: dict[int, tuple[frozenset[str], frozenset[int], bool]] = {}

    def picker(self, arity: int, hints: str, caller: Sym | None) -> Pick:
        """The Pick of one call: ``arity`` arguments (-1 unknown) with these hints, made in ``caller``."""
        return as_given if arity < 0 else partial(self._pick, arity, hints, caller)

    def _pick(self, arity: int, hints: str, caller: Sym | None, candidates: Sequence[Sym]) -> list[Sym]:
        """The overload the argument count leaves (by_arity), else the one the argument types choose among those the
        count fits, else ``candidates`` as given."""
        narrowed = by_arity(candidates, arity)
        if len(narrowed) < 2 or not hints or caller is None or not counted(narrowed):
            return narrowed
        fitting = [s for s in narrowed if accepts(s, arity)]
        args = [self.arg_type(h, caller) for h in hints.split(",")] if len(fitting) > 1 else []
        one = by_types(fitting, lambda s: self._fits(s, args), self._more_specific) if len(args) == arity else None
        return [one] if one is not None else narrowed

    # -- arguments -----------------------------------------------------------------------------------------------
    def arg_type(self, hint: str, caller: Sym) -> ArgType | None:
        """The type an argument hint gives in ``caller``'s scope, or None (unknown)."""
        if hint == UNKNOWN or not hint:
            return None
        if not hint.startswith(PATH):
            return ArgType(hint, self._repository_type(hint, caller.file_id))
        path = hint[len(PATH) :]
        if "(" not in path and path.count(".") <= 1:
            declared = self.receivers.declared_type(path, caller, 0)
            if declared is not None:
                name = type_name(declared[0])
                return ArgType(name, self._repository_type(name, declared[1]))
        found = as_sym(self.receivers.of_path(path, caller, methods=True))
        if found is not None and found.kind in TYPE_KINDS:
            return ArgType(found.name, found)
        return self._call_result(path, caller) if path.endswith(")") else None

    def _call_result(self, path: str, caller: Sym) -> ArgType | None:
        """`r.consume()`, `name()`: the result type the called method states, where the receiver's type and the
        method are known and the method has no overloads (`char`, `String`: types of_path cannot place)."""
        head, _, call = path[:-2].rpartition(".")
        owner = (
            as_sym(self.receivers.of_path(head, caller, methods=True)) if head else self.t.enclosing(caller, TYPE_KINDS)
        )
        if owner is None or owner.kind not in TYPE_KINDS:
            return None
        method, _complete = self.receivers.member(owner, call, _METHODS)
        if method is None:
            return None
        text = next((t for k, t in self.t.facts.get(method.id, {}).get("()", ()) if k == "type"), None)
        if text is None:
            return None
        name = type_name(text)
        return ArgType(name, self._repository_type(name, method.file_id))

    def _repository_type(self, name: str, file_id: int) -> Sym | None:
        if name.endswith("[]") or name in _WIDENS or name == "null":
            return None
        return as_sym(self.receivers.named(name, file_id))

    # -- parameters ----------------------------------------------------------------------------------------------
    def _fits(self, method: Sym, args: list[ArgType | None]) -> Fits:
        """How each argument fits ``method``'s parameters, and whether they are spread over its varargs."""
        stated = self.t.facts.get(method.id, {}).get(PARAMETERS_FACT)
        if not stated:
            return None
        params = stated[0][1].split(",")
        if not params[-1].endswith("..."):
            if len(params) != len(args):
                return None
            return tuple(self.fit(a, p, method.file_id) for a, p in zip(args, params, strict=True)), False
        fixed, element = params[:-1], params[-1][:-3]
        head = tuple(self.fit(a, p, method.file_id) for a, p in zip(args, fixed, strict=False))
        if len(args) == len(params):
            as_array = self.fit(args[-1], element + "[]", method.file_id)
            if as_array in ("same", "yes"):
                return (*head, as_array), False  # `f(fmt, arr)` passes the array itself: no varargs
            if as_array != "no":
                return None
        rest = tuple(self.fit(a, element, method.file_id) for a in args[len(fixed) :])
        return (*head, *rest), True

    def fit(self, arg: ArgType | None, param: str, param_file: int) -> Fit:
        """How an argument of type ``arg`` fits a parameter declared ``param`` in ``param_file``."""
        if arg is None or param == UNKNOWN:
            return "maybe"
        a = arg.name
        if a == param:
            return "same" if not self._type_variable(a, param_file) else "maybe"
        if a == "null":
            return "no" if param in _WIDENS else "yes"
        if param in _WIDENS:
            if a in _WIDENS:
                return "yes" if param in _WIDENS[a] else "no"
            unboxed = _UNBOXES.get(a)
            if unboxed is not None:
                return "box" if unboxed == param or param in _WIDENS[unboxed] else "no"
            return "no" if a in _FINAL_SUPERS or a.endswith("[]") or arg.sym is not None else "maybe"
        if a in _WIDENS:
            box = _BOXES[a]
            if param == box or param in _FINAL_SUPERS[box] or self._type_variable(param, param_file):
                return "box"
            return "no"
        if param == "Object":
            return "yes"
        if a.endswith("[]") or param.endswith("[]"):
            return self._array_fit(arg, param, param_file)
        if self._type_variable(param, param_file) or self._type_variable(a, param_file):
            return "maybe"
        if a in _FINAL_SUPERS:
            return "yes" if param in _FINAL_SUPERS[a] else "no"
        if arg.sym is None and a in _JDK_SUPERS:
            return "yes" if param in _JDK_SUPERS[a] else "no"
        target = self._repository_type(param, param_file)
        if arg.sym is not None:
            names, ids, complete = self.supertypes(arg.sym)
            if (target is not None and target.id in ids) or (target is None and param in names):
                return "yes"
            return "no" if complete else "maybe"
        if target is not None and not self._defined_anywhere(a):
            return "no"  # a library type cannot extend a repository type
        return "maybe"

    def _array_fit(self, arg: ArgType, param: str, param_file: int) -> Fit:
        a = arg.name
        if a.endswith("[]") and param.endswith("[]"):
            a_elem, p_elem = a[:-2], param[:-2]
            if a_elem in _WIDENS or p_elem in _WIDENS:
                return "yes" if a_elem == p_elem else "no"
            fit = self.fit(ArgType(a_elem, self._repository_type(a_elem, param_file)), p_elem, param_file)
            return "maybe" if fit == "box" else fit
        if a.endswith("[]"):  # an array is an Object (handled), Cloneable and Serializable only
            return "yes" if param in ("Cloneable", "Serializable") else "no"
        return "no" if a in _FINAL_SUPERS or arg.sym is not None else "maybe"

    def _type_variable(self, name: str, file_id: int) -> bool:
        """A generic type parameter (`T`), whose bound is not known here: a name of that shape no file defines."""
        return bool(_TYPE_VARIABLE.match(name)) and self._repository_type(name, file_id) is None

    def _defined_anywhere(self, name: str) -> bool:
        return any(s.kind in TYPE_KINDS for s in self.t.by_name.get(name, []))

    def supertypes(self, cls: Sym) -> tuple[frozenset[str], frozenset[int], bool]:
        """The names and repository definitions of ``cls`` and every type above it, and whether all of them are the
        repository's (so a type not among them is surely no supertype)."""
        cached = self._supers.get(cls.id)
        if cached is not None:
            return cached
        names: set[str] = {cls.name, "Object"} | _IMPLIED.get(cls.kind, frozenset())
        ids: set[int] = set()
        complete = True
        todo = [cls]
        while todo and len(ids) < _MAX_BASES:
            cur = todo.pop()
            if cur.id in ids:
                continue
            ids.add(cur.id)
            names.add(cur.name)
            for base_name, qualifier in self.t.bases.get(cur.id, []):
                names.add(base_name)
                base = self.receivers.base_type(base_name, qualifier, cur.file_id)
                if base is None:
                    complete = False
                else:
                    todo.append(base)
        complete &= not todo
        out = (frozenset(names), frozenset(ids), complete and cls.kind not in _IMPLIED)
        self._supers[cls.id] = out
        return out

    def _more_specific(self, a: Sym, b: Sym) -> bool:
        """Whether every parameter of ``a`` fits the one of ``b`` at its place (Java's more specific method)."""
        pa = self.t.facts.get(a.id, {}).get(PARAMETERS_FACT)
        pb = self.t.facts.get(b.id, {}).get(PARAMETERS_FACT)
        if not pa or not pb:
            return False
        left, right = pa[0][1].split(","), pb[0][1].split(",")
        if len(left) != len(right) or any(p.endswith("...") for p in (*left, *right)):
            return False
        return all(
            self.fit(ArgType(x, self._repository_type(x, a.file_id)), y, b.file_id) in ("same", "yes")
            for x, y in zip(left, right, strict=True)
        )
