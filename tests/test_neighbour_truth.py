"""Every relation explore and related print is a stored edge: a property test over small repositories in seven
languages, checked on the structured answer, on its text and on the view's graph of it; and test code in the
neighbour slots is capped unless the query is about tests."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pytest
from _factories import index_repo, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from igraph_mcp.models import Neighbour
from igraph_mcp.render import render_explore, render_related
from igraph_mcp.retrieve.expand import EXPAND_KINDS
from igraph_mcp.retrieve.params import DEFAULT_PARAMS
from igraph_mcp.service import IGraphService
from igraph_mcp.view.graph_doc import explore_doc, symbol_id
from igraph_mcp.vocab.edges import CERTAIN

# The same shape in every language: main -> entry -> alpha -> beta -> gamma -> delta <- epsilon <- zeta (delta a
# shared callee: epsilon and zeta are callers of a callee of gamma, never its callers), Base <- Middle <- Leaf
# (where the language has classes), and test code calling into the chain.
FIXTURES: dict[str, dict[str, str]] = {
    "python": {
        "app/main.py": "from app.entry import entry\n\n\ndef main():\n    return entry()\n",
        "app/entry.py": "from app.chain import alpha\n\n\ndef entry():\n    return alpha()\n",
        "app/chain.py": "from app.steps import beta\n\n\ndef alpha():\n    return beta()\n",
        "app/steps.py": "from app.leaf import gamma\n\n\ndef beta():\n    return gamma()\n",
        "app/leaf.py": "from app.shared import delta\n\n\ndef gamma():\n    return delta()\n",
        "app/shared.py": "def delta():\n    return 1\n\n\ndef epsilon():\n    return delta()\n\n\n"
        "def zeta():\n    return epsilon()\n",
        "app/shapes.py": "class Base:\n    def area(self):\n        return 0\n\n\nclass Middle(Base):\n"
        "    def area(self):\n        return 1\n\n\nclass Leaf(Middle):\n    def area(self):\n        return 2\n",
        "tests/test_chain.py": "from app.chain import alpha\nfrom app.steps import beta\n"
        "from app.leaf import gamma\n\n\n"
        "def test_alpha():\n    assert alpha()\n\n\ndef test_beta():\n    assert beta()\n\n\n"
        "def test_gamma():\n    assert gamma()\n",
    },
    "typescript": {
        "src/main.ts": "import { entry } from './entry';\n\nexport function main(): number {\n  return entry();\n}\n",
        "src/entry.ts": "import { alpha } from './chain';\n\nexport function entry(): number {\n  return alpha();\n}\n",
        "src/chain.ts": "import { beta } from './steps';\n\nexport function alpha(): number {\n  return beta();\n}\n",
        "src/steps.ts": "import { gamma } from './leaf';\n\nexport function beta(): number {\n  return gamma();\n}\n",
        "src/leaf.ts": "import { delta } from './shared';\n\nexport function gamma(): number {\n  return delta();\n}\n",
        "src/shared.ts": "export function delta(): number {\n  return 1;\n}\n\nexport function epsilon(): number {\n"
        "  return delta();\n}\n\nexport function zeta(): number {\n  return epsilon();\n}\n",
        "src/shapes.ts": "export class Base {\n  area(): number {\n    return 0;\n  }\n}\n\n"
        "export class Middle extends Base {\n  area(): number {\n    return 1;\n  }\n}\n\n"
        "export class Leaf extends Middle {\n  area(): number {\n    return 2;\n  }\n}\n",
        "src/chain.test.ts": "import { alpha } from './chain';\nimport { beta } from './steps';\n\n"
        "export function testAlpha(): boolean {\n  return alpha() > 0;\n}\n\n"
        "export function testBeta(): boolean {\n  return beta() > 0;\n}\n",
    },
    "javascript": {
        "lib/main.js": "import { entry } from './entry.js';\n\nexport function main() {\n  return entry();\n}\n",
        "lib/entry.js": "import { alpha } from './chain.js';\n\nexport function entry() {\n  return alpha();\n}\n",
        "lib/chain.js": "import { beta } from './steps.js';\n\nexport function alpha() {\n  return beta();\n}\n",
        "lib/steps.js": "import { gamma } from './leaf.js';\n\nexport function beta() {\n  return gamma();\n}\n",
        "lib/leaf.js": "import { delta } from './shared.js';\n\nexport function gamma() {\n  return delta();\n}\n",
        "lib/shared.js": "export function delta() {\n  return 1;\n}\n\n"
        "export function epsilon() {\n  return delta();\n}\n\n"
        "export function zeta() {\n  return epsilon();\n}\n",
        "lib/shapes.js": "export class Base {\n  area() {\n    return 0;\n  }\n}\n\n"
        "export class Middle extends Base {\n"
        "  area() {\n    return 1;\n  }\n}\n\nexport class Leaf extends Middle {\n  area() {\n    return 2;\n  }\n}\n",
        "test/chain.spec.js": "import { alpha } from '../lib/chain.js';\nimport { gamma } from '../lib/leaf.js';\n\n"
        "export function checkAlpha() {\n  return alpha();\n}\n\n"
        "export function checkGamma() {\n  return gamma();\n}\n",
    },
    "go": {  # calls within one package are name-only guesses: the '?' marks are checked too
        "go.mod": "module example.com/app\n\ngo 1.21\n",
        "app/main.go": "package app\n\nfunc Main() int {\n\treturn Entry()\n}\n",
        "app/entry.go": "package app\n\nfunc Entry() int {\n\treturn Alpha()\n}\n",
        "app/chain.go": "package app\n\nfunc Alpha() int {\n\treturn Beta()\n}\n",
        "app/steps.go": "package app\n\nfunc Beta() int {\n\treturn Gamma()\n}\n",
        "app/leaf.go": "package app\n\nfunc Gamma() int {\n\treturn Delta()\n}\n",
        "app/shared.go": "package app\n\nfunc Delta() int {\n\treturn 1\n}\n\n"
        "func Epsilon() int {\n\treturn Delta()\n}\n\n"
        "func Zeta() int {\n\treturn Epsilon()\n}\n",
        "app/chain_test.go": 'package app\n\nimport "testing"\n\nfunc TestAlpha(t *testing.T) {\n\tAlpha()\n}\n\n'
        "func TestBeta(t *testing.T) {\n\tBeta()\n}\n",
    },
    "java": {
        **{
            f"src/app/{cls}.java": f"package app;\n\npublic class {cls} {{\n    public static int {fn}() {{\n"
            f"        return {call};\n    }}\n}}\n"
            for cls, fn, call in [
                ("Main", "main", "Entry.entry()"),
                ("Entry", "entry", "Chain.alpha()"),
                ("Chain", "alpha", "Steps.beta()"),
                ("Steps", "beta", "Leaf.gamma()"),
                ("Leaf", "gamma", "Shared.delta()"),
            ]
        },
        "src/app/Shared.java": "package app;\n\npublic class Shared {\n"
        "    public static int delta() {\n        return 1;\n"
        "    }\n\n    public static int epsilon() {\n        return delta();\n    }\n\n"
        "    public static int zeta() {\n        return epsilon();\n    }\n}\n",
        "src/app/Shapes.java": "package app;\n\nclass Base {\n    int area() { return 0; }\n}\n\n"
        "class Middle extends Base {\n    int area() { return 1; }\n}\n\nclass Tip extends Middle {\n"
        "    int area() { return 2; }\n}\n",
        "src/app/ChainTest.java": "package app;\n\npublic class ChainTest {\n"
        "    void testAlpha() {\n        Chain.alpha();\n"
        "    }\n\n    void testGamma() {\n        Leaf.gamma();\n    }\n}\n",
    },
    "rust": {
        "src/main.rs": "mod entry;\n\nfn main() {\n    entry::entry();\n}\n",
        "src/entry.rs": "use crate::chain::alpha;\n\npub fn entry() -> i32 {\n    alpha()\n}\n",
        "src/chain.rs": "use crate::steps::beta;\n\npub fn alpha() -> i32 {\n    beta()\n}\n",
        "src/steps.rs": "use crate::leaf::gamma;\n\npub fn beta() -> i32 {\n    gamma()\n}\n",
        "src/leaf.rs": "use crate::shared::delta;\n\npub fn gamma() -> i32 {\n    delta()\n}\n",
        "src/shared.rs": "pub fn delta() -> i32 {\n    1\n}\n\npub fn epsilon() -> i32 {\n    delta()\n}\n\n"
        "pub fn zeta() -> i32 {\n    epsilon()\n}\n",
        "tests/chain_test.rs": "use app::chain::alpha;\n\n#[test]\nfn test_alpha() {\n    alpha();\n}\n",
    },
    "c": {
        "src/main.c": '#include "entry.h"\n\nint main(void) {\n    return entry();\n}\n',
        "src/entry.c": '#include "chain.h"\n\nint entry(void) {\n    return alpha();\n}\n',
        "src/chain.c": '#include "steps.h"\n\nint alpha(void) {\n    return beta();\n}\n',
        "src/steps.c": '#include "leaf.h"\n\nint beta(void) {\n    return gamma();\n}\n',
        "src/leaf.c": '#include "shared.h"\n\nint gamma(void) {\n    return delta();\n}\n',
        "src/shared.c": "int delta(void) {\n    return 1;\n}\n\nint epsilon(void) {\n    return delta();\n}\n\n"
        "int zeta(void) {\n    return epsilon();\n}\n",
        "tests/test_chain.c": "int test_alpha(void) {\n    return alpha();\n}\n",
    },
}
pytestmark = pytest.mark.both_stores

LANGUAGES = sorted(FIXTURES)
RELATED_KINDS = ("calls", "inherits", "implements")
SIDES = {"both": ("callee", "caller"), "callers": ("caller",), "callees": ("callee",)}

# CI replays a fixed sequence of examples (a landing must not depend on luck); a developer's run explores anew.
PROFILE = settings(
    max_examples=12,
    deadline=None,
    derandomize=bool(os.environ.get("CI")),
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@dataclass(frozen=True)
class Graph:
    """One repository's stored edges, as the test reads them itself."""

    edges: dict[tuple[int, int, str], float]  # (source, target, kind) -> best confidence
    names: dict[int, str]  # node id -> qualified name
    symbols: list[str]  # names worth asking about

    def ids(self, name: str) -> set[int]:
        """Every node with this qualified name."""
        return {i for i, n in self.names.items() if n == name}

    def reach(self, seeds: Sequence[int], side: str, hops: int, kinds: Sequence[str]) -> set[int]:
        """Nodes ``hops`` or fewer same-side edges away from ``seeds`` (the seeds left out)."""
        seen, frontier = set(seeds), set(seeds)
        for _ in range(hops):
            frontier = {
                (t if side == "callee" else s)
                for s, t, kind in self.edges
                if kind in kinds and (s if side == "callee" else t) in frontier
            } - seen
            seen |= frontier
        return seen - set(seeds)


@dataclass
class Repo:
    """One indexed fixture repository and its graph."""

    svc: IGraphService
    graph: Graph


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory, store_kind: str) -> Iterator[dict[str, Repo]]:
    """Every fixture indexed once."""
    out: dict[str, Repo] = {}
    try:
        for lang, files in FIXTURES.items():
            svc = index_repo(make_repo(tmp_path_factory.mktemp(lang), files, filler=False, name=lang))
            out[lang] = Repo(svc, _graph(svc))
        yield out
    finally:
        for repo in out.values():
            repo.svc.close()


def _graph(svc: IGraphService) -> Graph:
    db = svc.db
    edges: dict[tuple[int, int, str], float] = {}
    for s, t, kind, conf in db.rows(
        "SELECT source_id, target_id, kind, confidence FROM edges WHERE target_id IS NOT NULL"
    ):
        key = (int(s), int(t), str(kind))
        edges[key] = max(edges.get(key, 0.0), float(conf))
    rows = db.rows("SELECT id, qualified_name, kind FROM nodes")
    names = {int(i): str(q) for i, q, _ in rows}
    symbols = sorted({str(q) for _, q, k in rows if k in ("function", "method", "class")})
    return Graph(edges, names, symbols)


def test_every_fixture_has_its_chains(repos: dict[str, Repo]) -> None:
    """The property below is only as strong as its fixtures: each has a three-hop call chain and a shared callee."""
    for lang, repo in repos.items():
        g = repo.graph
        lower = {i: n.rsplit(".", 1)[-1].lower() for i, n in g.names.items()}
        calls = {(lower[s], lower[t]) for s, t, kind in g.edges if kind == "calls"}
        chain = {("main", "entry"), ("entry", "alpha"), ("alpha", "beta"), ("beta", "gamma"), ("gamma", "delta")}
        assert chain | {("epsilon", "delta"), ("zeta", "epsilon")} <= calls, lang
        if lang not in ("go", "rust", "c"):
            assert {(lower[s], lower[t]) for s, t, kind in g.edges if kind == "inherits"} >= {("middle", "base")}, lang


# -- the checks ------------------------------------------------------------------------------------------------
def check_entries(
    graph: Graph,
    seeds: dict[int, str],
    entries: Sequence[Neighbour],
    sides: Sequence[str],
    hops: int,
    kinds: Sequence[str],
) -> None:
    """Each entry hangs off a stored edge to a seed (distance 1) or to an entry listed before it, one hop nearer
    on the same side; it is certain only when every edge on the way is."""
    at: dict[int, Neighbour] = {}
    for n in entries:
        assert n.nodeId not in seeds and n.nodeId not in at, f"{n.qualifiedName} listed twice"
        assert n.direction in sides and 1 <= n.distance <= hops and n.edgeKind in kinds
        if n.distance == 1:
            assert n.viaNodeId in seeds and n.viaName == seeds[n.viaNodeId], n
            via_certain = True
        else:
            via = at.get(n.viaNodeId)
            assert via is not None, f"{n.qualifiedName} hangs off {n.viaName}, which is not listed before it"
            assert (via.distance, via.direction) == (n.distance - 1, n.direction), (via, n)
            assert n.viaName == via.qualifiedName
            via_certain = via.certain
        edge = (n.viaNodeId, n.nodeId) if n.direction == "callee" else (n.nodeId, n.viaNodeId)
        confidence = graph.edges.get((*edge, n.edgeKind))
        assert confidence is not None, f"no stored edge {edge} {n.edgeKind} for {n.viaName} / {n.qualifiedName}"
        assert n.certain == (via_certain and confidence >= CERTAIN), n
        assert n.nodeId in graph.reach(list(seeds), n.direction, n.distance, kinds)
        at[n.nodeId] = n


_RELATION = (
    r"(?P<via>\S+) (?P<arrow><-|->)\[(?P<kind>\w+)\] (?P<name>\S+)  (?P<path>\S+):(?P<line>\d+)(?P<guess> \[\? \w*\])?"
)
EXPLORE_LINE = re.compile(rf"^  {_RELATION}(?:  \(d(?P<d>\d+)\))?$")
RELATED_LINE = re.compile(rf"^  (?P<side>callee|caller) d=(?P<d>\d+)  {_RELATION}$")


@dataclass(frozen=True)
class Printed:
    """One relation as the text prints it."""

    via: str
    side: str
    kind: str
    name: str
    path: str
    line: int
    distance: int
    guess: bool


def parse_lines(lines: Sequence[str], pattern: re.Pattern[str]) -> list[Printed]:
    """The relations of a text answer; any line that does not parse fails the test."""
    out = []
    for line in lines:
        m = pattern.match(line)
        assert m is not None, f"unparsed relation line: {line!r}"
        side = m.groupdict().get("side") or ("callee" if m["arrow"] == "->" else "caller")
        assert (m["arrow"] == "->") == (side == "callee"), line
        out.append(
            Printed(m["via"], side, m["kind"], m["name"], m["path"], int(m["line"]), int(m["d"] or 1), bool(m["guess"]))
        )
    return out


def check_text(graph: Graph, roots: set[str], printed: Sequence[Printed], entries: Sequence[Neighbour]) -> None:
    """Every printed relation, read from the text alone, is a stored edge: its via is a root (distance 1) or a
    name printed one hop nearer on the same side, and some node of each name is joined by an edge of that kind."""
    assert len(printed) == len(entries)
    for p, n in zip(printed, entries, strict=True):
        assert (p.name, p.path, p.line, p.distance) == (n.qualifiedName, n.filePath, n.startLine, n.distance)
        assert p.guess == (not n.certain)
    for p in printed:
        if p.distance == 1:
            assert p.via in roots, p
            vias = {i for r in roots if r == p.via for i in graph.ids(r)}
        else:
            nearer = [q for q in printed if q.name == p.via and q.distance == p.distance - 1 and q.side == p.side]
            assert nearer, f"{p.name} hangs off {p.via}, printed nowhere one hop nearer on the {p.side} side"
            vias = graph.ids(p.via)
        ends = graph.ids(p.name)
        pairs = {(v, e) if p.side == "callee" else (e, v) for v in vias for e in ends}
        assert any((s, t, p.kind) in graph.edges for s, t in pairs), f"printed edge not stored: {p}"


def relation_lines(text: str) -> list[str]:
    """The lines under explore's ``related:`` heading."""
    lines = text.splitlines()
    if "related:" not in lines:
        return []
    start = lines.index("related:") + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  ") or line.startswith("  note:"):
            break
        out.append(line)
    return out


# -- the property ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("lang", LANGUAGES)
@PROFILE
@given(data=st.data())
def test_every_explore_relation_is_a_stored_edge(repos: dict[str, Repo], lang: str, data: st.DataObject) -> None:
    repo = repos[lang]
    query = data.draw(st.sampled_from(repo.graph.symbols), label="query")
    hops = data.draw(st.integers(1, 3), label="hops")
    top_k = data.draw(st.integers(1, 4), label="top_k")
    r = repo.svc.explore(query, top_k=top_k, hops=hops)
    seeds = {h.nodeId: h.qualifiedName or h.name for h in r.hits}
    check_entries(repo.graph, seeds, r.neighbours, ("callee", "caller"), hops, EXPAND_KINDS)
    printed = parse_lines(relation_lines(render_explore(r)), EXPLORE_LINE)
    check_text(repo.graph, set(seeds.values()), printed, r.neighbours)
    # The view draws the same answer: every neighbour edge joins two nodes it shows, along the stored edge.
    doc = explore_doc(r)
    shown = {node["id"] for node in doc["nodes"]}
    by_id = {symbol_id(i): i for i in (*seeds, *(n.nodeId for n in r.neighbours))}
    for edge in doc["edges"]:
        assert edge["from"] in shown and edge["to"] in shown
        if edge["kind"] != "links":
            assert (by_id[edge["from"]], by_id[edge["to"]], edge["kind"]) in repo.graph.edges


@pytest.mark.parametrize("lang", LANGUAGES)
@PROFILE
@given(data=st.data())
def test_every_related_relation_is_a_stored_edge(repos: dict[str, Repo], lang: str, data: st.DataObject) -> None:
    repo = repos[lang]
    name = data.draw(st.sampled_from(repo.graph.symbols), label="name")
    direction = data.draw(st.sampled_from(sorted(SIDES)), label="direction")
    hops = data.draw(st.integers(1, 3), label="hops")
    r = repo.svc.related(name, direction, hops)
    assert r.found and r.node is not None
    seeds = {r.node.nodeId: r.node.qualifiedName}
    check_entries(repo.graph, seeds, r.related, SIDES[direction], hops, RELATED_KINDS)
    # Nothing is cut in these small graphs: everything reachable on each side is listed, once.
    reachable = set().union(*(repo.graph.reach(list(seeds), s, hops, RELATED_KINDS) for s in SIDES[direction]))
    assert {n.nodeId for n in r.related} == reachable and not r.truncated
    lines = [line for line in render_related(r).splitlines()[1:] if not line.startswith("  note:")]
    printed = parse_lines(lines, RELATED_LINE)
    check_text(repo.graph, {r.node.qualifiedName}, printed, r.related)


# -- examples a reader can follow ------------------------------------------------------------------------------
def test_a_caller_of_a_callee_is_not_a_caller(repos: dict[str, Repo]) -> None:
    r = repos["python"].svc.related("beta", "both", 2)
    got = {(n.name, n.direction, n.distance, n.viaName) for n in r.related}
    assert got == {
        ("gamma", "callee", 1, "beta"),
        ("delta", "callee", 2, "gamma"),
        ("alpha", "caller", 1, "beta"),
        ("test_beta", "caller", 1, "beta"),
        ("entry", "caller", 2, "alpha"),
        ("test_alpha", "caller", 2, "alpha"),
    }
    assert "epsilon" not in {n.name for n in r.related}  # calls delta, a callee of gamma: not beta's caller


def test_subclasses_of_subclasses_and_bases_of_bases(repos: dict[str, Repo]) -> None:
    svc = repos["typescript"].svc
    down = svc.related("Base", "callers", 2)
    assert [(n.name, n.edgeKind, n.distance, n.viaName) for n in down.related if n.kind == "class"] == [
        ("Middle", "inherits", 1, "Base"),
        ("Leaf", "inherits", 2, "Middle"),
    ]
    up = svc.related("Leaf", "callees", 2)
    assert [(n.name, n.distance, n.viaName) for n in up.related if n.kind == "class"] == [
        ("Middle", 1, "Leaf"),
        ("Base", 2, "Middle"),
    ]


def test_explore_text_names_the_entry_in_between(repos: dict[str, Repo]) -> None:
    # Room for every entry three hops out: the answer's default limit is not what this checks.
    params = DEFAULT_PARAMS.with_value("neighbour_limit", 20)
    r = repos["python"].svc.explore("beta", top_k=1, hops=3, params=params)
    assert r.hits[0].name == "beta"
    lines = relation_lines(render_explore(r))
    assert "  beta ->[calls] gamma  app/leaf.py:4" in lines
    assert "  gamma ->[calls] delta  app/shared.py:1  (d2)" in lines
    assert "  entry <-[calls] main  app/main.py:4  (d3)" in lines
    # The slots a mixed path used to take hold deeper true neighbours: three hops out on both sides.
    assert {n.distance for n in r.neighbours} == {1, 2, 3}


# -- test code in the neighbour slots ----------------------------------------------------------------------------
CORE = {
    "lib/core.py": "def core_step(x):\n    return x\n",
    "lib/users.py": "from lib.core import core_step\n\n\ndef first_user(x):\n    return core_step(x)\n\n\n"
    "def second_user(x):\n    return core_step(x)\n",
    **{
        f"tests/test_case_{i}.py": f"from lib.core import core_step\n\n\ndef check_{i}():\n    assert core_step({i})\n"
        for i in range(5)
    },
}


@pytest.fixture(scope="module")
def core_svc(tmp_path_factory: pytest.TempPathFactory, store_kind: str) -> Iterator[IGraphService]:
    svc = index_repo(make_repo(tmp_path_factory.mktemp("core"), CORE, filler=False, name="core"))
    yield svc
    svc.close()


def _in_tests(neighbours: Sequence[Neighbour]) -> list[str]:
    return [n.name for n in neighbours if n.filePath.startswith("tests/")]


def test_test_code_takes_at_most_its_share_of_neighbour_slots(core_svc: IGraphService) -> None:
    r = core_svc.explore("core_step", top_k=1, hops=1)
    assert r.hits[0].name == "core_step"
    assert len(_in_tests(r.neighbours)) == DEFAULT_PARAMS.test_neighbours == 2
    assert {"first_user", "second_user"} <= {n.name for n in r.neighbours}  # library callers are never cut for it


def test_a_query_about_tests_gets_the_test_callers(core_svc: IGraphService) -> None:
    params = DEFAULT_PARAMS.with_assignments(["per_node_cap=10", "neighbour_limit=10"])
    r = core_svc.explore("tests of core_step", top_k=1, hops=1, params=params)
    assert r.hits[0].name == "core_step"
    assert {n.name for n in r.neighbours if n.kind == "function"} >= {f"check_{i}" for i in range(5)}


def test_the_cap_is_a_parameter(core_svc: IGraphService) -> None:
    none = core_svc.explore("core_step", top_k=1, hops=1, params=DEFAULT_PARAMS.with_value("test_neighbours", 0))
    assert _in_tests(none.neighbours) == [] and len(none.neighbours) == 2


def test_related_lists_test_callers_it_is_asked_for(core_svc: IGraphService) -> None:
    # An explicit graph question answers in full: test callers are callers.
    r = core_svc.related("core_step", "callers")
    assert len(_in_tests(r.related)) == 5
