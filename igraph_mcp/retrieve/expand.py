"""Graph expansion: neighbours of the hits along calls, inheritance and imports, scored by seed and distance."""

from __future__ import annotations

from dataclasses import dataclass

from igraph_mcp.store import graph
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import EdgeRow
from igraph_mcp.vocab.edges import CERTAIN

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
    resolution: str = ""  # how the last edge on the way was resolved
    certain: bool = True  # every edge on the way is certain (see vocab.edges.CERTAIN)


def expand(
    db: Database,
    seeds: dict[int, float],
    hops: int,
    *,
    limit: int,
    directions: tuple[str, ...] = ("callee", "caller"),
    kinds: tuple[str, ...] = EXPAND_KINDS,
    per_node_cap: int = PER_NODE_CAP,
    decay: float = DECAY,
    cut: set[int] | None = None,
) -> list[Reached]:
    """Breadth-first expansion from ``seeds`` (node id -> score), best first, at most ``limit`` nodes; a node
    ``distance`` hops away scores its seed's score times ``decay ** distance`` (times a guessed edge's confidence).

    Neighbours left out by ``per_node_cap`` are added to ``cut`` when given, so a caller can say what it omitted.
    """
    if hops <= 0 or not seeds or limit <= 0:
        return []
    best: dict[int, Reached] = {}
    # node -> (seed, product of the confidences of the guessed edges on the way, every edge so far certain)
    frontier: dict[int, tuple[int, float, bool]] = {nid: (nid, 1.0, True) for nid in seeds}
    for distance in range(1, hops + 1):
        nxt: dict[int, tuple[int, float, bool]] = {}
        ids = list(frontier)
        candidates: list[tuple[int, int, EdgeRow, str]] = []  # (from, to, edge, direction)
        if "callee" in directions:
            candidates += [
                (e.source_id, e.target_id, e, "callee")  # type: ignore[misc]
                for e in graph.edges_of(db, ids, outgoing=True, kinds=kinds)
            ]
        if "caller" in directions:
            candidates += [
                (e.target_id, e.source_id, e, "caller")  # type: ignore[misc]
                for e in graph.edges_of(db, ids, outgoing=False, kinds=kinds)
            ]
        # Certain edges first, so the per-node cap is spent on them before any name-only guess.
        candidates.sort(
            key=lambda c: (c[2].confidence < CERTAIN, _EDGE_PRIORITY.get(c[2].kind, 9), c[3] != "callee", c[1])
        )
        taken: dict[int, int] = {}
        for src, dst, edge, direction in candidates:
            if dst in seeds or dst == src:
                continue
            if taken.get(src, 0) >= per_node_cap:
                if cut is not None:
                    cut.add(dst)
                continue
            seed, trust, certain_so_far = frontier[src]
            certain = certain_so_far and edge.confidence >= CERTAIN
            # A guessed edge passes on only as much of the seed's score as it is likely to be right.
            trust *= 1.0 if edge.confidence >= CERTAIN else edge.confidence
            score = seeds[seed] * (decay**distance) * trust
            prev = best.get(dst)
            if prev is not None and prev.score >= score:
                continue
            if prev is None:
                taken[src] = taken.get(src, 0) + 1
            best[dst] = Reached(dst, score, seed, edge.kind, direction, distance, edge.resolution, certain)
            nxt[dst] = (seed, trust, certain)
        frontier = nxt
        if not frontier:
            break
    ranked = sorted(best.values(), key=lambda r: (-r.score, r.distance, r.node_id))
    return ranked[:limit]
