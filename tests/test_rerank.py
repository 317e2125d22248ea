"""The learned re-ranking step and the path-word rarity: pure functions over hits, no index needed."""

from __future__ import annotations

import pytest

from igraph_mcp.models import Hit
from igraph_mcp.retrieve import ranking, rerank
from igraph_mcp.retrieve.analyze import analyze_query


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


def test_without_weights_the_fused_order_stands(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rerank, "WEIGHTS", ())
    hits = [_hit(1, "a.py", 0.9, "class"), _hit(2, "b.py", 0.5)]
    assert rerank.rerank_hits(hits, ["a.py", "b.py"], {}) is hits


def test_learned_weights_reorder_the_top_and_keep_the_rest_below(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = [0.0] * len(rerank.FEATURES)
    weights[rerank.FEATURES.index("kind_function")] = 2.0  # functions over classes, whatever their fused rank
    monkeypatch.setattr(rerank, "WEIGHTS", tuple(weights))
    monkeypatch.setattr(rerank, "RERANK_DEPTH", 3)
    hits = [_hit(1, "a.py", 0.9, "class"), _hit(2, "a.py", 0.8, "class"), _hit(3, "b.py", 0.5), _hit(4, "c.py", 0.4)]
    out = rerank.rerank_hits(hits, ["a.py", "b.py", "c.py"], {})
    assert [h.nodeId for h in out] == [3, 1, 2, 4]
    assert out[0].score == pytest.approx(0.9)  # the best keeps the top score, so files aggregate alike
    assert out[3].score < out[2].score  # below the re-ranked depth, under all of it


def test_path_word_rarity_discounts_a_word_every_path_carries() -> None:
    counts = ranking.PathWordCounts(["django/db/models/query.py", "django/contrib/admin/options.py", "django/http.py"])
    assert counts.rarity({"django"}) == pytest.approx(0.0)
    assert counts.rarity({"admin"}) == pytest.approx(1.0)


def test_rarity_lets_the_rare_path_word_win(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = ["django/db/models/query.py", "django/db/models/base.py", "django/db/models/fields.py"]
    counts = ranking.PathWordCounts([*paths, "django/contrib/admin/options.py"])
    hits = [_hit(1, "django/db/models/query.py", 1.0), _hit(2, "django/contrib/admin/options.py", 0.9)]
    qa = analyze_query("models listed in the admin lose their order")
    monkeypatch.setattr(ranking, "PATH_WORD_RARITY", 0)  # one path word each: the better symbol decides
    assert ranking.rank_files(hits, qa, counts)[0].filePath == "django/db/models/query.py"
    monkeypatch.setattr(ranking, "PATH_WORD_RARITY", 1)  # "models" is in 3 of 4 paths, "admin" in one
    assert ranking.rank_files(hits, qa, counts)[0].filePath == "django/contrib/admin/options.py"
