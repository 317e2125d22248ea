"""The learned re-ranking step: pure functions over hits, no index needed."""

from __future__ import annotations

import pytest

from igraph_mcp.models import Hit
from igraph_mcp.retrieve import rerank


def _hit(node_id: int, path: str, score: float, kind: str = "function", **ranks: int) -> Hit:
    return Hit(
        nodeId=node_id,
        name=f"f{node_id}",
        qualifiedName=f"f{node_id}",
        kind=kind,
        filePath=path,
        startLine=1,
        endLine=2,
        score=score,
        matchChannel="fts5",
        ranks=dict(ranks) or {"fts5": node_id},
    )


def test_feature_rows_match_the_feature_names() -> None:
    row = rerank.feature_row(
        base_rank=1,
        fts_rank=0,
        dense_rank=3,
        named_rank=0,
        graph_rank=2,
        boosts=["exactNameCaseInsensitive", "testCode"],
        kind="method",
        path_words=5,
        file_candidates=2,
        file_rank=1,
    )
    named = dict(zip(rerank.FEATURES, row, strict=True))
    assert named["fts_logrank"] < named["dense_logrank"] < named["base_logrank"] == 0.0
    assert named["exactName"] == named["testCode"] == named["kind_method"] == named["graph"] == 1.0
    assert named["named"] == named["kind_function"] == 0.0
    assert named["path_words"] == 3.0  # capped


def test_without_weights_the_fused_order_stands() -> None:
    hits = [_hit(1, "a.py", 0.9, "class"), _hit(2, "b.py", 0.5)]
    assert rerank.rerank_hits(hits, ["a.py", "b.py"], {}, weights=()) is hits


def test_learned_weights_reorder_the_top_and_keep_the_rest_below() -> None:
    weights = [0.0] * len(rerank.FEATURES)
    weights[rerank.FEATURES.index("kind_function")] = 2.0  # functions over classes, whatever their fused rank
    hits = [_hit(1, "a.py", 0.9, "class"), _hit(2, "a.py", 0.8, "class"), _hit(3, "b.py", 0.5), _hit(4, "c.py", 0.4)]
    out = rerank.rerank_hits(hits, ["a.py", "b.py", "c.py"], {}, weights=tuple(weights), depth=3)
    assert [h.nodeId for h in out] == [3, 1, 2, 4]
    assert out[0].score == pytest.approx(0.9)  # the best keeps the top score, so files aggregate alike
    assert out[3].score < out[2].score  # below the re-ranked depth, under all of it


def test_feature_rows_follow_the_fused_order_and_the_file_ranking() -> None:
    hits = [_hit(1, "a.py", 0.9, "class"), _hit(2, "a.py", 0.8), _hit(3, "b.py", 0.5)]
    rows = rerank.feature_rows(hits, ["b.py", "a.py"], {"a.py": 2})
    col = {name: [r[i] for r in rows] for i, name in enumerate(rerank.FEATURES)}
    assert col["base_logrank"][0] == 0.0 > col["base_logrank"][1] > col["base_logrank"][2]
    assert col["file_logrank"] == [rerank.neg_log_rank(2), rerank.neg_log_rank(2), 0.0]
    assert col["path_words"] == [2.0, 2.0, 0.0] and col["kind_class"] == [1.0, 0.0, 0.0]


def test_the_added_features_read_the_hit_and_the_query() -> None:
    hits = [
        Hit(
            nodeId=1,
            name="parse_config",
            qualifiedName="Loader.parse_config",
            kind="method",
            filePath="pkg/loader.py",
            startLine=10,
            endLine=29,
            score=1.0,
            matchChannel="dense+fts5",
            ranks={"fts5": 3, "dense": 1, "named": 2},
        ),
        _hit(2, "tests/test_loader.py", 0.5),
        _hit(3, "pkg/loader.py", 0.4),
    ]
    rows = rerank.feature_rows(hits, ["pkg/loader.py", "tests/test_loader.py"], {}, frozenset({"parse", "yaml"}))
    first, test, second = (dict(zip(rerank.FEATURES, r, strict=True)) for r in rows)
    assert first["both_channels"] == 1.0 and test["both_channels"] == 0.0
    assert first["named_logrank"] > 0.0 == first["graph_logrank"]  # rank 2 of the named lookup; no graph rank
    assert first["name_words"] == 0.5  # "parse" of parse / config
    assert first["lines_log"] > test["lines_log"]  # 20 lines against 2
    assert test["non_source"] == 1.0 and first["non_source"] == 0.0
    assert first["file_first"] == 1.0 and second["file_first"] == 0.0


def test_weights_match_the_features() -> None:
    assert len(rerank.WEIGHTS) == len(rerank.FEATURES)
