"""Choosing among overloads by a call's argument count, as Java does before it looks at argument types.

Pure functions over the symbol table's records: a definition's ``min_args``/``max_args`` (max -1: no bound, after a
varargs parameter; the defaults 0 and -1 accept any call) and the call's arity (-1 when not counted).
"""

from __future__ import annotations

from collections.abc import Sequence

from igraph_mcp.index.symbols import Sym

# Kinds whose parameters are counted. A class among the candidates (`new Foo(x)`: the class and its constructors)
# counts nothing: the call names the class as it did before any count.
_COUNTED = frozenset({"method", "function"})


def accepts(sym: Sym, arity: int) -> bool:
    """Whether a call passing ``arity`` arguments may call ``sym``."""
    return sym.min_args <= arity and (sym.max_args < 0 or arity <= sym.max_args)


def by_arity(candidates: Sequence[Sym], arity: int) -> list[Sym]:
    """Of several same-named methods, the only one whose range accepts a call with ``arity`` arguments; else (none or
    several fit, an unknown arity, a candidate that is no method) every candidate as given.

    Two that fit stay two even when one is varargs: Java prefers the fixed-arity one only when the argument types
    fit it too (`emit(String)` or `emit(String, Object...)` for `emit(s)`), and types are not known here.
    """
    if arity < 0 or len(candidates) < 2 or any(s.kind not in _COUNTED for s in candidates):
        return list(candidates)
    fitting = [s for s in candidates if accepts(s, arity)]
    return fitting if len(fitting) == 1 else list(candidates)
