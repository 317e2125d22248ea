"""retrieve/folding.py: declarations folded into implementations, type-only hits demoted, each name once (pure)."""

from __future__ import annotations

import pytest

from igraph_mcp.models import Hit, Neighbour
from igraph_mcp.retrieve.analyze import analyze_query
from igraph_mcp.retrieve.folding import (
    fold_declarations,
    fold_forwarders,
    is_type_query,
    unique_names,
    unique_neighbours,
    without_modules_after_their_files,
)
from igraph_mcp.store.records import NodeRow

# id -> (kind, qualified name, path, line, declaration)
NODES: dict[int, tuple[str, str, str, int, bool]] = {
    1: ("function", "parseBody", "types/parse.d.ts", 3, True),
    2: ("function", "parseBody", "lib/parse.js", 10, False),
    3: ("interface", "ParseOptions", "types/parse.d.ts", 9, True),
    4: ("method", "Shape.area", "Shape.java", 3, True),
    5: ("method", "Circle.area", "Circle.java", 4, False),
    6: ("method", "Square.area", "Square.java", 4, False),
    7: ("function", "helper", "lib/util.js", 1, False),
    8: ("type", "Options", "lib/types.ts", 1, False),
    9: ("method", "Reader.read", "reader.go", 5, True),
    10: ("function", "parseBody", "lib/parse.js", 30, False),  # an overload of 2
    11: ("function", "read", "reader.go", 40, False),  # `func read() { std.read() }`: passes the call on to 12
    12: ("method", "Reader.read", "reader.go", 20, False),
    13: ("module", "lib.parse", "lib/parse.js", 1, False),
    14: ("module", "lib.util", "lib/util.js", 1, False),
}


def _row(nid: int) -> NodeRow:
    kind, qname, path, line, decl = NODES[nid]
    return NodeRow(
        nid, 0, path, kind, qname.rsplit(".", 1)[-1], qname, f"sig{nid}", "", line, line + 2, None, True, decl
    )


def _hit(nid: int, score: float) -> Hit:
    row = _row(nid)
    return Hit(
        nodeId=nid,
        name=row.name,
        qualifiedName=row.qualified_name,
        kind=row.kind,
        filePath=row.path,
        startLine=row.start_line,
        endLine=row.end_line,
        signature=row.signature,
        score=score,
        matchChannel="dense",
    )


ROWS = {nid: _row(nid) for nid in NODES}
LINKS = {1: [2], 4: [5, 6], 9: [12, 13]}


def _fold(scores: list[tuple[int, float]], *, type_query: bool = False, kinds: set[str] | None = None) -> list[Hit]:
    return fold_declarations(
        [_hit(n, s) for n, s in scores], ROWS, LINKS, type_query=type_query, type_only=0.5, kinds=kinds
    )


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        # the declaration ranks first: one hit, the implementation's, at the declaration's score
        ([(1, 0.9), (2, 0.5), (7, 0.4)], [(2, 0.9, "types/parse.d.ts:3"), (7, 0.4, "")]),
        # the implementation ranks first: it keeps its score and gets the declaration attached
        ([(2, 0.9), (7, 0.6), (1, 0.5)], [(2, 0.9, "types/parse.d.ts:3"), (7, 0.6, "")]),
        # the implementation is not a candidate: looked up (one implementation)
        ([(1, 0.8), (7, 0.4)], [(2, 0.8, "types/parse.d.ts:3"), (7, 0.4, "")]),
        # an interface member folds into the best-placed of its implementations; the other stays as it is
        ([(4, 0.9), (6, 0.7), (5, 0.6)], [(6, 0.9, "Shape.java:3"), (5, 0.6, "")]),
        # several implementations, none a candidate: the declaration stays, demoted as type-only
        ([(9, 0.8), (7, 0.5)], [(7, 0.5, ""), (9, 0.4, "")]),
        # interfaces and type aliases are demoted for a question about behaviour
        ([(3, 0.9), (8, 0.8), (7, 0.6)], [(7, 0.6, ""), (3, 0.45, ""), (8, 0.4, "")]),
    ],
)
def test_fold_declarations(scores: list[tuple[int, float]], expected: list[tuple[int, float, str]]) -> None:
    got = _fold(scores)
    assert [(h.nodeId, round(h.score, 6), h.declaredAt) for h in got] == expected


def test_a_folded_hit_carries_the_declarations_signature() -> None:
    (first, _) = _fold([(1, 0.9), (7, 0.4)])
    assert (first.declaredSignature, first.boosts) == ("sig1", ["declaration"])


def test_a_type_question_folds_and_demotes_nothing() -> None:
    scores = [(3, 0.9), (1, 0.8), (2, 0.5)]
    assert [(h.nodeId, h.score) for h in _fold(scores, type_query=True)] == scores


def test_a_looked_up_implementation_must_be_of_the_asked_kinds() -> None:
    assert [h.nodeId for h in _fold([(1, 0.9)], kinds={"class"})] == [1]
    assert [h.nodeId for h in _fold([(1, 0.9)], kinds={"function"})] == [2]


@pytest.mark.parametrize(
    "scores",
    [
        [(1, 0.9), (2, 0.5)],  # the declaration first: folded into a later hit
        [(2, 0.5), (7, 0.4), (1, 0.9)],  # the implementation first: the declaration folds into a hit already kept
        [(3, 0.9), (8, 0.8), (7, 0.6)],  # type-only hits demoted
    ],
)
def test_the_input_hits_are_not_changed(scores: list[tuple[int, float]]) -> None:
    hits = [_hit(n, s) for n, s in scores]
    got = fold_declarations(hits, ROWS, LINKS, type_query=False, type_only=0.5)
    assert [(h.score, h.declaredAt, h.boosts) for h in hits] == [(s, "", []) for _, s in scores]
    assert got != [h for h in hits if h.nodeId in {g.nodeId for g in got}]  # the answer did change


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        # the forwarder ranks first: one hit, what it calls, at the forwarder's score, the forwarder named
        ([(11, 0.9), (7, 0.6), (12, 0.5)], [(12, 0.9, ["reader.go:40"]), (7, 0.6, [])]),
        # what it calls ranks first: it keeps its place and names the forwarder
        ([(12, 0.9), (11, 0.7), (7, 0.6)], [(12, 0.9, ["reader.go:40"]), (7, 0.6, [])]),
        # what it calls is no hit: the forwarder is replaced by it
        ([(7, 0.8), (11, 0.7)], [(7, 0.8, []), (12, 0.7, ["reader.go:40"])]),
    ],
)
def test_fold_forwarders(scores: list[tuple[int, float]], expected: list[tuple[int, float, list[str]]]) -> None:
    hits = [_hit(n, s) for n, s in scores]
    got = fold_forwarders(hits, {11: ROWS[12]})
    assert [(h.nodeId, h.score, h.alsoAt) for h in got] == expected
    assert [(h.score, h.alsoAt) for h in hits] == [(s, []) for _, s in scores]  # the input is not changed
    assert fold_forwarders(hits, {}) == hits


@pytest.mark.parametrize(
    ("query", "type_names", "expected"),
    [
        ("where is the request body parsed", set(), False),
        ("how is the content-type header chosen", set(), False),
        ("how is a Content-Type header value parsed into a MIME type", set(), False),
        ("which event type does the parser emit", set(), False),
        ("which interface does the pool implement", set(), True),
        ("what is the type of the options argument", set(), True),
        ("the overload signatures of formatValue", set(), True),
        ("what fields does RequestOptions have", {"RequestOptions"}, True),
        ("how does RetryHandler retry a request", {"RequestOptions"}, False),  # a class, not a type alias
        ("what is declared in types/index.d.ts", set(), True),
        ("structured logging of errors", set(), False),
    ],
)
def test_is_type_query(query: str, type_names: set[str], expected: bool) -> None:
    assert is_type_query(analyze_query(query), type_names) is expected


def test_unique_names_keeps_the_best_placed() -> None:
    hits = [_hit(2, 0.9), _hit(7, 0.8), _hit(1, 0.7)]  # 1 and 2 share the qualified name parseBody
    assert [h.nodeId for h in unique_names(hits)] == [2, 7]


def test_unique_names_per_file_keep_a_name_once_in_each_file() -> None:
    hits = [
        _hit(2, 0.9),
        _hit(10, 0.85),
        _hit(7, 0.8),
        _hit(1, 0.7),
    ]  # parseBody: twice in lib/parse.js, once in types/
    assert [h.nodeId for h in unique_names(hits, per_file=True)] == [2, 7, 1]
    assert [h.nodeId for h in unique_names(hits)] == [2, 7]


def test_unique_names_list_the_same_name_in_other_files() -> None:
    hits = [_hit(2, 0.9), _hit(10, 0.85), _hit(7, 0.8), _hit(1, 0.7)]  # parseBody: 2 and 10 in lib/, 1 in types/
    got = unique_names(hits)
    # The overload in the kept hit's own file is left out; the declaration file's definition is named, not a hit.
    assert [(h.nodeId, h.alsoAt) for h in got] == [(2, ["types/parse.d.ts:3"]), (7, [])]
    assert [h.alsoAt for h in hits] == [[], [], [], []]  # the input hits are not changed
    assert [h.alsoAt for h in unique_names(hits, per_file=True)] == [[], [], []]


def test_unique_names_name_at_most_three_other_places() -> None:
    hits = [_hit(2, 0.9)] + [
        _hit(2, 0.5).model_copy(update={"nodeId": 100 + i, "filePath": f"pkg{i}/parse.js"}) for i in range(5)
    ]
    (only,) = unique_names(hits)
    assert only.alsoAt == ["pkg0/parse.js:10", "pkg1/parse.js:10", "pkg2/parse.js:10"]


def test_unique_names_leave_out_copies_in_non_source_code() -> None:
    kept = _hit(2, 0.9)
    copies = [
        kept.model_copy(update={"nodeId": 200 + i, "filePath": path})
        for i, path in enumerate(["dist/parse.js", "test/parse.test.js", "single_include/parse.hpp", "src/parse.js"])
    ]
    (only,) = unique_names([kept, *copies])
    assert only.alsoAt == ["src/parse.js:10"]
    in_tests = kept.model_copy(update={"filePath": "test/helpers.js"})
    (only,) = unique_names([in_tests, *copies])  # a hit in test code lists the other copies
    assert only.alsoAt == ["dist/parse.js:10", "test/parse.test.js:10", "single_include/parse.hpp:10"]


def test_unique_names_keep_the_projects_own_definition_over_a_copy() -> None:
    original = _hit(2, 0.5)
    bundle = original.model_copy(update={"nodeId": 300, "filePath": "dist/parse.js", "score": 0.9})
    in_tests = original.model_copy(update={"nodeId": 301, "filePath": "test/parse.js", "score": 0.95})
    got = unique_names([_hit(7, 0.99), bundle, original])
    assert [(h.nodeId, h.alsoAt) for h in got] == [(7, []), (2, [])]  # at the bundle's place, the copy not listed
    (kept,) = unique_names([in_tests, original])  # a test is no copy: the best-placed stays
    assert (kept.nodeId, kept.alsoAt) == (301, ["lib/parse.js:10"])
    example = original.model_copy(update={"nodeId": 302, "filePath": "docs/conf.js", "signature": "parseBody(x)"})
    (kept,) = unique_names([example, original])  # another function of that name, not a copy: the best-placed stays
    assert kept.nodeId == 302


def test_unique_neighbours_drop_names_the_answer_holds() -> None:
    hits = [_hit(2, 0.9)]

    def neighbour(nid: int) -> Neighbour:
        h = _hit(nid, 0.1)
        return Neighbour(
            **h.model_dump(include={"nodeId", "name", "qualifiedName", "kind", "filePath", "startLine", "endLine"}),
            score=0.1,
            viaNodeId=2,
            viaName="parseBody",
            edgeKind="calls",
            direction="callee",
            distance=1,
        )

    kept = unique_neighbours(hits, [neighbour(1), neighbour(7), neighbour(7)])
    assert [n.nodeId for n in kept] == [7]


@pytest.mark.parametrize(
    ("order", "by_part", "kept"),
    [
        # below a definition of its file: left out, and the next hit moves up
        ([2, 7, 13, 14], set(), [2, 7]),
        # above it: kept (it is the first this answer says of that file)
        ([13, 2, 7, 14], set(), [13, 2, 7]),
        # found through a part of its top-level code: it points at those lines, so it stays
        ([2, 13, 7], {13}, [2, 13, 7]),
        # no other hit of its file: kept
        ([7, 13], set(), [7, 13]),
    ],
)
def test_a_module_below_a_hit_of_its_own_file_is_left_out(order: list[int], by_part: set[int], kept: list[int]) -> None:
    hits = [_hit(n, 1.0 - i / 10) for i, n in enumerate(order)]
    assert [h.nodeId for h in without_modules_after_their_files(hits, by_part)] == kept


def test_a_module_of_another_repository_with_the_same_path_is_kept() -> None:
    hits = [_hit(2, 0.9), _hit(13, 0.8)]
    hits[1].repo = "other"
    assert [h.nodeId for h in without_modules_after_their_files(hits, set())] == [2, 13]
