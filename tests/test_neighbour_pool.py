"""Neighbours the ranking also found come first when a pool is asked for, each with the node it hangs off."""

from __future__ import annotations

from pathlib import Path

from _factories import make_repo, open_service

from igraph_mcp.retrieve.expand import Reached, expand, prefer_ranked
from igraph_mcp.retrieve.params import DEFAULT_PARAMS
from igraph_mcp.store.nodes import nodes_named

SEED = 1


def _r(node: int, via: int, distance: int) -> Reached:
    return Reached(node, 1.0 / (node + distance), via, "calls", "callee", distance)


def test_a_ranked_neighbour_comes_in_with_the_node_it_hangs_off() -> None:
    # 10, 11, 12 hang off the seed; 20 hangs off 12; 30 hangs off 20 (a callee of a callee of a callee).
    reached = [_r(10, SEED, 1), _r(11, SEED, 1), _r(12, SEED, 1), _r(20, 12, 2), _r(30, 20, 3)]
    chosen = prefer_ranked(reached, {30: 0}, limit=3)
    assert [r.node_id for r in chosen] == [12, 20, 30]
    # Every via is the seed or an entry listed before it.
    listed = {SEED}
    for r in chosen:
        assert r.via in listed
        listed.add(r.node_id)


def test_without_ranked_neighbours_the_order_of_the_graph_stands() -> None:
    reached = [_r(10, SEED, 1), _r(11, SEED, 1), _r(20, 10, 2), _r(12, SEED, 1)]
    assert [r.node_id for r in prefer_ranked(reached, {}, limit=3)] == [10, 11, 20]
    assert [r.node_id for r in prefer_ranked(reached, {99: 0}, limit=3)] == [10, 11, 20]


def test_a_chain_that_does_not_fit_is_left_for_the_next() -> None:
    reached = [_r(10, SEED, 1), _r(20, 10, 2), _r(30, 20, 3), _r(11, SEED, 1)]
    # 30 needs 10 and 20 with it (3 slots) but only 2 are left after 11: 11 and 10 fill them in order.
    chosen = prefer_ranked(reached, {11: 0, 30: 1}, limit=2)
    assert [r.node_id for r in chosen] == [10, 11]


FILES = {
    "app/flow.py": (
        "from app import steps\n\n\n"
        "def parse_invoice_total(text):\n"
        "    '''Parse the invoice total out of the text.'''\n"
        "    return steps.step_one(text) + steps.step_two(text) + steps.step_three(text) + steps.step_four(text)\n"
    ),
    "app/steps.py": (
        "def step_one(text):\n    return len(text)\n\n\n"
        "def step_two(text):\n    return text.count(' ')\n\n\n"
        "def step_three(text):\n    return text.count(',')\n\n\n"
        "def step_four(text):\n    '''Round the invoice total to cents.'''\n    return round(float(text or 0), 2)\n"
    ),
}


def test_the_service_lists_a_neighbour_the_ranking_found_first(tmp_path: Path) -> None:
    with open_service(make_repo(tmp_path, FILES, filler=False), index=True) as service:
        question = "parse_invoice_total: the invoice total is not rounded to cents"
        assert DEFAULT_PARAMS.neighbour_pool > 1  # shipped on
        one = DEFAULT_PARAMS.with_value("neighbour_limit", 1)
        plain = service.explore(question, top_k=1, hops=1, params=one.with_value("neighbour_pool", 1))
        assert [h.name for h in plain.hits] == ["parse_invoice_total"]
        pooled = service.explore(question, top_k=1, hops=1, params=one)
        # The graph alone lists the first callee; with a pool, the callee the ranking also found (rounding to
        # cents) takes the one slot.
        assert [n.name for n in plain.neighbours] == ["step_one"]
        assert [n.name for n in pooled.neighbours] == ["step_four"]
        assert pooled.neighbours[0].viaName.endswith("parse_invoice_total")


# A caller with more callees than the cap: the one the question is about comes last in source order (the order the
# cap took them in before), so only a cap that keeps ranked neighbours first lists it.
MANY_CALLEES = {
    "app/report.py": (
        "def build_report(rows):\n"
        "    '''Build the report.'''\n"
        "    parts = [head(rows), body(rows), foot(rows), legend(rows), scale(rows), axis(rows)]\n"
        "    return parts + [signature_of(rows)]\n\n\n"
        "def head(rows):\n    return rows[:1]\n\n\n"
        "def body(rows):\n    return rows[1:-1]\n\n\n"
        "def foot(rows):\n    return rows[-1:]\n\n\n"
        "def legend(rows):\n    return len(rows)\n\n\n"
        "def scale(rows):\n    return max(rows or [0])\n\n\n"
        "def axis(rows):\n    return min(rows or [0])\n\n\n"
        "def signature_of(rows):\n    '''Parse the signature string of a row.'''\n    return str(rows)\n"
    ),
}


def test_the_cap_on_one_nodes_neighbours_keeps_the_ranked_ones_first(tmp_path: Path) -> None:
    with open_service(make_repo(tmp_path, MANY_CALLEES, filler=False), index=True) as service:
        db = service.db
        ids = {n.name: n.id for name in ("build_report", "signature_of", "head") for n in nodes_named(db, name)}
        seed, wanted = ids["build_report"], ids["signature_of"]
        callees = [r.node_id for r in expand(db, {seed: 1.0}, 1, limit=20, per_node_cap=20)]
        assert len(callees) == 7 and callees[-1] == wanted  # last in the order the cap reads them in
        plain = [r.node_id for r in expand(db, {seed: 1.0}, 1, limit=20, per_node_cap=3)]
        assert wanted not in plain and len(plain) == 3
        ranked = expand(db, {seed: 1.0}, 1, limit=20, per_node_cap=3, ranked={ids["head"]: 1, wanted: 0})
        # Both ranked callees take two of the three places; the third is the first of the rest in source order.
        assert {r.node_id for r in ranked} == {wanted, ids["head"], plain[0] if plain[0] != ids["head"] else plain[1]}
        assert len(ranked) == 3 and all(r.via == seed and r.distance == 1 for r in ranked)
