"""Resources in an explore answer: linked via code (a) plus the independent channel (b), deduped, capped."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from _factories import FILLER, make_service, open_service, write_file

from igraph_mcp.config import Config, RetrievalConfig
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.embed.registry import make_embedder
from igraph_mcp.models import ExploreResult
from igraph_mcp.retrieve.analyze import analyze_query
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store

pytestmark = pytest.mark.both_stores

FIXTURE = Path(__file__).parent / "fixtures" / "orders_repo"
ORDERS_COLUMNS = {"id", "customer_id", "status", "total_cents", "currency", "created_at"}
IMPLEMENTED = "export orders to CSV"
UNIMPLEMENTED = "customers asking for their money back on a delivered order"


@contextmanager
def orders_service(tmp_path: Path, embedder: Embedder | None, resource_top_k: int = 3) -> Iterator[IGraphService]:
    """The orders fixture with its PRD and schema mounted, indexed with ``embedder``; closed when the block ends."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    for rel, text in FILLER.items():
        write_file(root, rel, text)
    cfg = Config(retrieval=RetrievalConfig(resourceTopK=resource_top_k))
    svc = make_service(root, embedder=embedder, config=cfg, embed=embedder is not None)
    try:
        svc.index()
        svc.mount("docs/PRD.md")
        svc.mount("db/schema.sql", source_type="db")
        yield svc
    finally:
        svc.close()


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, store_kind: str) -> Iterator[IGraphService]:
    """The mounted orders fixture, built once per store: its tests only read it."""
    with orders_service(tmp_path_factory.mktemp("orders"), HashingEmbedder(64)) as service:
        yield service


def by_title(result: ExploreResult) -> dict[str, object]:
    return {r.title: r for r in result.resources}


def assert_well_formed(result: ExploreResult, top_k: int) -> None:
    """No resource twice, at most resourceTopK direct ones, best first, every one saying why it is there."""
    ids = [r.resourceId for r in result.resources]
    assert len(ids) == len(set(ids))
    assert sum(r.reason == "direct" for r in result.resources) <= top_k
    scores = [r.score for r in result.resources]
    assert scores == sorted(scores, reverse=True)
    for r in result.resources:
        assert r.reason in ("linked", "direct")
        assert bool(r.linkedVia) == (r.reason == "linked")


def check_acceptance(svc: IGraphService) -> None:
    """The issue's done-when: code + PRD section + table with real columns; the unbuilt feature's section."""
    found = svc.explore(IMPLEMENTED)
    assert "export_orders_csv" in [h.name for h in found.hits]
    res = by_title(found)
    assert "Orders CSV export" in res, list(res)
    table = res.get("orders")
    assert table is not None, list(res)
    assert {c["name"] for c in table.columns} == ORDERS_COLUMNS  # type: ignore[attr-defined]
    assert_well_formed(found, svc.config.retrieval.resourceTopK)

    unbuilt = svc.explore(UNIMPLEMENTED)
    assert "Refund requests" in by_title(unbuilt), list(by_title(unbuilt))
    assert_well_formed(unbuilt, svc.config.retrieval.resourceTopK)


def test_acceptance_with_hashing_embedder(svc: IGraphService) -> None:
    check_acceptance(svc)
    res = by_title(svc.explore(IMPLEMENTED))
    section = res["Orders CSV export"]
    assert section.reason == "linked" and any("export_orders_csv" in v for v in section.linkedVia)  # type: ignore[attr-defined]
    assert res["orders"].reason == "linked"  # type: ignore[attr-defined]


def test_unimplemented_feature_comes_from_the_independent_channel(svc: IGraphService) -> None:
    res = by_title(svc.explore(UNIMPLEMENTED))["Refund requests"]
    assert res.reason == "direct" and res.linkedVia == [] and "30 days" in res.text  # type: ignore[attr-defined]


@pytest.mark.parametrize("top_k", [0, 1, 2])
def test_independent_channel_never_exceeds_resource_top_k(tmp_path: Path, top_k: int) -> None:
    with orders_service(tmp_path, HashingEmbedder(64), resource_top_k=top_k) as svc:
        for query in (IMPLEMENTED, UNIMPLEMENTED, "orders customers refunds loyalty export schema table"):
            out = svc.explore(query)
            assert_well_formed(out, top_k)
            # The mounts hold more candidates than the cap, so the cap is what stops the channel: exactly top_k.
            assert sum(r.reason == "direct" for r in out.resources) == top_k, [
                (r.title, r.reason) for r in out.resources
            ]


def test_scores_share_one_scale(svc: IGraphService) -> None:
    cfg = svc.config.retrieval
    out = svc.explore(IMPLEMENTED)
    ceiling = (1.0 + cfg.denseWeight + cfg.ftsWeight) / (cfg.rrfK + 1)
    assert out.resources and all(0 < r.score <= ceiling for r in out.resources)
    linked = [r.score for r in out.resources if r.reason == "linked"]
    direct = [r.score for r in out.resources if r.reason == "direct"]
    assert linked and direct and max(direct) < max(linked) * 2  # same RRF formula on both sides


def test_weak_links_need_query_support(svc: IGraphService) -> None:
    [run_export] = node_store.nodes_named(svc.db, "run_export")
    finder = svc.resource_finder
    assert finder is not None
    # run_export only *mentions* export_orders_csv (a weak link): it is not enough on its own ...
    hits, _ = finder(analyze_query("colour palette"), None, [run_export.id])
    assert "Orders CSV export" not in [h.title for h in hits]
    # ... but it is when the query also points at the section.
    hits, _ = finder(analyze_query("merchants download a CSV file"), None, [run_export.id])
    linked = {h.title: h for h in hits if h.reason == "linked"}
    assert "Orders CSV export" in linked and "weak" in linked["Orders CSV export"].linkedVia[0]


@pytest.mark.parametrize("query", ['foo"', "NEAR(", "a*", "^x", "a:b", "AND", "(", "don't", "\u202eorders", "注文"])
def test_hostile_queries_do_not_break_the_resource_channel(svc: IGraphService, query: str) -> None:
    out = svc.explore(query)
    assert_well_formed(out, svc.config.retrieval.resourceTopK)
    assert not out.diagnostics.degraded and out.diagnostics.resourceNote is None
    # Beside a real question, the hostile text leaves the channel working: the export's section and table come.
    found = svc.explore(f"{query} {IMPLEMENTED}")
    assert_well_formed(found, svc.config.retrieval.resourceTopK)
    assert {"Orders CSV export", "orders"} <= set(by_title(found)), list(by_title(found))


def test_no_resources_mounted_means_no_note(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    with open_service(root, index=True, embed=False, embedder=None) as svc:
        out = svc.explore(IMPLEMENTED)
    assert out.hits and out.resources == [] and out.diagnostics.resourceNote is None


@pytest.mark.model
def test_acceptance_with_the_default_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    with orders_service(tmp_path, make_embedder("local")) as svc:
        assert svc.dense_state().reason is None
        check_acceptance(svc)
        direct = by_title(svc.explore(UNIMPLEMENTED))["Refund requests"]
    assert direct.reason == "direct"  # type: ignore[attr-defined]
