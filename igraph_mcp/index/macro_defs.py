"""C and C++ functions that a macro of the same file defines by pasting its arguments into their names.

`#define WATCHER_DEFINE(name, type) int uv_##name##_init(uv_loop_t* loop, uv_##name##_t* h) { ... }` followed by
`WATCHER_DEFINE(idle, IDLE)` at the top level defines `uv_idle_init` on that line: the body a header's prototype
stands for, which tree-sitter sees only as a macro's use. Each such function becomes a definition at the use, its
signature the macro's head with the arguments put in.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from igraph_mcp.index.model import ParsedFile, Symbol

# `#define NAME(params) body`, the body with its line continuations.
_FUNCTION_MACRO = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^()\n]*)\)((?:[^\n]*\\\r?\n)*[^\n]*)", re.M)
# A function head whose name pastes a parameter in (`uv_##name##_init(`, `run_test_##name(`), up to its `{`.
_PASTED_HEAD = re.compile(rb"((?:[A-Za-z_]\w*[ \t]*##[ \t]*)+[A-Za-z_]\w*)[ \t]*\(([^;{}()]*)\)[ \t]*\{")
_STATIC = re.compile(rb"\bstatic\b[^;{}]*$")
_FUNCTION_KINDS = frozenset({"function", "method"})


class _Head(NamedTuple):
    """A function the macro's body defines with a parameter in its name."""

    pieces: list[str]  # the name, split at `##`
    text: str  # the head as written, up to its `{`
    static: bool
    arguments: tuple[int, int]  # (fewest, most) a call passes; most -1 after `...`


def _argument_range(parameters: bytes) -> tuple[int, int]:
    listed = [p.strip() for p in parameters.replace(b"\\", b" ").split(b",") if p.strip()]
    if listed in ([], [b"void"]):
        return 0, 0
    return (len(listed) - 1, -1) if listed[-1] == b"..." else (len(listed), len(listed))


def _pasted_names(params: list[str], body: bytes) -> list[_Head]:
    """Each function the macro's body defines with a parameter in its name."""
    found: list[_Head] = []
    for match in _PASTED_HEAD.finditer(body):
        pieces = [p.strip().decode("ascii", "replace") for p in match.group(1).split(b"##")]
        if not any(p in params for p in pieces):
            continue
        line_start = body.rfind(b"\n", 0, match.start()) + 1
        head = body[line_start : match.end() - 1].replace(b"\\", b" ")
        text = " ".join(head.decode("utf-8", "replace").split())
        found.append(_Head(pieces, text, bool(_STATIC.search(head)), _argument_range(match.group(2))))
    return found


def _put_in(head: str, given: dict[str, str]) -> str:
    """A macro's head with each parameter replaced by its argument and the pasting gone."""
    pattern = r"(?<![\w])(" + "|".join(map(re.escape, given)) + r")(?![\w])"
    return re.sub(pattern, lambda m: given[m.group(1)], re.sub(r"\s*##\s*", " ## ", head)).replace(" ## ", "")


def add_macro_definitions(source: bytes, pf: ParsedFile) -> int:
    """Add the functions the file's own macros define at their top-level uses; returns how many were added. A use
    inside a function is a statement, not a definition, and a name the file already defines is left to it."""
    if b"##" not in source:
        return 0
    macros: dict[str, tuple[list[str], list[_Head]]] = {}
    for match in _FUNCTION_MACRO.finditer(source):
        if b"##" not in match.group(3):
            continue
        params = [p.strip().decode("ascii", "replace") for p in match.group(2).split(b",")]
        heads = _pasted_names(params, match.group(3))
        if heads and "..." not in params:
            macros[match.group(1).decode("ascii")] = (params, heads)
    if not macros:
        return 0
    taken = {s.name for s in pf.symbols if not s.declaration}
    functions = [s for s in pf.symbols if s.kind in _FUNCTION_KINDS]
    containers = [i for i, s in enumerate(pf.symbols) if i and s.kind not in _FUNCTION_KINDS]
    added = 0
    names = "|".join(re.escape(n) for n in macros)
    use = re.compile(rb"^[ \t]*(" + names.encode() + rb")[ \t]*\(([^()\n]*)\)[ \t]*;?[ \t]*$", re.M)
    for match in use.finditer(source):
        at = match.start(1)
        if any(f.start_byte <= at < f.end_byte for f in functions):
            continue
        params, heads = macros[match.group(1).decode("ascii")]
        args = [a.strip().decode("utf-8", "replace") for a in match.group(2).split(b",")]
        if len(args) != len(params):
            continue
        given = dict(zip(params, args, strict=True))
        parent = max(
            (i for i in containers if pf.symbols[i].start_byte <= at < pf.symbols[i].end_byte),
            key=lambda i: pf.symbols[i].start_byte,
            default=0,
        )
        owner = pf.symbols[parent].qualified_name if parent else ""
        line = source.count(b"\n", 0, at) + 1
        for head in heads:
            name = "".join(given.get(p, p) for p in head.pieces)
            if not name.isidentifier() or name in taken:
                continue
            taken.add(name)
            signature = _put_in(head.text, given)
            pf.symbols.append(
                Symbol(
                    kind="function",
                    name=name,
                    qualified_name=f"{owner}.{name}" if owner else name,
                    start_line=line,
                    end_line=line,
                    start_byte=at,
                    end_byte=match.end(),
                    signature=signature,
                    docstring=f"Defined by {match.group(1).decode('ascii')}({', '.join(args)}).",
                    parent=parent,
                    exported=not head.static,
                    min_args=head.arguments[0],
                    max_args=head.arguments[1],
                )
            )
            added += 1
    return added
