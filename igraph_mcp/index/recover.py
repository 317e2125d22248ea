"""Recovery from a syntax error that hides the rest of a file: blank the line the error starts on, parse again.

tree-sitter's error recovery sometimes gives up on everything after one construct a grammar cannot read:
tree-sitter-bash, meeting `"${#${array}[@]}"` inside a string, wraps the rest of the file in one ERROR node and
every function after it is lost; tree-sitter-kotlin loses a file after a `when` whose branches start with `(`.
When a parse has an error that spans several lines (a local one hides nothing and is left alone), the line holding
the first error is turned into spaces (so every byte offset and line number stays valid) and the text is parsed
again by tree-sitter alone (incrementally), up to MAX_RESTARTS times while such an error remains and the lines it
hides keep shrinking. Only when they shrank are the definitions extracted once more from the last text; if that
reading found a definition the first one lacked, it leads and the first one adds what only it saw (a definition
on a blanked line), so nothing found is ever lost. Error-free files never get here, so they pay nothing; the
extraction, the costly part, runs at most twice per file.

Tried first and dropped: re-parsing from the next column-0 line after the error as a document of its own, which
loses the definition holding the error and its enclosing class (bats 75/76 instead of 76/76).
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from igraph_mcp.index.model import ParsedFile, Symbol
from igraph_mcp.vocab.languages import CONTAINER_KINDS

# Blanked lines per file at most (each costs one incremental tree-sitter parse).
MAX_RESTARTS = 8
# An error may hide definitions when its ERROR node spans at least this many lines. Measured on the 72 files with
# errors among the definitions benchmark's projects: every re-parse that found more definitions had an ERROR of
# 160 lines or more (Kotlin 262, bats 259, C# 421, Swift 167); errors of 1-9 lines (C macros, Zig, Haskell, a C++
# template) never did, and re-parsing them tripled the parse time of those projects (lz4 0.59 s -> 3.58 s).
SWALLOW_LINES = 20

# Blanked lines in a row that may leave the hidden lines as many as before: the Kotlin file needed two (the second
# cleared all 262); on the files where blanking never helps (C headers full of macros, Swift's `#if` inside a
# `switch`) the hidden lines never moved, and stopping early keeps their cost to two tree-sitter parses.
PATIENCE = 2


def find_errors(root: Node) -> list[Node]:
    """The tree's ERROR and MISSING nodes in document order (outer before inner).

    Only children that contain an error are visited, so the cost follows the errors, not the file's size (a query
    over the whole tree cost as much as the parse itself).
    """
    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(node)
        stack.extend(c for c in node.children if c.has_error or c.is_missing)
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


def error_bytes(root: Node) -> int:
    """Bytes inside the tree's outermost ERROR nodes, plus one per MISSING node: how much of a file a reading lost."""
    total, end = 0, -1
    for node in find_errors(root):
        if node.is_missing:
            total += 1
        elif node.start_byte >= end:  # not inside an ERROR already counted
            total += node.end_byte - node.start_byte
            end = node.end_byte
    return total


def first_error_byte(errors: list[Node]) -> int:
    """Byte where the first error starts: the earliest error node holding no other (`errors` from find_errors).

    An ERROR node that swallows a file starts at its top; the error that made it lies inside, where the next
    node in document order starts before the outer one ends.
    """
    cur = errors[0]
    for node in errors[1:]:
        if node.start_byte >= cur.end_byte:  # after `cur`: nothing lies inside it
            break
        cur = node
    return cur.start_byte


def hiding_error(errors: list[Node]) -> Node | None:
    """The first ERROR node of SWALLOW_LINES lines or more (`errors` from find_errors), if any."""
    for node in errors:
        if node.is_error and node.end_point[0] - node.start_point[0] + 1 >= SWALLOW_LINES:
            return node
    return None


def hiding_error_byte(errors: list[Node]) -> int:
    """Byte where the error that makes the first hiding ERROR node starts (the first error's, without one).

    Errors of a line or two before it hide nothing; blanking them first would spend the restarts (and the patience)
    without touching the error that hides the file's rest (Groovy's Console.groovy: two small errors, then one that
    hides 1100 lines).
    """
    node = hiding_error(errors)
    return first_error_byte(errors if node is None else errors[errors.index(node) :])


_OPEN, _CLOSE, _QUOTES = frozenset(b"([{"), frozenset(b")]}"), frozenset(b"\"'")


def bracket_group_end(source: bytes, start: int, limit: int) -> int:
    """End of the line where the brackets opened on the line starting at `start` are all closed again.

    The end of that line itself when it leaves none open, or when they are still open at `limit` (the end of the
    ERROR node: past it the grammar read the text fine). Quoted text on one line is skipped, so `'{'` opens nothing.
    """
    first_end = line_bounds(source, start)[1]
    depth, quote, i = 0, 0, start
    while i < limit:
        c = source[i]
        if quote:
            if c == 0x5C:  # a backslash escapes the next byte
                i += 1
            elif c in (quote, 0x0A):
                quote = 0
        elif c in _QUOTES:
            quote = c
        elif c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif c == 0x0A and depth <= 0:
            return i
        i += 1
    return first_end


def hidden_lines(errors: list[Node]) -> int:
    """Lines inside ERROR nodes of SWALLOW_LINES lines or more (nested ones count again): 0 when nothing is hidden."""
    spans = (n.end_point[0] - n.start_point[0] + 1 for n in errors if n.is_error)
    return sum(span for span in spans if span >= SWALLOW_LINES)


def line_bounds(source: bytes, pos: int) -> tuple[int, int]:
    """Start and end (before its newline) of the line holding byte `pos`."""
    end = source.find(b"\n", pos)
    return source.rfind(b"\n", 0, pos) + 1, len(source) if end == -1 else end


def _same_in(known: dict[tuple[str, int], int], sym: Symbol) -> int | None:
    """The known symbol that is `sym` read another way: same name, and the same first or last line (a reading may
    start a definition at a macro line before it, `FMT_BEGIN_EXPORT` / `inline auto f()`, and end it where the other
    does)."""
    hit = known.get((sym.name, sym.start_line))
    return hit if hit is not None else known.get((sym.name, -sym.end_line))


def _keys(sym: Symbol) -> tuple[tuple[str, int], tuple[str, int]]:
    return (sym.name, sym.start_line), (sym.name, -sym.end_line)  # end lines negated: one dict holds both


def new_symbols(lead: ParsedFile, other: ParsedFile) -> bool:
    """Whether `other` has a definition (a name with its first or last line) that `lead` lacks."""
    known = {key: i for i, s in enumerate(lead.symbols) if i for key in _keys(s)}
    return any(_same_in(known, s) is None for s in other.symbols[1:])


def _enclosing_container(pf: ParsedFile, sym: Symbol) -> int:
    """Index of the innermost class-like symbol of the first parse that spans `sym` (0: the module)."""
    best = 0
    for i, s in enumerate(pf.symbols):
        spans = s.start_byte <= sym.start_byte and sym.end_byte <= s.end_byte
        if i and s.kind in CONTAINER_KINDS and spans and (not best or s.start_byte >= pf.symbols[best].start_byte):
            best = i
    return best


def merge_missing(
    head: ParsedFile,
    tail: ParsedFile,
    class_kinds: frozenset[str],
    blanked: Callable[[Symbol], bool] | None = None,
) -> int:
    """Add to `head` what another reading `tail` of the same file found and `head` lacks; `tail` is used up.

    Returns the number of symbols added. A tail symbol that `head` already has (same name, same first or last
    line) is `head`'s; a new top-level one inside a class of `head` becomes its member. A tail symbol that `head`
    lacks because `head`'s text blanked its name (``blanked``: `} JSON_CATCH (E& e) {` read as a function named
    JSON_CATCH) is left out, what it held going to its parent.
    """
    known = {key: i for i, s in enumerate(head.symbols) if i for key in _keys(s)}
    tail_qualified = [s.qualified_name for s in tail.symbols]  # before any is moved under a class of `head`
    index_of = {0: 0}  # tail symbol index -> head symbol index
    added = 0
    for ti, sym in enumerate(tail.symbols):
        if not ti:
            continue
        hit = _same_in(known, sym)
        if hit is not None:
            index_of[ti] = hit
            continue
        parent = index_of.get(sym.parent or 0, 0)
        if blanked is not None and blanked(sym):
            index_of[ti] = parent
            continue
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
        for name_line in _keys(sym):
            known[name_line] = index_of[ti]
        head.symbols.append(sym)
        added += 1
    seen_refs = {(r.kind, r.name, r.line, r.qualifier) for r in head.references}
    # A broken reading takes a definition's own head for a call (`API_EXPORT std::size_t count() const;` read as a
    # call of count made by the class around it): no call of a name starts on the line its definition starts.
    heads = {(s.name, s.start_line) for s in head.symbols}
    for ref in tail.references:
        ref.source = index_of.get(ref.source, 0)
        key = (ref.kind, ref.name, ref.line, ref.qualifier)
        if ref.kind == "calls" and not ref.qualifier and (ref.name, ref.line) in heads:
            continue
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
