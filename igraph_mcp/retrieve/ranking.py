"""From fused candidates to ranked hits and files: boosts applied, kinds filtered (pure, no I/O)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from igraph_mcp.models import FileHit, Hit
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.boosts import Candidate, boost
from igraph_mcp.retrieve.fusion import Fused
from igraph_mcp.retrieve.shapes import location
from igraph_mcp.store.graph import NodeRow

FILE_SCORE_DECAY = 0.5  # a file's score: its best symbol plus decaying credit for further ones


def rank_hits(
    fused: Sequence[Fused],
    rows: Mapping[int, NodeRow],
    qa: QueryAnalysis,
    *,
    context_files: Sequence[str] = (),
    kinds: Sequence[str] | None = None,
) -> list[Hit]:
    """Apply boosts to fused candidates and return hits best first (deterministic on ties)."""
    wanted_kinds = set(kinds) if kinds else None
    hits: list[Hit] = []
    for f in fused:
        row = rows.get(f.id)
        if row is None or (wanted_kinds and row.kind not in wanted_kinds):
            continue
        factor, why = boost(Candidate(row.name, row.qualified_name, row.kind, row.path), qa, context_files)
        hits.append(
            Hit(
                **location(row),
                score=f.score * factor,
                matchChannel=f.match_channel(),
                ranks=dict(f.ranks),
                boosts=why,
                docstring=row.docstring[:300],
            )
        )
    hits.sort(key=lambda h: (-h.score, h.nodeId))
    return hits


def rank_files(hits: list[Hit]) -> list[FileHit]:
    """Files ranked by their best symbol plus decaying credit for further ones."""
    scores: dict[str, list[float]] = {}
    for h in hits:
        scores.setdefault(h.filePath, []).append(h.score)
    ranked = []
    for path, vals in scores.items():
        vals.sort(reverse=True)
        ranked.append(FileHit(filePath=path, score=sum(v * FILE_SCORE_DECAY**i for i, v in enumerate(vals[:5]))))
    ranked.sort(key=lambda f: (-f.score, f.filePath))
    return ranked
