"""Bracket nesting past what real code reaches: found in one pass over the bytes, and blanked region by region.

tree-sitter's query cursor turns quadratic with the tree's depth (4,000 nested JavaScript calls took 0.7 s, 8,000
took 2.8 s; a 1 MB file of them would take minutes). Such depth only comes from generated text (a table, a long
literal), so the part of it nested past MAX_NESTING is turned into spaces before tree-sitter sees it: every byte
offset and line stays where it was, the brackets that open and close the region stay, so the code around it still
parses, and every definition before and after the region is found. Error-free files below the limit pay one
vectorised scan.

Brackets are counted as bytes, so brackets inside strings and comments count too: a string of 600 `(` and a later
one of 600 `)` make the text between them look deep, and it is blanked (the file's text stays searchable).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

# Deeper than any hand-written code; 490 levels parse and query in milliseconds.
MAX_NESTING = 500

_OPEN = (ord("("), ord("["), ord("{"))
_CLOSE = (ord(")"), ord("]"), ord("}"))
_NEWLINE = ord("\n")
_SPACE = ord(" ")
_ZERO = ord("0")


@dataclass(frozen=True, slots=True)
class CappedSource:
    """``source`` with its over-deep regions blanked; ``regions`` counts them (0: unchanged)."""

    source: bytes
    regions: int
    depth: int  # the deepest nesting before blanking


def _levels(codes: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Per byte: +1 for an opening bracket, -1 for a closing one, 0 else; and the running level after each byte."""
    step = np.zeros(len(codes), dtype=np.int32)
    step[(codes == _OPEN[0]) | (codes == _OPEN[1]) | (codes == _OPEN[2])] = 1
    step[(codes == _CLOSE[0]) | (codes == _CLOSE[1]) | (codes == _CLOSE[2])] = -1
    return step, np.cumsum(step, dtype=np.int32)


def nesting_depth(source: bytes) -> int:
    """Deepest nesting of (), [] and {} in ``source`` (brackets in strings and comments count too)."""
    if not source:
        return 0
    _step, level = _levels(np.frombuffer(source, dtype=np.uint8))
    # Depth above the lowest level reached so far, so stray closing brackets do not hide nesting after them.
    return int((level - np.minimum(np.minimum.accumulate(level), 0)).max())


def cap_nesting(source: bytes, limit: int = MAX_NESTING) -> CappedSource:
    """Blank (newlines kept) what is nested more than ``limit`` deep, so the result nests at most ``limit`` deep.

    Inside a bracket group that closes, everything past ``limit`` levels becomes spaces but for a `0` where it
    starts; the ``limit`` brackets around it stay, so `x = ((((...))))` stays an expression and the code after it
    parses. Opening brackets that
    never close (a truncated file, a string of `(`) are blanked alone, only when they still push the depth past
    ``limit``: the text after them is kept.
    """
    depth = nesting_depth(source)
    if depth <= limit:
        return CappedSource(source, 0, depth)
    codes = np.frombuffer(source, dtype=np.uint8)
    step, after = _levels(codes)
    # A byte's own level: an opening bracket belongs to the group it opens, a closing one to the group it closes.
    own = np.maximum(after, after - step)
    # Levels at or below `floor` are groups that never close (the lowest level still ahead) or stray closings
    # (the lowest level so far); what lies above it is nested in groups that close.
    floor = np.maximum(
        np.minimum(np.minimum.accumulate(after), 0),
        np.minimum.accumulate(after[::-1])[::-1],
    )
    deep = own - floor > limit
    out = codes.copy()
    out[deep & (codes != _NEWLINE)] = _SPACE
    starts = np.flatnonzero(deep & ~np.concatenate(([False], deep[:-1])))
    # Each region starts with a bracket; a digit there keeps the brackets around it an expression (`(((0)))`):
    # Java, C and Go read `()` as a syntax error, and Java's hides the rest of the class behind it.
    out[starts] = _ZERO
    regions = len(starts)
    capped = out.tobytes()
    if nesting_depth(capped) > limit:
        # What is left is depth from groups that never close: blank their opening brackets, nothing else.
        out[(step == 1) & (after == floor) & ~deep] = _SPACE
        capped = out.tobytes()
        regions += 1
    return CappedSource(capped, regions, depth)
