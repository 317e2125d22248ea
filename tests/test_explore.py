"""Tests for hybrid explore: channels, fallback, degraded modes, graph expansion, boosts, token budget."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _factories import as_agent, function_hit, make_repo, make_service

from igraph_mcp.config import Config, EmbedderConfig, RetrievalConfig
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import EmbedderError
from igraph_mcp.retrieve.budget import estimate_tokens
from igraph_mcp.retrieve.expand import PER_NODE_CAP
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.store import db as db_mod
from igraph_mcp.store import nodes as node_store

pytestmark = pytest.mark.both_stores

HUB_CALLERS = 30
HUGE_LINES = 3000

FILES = {
    "shop/cart.py": '''
        """Shopping cart."""
        from shop.pricing import compute_total

        class ShoppingCart:
            """Holds items a customer wants to buy."""

            def add_item(self, item):
                self.items.append(item)

            def checkout(self):
                """Pay for everything in the cart."""
                return compute_total(self.items)
        ''',
    "shop/pricing.py": '''
        def compute_total(items):
            """Sum item prices and apply the discount."""
            return apply_discount(sum(i.price for i in items))

        def apply_discount(amount):
            return amount * 0.9
        ''',
    "a/first.py": "def process_item(x):\n    return x\n",
    "b/second.py": "def process_item(x):\n    return x + 1\n",
    "hub/core.py": "def hub_function():\n    return 42\n",
    "hub/callers.py": "from hub.core import hub_function\n\n"
    + "".join(f"def caller_{i}():\n    return hub_function()\n\n" for i in range(HUB_CALLERS)),
    "big/huge.py": 'def enormous_function():\n    """A very long function."""\n'
    + "".join(f"    value_{i} = {i} * 2  # line of a huge body\n" for i in range(HUGE_LINES))
    + "    return 0\n",
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory, store_kind: str) -> Path:
    """FILES indexed once per store, shared by the module's tests."""
    repo = make_repo(tmp_path_factory.mktemp("explore"), FILES)
    make_service(repo).index()
    return repo


@pytest.fixture(scope="module")
def svc(root: Path):  # type: ignore[no-untyped-def]
    service = make_service(root)
    yield service
    service.close()


# -- channels and fusion -------------------------------------------------------------------------------------
def test_hybrid_uses_both_channels(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("compute_total", hops=0)
    assert r.diagnostics.channels == ["fts5", "dense"]
    assert not r.degraded and r.note is None
    top = r.hits[0]
    assert top.name == "compute_total" and top.matchChannel == "dense+fts5"
    assert set(top.ranks) == {"fts5", "dense"} and "exactName" in top.boosts
    assert top.snippet.startswith("def compute_total")
    assert {h.matchChannel for h in r.hits} <= {"dense+fts5", "dense", "fts5"}
    assert r.files[0].filePath == "shop/pricing.py"
    assert r.diagnostics.denseCoverage == pytest.approx(1.0)


def test_single_channel_requests(svc) -> None:  # type: ignore[no-untyped-def]
    fts = svc.explore("compute_total", channels=("fts",), hops=0)
    assert fts.diagnostics.channels == ["fts5"] and not fts.degraded
    assert all(h.matchChannel == "fts5" for h in fts.hits)
    dense = svc.explore("compute_total", channels=("dense",), hops=0)
    assert dense.diagnostics.channels == ["dense"] and all(h.matchChannel == "dense" for h in dense.hits)


@pytest.mark.parametrize(("threshold", "triggered"), [(0.0, False), (1.0, True)])
def test_fallback_threshold_widening(root: Path, threshold: float, triggered: bool) -> None:
    cfg = Config(retrieval=RetrievalConfig(fallbackThreshold=threshold, fileTopK=1))
    service = make_service(root, config=cfg)
    try:
        r = service.explore("discount on the total price", hops=0)
    finally:
        service.close()
    assert r.diagnostics.fallbackTriggered is triggered
    assert "dense" in r.diagnostics.channels and not r.degraded
    dense_files = {h.filePath for h in r.hits if "dense" in h.ranks}
    if not triggered:  # fileTopK=1 and no widening: dense hits all come from one file
        assert len(dense_files) == 1


@pytest.mark.parametrize(("node_top_k", "expected"), [(3, 3), (200, 50)])
def test_node_top_k_sets_the_default_call_and_a_call_never_exceeds_50(
    root: Path, node_top_k: int, expected: int
) -> None:
    # The config allows up to 200 (IGraph's bound); a call returns at most 50, the tool's own bound.
    service = make_service(root, config=Config(retrieval=RetrievalConfig(nodeTopK=node_top_k)))
    try:
        r = service.explore("process item", hops=0, max_tokens=100_000)  # no budget cuts in the count
    finally:
        service.close()
    # The dense channel returns every symbol of this small index (well over 50), so the bound is what limits.
    assert r.diagnostics.candidates["dense"] > 50
    assert len(r.hits) == expected


# -- degraded modes: FTS only, degraded, a note, never an exception ------------------------------------------
class _RaisingEmbedder(HashingEmbedder):
    def embed_query(self, text: str) -> np.ndarray:
        raise EmbedderError("connection refused")


class _WrongDimEmbedder(HashingEmbedder):
    def embed_query(self, text: str) -> np.ndarray:
        return np.ones(self.dimension // 2, dtype=np.float32)


def _assert_degraded(r, note_part: str) -> None:  # type: ignore[no-untyped-def]
    assert r.degraded is True and r.diagnostics.degraded is True
    assert r.diagnostics.channels == ["fts5"]
    assert r.note is not None and note_part in r.note
    assert r.hits and r.hits[0].name == "compute_total"
    assert all(h.matchChannel == "fts5" for h in r.hits)


@pytest.mark.parametrize(
    ("kwargs", "note_part"),
    [
        ({"embedder": None, "config": Config(embedder=EmbedderConfig(backend="none"))}, "none"),
        ({"embedder": _RaisingEmbedder(64)}, "connection refused"),
        ({"embedder": _WrongDimEmbedder(64)}, "dimension 32"),
        ({"embedder": HashingEmbedder(32)}, "embedded with hash:64"),  # D8: never mix models
    ],
    ids=["embedder-none", "embedder-raises", "wrong-dimension", "other-embedder"],
)
def test_degraded_modes(root: Path, kwargs: dict[str, object], note_part: str) -> None:
    service = make_service(root, **kwargs)  # type: ignore[arg-type]
    try:
        r = service.explore("compute_total", hops=0)
    finally:
        service.close()
    _assert_degraded(r, note_part)


def test_degraded_when_no_vectors_yet(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, FILES)
    service = make_service(repo)
    result = service.index(embed=False)
    assert result.embedded == 0
    _assert_degraded(service.explore("compute_total", hops=0), "no vectors yet")


@pytest.mark.sqlite_only  # sqlite-vec is the SQLite file's extension
def test_degraded_when_sqlite_vec_is_unavailable(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_mod, "_load_vec", lambda _con: "sqlite-vec could not be loaded (test); dense off")
    service = make_service(root)
    try:
        _assert_degraded(service.explore("compute_total", hops=0), "sqlite-vec could not be loaded")
        assert any("sqlite-vec" in n for n in service.status().notes)
    finally:
        service.close()


@pytest.mark.sqlite_only
def test_indexing_without_sqlite_vec_still_builds_structure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_mod, "_load_vec", lambda _con: "sqlite-vec could not be loaded (test); dense off")
    service = make_service(make_repo(tmp_path, FILES))
    r = service.index()
    assert r.files > 0 and r.embedded == 0 and r.embedNote and "sqlite-vec" in r.embedNote
    _assert_degraded(service.explore("compute_total", hops=0), "sqlite-vec")


def test_fts_only_request_is_not_degraded_even_without_embedder(root: Path) -> None:
    service = make_service(root, embedder=None, config=Config(embedder=EmbedderConfig(backend="none")))
    try:
        r = service.explore("compute_total", channels=("fts",), hops=0)
    finally:
        service.close()
    assert not r.degraded and r.note is None


# -- graph expansion -----------------------------------------------------------------------------------------
def test_neighbours_have_via_and_edge_kind(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("compute_total", top_k=1, hops=1)
    assert r.hits[0].name == "compute_total"
    by_name = {n.name: n for n in r.neighbours}
    assert by_name["apply_discount"].direction == "callee" and by_name["apply_discount"].edgeKind == "calls"
    assert by_name["checkout"].direction == "caller" and by_name["checkout"].edgeKind == "calls"
    for n in r.neighbours:
        assert n.viaNodeId == r.hits[0].nodeId and n.viaName == "compute_total" and n.distance == 1
        assert n.score < r.hits[0].score


def test_two_hops_reach_further(svc) -> None:  # type: ignore[no-untyped-def]
    one = {n.name for n in svc.explore("apply_discount", top_k=1, hops=1).neighbours}
    two = svc.explore("apply_discount", top_k=1, hops=2).neighbours
    assert "checkout" not in one
    far = {n.name: n for n in two}
    assert far["checkout"].distance == 2 and far["compute_total"].distance == 1


def test_hops_zero_has_no_neighbours(svc) -> None:  # type: ignore[no-untyped-def]
    assert svc.explore("compute_total", hops=0).neighbours == []


def test_hub_is_capped(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("hub_function", top_k=1, hops=1)
    assert r.hits[0].name == "hub_function"
    callers = [n for n in r.neighbours if n.viaName == "hub_function" and n.direction == "caller"]
    assert len(callers) == PER_NODE_CAP < HUB_CALLERS


# -- filters and boosts --------------------------------------------------------------------------------------
def test_kinds_filter(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("shopping cart checkout", kinds=["class"], hops=0)
    assert r.hits and all(h.kind == "class" for h in r.hits)
    assert r.hits[0].name == "ShoppingCart"
    methods = svc.explore("shopping cart checkout", kinds=["method"], hops=0)
    assert methods.hits and all(h.kind == "method" for h in methods.hits)


def test_context_files_boost(svc) -> None:  # type: ignore[no-untyped-def]
    # Two files define process_item; an answer names it once, in the better-placed file (RetrievalParams.unique_names).
    both = svc.explore("process_item", hops=0, channels=("fts",), params=RetrievalParams(unique_names=False))
    pair = [h for h in both.hits if h.name == "process_item"]
    assert len(pair) == 2
    plain = svc.explore("process_item", hops=0, channels=("fts",))
    assert [h.filePath for h in plain.hits if h.name == "process_item"] == [pair[0].filePath]
    loser = pair[1].filePath
    boosted = svc.explore("process_item", hops=0, channels=("fts",), context_files=[loser])
    assert boosted.hits[0].filePath == loser and "contextFile" in boosted.hits[0].boosts
    assert [h.filePath for h in boosted.hits if h.name == "process_item"] == [loser]


def test_validation_errors_are_clear(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.errors import InvalidInput

    with pytest.raises(InvalidInput) as caught:
        svc.explore("x", top_k=0)
    assert "topK" in as_agent(str(caught.value))
    with pytest.raises(InvalidInput, match="hops"):
        svc.explore("x", hops=9)


# -- token budget (O2) ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "max_tokens",
    [
        400,
        800,
        1500,
    ],
)
def test_budget_holds_with_a_huge_function(svc, max_tokens: int) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("enormous_function huge body value line", top_k=10, hops=2, max_tokens=max_tokens)
    assert r.hits and r.hits[0].name == "enormous_function"
    assert estimate_tokens(r.model_dump_json()) <= max_tokens
    assert r.truncated and r.budgetNote and f"maxTokens={max_tokens}" in as_agent(r.budgetNote)


def test_budget_below_the_minimum_is_rejected(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.errors import InvalidInput

    with pytest.raises(InvalidInput, match="maxTokens must be between 400"):
        svc.explore("enormous_function", max_tokens=200)


def test_default_budget_answers_fit_without_cuts_for_small_answers(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("apply_discount", top_k=2, hops=1)
    assert not r.truncated and r.budgetNote is None
    assert estimate_tokens(r.model_dump_json()) <= svc.config.retrieval.maxTokens


def test_huge_function_snippet_is_bounded(svc) -> None:  # type: ignore[no-untyped-def]
    r = svc.explore("enormous_function", top_k=1, hops=0)
    assert r.hits[0].endLine >= HUGE_LINES
    assert len(r.hits[0].snippet) <= 1000


# -- the channel of names the query mentions, its graph neighbours, file evidence ----------------------------
def test_named_channel_finds_a_function_mentioned_deep_in_a_long_issue(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.retrieve.analyze import analyze_query
    from igraph_mcp.retrieve.channels import count_definitions, named_channel

    prose = "The numbers on the receipt are off by a few cents for large orders.\n\n" * 50
    qa = analyze_query("Wrong totals\n\n" + prose + "I think apply_discount rounds too early; process_item is fine.")
    count_definitions(svc.db, qa)
    named = named_channel(svc.db, qa, 10)
    rows = node_store.nodes_by_ids(svc.db, named)
    assert [rows[i].name for i in named] == ["apply_discount", "process_item", "process_item"]  # order of mention


def test_graph_channel_ranks_certain_edges_first(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.retrieve.channels import graph_channel

    (seed,) = [int(r[0]) for r in svc.db.rows("SELECT id FROM nodes WHERE name = 'compute_total'")]
    reached = graph_channel(svc.db, [seed], 10)
    names = [svc.db.scalar("SELECT name FROM nodes WHERE id = ?", (n,)) for n in reached]
    assert set(names) >= {"apply_discount", "checkout"} and "compute_total" not in names


@pytest.mark.parametrize(
    ("path", "words"),
    [
        ("sphinx/ext/autodoc/__init__.py", {"sphinx", "ext", "autodoc"}),
        ("django/db/models/query.py", {"django", "models", "query"}),
        ("src/utils/HttpClient.ts", {"http", "client"}),
        ("README", {"readme"}),
    ],
)
def test_path_words(path: str, words: set[str]) -> None:
    from igraph_mcp.retrieve.ranking import path_words

    assert path_words(path) == words


def test_path_words_lift_a_file_the_query_names_by_its_place() -> None:
    from igraph_mcp.retrieve import ranking
    from igraph_mcp.retrieve.analyze import analyze_query
    from igraph_mcp.retrieve.params import DEFAULT_PARAMS

    hits = [function_hit(1, "pkg/other.py", 1.0), function_hit(2, "pkg/autodoc/members.py", 0.8)]
    qa = analyze_query("autodoc skips inherited members")
    off = DEFAULT_PARAMS.with_value("path_word", 0.0)
    assert [f.filePath for f in ranking.rank_files(hits, qa, params=off)] == ["pkg/other.py", "pkg/autodoc/members.py"]
    assert DEFAULT_PARAMS.path_word > 0
    assert [f.filePath for f in ranking.rank_files(hits, qa)] == ["pkg/autodoc/members.py", "pkg/other.py"]


def test_an_issue_ranks_source_files_above_tests_and_docs() -> None:
    from igraph_mcp.retrieve import ranking
    from igraph_mcp.retrieve.analyze import analyze_query

    hits = [
        function_hit(1, "tests/app/models.py", 1.0),
        function_hit(2, "docs/example.py", 0.9),
        function_hit(3, "pkg/models.py", 0.5),
    ]
    qa = analyze_query("Saving a model in models.py drops the field\nmy test shows it on 2.2 and 3.0 with sqlite")
    order = [f.filePath for f in ranking.rank_files(hits, qa, issue=True)]
    assert order[0] == "pkg/models.py"  # "models.py" alone does not name the test app's models
    # A one-line question keeps the plain aggregate: the tests' file stays first.
    assert next(f.filePath for f in ranking.rank_files(hits, qa)) == "tests/app/models.py"
    # An issue that names the test file by its path keeps it where its symbols put it.
    named = analyze_query("tests/app/models.py fails on save\nthe reproducer in tests/app/models.py shows it")
    assert next(f.filePath for f in ranking.rank_files(hits, named, issue=True)) == "tests/app/models.py"


def test_a_prose_question_weighs_fts_down_but_names_and_issues_do_not(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.retrieve import stages

    params = svc.retrieval_params
    assert params.prose_fts_scale < 1.0

    def fts_weight(text: str) -> float:
        return stages.fusion_weights(stages.analyze(svc.db, text, params), params)["fts5"]

    assert fts_weight("check that a token is still valid") == pytest.approx(params.fts_weight * params.prose_fts_scale)
    assert fts_weight("verify_token") == pytest.approx(params.fts_weight)
    issue = "Token check fails after refresh\n" + "When the session is refreshed the token check rejects it. " * 3
    assert fts_weight(issue) == pytest.approx(params.fts_weight)


def test_an_issue_demotes_tests_unless_it_names_a_test_file_of_the_repository(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path,
        {
            "shop/discount.py": "def apply_discount(amount):\n    return round(amount * 0.9, 2)\n",
            "tests/test_discount.py": "from shop.discount import apply_discount\n\n\n"
            "def test_apply_discount():\n    assert apply_discount(10) == 9\n",
        },
    )
    svc = make_service(repo)
    svc.index()
    body = "apply_discount(10.005) gives 9.0 and my test fails when I run it with pytest.\n" * 2

    def test_boosts(issue: str) -> list[str]:
        hits = svc.explore(issue, top_k=50, hops=0).hits  # make_repo adds filler code: look past the top 10
        return next(h.boosts for h in hits if h.filePath == "tests/test_discount.py")

    # The reporter's own test_repro.py is not the repository's test code: the test is demoted as for any issue.
    assert "testCode" in test_boosts("apply_discount rounds wrongly\n" + body + "See test_repro.py.\n")
    # Naming the repository's test file makes the tests the topic.
    assert "testCode" not in test_boosts("tests/test_discount.py is wrong\n" + body)
    svc.close()


def test_the_named_and_graph_channels_run_for_issues_only(svc) -> None:  # type: ignore[no-untyped-def]
    issue = "Receipt total is wrong\n\nThe receipt total is wrong for every order; compute_total looks suspicious."
    r = svc.explore(issue, hops=0, top_k=10)
    top = r.hits[0]
    assert top.name == "compute_total" and {"named", "fts5"} <= set(top.ranks)
    assert any("graph" in h.ranks for h in r.hits)  # its callers and callees come in through the graph channel
    # A one-line query keeps the hand-set ranking: the channels tuned on issues do not run for it.
    one_line = svc.explore("the receipt total is wrong; compute_total looks suspicious", hops=0, top_k=10)
    assert not any({"named", "graph"} & set(h.ranks) for h in one_line.hits)
    # Without the graph channel and the learned step, nothing reads the named lookup: it does not run either.
    hand = svc.retrieval_params.with_assignments(["graph_weight=0.0", "rerank_weights=()"])
    r = svc.explore(issue, hops=0, top_k=10, params=hand)
    assert not any({"named", "graph"} & set(h.ranks) for h in r.hits) and "named" not in r.diagnostics.candidates


def test_the_learned_step_reorders_issue_shaped_queries_only(svc) -> None:  # type: ignore[no-untyped-def]
    from igraph_mcp.retrieve import rerank

    issue = "Receipt total is wrong\n\nThe receipt total is wrong for every order; compute_total looks suspicious."
    one_line = "the receipt total is wrong; compute_total looks suspicious"
    off = svc.retrieval_params.with_value("rerank_weights", ())
    before = {q: [h.nodeId for h in svc.explore(q, hops=0, top_k=10, params=off).hits] for q in (issue, one_line)}
    weights = [0.0] * len(rerank.FEATURES)
    weights[rerank.FEATURES.index("kind_module")] = 20.0  # an absurd preference, so the effect is unmistakable
    absurd = svc.retrieval_params.with_value("rerank_weights", tuple(weights))
    after = svc.explore(issue, hops=0, top_k=10, params=absurd)
    assert after.hits[0].kind == "module" and [h.nodeId for h in after.hits] != before[issue]
    assert [h.nodeId for h in svc.explore(one_line, hops=0, top_k=10, params=absurd).hits] == before[one_line]


@pytest.mark.parametrize(
    ("text", "shaped"),
    [
        ("Receipt total is wrong\n\nThe total ignores the discount when an order has more than one line.", True),
        ("the receipt total ignores the discount when an order has more than one line", False),
        ("Total wrong\nsee above", False),  # two lines but too few words to be an issue
    ],
)
def test_issue_shaped(text: str, shaped: bool) -> None:
    from igraph_mcp.retrieve.query_parts import is_issue_shaped

    assert is_issue_shaped(text) is shaped
