"""Types a JSDoc comment states (`@param {Help} helper`, `@returns {Command}`), as scope facts: what the TypeScript
compiler reads in JavaScript files, so index/receivers.py can type the same receivers."""

from __future__ import annotations

import re

from igraph_mcp.index.model import Fact, Symbol

_PARAM = re.compile(r"@param\s+\{([^{}]+)\}\s+\[?([A-Za-z_$][\w$]*)")
_RETURNS = re.compile(r"@returns?\s+\{([^{}]+)\}")
_WS = re.compile(r"\s+")
# Words that may stand between a JSDoc block and the name the definition starts at (`export const f = ...`).
_LEAD = re.compile(r"(?:\b(?:export|default|const|let|var)\s*)+$")
_LOOK_BACK = 4000


def preceding_jsdoc(source: bytes, start: int) -> str:
    """The `/** ... */` block above the definition starting at ``start``, blank lines between allowed (the
    TypeScript compiler reads it there; the docstring rule stops at a blank line), else ""."""
    text = source[max(0, start - _LOOK_BACK) : start].decode("utf-8", "replace").rstrip()
    text = _LEAD.sub("", text).rstrip()
    if not text.endswith("*/"):
        return ""
    block = text[text.rfind("/**") :]
    return block if block.startswith("/**") and block.find("*/") == len(block) - 2 else ""


def jsdoc_facts(source: bytes, symbols: list[Symbol]) -> list[Fact]:
    """Type facts of each function's documented parameters and result (the result under the name "()")."""
    out: list[Fact] = []
    for index, sym in enumerate(symbols):
        if sym.kind not in ("function", "method"):
            continue
        doc = sym.docstring if "@" in sym.docstring else preceding_jsdoc(source, sym.start_byte)
        if "@" not in doc:
            continue
        for type_text, name in _PARAM.findall(doc):
            out.append(Fact(source=index, name=name, kind="type", text=_WS.sub("", type_text)))
        returns = _RETURNS.search(doc)
        if returns is not None:
            out.append(Fact(source=index, name="()", kind="type", text=_WS.sub("", returns.group(1))))
    return out
