"""The types of a C++ call's arguments as its caller's scope states them, and the overload C++ would choose among
those of one argument count where the types leave no doubt.

C++ converts more than Java does (numbers into each other and into bool, a string literal into std::string, a
pointer into bool, any class through its converting constructors), so a "no" is said only where no conversion
exists: a pointer to an unrelated class of the repository whose bases are all known, a std::string for a pointer or
a number, a number for a std::string or a container, two different standard containers. A candidate is chosen
when it is the only one no argument rules out, or the only one whose every parameter is the argument's very type
while no other leaves a doubt; of a member and its `const` twin, the receiver's constness chooses.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import partial
from typing import NamedTuple

from igraph_mcp.index.argument_hints import PARAMETERS_FACT, PATH, UNKNOWN
from igraph_mcp.index.argument_types import ArgumentTypes
from igraph_mcp.index.cpp_argument_hints import (
    C_VARIADIC,
    DECLARATOR_FACT,
    NULLPTR,
    PACK,
    cpp_type,
    split_parameters,
)
from igraph_mcp.index.overloads import Fit, Pick, accepts, as_given, by_arity, counted
from igraph_mcp.index.receivers import ReceiverTypes, as_sym
from igraph_mcp.index.symbols import Sym, SymbolTable
from igraph_mcp.vocab.languages import TYPE_KINDS

_ARITHMETIC = frozenset(
    {
        "bool", "char", "signed char", "unsigned char", "wchar_t", "char8_t", "char16_t", "char32_t", "short",
        "short int", "unsigned short", "int", "signed", "signed int", "unsigned", "unsigned int", "long",
        "long int", "unsigned long", "long long", "unsigned long long", "float", "double", "long double", "size_t",
        "ssize_t", "ptrdiff_t",
    }
)  # fmt: skip
_FIXED_WIDTH = re.compile(r"u?int(?:8|16|32|64|max|ptr)_t$|u?int_(?:fast|least)\d+_t$")
_STRINGS = frozenset({"std::string", "std::string_view"})
# Standard types nothing but their own kind converts into implicitly (a braced list aside, which is no argument
# here): an argument of another standard, string or number type surely does not fit them.
_CONTAINERS = frozenset(
    {
        "std::vector", "std::map", "std::set", "std::unordered_map", "std::unordered_set", "std::multimap",
        "std::multiset", "std::list", "std::deque", "std::array", "std::pair", "std::tuple", "std::shared_ptr",
        "std::unique_ptr", "std::weak_ptr",
    }
)  # fmt: skip
_SMART = frozenset({"std::shared_ptr", "std::unique_ptr", "std::weak_ptr"})
_PAIRS = frozenset({"std::pair", "std::tuple"})
_FUNCTION = "std::function"  # takes any callable: a lambda, a function, a class with an operator()
_NULLABLE = frozenset({"std::shared_ptr", "std::unique_ptr", _FUNCTION})
_MAX_ALIASES = 8


class Arg(NamedTuple):
    """An argument's type in the compared form, and the file whose view names it (where its declaration is)."""

    written: str
    file_id: int


class _Row(NamedTuple):
    sym: Sym
    params: tuple[str, ...]
    fits: tuple[Fit, ...]
    const: bool


def _split(written: str) -> tuple[str, int]:
    """``App**`` -> ("App", 2)."""
    base = written.rstrip("*")
    return base, len(written) - len(base)


def _arithmetic(base: str) -> bool:
    return base in _ARITHMETIC or bool(_FIXED_WIDTH.match(base))


class CppArgumentTypes:
    """Typing a C++ call's argument hints (index/cpp_argument_hints.py) in its caller's scope and choosing the
    overload."""

    def __init__(self, table: SymbolTable, receivers: ReceiverTypes, java: ArgumentTypes) -> None:
        self.t = table
        self.receivers = receivers
        self.java = java  # for a class's supertypes
        self._expanded: dict[tuple[str, int], str] = {}

    def picker(self, arity: int, hints: str, caller: Sym | None, qualifier: str) -> Pick:
        """The Pick of one call: ``arity`` arguments (-1 unknown) with these hints, made in ``caller`` on the
        receiver ``qualifier`` ("" for none)."""
        return as_given if arity < 0 else partial(self._pick, arity, hints, caller, qualifier)

    def _pick(self, arity: int, hints: str, caller: Sym | None, qualifier: str, candidates: Sequence[Sym]) -> list[Sym]:
        narrowed = by_arity(candidates, arity)  # those the count fits, where any does
        if len(narrowed) < 2 or caller is None or not counted(narrowed) or not accepts(narrowed[0], arity):
            return narrowed
        args = [self.arg_type(h, caller) for h in hints.split(",")] if hints else []
        if len(args) != arity:
            return narrowed
        one = self._choose(narrowed, args, caller, qualifier)
        return [one] if one is not None else narrowed

    def _choose(self, fitting: list[Sym], args: list[Arg | None], caller: Sym, qualifier: str) -> Sym | None:
        rows: list[_Row] = []
        for sym in fitting:
            stated = self.t.facts.get(sym.id, {}).get(PARAMETERS_FACT)
            if not stated:
                return None  # a candidate of unknown parameters may be the one
            written, const = split_parameters(stated[0][1])
            params = [p if p in (PACK, C_VARIADIC) else self._expand(p, sym.file_id) for p in written]
            fits = self._fits(params, args, sym.file_id)
            if "no" not in fits:
                rows.append(_Row(sym, tuple(params), fits, const))
        if len(rows) == 1:
            return rows[0].sym  # every other candidate is ruled out
        if not rows:
            return None
        if any("maybe" in r.fits for r in rows):
            best = [r for r in rows if all(self._beats(r, other, args) for other in rows if other is not r)]
            return best[0].sym if len(best) == 1 else None
        exact = [r for r in rows if all(f == "same" for f in r.fits)]
        if len(exact) == 1:
            return exact[0].sym  # the very types beat any conversion
        twins = exact or rows
        if len(twins) == 2 and twins[0].params == twins[1].params and twins[0].const != twins[1].const:
            receiver = self._receiver_const(caller, qualifier)
            if receiver is not None:
                return next(r.sym for r in twins if r.const == receiver)
        return None

    def _beats(self, x: _Row, y: _Row, args: list[Arg | None]) -> bool:
        """Whether C++ surely prefers ``x`` to ``y``: where their parameters differ, ``x`` takes a class argument as
        itself or as its base (a standard conversion) and ``y`` only as a `std::function` (a user-defined one,
        which every standard conversion beats); elsewhere the same parameter."""
        if "maybe" in x.fits:
            return False
        differs = False
        for i, arg in enumerate(args):
            if i >= min(len(x.params), len(y.params)):
                return False
            px, py = x.params[i], y.params[i]
            if px == py and px != UNKNOWN:
                continue
            differs = True
            if arg is None or x.fits[i] not in ("same", "yes") or py != _FUNCTION:
                return False
            cls = self._class(arg.written, arg.file_id)
            target = self._class(px, x.sym.file_id)
            if cls is None or (target is None and x.fits[i] != "same"):
                return False  # only a class's conversion to itself or its base is known to be standard here
        return differs

    def _fits(self, params: list[str], args: list[Arg | None], file_id: int) -> tuple[Fit, ...]:
        """How each argument fits its parameter (aliases already expanded)."""
        out: list[Fit] = []
        for i, arg in enumerate(args):
            if i < len(params) and params[i] not in (PACK, C_VARIADIC):
                out.append(self.fit(arg, params[i], file_id))
            else:
                out.append("maybe")  # a pack or C's `...` takes what is left
        return tuple(out)

    # -- arguments -----------------------------------------------------------------------------------------------
    def arg_type(self, hint: str, caller: Sym) -> Arg | None:
        """An argument's type in ``caller``'s scope, or None (unknown)."""
        if hint == UNKNOWN or not hint:
            return None
        if not hint.startswith(PATH):
            return Arg(hint, caller.file_id)
        path = hint[len(PATH) :]
        levels = 0
        if path[:1] in ("&", "*"):
            levels = 1 if path[0] == "&" else -1
            path = path[1:]
        if path.endswith("()"):  # a temporary of the class it names; a function's result is not read here
            name = path[:-2].rpartition("::")[2]
            cls = self._class(name, caller.file_id) if levels == 0 else None
            return Arg(name, caller.file_id) if cls is not None else None
        if "::" in path:
            return self._namespace_member(path, levels)
        if path == "this":
            owner = self.t.enclosing(caller, TYPE_KINDS)
            return Arg(owner.name + "*" * (1 + levels), owner.file_id) if owner is not None and levels <= 0 else None
        found = self.receivers.declaration(path, caller, 0)
        if found is None:
            return None
        typed = self._declared(found[0])
        if typed is None:
            return None
        text, pointers = typed
        written = self._expand(cpp_type(text, pointers), found[1])
        if written == UNKNOWN:
            return None
        base, depth = _split(written)
        return Arg(base + "*" * (depth + levels), found[1]) if depth + levels >= 0 else None

    def _namespace_member(self, path: str, levels: int) -> Arg | None:
        """The type of a namespace's variable or constant (`CLI::ExistingFile`), where its declarations state one."""
        qualifier, _, name = path.rpartition("::")
        owners = [s for s in self.t.by_name.get(qualifier.rpartition("::")[2], []) if s.kind == "namespace"]
        owners += [s for s in self.t.by_name.get(name, []) if s.kind in ("constant", "variable")]
        stated: set[tuple[str, int]] = set()
        for owner in owners:
            facts = self.t.facts.get(owner.id, {}).get(name)
            typed = self._declared(facts) if facts else None
            if typed is not None:
                written = self._expand(cpp_type(typed[0], typed[1]), owner.file_id)
                stated.add((written, owner.file_id))
        if len({w for w, _f in stated}) != 1 or levels != 0:
            return None
        written, file_id = min(stated)
        return Arg(written, file_id) if written != UNKNOWN else None

    @staticmethod
    def _declared(facts: list[tuple[str, str]]) -> tuple[str, int] | None:
        """The one type a name's declarations state and its pointer levels; None where none or several do."""
        found: set[tuple[str, int]] = set()
        for i, (kind, text) in enumerate(facts):
            if kind == "type":
                after = facts[i + 1] if i + 1 < len(facts) else ("", "")
                found.add((text, after[1].count("*") if after[0] == DECLARATOR_FACT else 0))
        return found.pop() if len(found) == 1 else None

    def _expand(self, written: str, file_id: int) -> str:
        """A repository alias (`using Option_p = std::shared_ptr<Option>`, `typedef ... callback_t`) as the type it
        stands for, pointer levels kept."""
        key = (written, file_id)
        cached = self._expanded.get(key)
        if cached is not None:
            return cached
        out = written
        for _ in range(_MAX_ALIASES):
            base, depth = _split(out)
            if base == UNKNOWN or base.startswith("std::") or _arithmetic(base):
                break
            alias = as_sym(self.receivers.base_type(base, "", file_id))
            if alias is None or alias.kind != "type":
                break
            stands_for = [t for kind, t in self.t.facts.get(alias.id, {}).get("()", []) if kind == "type"]
            if not stands_for:
                out = UNKNOWN
                break
            inner_base, inner_depth = _split(cpp_type(stands_for[0]))
            out, file_id = inner_base + "*" * (inner_depth + depth), alias.file_id
        self._expanded[key] = out
        return out

    def _class(self, base: str, file_id: int) -> Sym | None:
        """The repository class or struct ``base`` names from ``file_id`` (not an enum or alias), else None."""
        found = as_sym(self.receivers.named(base, file_id))
        return found if found is not None and found.kind in ("class", "struct", "interface") else None

    def _known(self, base: str) -> bool:
        """A type whose conversions are all known here: numbers, std's strings and containers."""
        return _arithmetic(base) or base in _STRINGS or base in _CONTAINERS or base == "char"

    # -- parameters ----------------------------------------------------------------------------------------------
    def fit(self, typed: Arg | None, param: str, file_id: int) -> Fit:
        """How an argument of type ``typed`` fits a parameter ``param`` declared in ``file_id``."""
        if typed is None or param == UNKNOWN:
            return "maybe"
        arg, arg_file = typed
        if arg == param:
            return "same"
        ab, ap = _split(arg)
        pb, pp = _split(param)
        if arg == NULLPTR:
            if pp > 0 or pb in _NULLABLE:
                return "yes"
            return "no" if (_arithmetic(pb) and pb != "bool") or pb in _CONTAINERS else "maybe"
        if pp > 0:
            return self._to_pointer(ab, ap, arg_file, pb, pp, file_id)
        if ap > 0:
            if pb == "bool":
                return "yes"
            if pb in _STRINGS:
                return "yes" if (ab, ap) == ("char", 1) else "no"
            if pb == _FUNCTION:  # only a pointer to a function is callable, and those are typed by no hint
                return "no"
            return "no" if _arithmetic(pb) or pb in _CONTAINERS else "maybe"
        if _arithmetic(ab):
            if _arithmetic(pb):
                return "yes"
            return "no" if pb in _STRINGS or pb in _CONTAINERS or pb == _FUNCTION else "maybe"
        if ab in _STRINGS:
            if pb in _STRINGS:
                return "yes" if pb == "std::string_view" else "no"
            return "no" if _arithmetic(pb) or pb in _CONTAINERS or pb == _FUNCTION else "maybe"
        if ab in _CONTAINERS:
            if frozenset({ab, pb}) <= _SMART or frozenset({ab, pb}) == _PAIRS:
                return "maybe"  # a shared_ptr from a unique_ptr, a tuple from a pair
            return "no" if self._known(pb) or pb == _FUNCTION else "maybe"
        if self._enum(ab, arg_file):  # an enum converts to numbers (unscoped), and to nothing else
            return "no" if pb in _STRINGS or pb in _CONTAINERS or pb == _FUNCTION else "maybe"
        cls = self._class(ab, arg_file)
        if cls is not None and pb == _FUNCTION:
            return "maybe" if self._callable(cls) else "no"
        target = self._class(pb, file_id)
        if cls is not None and target is not None:
            _names, ids, _complete = self.java.supertypes(cls)
            return "yes" if target.id in ids else "maybe"  # a converting constructor may take it
        return "maybe"

    def _enum(self, base: str, file_id: int) -> bool:
        found = as_sym(self.receivers.named(base, file_id))
        return found is not None and found.kind == "enum"

    def _callable(self, cls: Sym) -> bool:
        """Whether objects of ``cls`` may be called: it or a base declares an `operator()`, or a base is not the
        repository's (a std::function passed on, a library functor)."""
        _names, ids, complete = self.java.supertypes(cls)
        return not complete or any(self.t.children.get((i, "operator()")) for i in ids)

    def _to_pointer(self, ab: str, ap: int, arg_file: int, pb: str, pp: int, file_id: int) -> Fit:
        if ap == 0:
            return "no" if self._known(ab) else "maybe"
        if pb == "void" and pp == 1:
            return "yes"
        if ap != pp:
            return "no"
        if self._known(ab) and self._known(pb):
            return "no"  # different, as `arg == param` was not
        cls = self._class(ab, arg_file)
        if cls is None:
            return "maybe"
        if _arithmetic(pb) or pb in _STRINGS or pb in _CONTAINERS:
            return "no"
        names, ids, complete = self.java.supertypes(cls)
        target = self._class(pb, file_id)
        if (target is not None and target.id in ids) or (target is None and pb in names):
            return "yes"
        return "no" if complete else "maybe"

    # -- the receiver's constness ----------------------------------------------------------------------------------
    def _receiver_const(self, caller: Sym, qualifier: str) -> bool | None:
        """Whether the object a member is called on is const: `this` in a const member, a name declared const
        (for a pointer, what it points to), a field held by value in a const member; None where that is not known
        (a smart pointer, `auto`)."""
        if qualifier in ("", "this"):
            return self._this_const(caller)
        if qualifier.startswith("this."):
            qualifier = qualifier[len("this.") :]
        if "." in qualifier or "(" in qualifier:
            return None
        found = self.receivers.declaration(qualifier, caller, 0)
        typed = self._declared(found[0]) if found is not None else None
        if found is None or typed is None:
            return None
        declarators = {text for kind, text in found[0] if kind == DECLARATOR_FACT}
        if any(d.startswith("const") for d in declarators):
            return True
        base, _depth = _split(self._expand(cpp_type(typed[0], typed[1]), found[1]))
        if self._class(base, found[1]) is None:
            return None
        if typed[1] > 0 or self.receivers.is_local(caller, qualifier):
            return False
        return self._this_const(caller)  # a field held by value is as const as `this`

    def _this_const(self, caller: Sym) -> bool | None:
        method = self.t.enclosing(caller, frozenset({"method"}))
        stated = self.t.facts.get(method.id, {}).get(PARAMETERS_FACT) if method is not None else None
        return split_parameters(stated[0][1])[1] if stated else None
