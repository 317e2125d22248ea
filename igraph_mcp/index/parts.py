"""Long definitions cut into parts, so every line of code is searchable, not only a definition's head.

A definition is stored, FTS-indexed and embedded from its head; the embedder reads DEFAULT_MAX_SEQ_LENGTH word pieces
of it. The lines a definition owns (its own lines, not those of the definitions inside it) past that head become
parts: line-aligned runs of about one embedder window each, cut where a statement ends when that is cheap. Code in
anonymous functions and callbacks (which are not definitions) lies in the lines of the definition around it, and so
in one of its parts. The module owns the top-level code between definitions (``app.get('/x', (req, res) => ...)``,
``describe(...)`` blocks); import lines are left out of its parts (imports are edges already), and so are the doc
comments written above definitions (each is its definition's docstring).

Cutting is greedy from a definition's first line, so an edit changes only the part it falls in and those after it:
unchanged parts keep their text, and with it their vector.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from igraph_mcp.index.docstrings import MAX_DOCSTRING
from igraph_mcp.index.model import Symbol

# Characters of code (indentation and runs of spaces collapsed) in one part. The bundled all-MiniLM-L6-v2 reads 128
# word pieces per text (embed/local.py); code costs ~2.2 (JavaScript) to ~2.9 (Python) characters a piece, and the
# part's header (kind, name, path) ~15 pieces: ~110 pieces of code, ~280 characters.
PART_CHARS = 280
# The head of a definition: read by the definition's own vector (after its name, signature and docstring), so no part
# repeats it.
HEAD_CHARS = PART_CHARS // 2
# Definitions (and top-level code) owning less than this (~25-30 lines) get no parts: they are found by their own
# vector (name, signature, docstring, head) and by FTS over their stored body (MAX_BODY_CHARS), and their tails would
# cost a vector each for little (on this repository: 1x PART_CHARS gave 1.5 parts per symbol, 3x 0.77).
PARTS_FROM_CHARS = 3 * PART_CHARS
# A definition gets at most about this many parts: a bigger one (generated code, a 2,000-line function) gets parts of
# twice, four times ... PART_CHARS, so its parts cannot fill a channel's list (the dense channel reads the 200 nearest
# vectors to choose its files) and crowd out every other definition. Its every line stays in FTS; the dense channel
# reads the head of each of its parts. At PART_CHARS, up to ~10,700 characters (~350 lines) of a definition's own.
MAX_PARTS = 64
# Where a cut may come early: at a statement boundary once a part holds this share of PART_CHARS.
_EARLY_CUT_SHARE = 0.6
GAP_MARK = "…"  # joins two runs of a part's lines around a definition inside it


@dataclass(frozen=True, slots=True)
class Part:
    """A run of lines owned by one definition (``owner`` indexes the file's symbols; 0 is the module)."""

    owner: int
    start_line: int  # 1-based, inclusive
    end_line: int
    start_byte: int
    end_byte: int
    text: str


def _weight(line: str) -> int:
    """What a line costs the embedder, roughly: its characters with whitespace runs collapsed, plus a separator."""
    words = line.split()
    return len(" ".join(words)) + 1 if words else 0


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def line_owners(symbols: Sequence[Symbol], line_count: int) -> list[int]:
    """For each line (index 0 is line 1): the innermost symbol whose lines hold it (0, the module, for top-level)."""
    owners = [0] * line_count
    # Symbols come in source order with parents before children: a later symbol covering a line is nested deeper.
    for i, s in enumerate(symbols):
        if i == 0:
            continue
        lo, hi = max(s.start_line, 1), min(s.end_line, line_count)
        owners[lo - 1 : hi] = [i] * max(hi - lo + 1, 0)
    return owners


def part_size(total: int) -> int:
    """The size of the parts of a definition owning ``total`` characters: PART_CHARS, doubled until there are at
    most about MAX_PARTS of them (a power of two, so an edit changes the size only when it doubles the total)."""
    size = PART_CHARS
    # A part may be cut early at a statement boundary: count each at the least it holds.
    while total > size * _EARLY_CUT_SHARE * MAX_PARTS:
        size *= 2
    return size


def _chunks(lines: list[tuple[int, str]], weights: list[int], part_chars: int) -> list[list[tuple[int, str]]]:
    """Greedy runs of about ``part_chars`` each after a head of HEAD_CHARS, which is left out (``weights``: each
    line's _weight)."""
    out: list[list[tuple[int, str]]] = []
    current: list[tuple[int, str]] = []
    size = 0
    head = True
    budget = HEAD_CHARS
    last_size = before_size = 0  # the weights of the last two runs kept
    for k, (number, text) in enumerate(lines):
        w = weights[k]
        if current and size + w > budget:
            if not head:
                out.append(current)
                before_size, last_size = last_size, size
            head, current, size, budget = False, [], 0, part_chars
        current.append((number, text))
        size += w
        if head:
            continue
        if size < budget * _EARLY_CUT_SHARE:
            continue  # too early to cut: the boundary need not be looked for
        # A cut after a blank line, before an inner definition, or before a line that starts a statement at the part's
        # own depth or shallower.
        nxt_number, nxt = lines[k + 1] if k + 1 < len(lines) else (number + 1, "")
        if not text.strip() or nxt_number != number + 1 or bool(nxt.strip() and _indent(nxt) <= _indent(current[0][1])):
            out.append(current)
            before_size, last_size = last_size, size
            current, size = [], 0
    if current and not head:
        out.append(current)
        before_size, last_size = last_size, size
    if len(out) >= 2:
        last, before = last_size, before_size
        # A last part under a quarter of the size joins the one before (if the two stay within one and a half).
        if last < part_chars // 4 and last + before <= part_chars * 3 // 2:
            out[-2:] = [out[-2] + out[-1]]
    return out


def _trimmed(run: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """A run without its leading and trailing blank lines."""
    lo, hi = 0, len(run)
    while lo < hi and not run[lo][1].strip():
        lo += 1
    while hi > lo and not run[hi - 1][1].strip():
        hi -= 1
    return run[lo:hi]


def _joined(run: list[tuple[int, str]]) -> str:
    """A run's text, with GAP_MARK where lines of an inner definition were left out."""
    out: list[str] = []
    previous = None
    gap = False
    for number, text in run:
        gap = gap or (previous is not None and number != previous + 1)
        previous = number
        if gap and not text.strip():
            continue  # blank lines around an inner definition say nothing
        if gap:
            while out and not out[-1].strip():
                out.pop()
            out.append(" " * _indent(text) + GAP_MARK)
            gap = False
        out.append(text)
    return "\n".join(out)


def split_parts(source: bytes, symbols: Sequence[Symbol], *, skip_lines: Collection[int] = ()) -> list[Part]:
    """The parts of a file's long definitions and of its top-level code, in owner then line order.

    ``skip_lines``: top-level lines left out of the module's parts (the import statements' lines).
    """
    if not symbols:
        return []
    raw_lines = source.split(b"\n")
    starts = [0]
    for raw in raw_lines[:-1]:
        starts.append(starts[-1] + len(raw) + 1)
    # Decoded once: a newline is never part of a UTF-8 sequence, so the lines decode as they would one by one.
    texts = source.decode("utf-8", "replace").split("\n")
    owners = line_owners(symbols, len(raw_lines))
    # A doc comment written above a definition is its docstring, read with its name: left in the lines of the code
    # around it, a Go function's or a Java method's comment made the module or the class the hit for what it says.
    # One cut at MAX_DOCSTRING keeps its lines.
    doc_lines = {
        n
        for s in symbols[1:]
        if 0 < s.doc_line < s.start_line and len(s.docstring) < MAX_DOCSTRING
        for n in range(s.doc_line, s.start_line)
    }
    owned: dict[int, list[tuple[int, str]]] = {}
    weights: dict[int, list[int]] = {}
    line_weights = [len(" ".join(words)) + 1 if (words := text.split()) else 0 for text in texts]  # _weight, inline
    for index, owner in enumerate(owners):
        if (owner == 0 and index + 1 in skip_lines) or index + 1 in doc_lines:
            continue
        owned.setdefault(owner, []).append((index + 1, texts[index].rstrip("\r")))
        weights.setdefault(owner, []).append(line_weights[index])
    parts: list[Part] = []
    for owner in sorted(owned):
        lines = owned[owner]
        total = sum(weights[owner])
        if total < PARTS_FROM_CHARS:
            continue
        for run in _chunks(lines, weights[owner], part_size(total)):
            run = _trimmed(run)
            if not run:
                continue
            first, last = run[0][0], run[-1][0]
            end_byte = starts[last - 1] + len(raw_lines[last - 1])
            parts.append(Part(owner, first, last, starts[first - 1], end_byte, _joined(run)))
    return parts
