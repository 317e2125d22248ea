"""Keeping answers within a token budget: agents pay for every token."""

from __future__ import annotations

from igraph_mcp.models import ExploreResult
from igraph_mcp.next_step import NextStep, ask

CHARS_PER_TOKEN = 4  # a rough, conservative estimate for JSON with code
SNIPPET_LINES = 8  # 12 -> 8 on the tuning half: same answers, -15 tokens (most snippets are parts)
SNIPPET_CHARS = 900
_NOTE_RESERVE_CHARS = 300  # longer than the longest budget note fit_to_budget writes
# Each timing is measured as if it were this wide (the widest value of a call under 100 s), so how long a call took
# never decides what a budget cuts: the same ranking under the same budget gives the same answer.
_TIMING_PLACEHOLDER = 99_999.99


def estimate_tokens(text: str) -> int:
    """Approximate token count of a string."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def snippet_of(body: str, max_lines: int = SNIPPET_LINES, max_chars: int = SNIPPET_CHARS) -> str:
    """The first lines of a symbol's source, bounded in lines and characters."""
    lines = body.splitlines()
    out = "\n".join(lines[:max_lines])
    if len(out) > max_chars:
        out = out[:max_chars].rstrip() + " …"
    elif len(lines) > max_lines:
        out += "\n…"
    return out


def _size(result: ExploreResult) -> int:
    """The answer's estimated tokens, with every timing sized at a fixed width."""
    diagnostics = result.diagnostics
    timings = diagnostics.timingsMs
    diagnostics.timingsMs = dict.fromkeys(timings, _TIMING_PLACEHOLDER)
    try:
        return estimate_tokens(result.model_dump_json())
    finally:
        diagnostics.timingsMs = timings


def fit_to_budget(result: ExploreResult, max_tokens: int) -> ExploreResult:
    """Shrink the answer until it fits: shorter snippets, then fewer neighbours, resources and hits."""
    if _size(result) <= max_tokens:
        return result
    cut: list[str] = []
    # The note is part of the answer too: hold room for its longest form while cutting, so it cannot push
    # the final answer back over the budget.
    result.truncated = True
    result.budgetNote = "x" * _NOTE_RESERVE_CHARS
    for h in result.hits[3:]:
        h.snippet = snippet_of(h.snippet, 4, 300)
    if result.hits[3:]:
        cut.append("snippets after the 3rd hit shortened")
    for r in result.resources:
        if len(r.text) > 600:
            r.text = r.text[:600].rstrip() + " …"
    n_before = len(result.neighbours)
    while result.neighbours and _size(result) > max_tokens:
        result.neighbours.pop()
    if len(result.neighbours) < n_before:
        cut.append(f"{n_before - len(result.neighbours)} neighbour(s) dropped")
    if _size(result) > max_tokens:
        for h in result.hits:
            h.snippet = snippet_of(h.snippet, 3, 200)
            h.docstring = h.docstring[:120]
        cut.append("all snippets shortened")
    r_before = len(result.resources)
    while len(result.resources) > 1 and _size(result) > max_tokens:
        result.resources.pop()
    if len(result.resources) < r_before:
        cut.append(f"{r_before - len(result.resources)} resource(s) dropped")
    f_before = len(result.files)
    while len(result.files) > 3 and _size(result) > max_tokens:
        result.files.pop()
    if len(result.files) < f_before:
        cut.append(f"{f_before - len(result.files)} file(s) dropped")
    h_before = len(result.hits)
    while len(result.hits) > 1 and _size(result) > max_tokens:
        result.hits.pop()
    if len(result.hits) < h_before:
        cut.append(f"{h_before - len(result.hits)} hit(s) dropped")
    if _size(result) > max_tokens:
        for h in result.hits:
            h.snippet = ""
        cut.append("snippets removed")
    result.truncated = True
    result.budgetNote = (
        f"answer cut to fit {ask(NextStep.MAX_TOKENS)}={max_tokens}: "
        + ", ".join(cut)
        + f"; raise {ask(NextStep.MAX_TOKENS)} or use {ask(NextStep.NODE)} for full source"
    )
    return result
