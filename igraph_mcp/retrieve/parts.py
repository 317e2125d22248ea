"""A channel's hits on parts of long definitions given to the definitions, before fusion.

The index stores the lines of a long definition past its head as parts (index/parts.py), searched by FTS and the
dense channel like any symbol. Here each ranked list is mapped onto definitions: a part counts as its definition at
the part's rank, the best rank of a definition (its own or one of its parts') wins, and the part that gave it is
remembered, so the answer can show where in the definition the match lies. Every later stage sees definitions only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from igraph_mcp.store.records import PartSpan

# Each searched channel is read this many times deeper than it is kept, so that many parts of one definition (all
# folded into one entry) do not leave the kept list short.
PART_OVERFETCH = 2


@dataclass(frozen=True, slots=True)
class PartMatch:
    """The part of a definition that a channel ranked above the definition itself, and where."""

    part_id: int
    rank: int  # from 1, in the channel that found it
    start_line: int
    end_line: int


@dataclass(slots=True)
class PartFolder:
    """Folds ranked lists onto definitions and keeps, per definition, its best-ranked matching part."""

    spans: dict[int, PartSpan] = field(default_factory=dict)  # part id -> its definition and lines
    matches: dict[int, PartMatch] = field(default_factory=dict)

    def fold(self, ranked: Sequence[int], keep: int) -> list[int]:
        """``ranked`` with parts replaced by their definitions, each definition once at its best rank, at most
        ``keep`` of them."""
        out: dict[int, None] = {}
        for rank, nid in enumerate(ranked, 1):
            span = self.spans.get(nid)
            owner = span.owner_id if span is not None else nid
            if owner in out:
                continue
            out[owner] = None
            if span is not None:
                old = self.matches.get(owner)
                if old is None or rank < old.rank:
                    self.matches[owner] = PartMatch(nid, rank, span.start_line, span.end_line)
            if len(out) >= keep:
                break
        return list(out)
