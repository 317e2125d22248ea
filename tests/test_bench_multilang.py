"""The multilang benchmark's pure parts: name matching across spellings, the instance file, its code symbols and
its per-language table (no network, no fetched trees)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_data as bd  # benchmarks/ is not a package: imported via sys.path
import metrics as m
import retrieval
import service_runs as sr

CLASSES = frozenset({"m.cpp::Catch", "m.cpp::Catch.Capturer", "m.cpp::Catch.Column", "m.cpp::Catch.Column.iter"})


@pytest.mark.parametrize(
    ("gold", "hit", "expected"),
    [
        ("m.cpp::Capturer.Capturer", ("m.cpp", "Catch.Capturer.Capturer"), True),  # the gold leaves out namespaces
        ("m.cpp::Capturer.Capturer", ("m.cpp", "Capturer::Capturer"), True),  # a C++ qualifier is a dot
        ("m.cpp::ExprLhs.operator==", ("m.cpp", "Catch.ExprLhs.operator =="), True),  # no spaces in operators
        ("m.cpp::ExprLhs.operator==", ("m.cpp", "Catch.ExprLhs.operator !="), False),
        ("m.cpp::Capturer.Capturer", ("m.cpp", "Catch.Capturer"), False),  # a class never stands in for a method
        ("m.cpp::Capturer.Capturer", ("m.cpp", "Catch"), False),  # nor a namespace
        ("m.cpp::Capturer", ("m.cpp", "Catch.Capturer.capture"), False),  # nor a method for its class
        ("m.cpp::Column.iter.next", ("m.cpp", "Catch.Column.iter.next"), True),  # nested classes
        ("m.cpp::Column.iter.next", ("m.cpp", "Catch.Column.iter"), False),
        ("m.cpp::value", ("m.cpp", "nlohmann.basic_json.value"), True),  # the devset's known mis-parse
        ("m.cpp::apture.Capturer", ("m.cpp", "Catch.Capturer.Capturer"), False),  # on name boundaries only
        ("m.cpp::Capturer.Capturer", ("n.cpp", "Catch.Capturer.Capturer"), False),  # other file
        ("m.cpp::run", ("m.cpp", "run.lambda"), True),  # a definition inside the gold function is part of it
        ("m.cpp::run.lambda", ("m.cpp", "ns.run"), True),  # the gold lies inside a returned function
        ("m.cpp::run", ("m.cpp", ""), False),  # a file-level hit has no name
        ("a.c::ZSTD_compress", ("./a.c", "ZSTD_compress"), True),
    ],
)
def test_code_function_match(gold: str, hit: tuple[str, str], expected: bool) -> None:
    assert m.code_function_match(gold, hit, CLASSES) is expected


def test_code_names_and_keys() -> None:
    assert m.code_name("Catch::Capturer::operator ()") == "Catch.Capturer.operator()"
    assert m.code_key("src/a.cpp::Catch::Column") == "src/a.cpp::Catch.Column"


def test_matcher_reaches_ranks_metrics_and_reachability() -> None:
    golds = ["m.cpp::Capturer.Capturer", "m.cpp::gone"]
    ranked = [("m.cpp", "Catch.Capturer"), ("m.cpp", "Catch.Capturer.Capturer")]
    assert m.function_ranks(golds, ranked, CLASSES, m.code_function_match) == [2, None]
    assert m.function_ranks(golds, ranked, CLASSES) == [None, None]  # Python's rule: names as written
    symbols = {"m.cpp::Catch.Capturer", "m.cpp::Catch.Capturer.Capturer"}
    assert m.reachable_golds(golds, symbols, CLASSES, m.code_function_match) == ["m.cpp::Capturer.Capturer"]
    row = m.devset_metrics(["m.cpp"], golds[:1], ["m.cpp"], ranked, CLASSES, m.code_function_match)
    assert (row["file_acc@1"], row["func_acc@5"], row["func_mrr"]) == (1.0, 1.0, 0.5)


def _write_instances(path: Path) -> None:
    rows = [
        ("o__a-1", "o/a", "cpp", "tuning"),
        ("o__a-2", "o/a", "cpp", "tuning"),
        ("o__b-1", "o/b", "java", "tuning"),
        ("o__c-1", "o/c", "rust", "heldout"),
    ]
    lines = [
        json.dumps(
            {
                "instance_id": i,
                "repo": repo,
                "language": lang,
                "base_commit": "0" * 40,
                "split": half,
                "problem_statement": f"issue {i}",
                "gold_files": ["x.cpp"],
                "gold_functions": ["x.cpp::f"],
            }
        )
        for i, repo, lang, half in rows
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_multilang_tasks_filter_half_repos_languages_and_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "instances.jsonl"
    _write_instances(data)
    fetched: list[str] = []

    def fake_fetch(instance_id: str, data: Path, cache: Path, script: Path, mirrors: Path) -> Path:
        fetched.append(instance_id)
        return cache / instance_id

    monkeypatch.setattr(bd, "fetch_multilang_tree", fake_fetch)

    def tasks(**kw: object) -> list[sr.TreeTask]:
        args = {"half": "tuning", "multilang_file": data, "repos": None, "languages": None, "limit": None}
        args |= {"fetch_tree": None, "mirrors": tmp_path}
        return sr.multilang_tasks(SimpleNamespace(**(args | kw)), tmp_path)

    def labels(**kw: object) -> list[str]:
        return [t.label for t in tasks(**kw)]

    assert labels() == ["o__a-1", "o__a-2", "o__b-1"]
    assert labels(limit=2) == ["o__a-1", "o__b-1"]  # round-robin over repositories
    assert labels(repos="o/b,o__a-2") == ["o__a-2", "o__b-1"]
    assert labels(languages="java") == ["o__b-1"]
    assert labels(half="heldout") == ["o__c-1"]
    assert "o__c-1" in fetched and "o__c-2" not in fetched
    (case,) = tasks(half="heldout")[0].cases
    assert (case.language, case.half, case.gold_functions) == ("rust", "heldout", ("x.cpp::f",))


def test_extract_code_symbols_reads_cpp_headers_as_cpp(tmp_path: Path) -> None:
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "msg.h").write_text(
        "namespace Catch {\nclass Capturer {\npublic:\n    void capture(int v) { (void)v; }\n};\n}\n", encoding="utf-8"
    )
    (tmp_path / "lib.c").write_text("static int add(int a, int b) { return a + b; }\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not code", encoding="utf-8")
    symbols, sources, failed = bd.extract_code_symbols(tmp_path)
    keys = {s.key: s.kind for s in symbols}
    assert keys["inc/msg.h::Catch.Capturer.capture"] == "function"
    assert keys["inc/msg.h::Catch.Capturer"] == "class"
    assert keys["lib.c::add"] == "function"
    assert sorted(sources) == ["inc/msg.h", "lib.c"] and failed == 0


def test_extract_code_symbols_counts_a_broken_link_and_goes_on(tmp_path: Path) -> None:
    # Leaflet's debug/leaflet-include.js links to a file its tree no longer has.
    (tmp_path / "debug").mkdir()
    (tmp_path / "debug" / "leaflet-include.js").symlink_to("leaflet-rollup-src.js")
    (tmp_path / "map.js").write_text("function draw() { return 1; }\n", encoding="utf-8")
    symbols, sources, failed = bd.extract_code_symbols(tmp_path)
    assert sorted(sources) == ["map.js"] and failed == 1
    assert "map.js::draw" in {s.key for s in symbols}


def test_language_table_rows_per_half_language_and_system() -> None:
    def rec(half: str, language: str, system: str, acc5: float) -> dict[str, object]:
        metrics = {"file_acc@1": 0.0, "file_acc@5": acc5, "file_acc@10": 1.0, "func_acc@10": None}
        if system == "default":
            metrics["holds_edited"] = 1.0
        return {"half": half, "language": language, "system": system, "seconds": 0.0, "error": None, "metrics": metrics}

    trees = [
        {
            "set": "multilang",
            "tree": "t1",
            "records": [rec("tuning", "c", "bm25", 0.0), rec("tuning", "c", "default", 1.0)],
        },
        {
            "set": "multilang",
            "tree": "t2",
            "records": [rec("tuning", "java", "bm25", 1.0), rec("tuning", "java", "default", 1.0)],
        },
    ]
    table = retrieval.language_table(retrieval.summarize(trees), ["bm25", "default"])
    rows = [line.split() for line in table.splitlines()[2:]]
    assert ["tuning", "c", "bm25", "1", "0.0", "0.0", "100.0", "-", "-"] in rows
    assert ["tuning", "java", "default", "1", "0.0", "100.0", "100.0", "-", "100.0"] in rows
    assert ["tuning", "all", "bm25", "2", "0.0", "50.0", "100.0", "-", "-"] in rows
    assert len(rows) == 6 and not any(r[0] == "all" for r in rows)  # one half ran: no both-halves block
    trees.append({"set": "multilang", "tree": "t3", "records": [rec("heldout", "c", "default", 0.0)]})
    rows = [line.split() for line in retrieval.language_table(retrieval.summarize(trees), ["default"]).splitlines()]
    assert ["heldout", "c", "default", "1", "0.0", "0.0", "100.0", "-", "100.0"] in rows
    assert ["all", "c", "default", "2", "0.0", "50.0", "100.0", "-", "100.0"] in rows
    assert ["all", "all", "default", "3", "0.0", "66.7", "100.0", "-", "100.0"] in rows


def test_the_tree_writer_beside_the_instance_file_is_preferred(tmp_path: Path) -> None:
    data = tmp_path / "instances.jsonl"
    assert bd.multilang_fetch_script(data).name == "fetch_multilang_tree.py"  # none beside it: the shared one
    (tmp_path / "fetch_multilang_tree.py").write_text("", encoding="utf-8")
    assert bd.multilang_fetch_script(data) == tmp_path / "fetch_multilang_tree.py"
    (tmp_path / "fetch_tree.py").write_text("", encoding="utf-8")
    assert bd.multilang_fetch_script(data) == tmp_path / "fetch_tree.py"
