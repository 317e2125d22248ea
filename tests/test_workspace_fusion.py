"""Fusing several repositories' answers keeps every neighbour's path whole (workspace_fusion.fuse_answers)."""

from __future__ import annotations

from igraph_mcp.models import ExploreResult, Hit, Neighbour
from igraph_mcp.workspace_fusion import fuse_answers, label_explore


def _hit(node_id: int, score: float) -> Hit:
    return Hit(
        nodeId=node_id,
        name=f"h{node_id}",
        qualifiedName=f"h{node_id}",
        kind="function",
        filePath="a.py",
        startLine=1,
        endLine=2,
        score=score,
        matchChannel="fts5",
    )


def _neighbour(node_id: int, via: int, distance: int, score: float) -> Neighbour:
    return Neighbour(
        nodeId=node_id,
        name=f"n{node_id}",
        qualifiedName=f"n{node_id}",
        kind="function",
        filePath="b.py",
        startLine=1,
        endLine=2,
        score=score,
        viaNodeId=via,
        viaName=f"n{via}",
        edgeKind="calls",
        direction="callee",
        distance=distance,
    )


def _answer(repo: str, hits: list[Hit], neighbours: list[Neighbour]) -> tuple[str, ExploreResult]:
    return repo, label_explore(ExploreResult(query="q", hits=hits, neighbours=neighbours), repo)


def test_a_path_is_kept_only_from_a_kept_hit_and_whole() -> None:
    # api: hit 1 -> 11 -> 12 (d1, d2); web: hit 2 (weak, dropped by top_k) -> 21 -> 22, node ids shared by chance.
    api = _answer("api", [_hit(1, 0.9)], [_neighbour(11, 1, 1, 0.45), _neighbour(12, 11, 2, 0.22)])
    web = _answer("web", [_hit(2, 0.1)], [_neighbour(21, 2, 1, 0.05), _neighbour(11, 21, 2, 0.02)])
    fused = fuse_answers([api, web], top_k=1, max_tokens=100_000, snippet_hits=1, neighbour_limit=10)
    assert [(n.repo, n.nodeId, n.viaNodeId) for n in fused.neighbours] == [("api", 11, 1), ("api", 12, 11)]


def test_the_limit_never_keeps_an_entry_without_the_one_it_hangs_off() -> None:
    api = _answer(
        "api",
        [_hit(1, 0.9), _hit(2, 0.8)],
        [_neighbour(11, 1, 1, 0.45), _neighbour(21, 2, 1, 0.4), _neighbour(12, 11, 2, 0.22)],
    )
    fused = fuse_answers([api], top_k=2, max_tokens=100_000, snippet_hits=1, neighbour_limit=2)
    assert [n.nodeId for n in fused.neighbours] == [11, 21]
