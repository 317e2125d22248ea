"""Graph expansion reads only a few edges per node first: its answer must equal the one from reading every edge."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _factories import make_repo, make_service

from igraph_mcp.retrieve import expand as expand_mod
from igraph_mcp.retrieve.expand import expand
from igraph_mcp.service import IGraphService
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.vocab.edges import CERTAIN

pytestmark = pytest.mark.both_stores

HUB_CALLERS = 70

FILES = {
    # A hub called by many functions, most of them several times (several edges to one target), some by a
    # name that two modules define (a guessed edge), some from a class that also inherits.
    "core/hub.py": "def hub():\n    return 1\n\ndef other_hub():\n    return 2\n",
    "core/twin_a.py": "def twin():\n    return 'a'\n",
    "core/twin_b.py": "def twin():\n    return 'b'\n",
    "core/base.py": "class Base:\n    def run(self):\n        return 0\n",
    "app/callers.py": "from core.hub import hub, other_hub\nfrom core.base import Base\n\n"
    + "".join(
        f"def caller_{i}():\n"
        + "    hub()\n" * (1 + i % 4)
        + ("    other_hub()\n" if i % 3 == 0 else "")
        + ("    twin()\n" if i % 5 == 0 else "")
        + (f"    caller_{i - 1}()\n" if i else "")
        + "    return 0\n\n"
        for i in range(HUB_CALLERS)
    )
    + "".join(f"class Kind{i}(Base):\n    def run(self):\n        return hub()\n\n" for i in range(12)),
}


@pytest.fixture(scope="module")
def svc(tmp_path_factory: pytest.TempPathFactory, store_kind: str) -> Iterator[IGraphService]:
    root: Path = make_repo(tmp_path_factory.mktemp("expand_reads"), FILES, filler=False)
    service = make_service(root)
    service.index(embed=False)
    yield service
    service.close()


def _every_edge(db: Any, seeds: dict[int, float], hops: int, cap: int) -> list[expand_mod.Reached]:
    # `cut` wanted: every edge is read at once, the way expansion read them before it read a few first.
    return expand(db, seeds, hops, limit=500, per_node_cap=cap, cut=set())


def test_the_fixture_has_a_hub_with_repeated_edges(svc: IGraphService) -> None:
    db = svc.db
    hub = node_store.nodes_named(db, "hub")[0]
    callers = edge_store.edges_of(db, [hub.id], outgoing=False, kinds=("calls",))
    assert len(callers) > 2 * HUB_CALLERS  # callers call it up to four times each
    assert len({e.source_id for e in callers}) >= HUB_CALLERS


@pytest.mark.parametrize("cap", [1, 3, 6])
def test_reading_a_few_edges_first_gives_the_answer_of_reading_all(
    svc: IGraphService, cap: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = svc.db
    ids = [int(r[0]) for r in db.rows("SELECT id FROM nodes WHERE kind IN ('function', 'method', 'class')")]
    calls = {"first": 0, "all": 0}
    real_first, real_all = edge_store.first_edges_of, edge_store.edges_of

    def first(*a: Any, **k: Any) -> Any:
        calls["first"] += 1
        return real_first(*a, **k)

    def every(*a: Any, **k: Any) -> Any:
        calls["all"] += 1
        return real_all(*a, **k)

    monkeypatch.setattr(expand_mod, "FIRST_EDGES", 2)  # the smallest read, so that re-reads happen too
    rng = random.Random(cap)
    hub = node_store.nodes_named(db, "hub")[0].id
    first_callers = sorted({e.source_id for e in edge_store.edges_of(db, [hub], outgoing=False, kinds=("calls",))})[:3]
    # The hub with its first callers as seeds (never neighbours): its first edges lead mostly to them, so they
    # run out before the cap and the hub's callers are read again in full.
    trials = [{hub: 1.0, **dict.fromkeys(first_callers, 0.5)}]
    trials += [{nid: rng.uniform(0.1, 1.0) for nid in rng.sample(ids, 1 + trial % 5)} for trial in range(40)]
    for trial, seeds in enumerate(trials):
        hops = 1 + trial % 3
        want = _every_edge(db, seeds, hops, cap)
        monkeypatch.setattr(edge_store, "first_edges_of", first)
        monkeypatch.setattr(edge_store, "edges_of", every)
        got = expand(db, seeds, hops, limit=500, per_node_cap=cap)
        monkeypatch.setattr(edge_store, "first_edges_of", real_first)
        monkeypatch.setattr(edge_store, "edges_of", real_all)
        assert got == want, f"seeds {seeds} hops {hops}"
        # A short answer is the head of the long one (it reads ahead only for the nodes it may still list).
        assert expand(db, seeds, hops, limit=3, per_node_cap=cap) == want[:3]
    assert calls["first"] > 0
    if cap > 1:  # some node used up its first edges (repeated ones) before its cap and was read again in full
        assert calls["all"] > 0


def test_a_hub_seed_reads_few_of_its_callers(svc: IGraphService) -> None:
    db = svc.db
    hub = node_store.nodes_named(db, "hub")[0]
    every = edge_store.edges_of(db, [hub.id], outgoing=False, kinds=("calls",))
    edges = edge_store.first_edges_of(db, [hub.id], outgoing=False, kinds=("calls",), per_node=5, certain=CERTAIN)
    for certain in (True, False):
        group = sorted((e for e in every if (e.confidence >= CERTAIN) == certain), key=lambda e: (e.source_id, e.id))
        got = [e.id for e in edges if (e.confidence >= CERTAIN) == certain]
        assert got == [e.id for e in group[:5]]  # the first five by the caller's id, then the edge id
    assert len(every) > 2 * HUB_CALLERS and len(edges) <= 10


def test_first_edges_of_many_nodes_and_kinds_take_each_groups_head(svc: IGraphService) -> None:
    # One read for many (node, kind) pairs: each pair and certainty class still gets its own first few edges.
    db = svc.db
    names = ["hub", "other_hub", "twin", "run", "Base", *(f"caller_{i}" for i in range(0, HUB_CALLERS, 7))]
    ids = [n.id for name in names for n in node_store.nodes_named(db, name)]
    kinds = ("calls", "inherits", "imports")
    for outgoing in (False, True):
        every = edge_store.edges_of(db, ids, outgoing=outgoing, kinds=kinds)
        for per_node in (1, 2, 5):
            want: list[int] = []
            for node in ids:
                for kind in kinds:
                    for certain in (True, False):
                        group = sorted(
                            (
                                e
                                for e in every
                                if (e.source_id if outgoing else e.target_id) == node
                                and e.kind == kind
                                and (e.confidence >= CERTAIN) == certain
                            ),
                            key=lambda e: ((e.target_id if outgoing else e.source_id), e.id),
                        )
                        want.extend(e.id for e in group[:per_node])
            got = edge_store.first_edges_of(db, ids, outgoing=outgoing, kinds=kinds, per_node=per_node, certain=CERTAIN)
            assert sorted(e.id for e in got) == sorted(want)
            assert len(want) > len(ids) // 2  # the pairs do have edges to pick from
    assert edge_store.first_edges_of(db, [], outgoing=True, kinds=kinds, per_node=3, certain=CERTAIN) == []
