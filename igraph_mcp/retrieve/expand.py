"""Graph expansion: neighbours of the hits along calls, inheritance and imports, scored by seed and distance."""

from __future__ import annotations

from dataclasses import dataclass

from igraph_mcp.store import graph
from igraph_mcp.store.db import Database

EXPAND_KINDS = ("calls", "inherits", "implements", "imports")
DECAY = 0.5  # each hop halves the seed's score
PER_NODE_CAP = 6  # at most this many neighbours taken from one node per hop, so a hub cannot flood the answer
# Edges toward the definitions a hit relies on are usually more useful than its (possibly many) callers.
_EDGE_PRIORITY = {"inherits": 0, "implements": 0, "calls": 1, "imports": 2}


@dataclass(slots=True)
class Reached:
    """A node reached by expansion."""

    node_id: int
    score: float
    via: int  # the seed (hit) it descends from
    edge_kind: str
    direction: str  # "callee": the seed side uses it; "caller": it uses the seed side
    distance: int


def expand(
    db: Database,
    seeds: dict[int, float],
    hops: int,
    *,
    limit: int,
    directions: tuple[str, ...] = ("callee", "caller"),
    kinds: tuple[str, ...] = EXPAND_KINDS,
) -> list[Reached]:
    """Breadth-first expansion from ``seeds`` (node id -> score), best first, at most ``limit`` nodes."""
    if hops <= 0 or not seeds or limit <= 0:
        return []
    best: dict[int, Reached] = {}
    frontier: dict[int, tuple[int, float]] = {nid: (nid, score) for nid, score in seeds.items()}
    for distance in range(1, hops + 1):
        nxt: dict[int, tuple[int, float]] = {}
        ids = list(frontier)
        candidates: list[tuple[int, int, str, str]] = []  # (from, to, kind, direction)
        if "callee" in directions:
            candidates += [
                (e.source_id, e.target_id, e.kind, "callee")  # type: ignore[misc]
                for e in graph.edges_of(db, ids, outgoing=True, kinds=kinds)
            ]
        if "caller" in directions:
            candidates += [
                (e.target_id, e.source_id, e.kind, "caller")  # type: ignore[misc]
                for e in graph.edges_of(db, ids, outgoing=False, kinds=kinds)
            ]
        candidates.sort(key=lambda c: (_EDGE_PRIORITY.get(c[2], 9), c[3] != "callee", c[1]))
        taken: dict[int, int] = {}
        for src, dst, kind, direction in candidates:
            if dst in seeds or dst == src:
                continue
            if taken.get(src, 0) >= PER_NODE_CAP:
                continue
            seed, seed_score = frontier[src]
            score = seed_score * (DECAY**distance)
            prev = best.get(dst)
            if prev is not None and prev.score >= score:
                continue
            if prev is None:
                taken[src] = taken.get(src, 0) + 1
            best[dst] = Reached(dst, score, seed, kind, direction, distance)
            nxt[dst] = (seed, seeds[seed])
        frontier = nxt
        if not frontier:
            break
    ranked = sorted(best.values(), key=lambda r: (-r.score, r.distance, r.node_id))
    return ranked[:limit]
