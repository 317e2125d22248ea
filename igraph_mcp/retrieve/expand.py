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
FIRST_EDGES = 24  # edges read per node and direction at first; all of them only if these do not reach the cap
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
    hop = _Hop(seeds, best, per_node_cap, decay, cut)
    # With `cut` wanted every edge is read (it must name all that was left out); else a few per node first.
    first = None if cut is not None else max(FIRST_EDGES, 2 * per_node_cap + len(seeds))
    for distance in range(1, hops + 1):
        ids = list(frontier)
        kept = dict(best)
        candidates, horizon = _candidates(db, ids, directions, kinds, first)
        nxt, capped_at = hop.visit(frontier, candidates, distance)
        if any(src not in capped_at or capped_at[src] > key for src, key in horizon.items()):
            # A node used up the edges read for it before its cap: read all of its edges and redo the hop.
            best.clear()
            best.update(kept)
            candidates, _ = _candidates(db, ids, directions, kinds, None)
            nxt, _ = hop.visit(frontier, candidates, distance)
        frontier = nxt
        if not frontier:
            break
    ranked = sorted(best.values(), key=lambda r: (-r.score, r.distance, r.node_id))
    return ranked[:limit]


# (guessed, kind rank, toward a caller, the other end's id, edge id): the order a node's edges are taken in.
_Key = tuple[bool, int, bool, int, int]
_Candidate = tuple[int, int, EdgeRow, str, _Key]  # (from, to, edge, direction, order)


def _key(edge: EdgeRow, direction: str, dst: int) -> _Key:
    return (edge.confidence < CERTAIN, _EDGE_PRIORITY.get(edge.kind, 9), direction != "callee", dst, edge.id)


def _candidates(
    db: Database, ids: list[int], directions: tuple[str, ...], kinds: tuple[str, ...], first: int | None
) -> tuple[list[_Candidate], dict[int, _Key]]:
    """The hop's edges in the order they are taken, and for each node whose edges were not all read, the order
    key of the last one read (past it, that node's order is unknown)."""
    out: list[_Candidate] = []
    horizon: dict[int, _Key] = {}
    for direction in ("callee", "caller"):
        if direction not in directions:
            continue
        outgoing = direction == "callee"
        if first is None:
            edges = graph.edges_of(db, ids, outgoing=outgoing, kinds=kinds)
        else:
            edges = graph.first_edges_of(db, ids, outgoing=outgoing, kinds=kinds, per_node=first, certain=CERTAIN)
        read: dict[tuple[int, str, bool], list[_Key]] = {}  # (node, kind, certain) -> keys of the edges read
        for e in edges:
            src, dst = (e.source_id, e.target_id) if outgoing else (e.target_id, e.source_id)
            if src is None or dst is None:
                continue
            key = _key(e, direction, dst)
            out.append((src, dst, e, direction, key))
            read.setdefault((src, e.kind, e.confidence >= CERTAIN), []).append(key)
        if first is not None:
            for (src, _kind, _certain), keys in read.items():
                if len(keys) >= first:  # the group may hold more: past its last key read, the order is unknown
                    last = max(keys)
                    horizon[src] = min(horizon.get(src, last), last)
    out.sort(key=lambda c: c[4])
    return out, horizon


@dataclass(slots=True)
class _Hop:
    """What every hop shares: the seeds, the best reach so far, the cap and the decay."""

    seeds: dict[int, float]
    best: dict[int, Reached]
    per_node_cap: int
    decay: float
    cut: set[int] | None

    def visit(
        self, frontier: dict[int, tuple[int, float, bool]], candidates: list[_Candidate], distance: int
    ) -> tuple[dict[int, tuple[int, float, bool]], dict[int, _Key]]:
        """Take each node's best edges up to the cap; the next frontier, and the key at which each node hit it."""
        nxt: dict[int, tuple[int, float, bool]] = {}
        taken: dict[int, int] = {}
        capped_at: dict[int, _Key] = {}
        for src, dst, edge, direction, key in candidates:
            if dst in self.seeds or dst == src:
                continue
            if taken.get(src, 0) >= self.per_node_cap:
                if self.cut is not None:
                    self.cut.add(dst)
                continue
            seed, trust, certain_so_far = frontier[src]
            certain = certain_so_far and edge.confidence >= CERTAIN
            # A guessed edge passes on only as much of the seed's score as it is likely to be right.
            trust *= 1.0 if edge.confidence >= CERTAIN else edge.confidence
            score = self.seeds[seed] * (self.decay**distance) * trust
            prev = self.best.get(dst)
            if prev is not None and prev.score >= score:
                continue
            if prev is None:
                taken[src] = taken.get(src, 0) + 1
                if taken[src] >= self.per_node_cap:
                    capped_at[src] = key
            self.best[dst] = Reached(dst, score, seed, edge.kind, direction, distance, edge.resolution, certain)
            nxt[dst] = (seed, trust, certain)
        return nxt, capped_at
