"""The retrieval stages called one by one, and the parameters object they share."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from _factories import function_hit, make_repo, make_service, open_service

from igraph_mcp.config import RetrievalConfig
from igraph_mcp.errors import InvalidInput
from igraph_mcp.explore_request import MAX_TOKENS_MAX, TOP_K_MAX, ExploreRequest
from igraph_mcp.models import ExploreResult, FileHit
from igraph_mcp.retrieve import folding, ranking, rerank, stages
from igraph_mcp.retrieve.analyze import MAX_QUERY_CHARS
from igraph_mcp.retrieve.boosts import EXACT_NAME, BoostFactors
from igraph_mcp.retrieve.dense_state import DenseState
from igraph_mcp.retrieve.params import DEFAULT_PARAMS, RetrievalParams
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

FILES = {
    "shop/pricing.py": "def compute_total(items):\n    return apply_discount(sum(items))\n\n\n"
    "def apply_discount(amount):\n    return amount * 0.9\n",
    "shop/cart.py": "from shop.pricing import compute_total\n\n\nclass Cart:\n    def checkout(self):\n"
    "        return compute_total(self.items)\n",
    "tests/test_pricing.py": "from shop.pricing import compute_total\n\n\ndef test_compute_total():\n"
    "    assert compute_total([1]) == 0.9\n",
}
ISSUE = "Receipt total is wrong\n\nThe receipt total is wrong for every order; compute_total looks suspicious."


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[IGraphService]:
    service = make_service(make_repo(tmp_path_factory.mktemp("stages"), FILES))
    service.index()
    yield service
    service.close()


# -- parameters ------------------------------------------------------------------------------------------------
def test_defaults_are_the_shipped_configuration() -> None:
    shipped = RetrievalConfig()
    assert RetrievalParams.from_config(shipped) == DEFAULT_PARAMS
    assert (DEFAULT_PARAMS.rrf_k, DEFAULT_PARAMS.file_top_k, DEFAULT_PARAMS.max_tokens) == (
        shipped.rrfK,
        shipped.fileTopK,
        shipped.maxTokens,
    )
    assert DEFAULT_PARAMS.boosts.exact_name == EXACT_NAME


def test_config_keys_reach_the_parameters() -> None:
    params = RetrievalParams.from_config(RetrievalConfig(rrfK=10, ftsWeight=0.5, nodeTopK=20), graph_weight=0.0)
    assert (params.rrf_k, params.fts_weight, params.node_top_k, params.graph_weight) == (10, 0.5, 20, 0.0)


def test_assignments_build_a_new_frozen_object() -> None:
    params = DEFAULT_PARAMS.with_assignments(["graph_weight=1", "boosts.identifier=2.0", "rerank_weights=()"])
    assert params.graph_weight == 1.0 and isinstance(params.graph_weight, float)
    assert params.boosts.identifier == 2.0 and params.rerank_weights == ()
    assert DEFAULT_PARAMS.graph_weight == 0.5 and DEFAULT_PARAMS.rerank_weights  # the default is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        params.graph_weight = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("graph_wieght=1.0", "no field 'graph_wieght'"),
        ("boosts.exact=2.0", "no field 'exact'"),
        ("graph_weight", "name=value"),
        ("graph_weight=high", "Python literal"),
        ("channel_depth=1.5", "takes a int"),
        ("rerank_weights=0.5", "takes a tuple"),
    ],
)
def test_bad_assignments_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DEFAULT_PARAMS.with_assignments([spec])


def test_request_defaults_and_bounds() -> None:
    resolved = ExploreRequest("q").resolved(node_top_k=200, graph_hops=3)
    assert (resolved.top_k, resolved.hops) == (TOP_K_MAX, 3)  # the config may allow more than one call returns
    with pytest.raises(InvalidInput, match="maxTokens"):
        ExploreRequest("q", max_tokens=MAX_TOKENS_MAX + 1).resolved(10, 2)


# -- the stages one by one ---------------------------------------------------------------------------------------
def _by_hand(svc: IGraphService, text: str, params: RetrievalParams, top_k: int = 10) -> list[int]:
    query = stages.analyze(svc.db, text, params)
    lists = stages.search_channels(svc.db, query, svc.dense_state(), params, ("fts", "dense"))
    fused = stages.fuse(lists.ranked, query, params)
    hits = stages.boost(fused, stages.fetch_rows(svc.db, fused), query, params)
    files = stages.rank_files(hits, query, params)
    ranked = stages.rerank_hits(hits, files, query, params)
    if params.modules_after_files:
        ranked = folding.without_modules_after_their_files(ranked, lists.parts)
    return [h.nodeId for h in ranked[:top_k]]


@pytest.mark.parametrize("text", [ISSUE, "apply the discount to a total", "compute_total"])
@pytest.mark.parametrize("assignments", [(), ("graph_weight=0.0", "rerank_weights=()"), ("boosts.identifier=1.0",)])
def test_the_stages_called_one_by_one_give_the_services_answer(
    svc: IGraphService, text: str, assignments: tuple[str, ...]
) -> None:
    params = svc.retrieval_params.with_assignments(assignments)
    answer = svc.explore(text, hops=0, top_k=10, params=params)
    assert answer.hits and [h.nodeId for h in answer.hits] == _by_hand(svc, text, params)


@pytest.mark.parametrize("text", ["apply the\x00 discount\x1b to a total", "compute_total " * (MAX_QUERY_CHARS // 10)])
def test_the_early_embedding_reads_the_analysed_text(
    svc: IGraphService, text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedded: list[list[str]] = []
    real = stages._timed_embedding

    def spy(dense: DenseState, texts: list[str], dim: int) -> tuple[list[bytes], str | None, float]:
        embedded.append(texts)
        return real(dense, texts, dim)

    monkeypatch.setattr(stages, "_timed_embedding", spy)
    svc.explore(text, hops=0)
    analysed = stages.analyze(svc.db, text, svc.retrieval_params).analysis.text
    assert embedded == [stages.query_texts(analysed, svc.retrieval_params, svc.retrieval_params.dense_parts)]
    assert "\x00" not in embedded[0][0]
    assert len(analysed) <= MAX_QUERY_CHARS


def test_the_graph_channel_and_the_learned_step_run_for_issues_only(svc: IGraphService) -> None:
    params = svc.retrieval_params
    issue = stages.analyze(svc.db, ISSUE, params)
    lists = stages.search_channels(svc.db, issue, svc.dense_state(), params, ("fts",))
    assert issue.issue and {"fts5", "named", "graph"} <= set(lists.ranked) and stages.learned(issue, params)
    line = stages.analyze(svc.db, "compute_total looks suspicious", params)
    assert set(stages.search_channels(svc.db, line, svc.dense_state(), params, ("fts",)).ranked) == {"fts5"}
    assert not stages.learned(line, params)
    hand = params.with_assignments(["graph_weight=0.0", "rerank_weights=()"])
    assert set(stages.search_channels(svc.db, issue, svc.dense_state(), hand, ("fts",)).ranked) == {"fts5"}


def test_fusion_weights_follow_the_query_shape(svc: IGraphService) -> None:
    params = DEFAULT_PARAMS.with_assignments(["fts_weight=2.0", "graph_weight=0.25", "linked_weight=0.75"])
    prose = stages.fusion_weights(stages.analyze(svc.db, "apply the discount to a total", params), params)
    assert prose == {"fts5": 2.0 * params.prose_fts_scale, "dense": 1.0, "named": 0.0, "graph": 0.25, "linked": 0.75}
    assert stages.fusion_weights(stages.analyze(svc.db, "apply_discount", params), params)["fts5"] == 2.0


def test_an_issue_demotes_the_test_file_in_the_file_stage(svc: IGraphService) -> None:
    query = stages.analyze(svc.db, ISSUE, DEFAULT_PARAMS)
    lists = stages.search_channels(svc.db, query, svc.dense_state(), DEFAULT_PARAMS, ("fts",))
    fused = stages.fuse(lists.ranked, query, DEFAULT_PARAMS)
    hits = stages.boost(fused, stages.fetch_rows(svc.db, fused), query, DEFAULT_PARAMS)

    def scores(params: RetrievalParams) -> dict[str, float]:
        return {f.filePath: f.score for f in stages.rank_files(hits, query, params).files}

    shipped, flat = scores(DEFAULT_PARAMS), scores(DEFAULT_PARAMS.with_value("issue_non_source", 1.0))
    assert shipped["tests/test_pricing.py"] == pytest.approx(
        DEFAULT_PARAMS.issue_non_source * flat["tests/test_pricing.py"]
    )
    assert shipped["shop/pricing.py"] == flat["shop/pricing.py"]


def test_files_are_ranked_again_from_the_reranked_hits_only_when_asked(svc: IGraphService) -> None:
    weights = [0.0] * len(rerank.FEATURES)
    weights[rerank.FEATURES.index("non_source")] = 5.0  # lifts the test file's symbols above all others
    params = DEFAULT_PARAMS.with_assignments([f"rerank_weights={tuple(weights)}", "issue_non_source=1.0"])
    query = stages.analyze(svc.db, ISSUE, params)
    lists = stages.search_channels(svc.db, query, svc.dense_state(), params, ("fts",))
    fused = stages.fuse(lists.ranked, query, params)
    hits = stages.boost(fused, stages.fetch_rows(svc.db, fused), query, params)
    files = stages.rank_files(hits, query, params)
    reranked = stages.rerank_hits(hits, files, query, params)
    assert reranked[0].filePath == "tests/test_pricing.py"
    assert stages.refile(reranked, files, query, params) is files  # off by default: the hand-set file order
    again = stages.refile(reranked, files, query, params.with_value("rerank_files", True))
    assert files.files[0].filePath == "shop/pricing.py" and again.files[0].filePath == "tests/test_pricing.py"
    line = stages.analyze(svc.db, "compute_total looks suspicious", params)
    assert stages.refile(reranked, files, line, params.with_value("rerank_files", True)) is files  # issues only


def test_files_are_ranked_again_for_the_languages_that_measured_better(svc: IGraphService) -> None:
    params = DEFAULT_PARAMS
    query = stages.analyze(svc.db, ISSUE, params)
    lists = stages.search_channels(svc.db, query, svc.dense_state(), params, ("fts",))
    fused = stages.fuse(lists.ranked, query, params)
    hits = stages.boost(fused, stages.fetch_rows(svc.db, fused), query, params)
    python = stages.rank_files(hits, query, params)
    reranked = stages.rerank_hits(hits, python, query, params)
    assert stages.refile(reranked, python, query, params) is python
    java = stages.RankedFiles(
        [FileHit(filePath=p, score=1.0) for p in ("core/Main.java", "core/Step.java", "build.py")], {}
    )
    assert stages.answer_language(java.files) == "java" and "java" in params.rerank_files_languages
    # These hits are Python's (pricing.py...): a Python issue keeps its files whatever its top files are written in.
    assert stages.hits_language(reranked) == "python" and stages.refile(reranked, java, query, params) is java
    unskipped = params.with_value("rerank_files_skip", ())
    assert stages.refile(reranked, java, query, unskipped) is not java
    assert stages.refile(reranked, java, query, unskipped.with_value("rerank_files_languages", ())) is java
    javascript = stages.RankedFiles([FileHit(filePath=p, score=1.0) for p in ("lib/a.js", "src/b.mjs", "c.py")], {})
    assert stages.answer_language(javascript.files) == "javascript"
    assert stages.refile(reranked, javascript, query, unskipped) is not javascript
    assert stages.refile(reranked, javascript, query, params) is javascript
    line = stages.analyze(svc.db, "compute_total looks suspicious", params)
    assert stages.refile(reranked, java, line, unskipped) is java  # issues only
    tie = [FileHit(filePath="a.ts", score=2.0), FileHit(filePath="b.py", score=1.0)]
    assert stages.answer_language(tie) == "typescript" and stages.answer_language([]) is None


def test_expand_and_answer_stages(svc: IGraphService) -> None:
    params = DEFAULT_PARAMS.with_assignments(["snippet_hits=1", "neighbour_limit=1"])
    answer = svc.explore("compute_total", hops=1, params=params)
    assert [bool(h.snippet) for h in answer.hits[:2]] == [True, False]
    assert len(answer.neighbours) == 1
    assert answer.diagnostics.timingsMs.keys() >= {"fts", "fuse", "expand", "total"}


def test_the_analyze_channel_and_answer_bounds_are_parameters(svc: IGraphService) -> None:
    assert stages.analyze(svc.db, ISSUE, DEFAULT_PARAMS).issue
    assert not stages.analyze(svc.db, ISSUE, DEFAULT_PARAMS.with_value("issue_min_lines", 3)).issue
    query = stages.analyze(svc.db, ISSUE, DEFAULT_PARAMS)
    found = {nid for nid, _ in stages.fts(svc.db, query.analysis, DEFAULT_PARAMS)}
    fewer = {nid for nid, _ in stages.fts(svc.db, query.analysis, DEFAULT_PARAMS.with_value("fts_max_tokens", 1))}
    assert fewer < found
    named = stages.search_channels(svc.db, query, svc.dense_state(), DEFAULT_PARAMS, ("fts",)).ranked["named"]
    unnamed = DEFAULT_PARAMS.with_value("max_named", 0)
    assert named and stages.search_channels(svc.db, query, svc.dense_state(), unnamed, ("fts",)).ranked["named"] == []
    shipped = svc.explore("compute_total", hops=0, params=DEFAULT_PARAMS)
    short = svc.explore("compute_total", hops=0, params=DEFAULT_PARAMS.with_value("snippet_lines", 1))
    assert (
        shipped.hits[0].snippet.count("\n") >= 1
        and short.hits[0].snippet == shipped.hits[0].snippet.split("\n")[0] + "\n…"
    )


ADAPTERS = {
    "adapter/bun/serve.ts": "export function serveStatic(options?: Options) {\n  return bunFile(options)\n}\n",
    "adapter/deno/serve.ts": "export function serveStatic(options?: Options) {\n  return denoFile(options)\n}\n",
    "adapter/node/serve.ts": "export function serveStatic(options?: Options) {\n  return nodeFile(options)\n}\n",
    "core/options.ts": "export function optionalOptions(options?: Options) {\n  return options ?? {}\n}\n"
    "export function adapterName(adapter: string) {\n  return adapter\n}\n",
}


def _adapter_answers(
    tmp_path: Path, files: dict[str, str], name: str, params: list[RetrievalParams]
) -> tuple[set[str], list[ExploreResult]]:
    """The adapter files of ``files``, and the answers to "make options optional in all adapters" under each of
    ``params``."""
    service = make_service(make_repo(tmp_path, files, filler=False))
    service.index()
    try:
        issue = f"{name}: make options optional in all adapters\n\n{name}(options) fails without options."
        answers = [service.explore(issue, top_k=10, hops=0, params=p) for p in params]
    finally:
        service.close()
    return {p for p in files if p.startswith("adapter/")}, answers


def test_the_file_ranking_counts_a_name_each_file_repeats(tmp_path: Path) -> None:
    on, off = (DEFAULT_PARAMS.with_value("files_count_repeats", v) for v in (True, False))
    adapters, (counted, thinned) = _adapter_answers(tmp_path, ADAPTERS, "serveStatic", [on, off])
    assert {f.filePath for f in counted.files[:3]} == adapters
    # The hits still hold each qualified name once.
    assert [h.name for h in counted.hits].count("serveStatic") == 1
    assert {f.filePath for f in thinned.files[:3]} != adapters


PY_ADAPTERS = {
    "adapter/bun/serve.py": "def serve_static(options=None):\n    return bun_file(options)\n",
    "adapter/deno/serve.py": "def serve_static(options=None):\n    return deno_file(options)\n",
    "adapter/node/serve.py": "def serve_static(options=None):\n    return node_file(options)\n",
    "core/options.py": "def optional_options(options=None):\n    return options or {}\n\n\n"
    "def adapter_name(adapter):\n    return adapter\n",
}


def test_repeated_names_do_not_count_where_the_top_files_are_of_a_skipped_language(tmp_path: Path) -> None:
    assert DEFAULT_PARAMS.files_count_repeats and "python" in DEFAULT_PARAMS.files_count_repeats_skip
    counting = DEFAULT_PARAMS.with_value("files_count_repeats_skip", ())
    adapters, (shipped, counted) = _adapter_answers(tmp_path, PY_ADAPTERS, "serve_static", [DEFAULT_PARAMS, counting])
    assert {f.filePath for f in shipped.files[:3]} != adapters
    assert {f.filePath for f in counted.files[:3]} == adapters


def test_the_ranking_doc_lists_every_parameter() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "ranking.md").read_text(encoding="utf-8")
    fields = [f.name for f in dataclasses.fields(RetrievalParams)]
    fields += [f.name for f in dataclasses.fields(BoostFactors)]
    assert [name for name in fields if f"`{name}`" not in doc] == []


def test_files_ranked_again_from_reranked_hits_count_repeated_names(tmp_path: Path) -> None:
    # A learned step that lifts the one hit keeping `serveStatic` must not drop the adapters that repeat it.
    files = {**ADAPTERS, "core/options.ts": ADAPTERS["core/options.ts"] + OPTIONS_HELPER}
    service = make_service(make_repo(tmp_path, files, filler=False))
    service.index()
    issue = (
        "serveStatic: make options optional in all adapters\n\n"
        "Calling serveStatic() without options throws in every adapter; the options should be optional there."
    )
    try:
        params = DEFAULT_PARAMS
        query = stages.analyze(service.db, issue, params)
        lists = stages.search_channels(service.db, query, service.dense_state(), params, ("fts", "dense"))
        fused = stages.fuse(lists.ranked, query, params)
        rows = stages.fetch_rows(service.db, fused)
        folded = stages.fold(service.db, stages.boost(fused, rows, query, params), rows, query, params, unique=False)
        hits = folding.unique_names(folded)
        candidates = stages.file_candidates(folded, hits, params)
        ranked = stages.rank_files(candidates, query, params)
        repeats = ranking.repeats_of(candidates, hits)
        assert [r.hit.name for r in repeats] == ["serveStatic", "serveStatic"]
        reranked = stages.rerank_hits(hits, ranked, query, params)
        assert stages.answer_language(ranked.files) == "typescript" and stages.learned(query, params)
        adapters = {p for p in files if p.startswith("adapter/")}
        without = stages.refile(reranked, ranked, query, params)
        assert {f.filePath for f in without.files[:3]} != adapters
        again = stages.refile(reranked, ranked, query, params, repeats)
        assert {f.filePath for f in again.files[:3]} == adapters
        answer = service.explore(issue, top_k=10, hops=0)
        assert [f.filePath for f in answer.files] == [f.filePath for f in again.files]
        assert [h.name for h in answer.hits].count("serveStatic") == 1
    finally:
        service.close()


OPTIONS_HELPER = "export function adapterOptions(adapter: string, options?: Options) {\n  return options\n}\n"


def test_a_repeat_is_scored_at_its_share_of_the_hit_keeping_its_name() -> None:
    kept, other = function_hit(1, "a.ts", 0.4, "serve"), function_hit(2, "b.ts", 0.3, "helper")
    candidates = [kept, other, function_hit(3, "c.ts", 0.2, "serve"), function_hit(4, "d.ts", 0.1, "alone")]
    repeats = ranking.repeats_of(candidates, [kept, other])
    assert [(r.hit.nodeId, r.kept_id, r.share) for r in repeats] == [(3, 1, 0.5)]
    rescored = [kept.model_copy(update={"score": 0.8}), other]
    assert [(h.filePath, h.score) for h in ranking.with_repeats(rescored, repeats)] == [
        ("a.ts", 0.8),
        ("b.ts", 0.3),
        ("c.ts", 0.4),
    ]
    assert ranking.with_repeats([other], repeats) == [other]  # the keeping hit is gone: no repeat of it


def test_a_language_can_weigh_the_fts_channel_its_own_way(tmp_path: Path) -> None:
    # Two C functions, one found only by FTS (rank 1), the other only by the dense channel (rank 1): equal weights
    # tie them; a C weight above 1 puts FTS's first, one below 1 the dense channel's; another language's, neither.
    root = make_repo(
        tmp_path,
        {
            "src/buffer.c": "int buffer_grow(int n) {\n  return n * 2;\n}\n",
            "src/parser.c": "int parse_token(int c) {\n  return c + 1;\n}\n",
        },
    )
    with open_service(root, index=True) as svc:
        ids = [node_store.nodes_named(svc.db, name)[0].id for name in ("buffer_grow", "parse_token")]
        ranked = {"fts5": [ids[0]], "dense": [ids[1]]}
        issue = (
            "Buffer grows too late\n\nWhen a token is parsed the buffer is not grown before the write, so it overruns."
        )
        query = stages.analyze(svc.db, issue, DEFAULT_PARAMS)
        assert query.issue  # equal weights: a prose question would halve the FTS weight
        fused = stages.fuse(ranked, query, DEFAULT_PARAMS)
        rows = stages.fetch_rows(svc.db, fused)
    assert fused[0].score == fused[1].score

    def order(weights: tuple[tuple[str, float], ...]) -> list[int]:
        params = DEFAULT_PARAMS.with_value("language_fts_weight", weights)
        return [f.id for f in stages.fuse_for_language(fused, rows, ranked, query, params)]

    assert order((("c", 1.5),)) == ids
    assert order((("c", 0.5),)) == ids[::-1]
    params = DEFAULT_PARAMS.with_value("language_fts_weight", (("go", 3.0),))
    assert stages.fuse_for_language(fused, rows, ranked, query, params) is fused


def test_a_words_other_inflection_reaches_the_fts_channel(svc: IGraphService) -> None:
    # "discounts" is nowhere in the index; `apply_discount` holds "discount", its singular.
    query = stages.analyze(svc.db, "where are discounts", DEFAULT_PARAMS)
    found = dict.fromkeys(nid for nid, _ in stages.fts(svc.db, query.analysis, DEFAULT_PARAMS))
    forms = DEFAULT_PARAMS.with_value("fts_word_forms", 1)
    with_forms = [nid for nid, _ in stages.fts(svc.db, query.analysis, forms)]
    names = {row.name for row in node_store.nodes_by_ids(svc.db, with_forms).values()}
    assert not found and "apply_discount" in names


def test_a_question_reaches_other_inflections_and_an_issue_does_not(svc: IGraphService) -> None:
    def fts_names(text: str, params: RetrievalParams = DEFAULT_PARAMS) -> set[str]:
        query = stages.analyze(svc.db, text, params)
        ids = stages.search_channels(svc.db, query, svc.dense_state(), params, ("fts",)).ranked["fts5"]
        return {row.name for row in node_store.nodes_by_ids(svc.db, ids).values()}

    # "discounts" is nowhere in the index; `apply_discount` holds "discount", its singular.
    assert "apply_discount" in fts_names("where are discounts")
    assert fts_names("where are discounts", DEFAULT_PARAMS.with_value("question_word_forms", 0)) == set()
    issue = "Discounts are wrong\n\nThe totals ignore discounts when an order has several lines, so customers pay more."
    assert stages.analyze(svc.db, issue, DEFAULT_PARAMS).issue
    assert "apply_discount" not in fts_names(issue)  # issues keep fts_word_forms (0: none)
