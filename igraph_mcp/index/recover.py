"""Recovery from a syntax error that hides the rest of a file: blank the line the error starts on, parse again.

tree-sitter's error recovery sometimes gives up on everything after one construct a grammar cannot read:
tree-sitter-bash, meeting `"${#${array}[@]}"` inside a string, wraps the rest of the file in one ERROR node and
every function after it is lost; tree-sitter-kotlin loses a file after a `when` whose branches start with `(`.
When a parse has an error, the line holding the first error is turned into spaces (so every byte offset and line
number stays valid) and the text is parsed again, up to MAX_RESTARTS times while errors remain. The least broken
reading leads and each earlier one adds what only it saw (a definition on a blanked line), so nothing found is
ever lost. Tried first and dropped: re-parsing from the next column-0 line after the error as a document of its
own, which loses the definition holding the error and its enclosing class (bats 75/76 instead of 76/76).
Error-free files never get here, so they pay nothing.
"""

from __future__ import annotations

from tree_sitter import Node

from igraph_mcp.index.languages import CONTAINER_KINDS
from igraph_mcp.index.model import ParsedFile, Symbol

# Re-parses per file, so a file full of errors costs at most this many extra parses (bats' common.bash and the
# Kotlin file of the definitions benchmark were clean after one).
MAX_RESTARTS = 8


def first_error_byte(root: Node) -> int:
    """Byte where the first syntax error starts: the earliest ERROR or MISSING node holding no error of its own.

    Descends only into children that contain an error, so the cost is one path down the tree.
    """
    node = root
    while True:
        nxt = next((c for c in node.children if c.has_error or c.is_missing), None)
        if nxt is None:
            return node.start_byte
        node = nxt


def blank_line(source: bytes, pos: int) -> bytes:
    """`source` with the line holding byte `pos` turned to spaces: every offset and line number stays put."""
    start = source.rfind(b"\n", 0, pos) + 1
    end = source.find(b"\n", pos)
    end = len(source) if end == -1 else end
    return source[:start] + b" " * (end - start) + source[end:]


def _enclosing_container(pf: ParsedFile, sym: Symbol) -> int:
    """Index of the innermost class-like symbol of the first parse that spans `sym` (0: the module)."""
    best = 0
    for i, s in enumerate(pf.symbols):
        spans = s.start_byte <= sym.start_byte and sym.end_byte <= s.end_byte
        if i and s.kind in CONTAINER_KINDS and spans and (not best or s.start_byte >= pf.symbols[best].start_byte):
            best = i
    return best


def merge_missing(head: ParsedFile, tail: ParsedFile, class_kinds: frozenset[str]) -> int:
    """Add to `head` what another reading `tail` of the same file found and `head` lacks; `tail` is used up.

    Returns the number of symbols added. A tail symbol that `head` already has (same name, same start line) is
    `head`'s; a new top-level one inside a class of `head` becomes its member.
    """
    known = {(s.name, s.start_line): i for i, s in enumerate(head.symbols) if i}
    tail_qualified = [s.qualified_name for s in tail.symbols]  # before any is moved under a class of `head`
    index_of = {0: 0}  # tail symbol index -> head symbol index
    added = 0
    for ti, sym in enumerate(tail.symbols):
        if not ti:
            continue
        hit = known.get((sym.name, sym.start_line))
        if hit is not None:
            index_of[ti] = hit
            continue
        parent = index_of.get(sym.parent or 0, 0)
        if parent == 0:
            parent = _enclosing_container(head, sym)
            if parent:
                owner = head.symbols[parent]
                sym.qualified_name = f"{owner.qualified_name}.{sym.qualified_name}"
                if sym.kind == "function" and owner.kind in class_kinds:
                    sym.kind = "method"
        elif tail_qualified[sym.parent or 0] != head.symbols[parent].qualified_name:
            # the parent was placed under a class of `head`: its members follow it
            old = tail_qualified[sym.parent or 0]
            sym.qualified_name = head.symbols[parent].qualified_name + sym.qualified_name[len(old) :]
        sym.parent = parent
        index_of[ti] = len(head.symbols)
        known[(sym.name, sym.start_line)] = index_of[ti]
        head.symbols.append(sym)
        added += 1
    seen_refs = {(r.kind, r.name, r.line, r.qualifier) for r in head.references}
    for ref in tail.references:
        ref.source = index_of.get(ref.source, 0)
        key = (ref.kind, ref.name, ref.line, ref.qualifier)
        if key not in seen_refs:
            seen_refs.add(key)
            head.references.append(ref)
    seen_imports = {(i.module, i.name, i.alias, i.line) for i in head.imports}
    for imp in tail.imports:
        if (imp.module, imp.name, imp.alias, imp.line) not in seen_imports:
            head.imports.append(imp)
    seen_facts = {(f.source, f.name, f.kind, f.text) for f in head.facts}
    for fact in tail.facts:
        fact.source = index_of.get(fact.source, 0)
        if (fact.source, fact.name, fact.kind, fact.text) not in seen_facts:
            head.facts.append(fact)
    return added


def sort_symbols(pf: ParsedFile) -> None:
    """Put symbols back in source order (parents before children) after a merge, renumbering every index."""
    order = sorted(range(1, len(pf.symbols)), key=lambda i: (pf.symbols[i].start_byte, -pf.symbols[i].end_byte))
    if order == list(range(1, len(pf.symbols))):
        return
    new_index = {0: 0} | {old: new for new, old in enumerate(order, 1)}
    pf.symbols[1:] = [pf.symbols[i] for i in order]
    for sym in pf.symbols[1:]:
        sym.parent = new_index[sym.parent or 0]
    for ref in pf.references:
        ref.source = new_index[ref.source]
    for fact in pf.facts:
        fact.source = new_index[fact.source]
