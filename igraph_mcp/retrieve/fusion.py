"""Weighted Reciprocal Rank Fusion: score(d) = sum over channels c of w_c / (rrfK + rank_c(d)), ranks from 1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field


@dataclass(slots=True)
class Fused:
    """One fused candidate with the rank it had in each channel that found it."""

    id: int
    score: float
    ranks: dict[str, int] = field(default_factory=dict)

    def match_channel(self) -> str:
        """'dense+fts5', 'dense' or 'fts5'; a hit only the name or graph channel found says 'named' or 'graph'.

        The extra channels are in ``ranks``; the label stays the documented three for everything the two
        search channels found, so clients that switch on it keep working.
        """
        primary = [c for c in ("dense", "fts5") if c in self.ranks]
        return "+".join(primary or sorted(self.ranks))


def rrf(channels: Mapping[str, Sequence[int]], weights: Mapping[str, float], k: int) -> list[Fused]:
    """Fuse ranked id lists; a channel's weight defaults to 1.0; duplicates within a list keep their best rank."""
    if k < 1:
        raise ValueError("rrfK must be >= 1")
    fused: dict[int, Fused] = {}
    for name, ids in channels.items():
        w = float(weights.get(name, 1.0))
        seen: set[int] = set()
        rank = 0
        for node_id in ids:
            if node_id in seen:
                continue
            seen.add(node_id)
            rank += 1
            entry = fused.setdefault(node_id, Fused(node_id, 0.0))
            entry.ranks[name] = rank
            entry.score += w / (k + rank)
    # Ties broken by best single rank, then id, so results are deterministic.
    return sorted(fused.values(), key=lambda f: (-f.score, min(f.ranks.values()), f.id))
