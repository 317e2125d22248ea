"""The browser view's data without a browser: map folding, store aggregates, graph documents, GraphML, the page."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest

from igraph_mcp.cli import main
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import InvalidInput
from igraph_mcp.render import render_related
from igraph_mcp.service import IGraphService
from igraph_mcp.store import overview as ov
from igraph_mcp.store.overview import FileEdge, FileSummary
from igraph_mcp.view.aggregate import (
    MAX_LABELS,
    MapUnit,
    abbreviate,
    fold_map,
    is_test_folder,
    normalize_focus,
    overview_labels,
)
from igraph_mcp.view.assets import ViewExtraMissing, load_vis
from igraph_mcp.view.data import RELATED_HOPS, RELATED_LIMIT, ViewData
from igraph_mcp.view.graph_doc import map_doc
from igraph_mcp.view.graphml import to_graphml
from igraph_mcp.view.page import render_page, script_json
from igraph_mcp.view.snapshot import snapshot_key
from tests.conftest import SAMPLE_REPO

GRAPHML = "{http://graphml.graphdrawing.org/xmlns}"

SCHEMA = "CREATE TABLE sessions (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, token TEXT);\n"
PRD = (
    "# Product\n\n## Login\n\nA user signs in with `login`; a `Session` keeps them signed in "
    "and `refresh` extends it.\n\n"
    "## Storage\n\nEverything goes through `connect`.\n"
)


@pytest.fixture
def view_service(make_repo, tmp_path: Path) -> Iterator[IGraphService]:
    """SAMPLE_REPO plus a mounted PRD, indexed with the hashing embedder."""
    root = make_repo(tmp_path, {**SAMPLE_REPO, "docs/PRD.md": PRD, "db/schema.sql": SCHEMA})
    svc = IGraphService(root, embedder=HashingEmbedder(64))
    svc.index()
    svc.mount("docs/PRD.md")
    svc.mount("db/schema.sql")
    yield svc
    svc.close()


def _files(*specs: tuple[str, int]) -> list[FileSummary]:
    return [FileSummary(i + 1, path, "python", symbols, 10, "ok") for i, (path, symbols) in enumerate(specs)]


# -- folding the map -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [("", ""), (".", ""), ("./a/b/", "a/b"), ("a//b", "a/b"), ("a\\b", "a/b"), ("/a", "a")],
)
def test_normalize_focus(raw: str, expected: str) -> None:
    assert normalize_focus(raw) == expected


def test_small_repository_shows_every_file() -> None:
    files = _files(("a/x.py", 3), ("a/y.py", 2), ("b/z.py", 5), ("top.py", 1))
    view = fold_map(files, [], max_units=10)
    assert [u.id for u in view.units] == ["a/x.py", "a/y.py", "b/z.py", "top.py"]
    assert (view.files, view.symbols) == (4, 11)
    assert {u.id: u.group for u in view.units}["a/x.py"] == "a"


def test_big_folders_split_first_and_the_map_stays_within_its_budget() -> None:
    files = _files(*[(f"big/sub{i}/f{j}.py", 10) for i in range(3) for j in range(4)], ("small/one.py", 1))
    view = fold_map(files, [], max_units=5)
    ids = [u.id for u in view.units]
    assert len(ids) <= 5
    # 'big/' (120 symbols) is split into its three sub-folders; they cannot split further within 5 units.
    assert ids == ["big/sub0/", "big/sub1/", "big/sub2/", "small/one.py"]
    sub0 = next(u for u in view.units if u.id == "big/sub0/")
    assert (sub0.kind, sub0.files, sub0.symbols, sub0.label) == ("folder", 4, 40, "sub0/")


def test_a_folder_too_wide_for_the_map_folds_its_smallest_children_into_one_node() -> None:
    files = _files(*[(f"wide/p{i:02d}/m.py", i + 1) for i in range(12)])
    edges = [FileEdge(1, 12, "calls", 3, 3), FileEdge(2, 12, "calls", 1, 1)]  # the two smallest call the biggest
    view = fold_map(files, edges, focus="wide", max_units=5)
    ids = [u.id for u in view.units]
    assert ids == ["wide/p08/m.py", "wide/p09/m.py", "wide/p10/m.py", "wide/p11/m.py", "wide/…"]
    rest = view.units[-1]
    assert (rest.kind, rest.files, rest.symbols, rest.label) == ("rest", 8, sum(range(1, 9)), "… 8 smaller")
    (edge,) = view.edges
    assert (edge.source, edge.target, edge.total) == ("wide/…", "wide/p11/m.py", 4)


def test_edges_are_summed_between_units_and_inside_ones_dropped() -> None:
    files = _files(("p/a.py", 1), ("p/b.py", 1), ("q/c.py", 1))
    edges = [
        FileEdge(1, 3, "calls", 4, 4),  # p/a -> q/c
        FileEdge(2, 3, "calls", 2, 0),  # p/b -> q/c: guessed
        FileEdge(2, 3, "imports", 1, 1),
        FileEdge(1, 2, "calls", 7, 7),  # inside p/ once p is folded
    ]
    view = fold_map(files, edges, max_units=2)
    assert [u.id for u in view.units] == ["p/", "q/c.py"]  # a one-file folder opens at no cost
    (edge,) = view.edges
    assert (edge.source, edge.target, edge.counts, edge.certain, edge.total) == (
        "p/",
        "q/c.py",
        {"calls": 6, "imports": 1},
        5,
        7,
    )


def test_a_focused_map_shows_its_folder_and_what_it_talks_to_outside() -> None:
    files = _files(("pkg/core/a.py", 2), ("pkg/core/b.py", 2), ("pkg/web/v.py", 3), ("other/w.py", 1), ("x.py", 1))
    edges = [
        FileEdge(3, 1, "calls", 5, 5),  # pkg/web -> pkg/core/a
        FileEdge(4, 2, "imports", 1, 1),  # other -> pkg/core/b
        FileEdge(4, 5, "calls", 9, 9),  # both outside: not on this map
    ]
    view = fold_map(files, edges, focus="pkg/core", max_units=10)
    inside = [u.id for u in view.units if not u.outside]
    outside = [u.id for u in view.units if u.outside]
    assert inside == ["pkg/core/a.py", "pkg/core/b.py"]
    assert outside == ["other/w.py", "pkg/web/"]  # seen at the focus depth: a folder, or a shallower file
    assert {(e.source, e.target) for e in view.edges} == {
        ("pkg/web/", "pkg/core/a.py"),
        ("other/w.py", "pkg/core/b.py"),
    }
    assert view.files == 2


def test_edges_beyond_the_cap_are_counted() -> None:
    files = _files(*[(f"m{i}.py", 1) for i in range(6)])
    edges = [FileEdge(i, j, "calls", i + j, 0) for i in range(1, 7) for j in range(1, 7) if i != j]
    view = fold_map(files, edges, max_edges=5)
    assert len(view.edges) == 5
    assert view.omitted_edges == len(edges) - 5
    assert view.edges[0].total == max(e.count for e in edges)


# -- a dominant test folder, labels ---------------------------------------------------------------------------
def test_a_dominant_test_folder_stays_one_node_however_much_room_there_is() -> None:
    src = [(f"src/p{i}/m{j}.py", 2) for i in range(3) for j in range(3)]
    tests = [(f"tests/{kind}/test_{j}.py", 3) for kind in ("unit", "e2e") for j in range(10)]
    view = fold_map(_files(*src, *tests), [], max_units=400)
    ids = [u.id for u in view.units]
    assert "tests/" in ids and not any(i.startswith("tests/") and i != "tests/" for i in ids)
    folded = next(u for u in view.units if u.id == "tests/")
    assert (folded.kind, folded.folded, folded.files, folded.symbols) == ("folder", True, 20, 60)
    assert [u.id for u in view.units if u.id.startswith("src/")] == [
        f"src/p{i}/m{j}.py" for i in range(3) for j in range(3)
    ]
    # Its own map unfolds it.
    inner = fold_map(_files(*src, *tests), [], focus="tests", max_units=400)
    assert len(inner.units) == 20 and not any(u.folded for u in inner.units)


def test_a_small_test_folder_or_a_repository_of_tests_only_is_not_folded() -> None:
    small = fold_map(_files(*[(f"src/m{j}.py", 1) for j in range(9)], ("tests/test_a.py", 1)), [], max_units=50)
    assert "tests/test_a.py" in {u.id for u in small.units}  # 1 file in 10: split like any folder
    only = fold_map(_files(*[(f"tests/test_{j}.py", 1) for j in range(5)]), [], max_units=50)
    assert len(only.units) == 5 and not any(u.folded for u in only.units)  # folding all would show one node


@pytest.mark.parametrize(
    ("unit", "expected"),
    [
        ("tests/", True),
        ("pkg/__tests__/", True),
        ("a/Spec/", True),
        ("tests.py", False),
        ("contest/", False),
        ("", False),
    ],
)
def test_is_test_folder(unit: str, expected: bool) -> None:
    assert is_test_folder(unit) is expected


@pytest.mark.parametrize(
    ("label", "limit", "expected"),
    [
        ("short.py", 24, "short.py"),
        ("exactly_twenty_four.py12", 24, "exactly_twenty_four.py12"),
        ("module_with_a_long_name_10.py", 24, "module_with_…_name_10.py"),
        ("a_very_long_folder_name_here/", 12, "a_very…here/"),
        ("中文中文中文中文中文中文中文中文", 7, "中文中…文中文"),
        ("😀😀😀😀😀😀😀😀😀", 5, "😀😀…😀😀"),
        ("abc", 1, "…"),
    ],
)
def test_abbreviate_keeps_both_ends(label: str, limit: int, expected: str) -> None:
    assert abbreviate(label, limit) == expected
    assert len(abbreviate(label, limit)) <= max(limit, 1)


def _unit(id: str, symbols: int, kind: str = "file", outside: bool = False) -> MapUnit:
    return MapUnit(id=id, label=id, kind=kind, symbols=symbols, files=1, outside=outside)


def test_overview_labels_go_to_folders_then_the_biggest_files_never_to_part_of_a_tie() -> None:
    units = [
        _unit("big.py", 50),
        _unit("pkg/", 5, kind="folder"),
        _unit("out/", 99, kind="folder", outside=True),
        *[_unit(f"same{i}.py", 10) for i in range(4)],
        _unit("small.py", 1),
    ]
    assert overview_labels(units, 3) == {"pkg/", "big.py"}  # the four files of 10 symbols tie at the cut
    assert overview_labels(units, 6) == {"pkg/", "big.py", "same0.py", "same1.py", "same2.py", "same3.py"}
    assert overview_labels(units, 8) == {u.id for u in units}
    assert overview_labels(units, 0) == set()


def test_the_map_document_labels_a_bounded_set_and_marks_the_folded_folder() -> None:
    files = _files(*[(f"src/m{j:03d}.py", 1 + j % 3) for j in range(150)], *[(f"tests/t{j}.py", 1) for j in range(150)])
    doc = map_doc(fold_map(files, [], max_units=80))
    assert len(doc["nodes"]) <= 80
    labelled = [n for n in doc["nodes"] if n["labelled"]]
    assert 0 < len(labelled) <= MAX_LABELS
    tests = next(n for n in doc["nodes"] if n["id"] == "tests/")
    assert tests["folded"] and tests["labelled"] and tests["label"] == "tests/ (150 files, folded)"
    assert "double-click" in tests["title"]
    assert all(len(n["fullLabel"]) >= len(n["label"]) or n["folded"] for n in doc["nodes"])


def test_units_are_coloured_by_the_folder_holding_them() -> None:
    files = _files(("src/a/x.py", 1), ("src/b/y.py", 1), ("top.py", 1), ("lib/z.py", 1))
    groups = {u.id: u.group for u in fold_map(files, [], max_units=10).units}
    assert groups == {"src/a/x.py": "src/a", "src/b/y.py": "src/b", "top.py": "(files here)", "lib/z.py": "lib"}
    folded = {u.id: u.group for u in fold_map(files, [], max_units=3).units}
    assert folded["src/"] == "src"


# -- store aggregates ----------------------------------------------------------------------------------------
def test_overview_queries_count_files_edges_and_links(view_service: IGraphService) -> None:
    db = view_service.db
    files = {f.path: f for f in ov.file_summaries(db)}
    assert files["app/auth.py"].symbols == 6  # 3 functions, a class and its 2 methods
    ids = {f.id: p for p, f in files.items()}
    pairs = {(ids[e.source_file], ids[e.target_file], e.kind): e for e in ov.file_edges(db, certain_at=0.9)}
    assert pairs[("main.py", "app/auth.py", "calls")].count == 1
    assert pairs[("main.py", "app/auth.py", "calls")].certain == 1
    assert ("app/auth.py", "app/db.py", "calls") in pairs
    assert all(src != dst for src, dst, _ in pairs)
    chunks = ov.resource_chunks(db, limit=10)
    assert ov.resource_chunk_count(db) == len(chunks) >= 2
    links = ov.resource_links(db, [c.id for c in chunks], per_resource=2)
    assert links and all(sum(1 for x in links if x.resource_id == link.resource_id) <= 2 for link in links)


def test_edge_totals_count_beyond_the_listed_ones(view_service: IGraphService) -> None:
    login = next(r for r in view_service.db.rows("SELECT id FROM nodes WHERE name = 'login'"))
    totals = ov.edge_totals(view_service.db, int(login[0]))
    assert totals.callers == 2  # main() and Session.refresh
    assert totals.callees >= 2 and totals.bases == 0


# -- the view's answers --------------------------------------------------------------------------------------
def test_search_is_the_explore_call_with_its_text_and_graph(view_service: IGraphService) -> None:
    data = ViewData(view_service)
    answer = data.search("log a user in")
    direct = view_service.explore("log a user in")
    assert [h["nodeId"] for h in answer["result"]["hits"]] == [h.nodeId for h in direct.hits]
    assert answer["text"].startswith("1. ")
    graph = answer["graph"]
    ids = {n["id"] for n in graph["nodes"]}
    assert {f"n{h.nodeId}" for h in direct.hits} <= ids
    assert all(e["from"] in ids and e["to"] in ids for e in graph["edges"])
    assert answer["result"]["hits"][0]["ranks"]  # the channels' ranks reach the page
    with pytest.raises(InvalidInput):
        data.search("   ")


def test_neighbours_in_the_search_graph_hang_off_their_via_nodes(view_service: IGraphService) -> None:
    answer = ViewData(view_service).search("check the password hash")
    neighbours = answer["result"]["neighbours"]
    assert neighbours, "the fixture's question reaches neighbours"
    edges = {(e["from"], e["to"]): e for e in answer["graph"]["edges"]}
    nodes = {n["id"]: n for n in answer["graph"]["nodes"]}
    for n in neighbours:
        me, via = f"n{n['nodeId']}", f"n{n['viaNodeId']}"
        if me not in nodes or via not in nodes:
            continue
        key = (via, me) if n["direction"] == "callee" else (me, via)
        assert edges[key]["distance"] == n["distance"] and edges[key]["direction"] == n["direction"]
        if nodes[me]["type"] == "neighbour":
            assert f"distance {n['distance']}" in nodes[me]["title"]
    assert all(e["from"] in nodes and e["to"] in nodes for e in answer["graph"]["edges"])


def test_a_symbols_related_entries_are_the_services_own(view_service: IGraphService) -> None:
    data = ViewData(view_service)
    (login_id,) = view_service.db.rows("SELECT id FROM nodes WHERE name = 'login'")[0]
    answer = data.node(int(login_id))
    direct = view_service.related_by_id(int(login_id), "both", RELATED_HOPS, RELATED_LIMIT)
    assert answer["related"]["related"] == [n.model_dump(mode="json") for n in direct.related]
    assert answer["relatedText"] == render_related(direct)
    assert {n["name"] for n in answer["related"]["related"]} >= {"main", "refresh", "check_password", "hash_password"}
    ids = {n["id"] for n in answer["graph"]["nodes"]}
    drawn = {(e["from"], e["to"], e["kind"]) for e in answer["graph"]["edges"]}
    for n in direct.related:
        me, via = f"n{n.nodeId}", f"n{n.viaNodeId}"
        assert me in ids
        if via in ids:
            assert ((via, me) if n.direction == "callee" else (me, via)) + (n.edgeKind,) in drawn
    assert len(drawn) == len(answer["graph"]["edges"])  # each edge once


def test_the_service_answers_by_id_as_it_does_by_name(view_service: IGraphService) -> None:
    (login_id,) = view_service.db.rows("SELECT id FROM nodes WHERE name = 'login'")[0]
    assert view_service.node_by_id(int(login_id)) == view_service.node("login")
    assert view_service.related_by_id(int(login_id), "callers", 2) == view_service.related("login", "callers", 2)
    gone = view_service.node_by_id(10**9)
    assert not gone.found and gone.message and "search again" in gone.message
    assert not view_service.related_by_id(10**9).found
    with pytest.raises(InvalidInput, match="hops"):
        view_service.related_by_id(int(login_id), hops=9)


def test_node_by_id_has_source_edges_and_totals(view_service: IGraphService) -> None:
    data = ViewData(view_service)
    (login_id,) = view_service.db.rows("SELECT id FROM nodes WHERE name = 'login'")[0]
    answer = data.node(int(login_id))
    assert answer["found"] and "def login" in answer["detail"]["source"]
    assert {c["name"] for c in answer["detail"]["callers"]} == {"main", "refresh"}
    assert answer["totals"]["callers"] == 2
    doc = answer["graph"]
    assert doc["meta"]["centre"] == f"n{login_id}"
    certain = {e["certain"] for e in doc["edges"]}
    assert certain <= {True, False}
    assert data.node(10**9)["found"] is False


def test_a_module_shows_what_it_imports_and_who_imports_it(view_service: IGraphService) -> None:
    data = ViewData(view_service)
    (auth_module,) = view_service.db.rows("SELECT id FROM nodes WHERE kind = 'module' AND qualified_name LIKE '%auth'")[
        0
    ]
    answer = data.node(int(auth_module))
    assert "connect" in {r["name"] for r in answer["imports"]}
    assert answer["totals"]["imports"] >= 1
    assert all(r["nodeId"] is not None for r in answer["imports"])
    doc_ids = {n["id"] for n in answer["graph"]["nodes"]}
    assert {f"n{r['nodeId']}" for r in answer["imports"]} <= doc_ids


def test_map_and_status_and_resources(view_service: IGraphService) -> None:
    data = ViewData(view_service)
    doc = data.map()
    assert {n["id"] for n in doc["nodes"]} == {"app/auth.py", "app/db.py", "main.py"}
    assert doc["meta"]["symbols"] == sum(f.symbols for f in ov.file_summaries(view_service.db))
    assert {n["id"]: n["size"] for n in doc["nodes"]}["app/auth.py"] == 6
    assert data.map("app")["meta"]["focus"] == "app"
    with pytest.raises(InvalidInput):
        data.map("no/such/folder")
    with pytest.raises(InvalidInput):
        data.map("", max_units=5)
    status = data.status()
    assert status["languages"] == {"python": 3}
    res = data.resources()
    assert res["total"] >= 2 and res["sources"]["sources"]
    login = next(c for c in res["chunks"] if c["title"] == "Login")
    assert login["headingPath"] == "Product › Login" and login["columns"] == []
    table = next(c for c in res["chunks"] if c["sourceType"] == "db")
    assert [c["name"] for c in table["columns"]] == ["id", "user_id", "token"]
    assert table["columns"][0]["type"].upper().startswith("INTEGER")
    assert {link["name"] for link in login["links"]} >= {"login", "Session"}
    assert any(n["type"] == "resource" for n in res["graph"]["nodes"])


# -- GraphML -------------------------------------------------------------------------------------------------
def test_graphml_round_trips_nasty_text_and_types() -> None:
    doc = {
        "nodes": [
            {"id": 'a<&>"b', "label": "zero\x00width\u200b 中文 😀", "type": "file", "size": 3, "nodeId": None},
            {"id": "c", "label": "c", "type": "folder", "size": 1, "nodeId": 7},
        ],
        "edges": [{"from": 'a<&>"b', "to": "c", "kind": "calls", "certain": False, "weight": 2}],
    }
    root = ET.fromstring(to_graphml(doc).encode("utf-8"))
    keys = {k.get("id"): k.get("attr.type") for k in root.iter(GRAPHML + "key")}
    assert keys["n_size"] == "long" and keys["e_certain"] == "boolean" and keys["n_label"] == "string"
    nodes = list(root.iter(GRAPHML + "node"))
    assert nodes[0].get("id") == 'a<&>"b'
    label = next(d.text for d in nodes[0] if d.get("key") == "n_label")
    assert label == "zero\ufffdwidth\u200b 中文 😀"
    edge = next(root.iter(GRAPHML + "edge"))
    assert (edge.get("source"), edge.get("target")) == ('a<&>"b', "c")
    assert next(d.text for d in edge if d.get("key") == "e_certain") == "false"


def test_graphml_of_the_map_reads_back_with_networkx(view_service: IGraphService) -> None:
    nx = pytest.importorskip("networkx")
    doc = ViewData(view_service).map()
    g = nx.parse_graphml(to_graphml(doc))
    assert set(g.nodes) == {n["id"] for n in doc["nodes"]}
    assert g.number_of_edges() == len(doc["edges"])


# -- the page ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["</script><script>alert(1)</script>", "<!--", "a\u2028b\u2029c", "&amp;"])
def test_script_json_cannot_end_its_element(text: str) -> None:
    out = script_json({"t": text})
    assert "<" not in out and ">" not in out and "\u2028" not in out
    assert json.loads(out) == {"t": text}


def test_snapshot_key_matches_the_page_key() -> None:
    assert snapshot_key("map") == "map"
    assert snapshot_key("search", {"q": 'why "x" ~ * é'}) == 'search [["q","why \\"x\\" ~ * é"]]'
    assert snapshot_key("node", {"id": 12}) == 'node [["id","12"]]'
    page_js = (Path(__file__).resolve().parents[1] / "igraph_mcp/view/static/page.js").read_text(encoding="utf-8")
    assert 'path + " " + JSON.stringify(e)' in page_js


def test_offline_page_is_self_contained(view_service: IGraphService, tmp_path: Path) -> None:
    vis = load_vis()
    from igraph_mcp.view.snapshot import build_snapshot

    boot = build_snapshot(ViewData(view_service), ["log a user in"], max_units=80)
    html = render_page(vis, title="repo <x>", boot=boot, live=False)
    assert "connect-src 'none'" in html and "repo &lt;x&gt;" in html
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html)  # nothing loaded from anywhere
    assert "http://" not in html.split("<script", 1)[0]
    nonces = set(re.findall(r'nonce="([^"]+)"', html))
    assert len(nonces) == 1 and f"'nonce-{nonces.pop()}'" in html
    assert 'search [["q","log a user in"]]' in boot["snapshot"] and "map" in boot["snapshot"]


def test_cli_out_writes_html_graphml_and_json(view_service: IGraphService, tmp_path: Path, capsys) -> None:
    root = str(view_service.root)
    assert main(["view", "--root", root, "--out", str(tmp_path / "v.html"), "--query", "session"]) == 0
    assert (tmp_path / "v.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    assert main(["view", "--root", root, "--out", str(tmp_path / "m.graphml"), "--focus", "app"]) == 0
    ET.parse(tmp_path / "m.graphml")
    assert main(["view", "--root", root, "--out", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["meta"]["view"] == "map"
    assert main(["view", "--root", root, "--out", str(tmp_path / "m.txt")]) == 1
    assert "--out must end in" in capsys.readouterr().err


def test_missing_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(ViewExtraMissing, match=r"igraph-mcp\[view\]"):
        load_vis()


def test_page_script_never_parses_repository_text_as_html() -> None:
    # Names, docstrings and source come from the repository: the page sets them as text only (no HTML sinks).
    page_js = (Path(__file__).resolve().parents[1] / "igraph_mcp/view/static/page.js").read_text(encoding="utf-8")
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"):
        assert sink not in page_js, sink
