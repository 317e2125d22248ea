"""Graph expansion: neighbours of the hits along calls, inheritance and imports, scored by seed and distance.

Every neighbour hangs off one stored edge: at distance 1 off a seed, further out off a neighbour one hop nearer
*on the same side* (a callee of a callee, a caller of a caller, a base of a base), which is its ``via``. A caller of
a callee is not a caller of the seed, so such mixed paths are never followed.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import EdgeRow
from igraph_mcp.vocab.edges import CERTAIN
from igraph_mcp.vocab.testcode import is_test_path

EXPAND_KINDS = ("calls", "inherits", "implements", "imports")
DECAY = 0.5  # each hop halves the seed's score
PER_NODE_CAP = 6  # at most this many new neighbours taken from one node, so a hub cannot flood the answer
FIRST_EDGES = 24  # edges read per node and direction at first; all of them only if these do not reach the cap
# Edges toward the definitions a hit relies on are usually more useful than its (possibly many) callers.
_EDGE_PRIORITY = {"inherits": 0, "implements": 0, "calls": 1, "imports": 2}
SIDES = ("callee", "caller")


@dataclass(slots=True)
class Reached:
    """A node reached by expansion, and the one stored edge it hangs off."""

    node_id: int
    score: float
    via: int  # the other end of that edge: the seed at distance 1, else a Reached one hop nearer on the same side
    edge_kind: str
    direction: str  # "callee": via uses it (calls, inherits, imports it); "caller": it uses via
    distance: int
    resolution: str = ""  # how that edge was resolved
    certain: bool = True  # every edge on the way is certain (see vocab.edges.CERTAIN)


def expand(
    db: Database,
    seeds: dict[int, float],
    hops: int,
    *,
    limit: int,
    directions: tuple[str, ...] = SIDES,
    kinds: tuple[str, ...] = EXPAND_KINDS,
    per_node_cap: int = PER_NODE_CAP,
    decay: float = DECAY,
    cut: set[int] | None = None,
    test_cap: int | None = None,
    ranked: Mapping[int, int] | None = None,
) -> list[Reached]:
    """Best-first expansion from ``seeds`` (node id -> score), at most ``limit`` nodes, best first.

    A node ``distance`` hops out along same-side edges scores its seed's score times ``decay ** distance`` (times
    each guessed edge's confidence); each node is listed once, by its best path, and after the node it hangs off,
    so any prefix of the answer holds every ``via`` of its entries. ``decay`` must lie in (0, 1].

    Neighbours left out by ``per_node_cap`` are added to ``cut`` when given, so a caller can say what it omitted.
    ``test_cap`` (None: no cap) bounds the nodes listed from test code; one left out is not expanded either.
    ``ranked`` (node id -> its place in the ranking below the hits): where ``per_node_cap`` leaves a node's
    edges out, those to ranked nodes are kept first, best placed first (a seed's edges are then all read).
    """
    if hops <= 0 or not seeds or limit <= 0:
        return []
    # With `cut` wanted every edge is read (it must name all that was left out); else a few per node first.
    first = None if cut is not None else max(FIRST_EDGES, 2 * per_node_cap + len(seeds))
    search = _Search(_EdgeReader(db, kinds, first), seeds, hops, per_node_cap, decay, cut, dict(ranked or {}))
    ordered = sorted(seeds, key=lambda s: (-seeds[s], s))
    # A seed's ranked neighbour may sit past the first edges read: with a ranking, read all of a seed's.
    search.edges.load([(s, side) for s in ordered for side in directions], every=bool(ranked))
    for s in ordered:
        search.take_from(s, seeds[s], 0, directions, True)
    tests = _TestPaths(db)
    found: list[Reached] = []
    in_tests = 0
    while search.queue and (cut is not None or len(found) < limit):
        r = search.pop()
        if r is None:
            continue
        if test_cap is not None and tests.is_test(r.node_id, search.pending_ids):
            if in_tests >= test_cap:
                continue  # left out, so nothing hangs off it
            in_tests += 1
        found.append(r)
        if r.distance < hops:
            search.room = None if cut is not None else limit - len(found)
            search.take_from(r.node_id, r.score, r.distance, (r.direction,), r.certain)
    return found[:limit]


# (guessed, kind rank, the other end's id, edge id): the order a node's edges on one side are taken in.
_Key = tuple[bool, int, int, int]
_Side = tuple[int, str]  # (node, "callee" or "caller")


def _key(edge: EdgeRow, other: int) -> _Key:
    return (edge.confidence < CERTAIN, _EDGE_PRIORITY.get(edge.kind, 9), other, edge.id)


@dataclass(slots=True)
class _Read:
    """One node's edges on one side, in the order they are taken; ``horizon``: past this key the order is unknown
    (some group was read only in part), None when every edge was read."""

    edges: list[tuple[_Key, int, EdgeRow]]
    horizon: _Key | None


@dataclass(slots=True)
class _EdgeReader:
    """Edges read in batches and kept: a few per node first (``first``), all of a node's when those run out."""

    db: Database
    kinds: tuple[str, ...]
    first: int | None
    read: dict[_Side, _Read] = field(default_factory=dict)

    def load(self, sides: Sequence[_Side], *, every: bool = False) -> None:
        """Read the edges of every (node, side) in ``sides`` not read yet (all of them with ``every``)."""
        per_node = None if every else self.first
        for side in SIDES:
            ids = sorted({n for n, s in sides if s == side and (every or (n, s) not in self.read)})
            if not ids:
                continue
            outgoing = side == "callee"
            if per_node is None:
                rows = edge_store.edges_of(self.db, ids, outgoing=outgoing, kinds=self.kinds)
            else:
                rows = edge_store.first_edges_of(
                    self.db, ids, outgoing=outgoing, kinds=self.kinds, per_node=per_node, certain=CERTAIN
                )
            got: dict[int, list[tuple[_Key, int, EdgeRow]]] = {n: [] for n in ids}
            groups: dict[tuple[int, str, bool], list[_Key]] = {}  # (node, kind, certain) -> keys read
            for e in rows:
                src, dst = (e.source_id, e.target_id) if outgoing else (e.target_id, e.source_id)
                if src is None or dst is None:
                    continue
                key = _key(e, dst)
                got[src].append((key, dst, e))
                groups.setdefault((src, e.kind, e.confidence >= CERTAIN), []).append(key)
            horizon: dict[int, _Key] = {}
            if per_node is not None:
                for (src, _kind, _certain), keys in groups.items():
                    if len(keys) >= per_node:  # the group may hold more: past its last key read, order is unknown
                        last = max(keys)
                        horizon[src] = min(horizon.get(src, last), last)
            for n, edges in got.items():
                edges.sort(key=lambda t: t[0])
                self.read[(n, side)] = _Read(edges, horizon.get(n))

    def of(self, side: _Side) -> _Read:
        """The edges read for ``side`` (load first)."""
        return self.read[side]


# A queued path's heap entry: (-score, distance, node, via, side, edge kind, resolution, certain).
_Queued = tuple[float, int, int, int, str, str, str, bool]
# An edge in the order a node's edges are taken over its sides: a side's key with "callee" before "caller" after
# the kind, so a certain caller still comes before a guessed callee.
_Order = tuple[bool, int, bool, int, int]


def _order(key: _Key, side: str) -> _Order:
    return (key[0], key[1], side != "callee", key[2], key[3])


@dataclass(slots=True)
class _Search:
    """The state of one expansion: queued paths best first, the nodes settled, the edges still to read."""

    edges: _EdgeReader
    seeds: dict[int, float]
    hops: int
    per_node_cap: int
    decay: float
    cut: set[int] | None
    ranked: dict[int, int]  # node -> its place in the ranking below the hits: kept first under the cap
    queue: list[_Queued] = field(default_factory=list)
    best: dict[int, _Queued] = field(default_factory=dict)  # node -> its best queued path
    settled: set[int] = field(default_factory=set)  # listed, or left out for good
    unread: set[_Side] = field(default_factory=set)  # queued sides that may be expanded, edges not read yet
    room: int | None = None  # how many more nodes may be listed (None: all), so at most that many expanded

    def pop(self) -> Reached | None:
        """The best queued path whose node is not settled yet (None when the one on top was settled already)."""
        neg, distance, node, via, side, kind, resolution, certain = heapq.heappop(self.queue)
        if node in self.settled:
            return None
        self.settled.add(node)  # listed now or left out for good: a worse path to it changes nothing
        return Reached(node, -neg, via, kind, side, distance, resolution, certain)

    def pending_ids(self) -> list[int]:
        """Nodes queued and not settled yet."""
        return [q[2] for q in self.queue if q[2] not in self.settled]

    def take_from(self, node: int, score: float, distance: int, sides: tuple[str, ...], certain: bool) -> None:
        """Queue up to ``per_node_cap`` new neighbours of ``node`` on ``sides``, one hop further out."""
        missing = [(node, side) for side in sides if (node, side) not in self.edges.read]
        if missing:
            # Read ahead for the queued nodes that may be expanded next, best first and no more than may still be
            # listed: one batch per hop rather than one read per node.
            live = sorted(
                (self.best[n], (n, side))
                for n, side in self.unread
                if n not in self.settled and self.best[n][4] == side
            )
            ahead = live if self.room is None else live[: self.room]
            self.edges.load([*missing, *(side for _, side in ahead)])
            self.unread = {side for _, side in live[len(ahead) :]}
        picks = self._picks(node, sides)
        if picks is None:  # the edges read ran out before the cap: read all of them and choose again
            self.edges.load([(node, side) for side in sides], every=True)
            picks = self._picks(node, sides)
            assert picks is not None
        for dst, side, edge in picks:
            # A guessed edge passes on only as much of the score as it is likely to be right.
            guessed = edge.confidence < CERTAIN
            s = score * self.decay * (edge.confidence if guessed else 1.0)
            q = (-s, distance + 1, dst, node, side, edge.kind, edge.resolution, certain and not guessed)
            prev = self.best.get(dst)
            if prev is None or q < prev:
                self.best[dst] = q
                heapq.heappush(self.queue, q)
                if distance + 1 < self.hops and (dst, side) not in self.edges.read:
                    self.unread.add((dst, side))

    def _picks(self, node: int, sides: tuple[str, ...]) -> list[tuple[int, str, EdgeRow]] | None:
        """``node``'s edges on ``sides`` as taken: (other end, side, edge), the first edge to each other end, up to
        ``per_node_cap`` ends new to this search; None when the edges read do not decide it."""
        merged: list[tuple[_Order, int, str, EdgeRow]] = []
        horizon: _Order | None = None
        for side in sides:
            read = self.edges.of((node, side))
            merged += [(_order(key, side), dst, side, e) for key, dst, e in read.edges]
            if read.horizon is not None:
                h = _order(read.horizon, side)
                horizon = h if horizon is None else min(horizon, h)
        if self.ranked and horizon is None:
            # Every edge is read, so the order may put the neighbours the question also found first: the cap
            # then keeps a ranked callee over an arbitrary one (the other end's id is source order, not merit).
            far = len(self.ranked)
            merged.sort(key=lambda t: (t[0][0], t[0][1], self.ranked.get(t[1], far), t[0]))
        else:
            merged.sort(key=lambda t: t[0])
        out: list[tuple[int, str, EdgeRow]] = []
        seen: set[int] = set()
        left = self.per_node_cap
        for order, dst, side, edge in merged:
            if horizon is not None and order > horizon:
                return None if left > 0 else out  # unread edges may come first from here on
            if dst == node or dst in self.seeds or dst in self.settled or dst in seen:
                continue
            if left <= 0:
                if self.cut is None:
                    return out
                self.cut.add(dst)
                continue
            seen.add(dst)
            if dst not in self.best:
                left -= 1
            out.append((dst, side, edge))
        return None if horizon is not None and left > 0 else out


@dataclass(slots=True)
class _TestPaths:
    """Whether a node lives in test code, its path read in batches with the other queued nodes'."""

    db: Database
    known: dict[int, bool] = field(default_factory=dict)

    def is_test(self, node: int, queued: Callable[[], list[int]]) -> bool:
        """True when ``node``'s file is test code (the ``queued`` nodes' paths are read with its own)."""
        if node not in self.known:
            ids = {node, *queued()} - self.known.keys()
            rows = node_store.nodes_by_ids(self.db, sorted(ids))
            for i in ids:
                row = rows.get(i)
                self.known[i] = row is not None and is_test_path(row.path)
        return self.known[node]


def prefer_ranked(reached: Sequence[Reached], ranked: Mapping[int, int], limit: int) -> list[Reached]:
    """At most ``limit`` of ``reached`` (best first, each after the node it hangs off): first those the ranking also
    found (``ranked``: node id -> its place below the hits), each with the nodes it hangs off, then the rest in
    order; the order of ``reached`` is kept, so every ``via`` still comes before its node."""
    by_id = {r.node_id: r for r in reached}
    chosen: set[int] = set()

    def take(r: Reached) -> None:
        chain: list[int] = []
        node: Reached | None = r
        while node is not None and node.node_id not in chosen:
            chain.append(node.node_id)
            node = by_id.get(node.via)  # None at a seed
        if len(chosen) + len(chain) <= limit:
            chosen.update(chain)

    for r in sorted((r for r in reached if r.node_id in ranked), key=lambda r: ranked[r.node_id]):
        take(r)
    for r in reached:
        if len(chosen) >= limit:
            break
        take(r)
    return [r for r in reached if r.node_id in chosen]
