"""Choosing among overloads by a call's argument count, as Java does before it looks at argument types.

Pure functions over the symbol table's records: a definition's ``min_args``/``max_args`` (max -1: no bound, after a
varargs parameter; the defaults 0 and -1 accept any call) and the call's arity (-1 when not counted).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from igraph_mcp.index.symbols import Sym

# Kinds whose parameters are counted. A class among the candidates (`new Foo(x)`: the class and its constructors)
# counts nothing: the call names the class as it did before any count.
_COUNTED = frozenset({"method", "function"})


def accepts(sym: Sym, arity: int) -> bool:
    """Whether a call passing ``arity`` arguments may call ``sym``."""
    return sym.min_args <= arity and (sym.max_args < 0 or arity <= sym.max_args)


def counted(candidates: Sequence[Sym]) -> bool:
    """Whether every candidate is a method or function, whose parameters a call's arguments choose among."""
    return all(s.kind in _COUNTED for s in candidates)


def by_arity(candidates: Sequence[Sym], arity: int) -> list[Sym]:
    """Of several same-named methods, those whose range accepts a call with ``arity`` arguments (a binding where one
    does, the candidates of an ambiguous call where several do); else (none fits, an unknown arity, a candidate that
    is no method) every candidate as given.

    Two that fit stay two even when one is varargs: Java prefers the fixed-arity one only when the argument types
    fit it too (`emit(String)` or `emit(String, Object...)` for `emit(s)`), and types are not known here.
    """
    if arity < 0 or len(candidates) < 2 or not counted(candidates):
        return list(candidates)
    fitting = [s for s in candidates if accepts(s, arity)]
    return fitting or list(candidates)


# Narrows one name's candidates to the overload a call binds (a list of one), else gives them back as they were.
Pick = Callable[[Sequence[Sym]], list[Sym]]


def as_given(candidates: Sequence[Sym]) -> list[Sym]:
    """The Pick of a call that tells no overloads apart."""
    return list(candidates)


# How an argument fits a parameter: by the very type ("same"), by a supertype ("yes"), only after boxing or
# unboxing ("box"), not known here ("maybe"), or not at all ("no").
Fit = Literal["same", "yes", "box", "maybe", "no"]
# A candidate's fits, one per argument, and whether it takes them as varargs; None when its parameters are unknown.
Fits = tuple[tuple[Fit, ...], bool] | None
# Java's phases: the fits each accepts, and whether it calls a varargs method with its arguments spread.
_PHASES: tuple[tuple[frozenset[Fit], bool], ...] = (
    (frozenset({"same", "yes"}), False),
    (frozenset({"same", "yes", "box"}), False),
    (frozenset({"same", "yes", "box"}), True),
)


def by_types(
    fitting: Sequence[Sym], fits_of: Callable[[Sym], Fits], more_specific: Callable[[Sym, Sym], bool]
) -> Sym | None:
    """Of overloads that all fit a call's argument count, the one Java would choose, when the arguments' known types
    leave no doubt; else None.

    Java looks for an applicable method in three phases (without boxing or varargs, with boxing, with varargs) and
    stops at the first that finds one; there, the most specific wins. Here a phase decides only when every
    candidate it might hold surely applies or surely does not: an argument of unknown type may fit anything.
    """
    rows: list[tuple[Sym, tuple[Fit, ...] | None, bool]] = []
    for sym in fitting:
        found = fits_of(sym)
        if found is None:
            rows.append((sym, None, False))
        elif "no" not in found[0]:
            rows.append((sym, found[0], found[1]))
    if len(rows) <= 1:
        return rows[0][0] if rows else None
    if any(fits is None for _sym, fits, _v in rows):
        return None  # a candidate of unknown parameters may apply in any phase
    exact = [sym for sym, fits, variadic in rows if not variadic and fits and all(f == "same" for f in fits)]
    if len(exact) == 1:
        # Parameters of the arguments' very types: applicable in the first phase and more specific than any other
        # method applicable there (each of its parameters is a subtype of theirs), whatever the others' types are.
        return exact[0]
    for allowed, varargs in _PHASES:
        sure: list[Sym] = []
        for sym, fits, variadic in rows:
            if variadic != varargs or fits is None:
                continue
            if all(f in allowed for f in fits):
                sure.append(sym)
            elif all(f in allowed or f == "maybe" for f in fits):
                return None  # it may apply in this phase: which one Java picks is not known
        if sure:
            return _most_specific(sure, more_specific)
    return None


def _most_specific(syms: list[Sym], more_specific: Callable[[Sym, Sym], bool]) -> Sym | None:
    """The one candidate more specific than every other (Java's choice among applicable overloads), else None."""
    if len(syms) == 1:
        return syms[0]
    best = [a for a in syms if all(a is b or more_specific(a, b) for b in syms)]
    return best[0] if len(best) == 1 else None
