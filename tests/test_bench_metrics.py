"""Table-driven tests for the benchmark metrics and the pure parts of the benchmark data code."""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_data as bd  # benchmarks/ is not a package: imported via sys.path
import metrics as m

CLASSES = frozenset({"a.py::Foo", "a.py::Foo.Inner"})


@pytest.mark.parametrize(
    ("gold", "hit", "expected"),
    [
        ("a.py::Foo.bar", ("a.py", "Foo.bar"), True),
        ("a.py::Foo.bar", ("./a.py", "Foo.bar"), True),  # leading ./ ignored
        ("a.py::Foo.bar", ("b.py", "Foo.bar"), False),  # other file
        ("a.py::Foo.bar", ("a.py", "Foo.baz"), False),
        ("a.py::Foo.bar", ("a.py", "Foo"), False),  # a class never stands in for its methods
        ("a.py::Foo", ("a.py", "Foo.bar"), False),  # nor a method for its class
        ("a.py::func", ("a.py", "func.inner"), True),  # nested def is part of the gold function
        ("a.py::func.inner", ("a.py", "func"), True),  # gold nested in a returned function
        ("a.py::Foo.Inner.m", ("a.py", "Foo.Inner"), False),  # nested class is a class
        ("a.py::Foo.Inner.m", ("a.py", "Foo.Inner.m"), True),
        ("a.py::func", ("a.py", "funcx"), False),  # prefix only on a dot boundary
        ("a.py::func", ("a.py", ""), False),  # a file-level hit has no qualname
    ],
)
def test_function_match(gold: str, hit: tuple[str, str], expected: bool) -> None:
    assert m.function_match(gold, hit, CLASSES) is expected


def test_function_match_without_kinds_is_lenient_both_ways() -> None:
    assert m.function_match("a.py::Foo", ("a.py", "Foo.bar"))
    assert m.function_match("a.py::Foo.bar", ("a.py", "Foo"))


def test_split_key_rejects_a_key_without_separator() -> None:
    with pytest.raises(ValueError, match="path::qualname"):
        m.split_key("a.py:Foo")


@pytest.mark.parametrize(
    ("ranks", "k", "acc", "rec"),
    [
        ([1], 1, 1.0, 1.0),
        ([2], 1, 0.0, 0.0),
        ([1, 3], 3, 1.0, 1.0),
        ([1, 4], 3, 0.0, 0.5),  # strict: every gold must be within k
        ([None, 1], 10, 0.0, 0.5),
        ([], 5, 0.0, 0.0),  # no gold: nothing to find
    ],
)
def test_strict_accuracy_and_recall(ranks: list[int | None], k: int, acc: float, rec: float) -> None:
    assert m.strict_accuracy(ranks, k) == acc
    assert m.recall(ranks, k) == rec


@pytest.mark.parametrize(
    ("ranks", "cutoff", "expected"),
    [
        ([3], 10, 1 / 3),
        ([4, 2], 10, 0.5),
        ([None], 10, 0.0),
        ([11], 10, 0.0),
        ([11], 20, 1 / 11),
        ([], 10, 0.0),
    ],
)
def test_reciprocal_rank_uses_first_gold_hit(ranks: list[int | None], cutoff: int, expected: float) -> None:
    assert m.reciprocal_rank(ranks, cutoff) == pytest.approx(expected)


def test_file_ranks_dedupes_and_normalizes() -> None:
    ranked = ["x.py", "./x.py", "a\\b.py", "y.py"]
    assert m.file_ranks(["a/b.py", "y.py", "z.py"], ranked) == [2, 3, None]


def test_function_ranks_use_first_matching_hit() -> None:
    ranked = [("a.py", "f"), ("a.py", "Foo.bar"), ("a.py", "Foo.bar"), ("b.py", "g")]
    assert m.function_ranks(["a.py::Foo.bar", "b.py::g", "c.py::h"], ranked, CLASSES) == [2, 4, None]


def test_devset_metrics_row() -> None:
    out = m.devset_metrics(
        gold_files=["a.py", "b.py"],
        gold_functions=["a.py::f", "b.py::g"],
        ranked_files=["c.py", "a.py", "d.py", "e.py", "b.py"],
        ranked_functions=[("a.py", "f")] + [("c.py", f"x{i}") for i in range(8)] + [("b.py", "g")],
    )
    assert out == {
        "file_acc@1": 0.0,
        "file_acc@3": 0.0,
        "file_acc@5": 1.0,
        "file_acc@10": 1.0,
        "file_mrr": 0.5,
        "func_acc@5": 0.0,
        "func_acc@10": 1.0,
        "func_recall@10": 1.0,
        "func_mrr": 1.0,
    }


def test_devset_metrics_without_gold_functions_skips_function_level() -> None:
    out = m.devset_metrics(["a.py"], [], ["a.py"], [])
    assert out["file_acc@1"] == 1.0
    assert out["func_acc@10"] is None and out["func_mrr"] is None


@pytest.mark.parametrize(
    ("position", "expected"),
    [
        (0, {"acc@1": 1.0, "acc@5": 1.0, "acc@10": 1.0, "mrr@10": 1.0}),
        (4, {"acc@1": 0.0, "acc@5": 1.0, "acc@10": 1.0, "mrr@10": 0.2}),
        (9, {"acc@1": 0.0, "acc@5": 0.0, "acc@10": 1.0, "mrr@10": 0.1}),
        (10, {"acc@1": 0.0, "acc@5": 0.0, "acc@10": 0.0, "mrr@10": 0.0}),
    ],
)
def test_docstring_metrics(position: int, expected: dict[str, float]) -> None:
    ranked = [("x.py", f"f{i}") for i in range(12)]
    ranked.insert(position, ("a.py", "Foo.bar"))
    assert m.docstring_metrics("a.py::Foo.bar", ranked) == pytest.approx(expected)


def test_mean_metrics_ignores_none() -> None:
    rows = [{"a": 1.0, "b": None}, {"a": 0.0, "b": 0.5}, {"a": 0.5, "b": None}]
    assert m.mean_metrics(rows) == {"a": 0.5, "b": 0.5}
    assert m.mean_metrics([{"c": None}]) == {"c": None}


def test_reachable_golds_drops_symbols_missing_from_tree() -> None:
    keys = {"a.py::Foo", "a.py::Foo.bar", "b.py::g"}
    golds = ["a.py::Foo.bar", "a.py::Foo.new_method", "b.py::g.inner", "c.py::h"]
    assert m.reachable_golds(golds, keys, frozenset({"a.py::Foo"})) == ["a.py::Foo.bar", "b.py::g.inner"]


# ----------------------------------------------------------------- data helpers


def _inst(iid: str, project: str, version: str) -> bd.DevInstance:
    return bd.DevInstance(iid, project, version, "q", ("f.py",), ())


def test_select_devset_prefers_big_trees_with_diminishing_returns_per_project() -> None:
    rows = [_inst(f"d{i}", "Django", "2") for i in range(10)]
    rows += [_inst(f"e{i}", "Django", "3") for i in range(8)]
    rows += [_inst(f"s{i}", "sympy", "1") for i in range(5)]
    rows += [_inst("r0", "requests", "2")]
    picked = bd.select_devset(rows, max_trees=3)
    # Django 3 gains 8/2 = 4 < sympy's 5, so sympy comes second.
    assert [(t.project, t.version) for t in picked] == [("Django", "2"), ("sympy", "1"), ("Django", "3")]
    capped = bd.select_devset(rows, max_trees=3, max_instances=7)
    assert [len(t.instances) for t in capped] == [3, 2, 2]  # round-robin keeps every tree
    assert capped[0].instances[0].instance_id == "d0"


def test_round_robin_cap() -> None:
    assert bd.round_robin([[1, 2, 3], [4], [5, 6]], 4) == [[1, 2], [4], [5]]
    assert bd.round_robin([[1], [2]], None) == [[1], [2]]


SOURCE = '''"""Module doc."""
import os


class Foo:
    """Foo does things.

    More text.
    """

    x = 1

    def bar(self):  # keep me
        """Return the bar value of the foo object."""
        return os.sep

    def baz(self):
        """Multi-line
        docstring."""; y = 2
        return y


def func():
    def inner():
        """Inner doc."""
    return inner
'''


def test_strip_docstrings_keeps_lines_and_code() -> None:
    result = bd.strip_docstrings(SOURCE.encode())
    out = result.source.decode()
    assert result.ok
    assert out.count("\n") == SOURCE.count("\n")
    assert "doc" not in out.lower()
    assert "    def bar(self):  # keep me\n        ...\n        return os.sep" in out
    assert "        ...; y = 2\n" in out  # code after the literal stays on its logical line
    tree = ast.parse(out)
    assert [type(n).__name__ for n in tree.body] == ["Expr", "Import", "ClassDef", "FunctionDef"]
    lines_before = {n.name: n.lineno for n in ast.walk(ast.parse(SOURCE)) if isinstance(n, ast.FunctionDef)}
    lines_after = {n.name: n.lineno for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert lines_before == lines_after
    assert result.docstrings["Foo"].startswith("Foo does things.")
    assert result.docstrings[""] == "Module doc."
    assert "func.inner" in result.docstrings


def test_strip_docstrings_reports_unparsable_source() -> None:
    result = bd.strip_docstrings(b"def broken(:\n")
    assert not result.ok and result.source == b"def broken(:\n"


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("Return the bar value.\n\nDetails here.", "Return the bar value."),
        ("Return the\n   bar value of it.", "Return the bar value of it."),
        ("Too short.", None),
        (":param x: the value of x", None),
        (">>> foo(1) returns two", None),
    ],
)
def test_docstring_to_query(doc: str, expected: str | None) -> None:
    assert bd.docstring_to_query(doc) == expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/pkg/core.py", True),
        ("pkg/tests/test_core.py", False),
        ("pkg/test_core.py", False),
        ("docs/conf.py", False),
        ("setup.py", False),
        ("pkg/conftest.py", False),
    ],
)
def test_is_library_path(path: str, expected: bool) -> None:
    assert bd.is_library_path(path) is expected


def test_build_docstring_tree_emits_unambiguous_queries(tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "core.py").write_text(SOURCE)
    (src / "pkg" / "dup.py").write_text(
        'def a():\n    """Same words in two places."""\n\n\ndef b():\n    """Same words in two places."""\n'
    )
    (src / "README.md").write_text("Return the bar value of the foo object.")
    queries = bd.build_docstring_tree(src, tmp_path / "out", "pkg")
    # Foo (3 words), Foo.baz and inner are too short; dup.py's two identical texts are ambiguous.
    assert {q.gold: q.query for q in queries} == {"pkg/core.py::Foo.bar": "Return the bar value of the foo object."}
    assert not (tmp_path / "out" / "README.md").exists()  # only .py files are copied
    assert "Return the bar" not in (tmp_path / "out" / "pkg" / "core.py").read_text()


def test_service_adapter_maps_hits_and_neighbours() -> None:
    import service_runs as retrieval

    from igraph_mcp.retrieve.params import DEFAULT_PARAMS

    hit = SimpleNamespace(filePath="a.py", qualifiedName="f", score=1.0)  # the service's camelCase models
    nb = SimpleNamespace(filePath="b.py", qualifiedName="g", score=0.5)
    calls = []

    class FakeService:
        retrieval_params = DEFAULT_PARAMS

        def explore(
            self, query: str, top_k: int, hops: int, channels: tuple[str, ...], max_tokens: int, params: object
        ) -> SimpleNamespace:
            assert params is DEFAULT_PARAMS  # no --param: the service's own parameters
            calls.append((len(query), top_k, hops, channels, max_tokens))
            return SimpleNamespace(hits=[hit], neighbours=[nb], files=[SimpleNamespace(filePath="a.py")])

    plain = retrieval.service_search(FakeService(), "q" * 20000, "hybrid")
    graph = retrieval.service_search(FakeService(), "q", "hybrid+graph")
    assert plain.functions == [("a.py", "f")] and plain.files == ["a.py"]
    assert graph.functions == [("a.py", "f"), ("b.py", "g")]
    budget = retrieval.MAX_TOKENS
    assert calls == [
        (retrieval.MAX_QUERY_CHARS, 10, 0, ("fts", "dense"), budget),
        (1, retrieval.GRAPH_TOP_K, 2, ("fts", "dense"), budget),  # the agent's default call: 5 hits + neighbours
        (1, 10, 0, ("fts", "dense"), budget),  # files come from the 10-hit ranking
    ]


def test_default_call_reports_text_and_structured_tokens(indexed_service: Any) -> None:
    import json

    import service_runs

    from igraph_mcp.render import render_explore
    from igraph_mcp.retrieve.budget import estimate_tokens
    from igraph_mcp.structured import compact

    ranking, tokens = service_runs.default_call(indexed_service, "check the password of a user")
    answer = indexed_service.explore("check the password of a user")
    assert ranking.functions and tokens.text == estimate_tokens(render_explore(answer))
    assert tokens.structured == estimate_tokens(json.dumps(compact(answer), separators=(",", ":")))
    assert tokens.both == tokens.text + tokens.structured and 0 < tokens.structured < tokens.text * 1.5


def test_retrieval_table_shows_text_structured_and_both_token_medians() -> None:
    import retrieval

    records = [
        {"system": "default", "half": "heldout", "seconds": 0.1, "error": None, "metrics": {"func_acc@10": 1.0}}
        | ({"tokens": text, "structured_tokens": text // 2, "total_tokens": text + text // 2} if text else {})
        for text in (100, 300, 200, 0)
    ]
    summary = retrieval.summarize([{"set": "devset", "tree": "t", "records": records}])
    row = summary["devset/heldout"]["default"]
    assert (row["median_tokens"], row["median_structured_tokens"], row["median_total_tokens"]) == (200, 100, 300)
    header, line = retrieval.format_table("devset/heldout", summary["devset/heldout"], ["default"]).splitlines()[1:]
    assert header.split()[-3:] == ["tok", "stok", "tok+s"] and line.split()[-3:] == ["200", "100", "300"]


def test_devset_split_puts_every_repository_with_two_instances_on_both_sides() -> None:
    from devset_half import split_instances

    rows = [(f"r1-{i}", "r1") for i in range(5)] + [("r2-0", "r2"), ("r2-1", "r2"), ("r3-0", "r3")]
    split = split_instances(rows)
    assert sorted(split["tuning"] + split["heldout"]) == sorted(i for i, _ in rows)
    assert {len([i for i in split[h] if i.startswith("r1")]) for h in ("tuning", "heldout")} == {2, 3}
    assert all(any(i.startswith("r2") for i in split[h]) for h in ("tuning", "heldout"))
    assert split == split_instances(list(reversed(rows)))  # order of the file does not matter


def test_committed_split_is_the_rule_applied_to_its_own_ids() -> None:
    import json

    from devset_half import SPLIT_FILE, load_split

    halves = load_split()
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    assert len(halves) == len(data["tuning"]) + len(data["heldout"])  # no instance on both sides
    assert set(data["tuning"]).isdisjoint(data["heldout"])


def test_default_call_sweep_says_where_the_answer_put_what() -> None:
    from types import SimpleNamespace

    import default_call

    def node(path: str, name: str, part: list[int] | None = None, also: list[str] | None = None) -> SimpleNamespace:
        return SimpleNamespace(filePath=path, qualifiedName=name, partLines=part, alsoAt=also or [])

    result = SimpleNamespace(
        hits=[
            node("a.py", "long_one", [40, 60]),
            node("a.py", "short_one", also=["d/a.py:3"]),
            node("b.py", "other", [9, 20]),
        ],
        neighbours=[node("c.py", "callee")],
    )
    got = default_call.answer_of(result)
    assert got.part_hits == 2
    assert got.hits == [("a.py", "long_one"), ("a.py", "short_one"), ("b.py", "other")]
    # The place a hit names (alsoAt) is held by the answer, after every ranked entry.
    assert got.ranked == [*got.hits, ("c.py", "callee"), ("d/a.py", "short_one")]
