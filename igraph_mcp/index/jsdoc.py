"""Types a JSDoc comment states (`@param {Help} helper`, `@returns {Command}`), as scope facts: what the TypeScript
compiler reads in JavaScript files, so index/receivers.py can type the same receivers."""

from __future__ import annotations

import re

from igraph_mcp.index.model import Fact, Symbol

_PARAM = re.compile(r"@param\s+\{([^{}]+)\}\s+\[?([A-Za-z_$][\w$]*)")
_RETURNS = re.compile(r"@returns?\s+\{([^{}]+)\}")
_WS = re.compile(r"\s+")


def jsdoc_facts(symbols: list[Symbol]) -> list[Fact]:
    """Type facts of each function's documented parameters and result (the result under the name "()")."""
    out: list[Fact] = []
    for index, sym in enumerate(symbols):
        if sym.kind not in ("function", "method") or "@" not in sym.docstring:
            continue
        for type_text, name in _PARAM.findall(sym.docstring):
            out.append(Fact(source=index, name=name, kind="type", text=_WS.sub("", type_text)))
        returns = _RETURNS.search(sym.docstring)
        if returns is not None:
            out.append(Fact(source=index, name="()", kind="type", text=_WS.sub("", returns.group(1))))
    return out
