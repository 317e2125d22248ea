"""training/adapter_pairs.py: commit pairs as the dense channel reads them, batches within one repository."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

_TRAINING = Path(__file__).resolve().parents[1] / "training"
sys.path.insert(0, str(_TRAINING))  # adapter_pairs imports mine_commits as a sibling, as the scripts run
_spec = importlib.util.spec_from_file_location("adapter_pairs", _TRAINING / "adapter_pairs.py")
assert _spec is not None and _spec.loader is not None
ap = importlib.util.module_from_spec(_spec)
sys.modules["adapter_pairs"] = ap  # dataclasses look their module up there
_spec.loader.exec_module(ap)


def _record(repo: str, split: str, n: int, texts: list[str]) -> dict[str, object]:
    return {
        "repository": repo,
        "split": split,
        "subject": f"Fix the parser of {repo} case {n}",
        "query": f"Fix the parser of {repo} case {n}. It dropped tokens after comment number {n}.",
        "functions": [{"qualified_name": t, "text": t} for t in texts],
    }


def _write(tmp_path: Path, records: list[dict[str, object]]) -> Path:
    out = tmp_path / "commits"
    out.mkdir()
    for rec in records:
        with (out / f"{str(rec['repository']).replace('/', '+')}.jsonl").open("a") as fh:
            fh.write(json.dumps(rec) + "\n")
    return out


def test_a_pair_is_the_issue_shaped_head_and_the_edited_texts_newest_first(tmp_path: Path) -> None:
    records = [_record("a/one", "train", n, [f"function one.f{n}", f"function one.g{n}"]) for n in range(5)]
    records.append(_record("a/one", "train", 9, []))  # names no definition: no pair
    records.append(_record("b/two", "heldout", 0, ["function two.f"]))
    commits = _write(tmp_path, records)
    pairs = ap.commit_pairs(commits, "train", per_repo=3)
    assert [p.documents for p in pairs] == [(f"function one.f{n}", f"function one.g{n}") for n in range(3)]
    # The title line and the body, as the service's dense channel embeds an issue's head.
    assert pairs[0].query == "Fix the parser of a/one case 0\n\nIt dropped tokens after comment number 0."
    assert {p.repository for p in ap.commit_pairs(commits, "heldout", per_repo=3)} == {"b/two"}


def test_batches_stay_in_one_repository_without_repeats_and_mix_in_docstrings() -> None:
    commits = [ap.CommitPair(f"q{r}-{i}", (f"d{r}-{i}", f"e{r}-{i}"), f"repo/{r}") for r in "xyz" for i in range(16)]
    docstrings = [(f"doc q{i}", f"doc d{i}") for i in range(400)]
    batches = ap.batches(commits, docstrings, size=8, docstring_share=0.25, rng=random.Random(3))
    commit_batches = [b for b in batches if not b[0][0].startswith("doc ")]
    doc_batches = [b for b in batches if b[0][0].startswith("doc ")]
    assert len(commit_batches) == 6 and len(doc_batches) == 2  # a quarter of all batches
    for b in commit_batches:
        assert len({q.split("-")[0] for q, _ in b}) == 1  # one repository per batch
        assert all(d[1:] == q[1:] for q, d in b)  # each query with one of its own edited definitions
    assert sorted(q for b in commit_batches for q, _ in b) == sorted(p.query for p in commits)
    only_docstrings = ap.batches([], docstrings, size=8, docstring_share=1.0, rng=random.Random(3))
    assert sorted(q for b in only_docstrings for q, _ in b) == sorted(q for q, _ in docstrings)
    only_commits = ap.batches(commits, docstrings, size=8, docstring_share=0.0, rng=random.Random(3))
    assert len(only_commits) == 6 and not any(q.startswith("doc ") for b in only_commits for q, _ in b)


def test_a_batch_never_holds_a_text_twice_and_a_short_remainder_is_dropped() -> None:
    rows = [("q1", "d1"), ("q2", "d1"), ("q1", "d3"), *[(f"q{i}", f"d{i}") for i in range(4, 12)]]
    cut = list(ap._cut(rows, 8))
    assert cut == [[("q1", "d1"), *[(f"q{i}", f"d{i}") for i in range(4, 11)]]]  # q11 alone is under MIN_BATCH
    texts = [t for pair in cut[0] for t in pair]
    assert len(texts) == len(set(texts))


def test_a_pool_ranks_a_repository_s_newest_queries_against_its_recent_edits() -> None:
    held = [ap.CommitPair(f"q{i}", (f"d{i}", "shared"), "h/one") for i in range(6)]
    held.append(ap.CommitPair("other", ("elsewhere",), "h/two"))
    pools = ap.heldout_pools(held, queries=2, history=4)
    one = next(p for p in pools if p.repository == "h/one")
    assert one.queries == ("q0", "q1")
    assert one.documents == ("d0", "shared", "d1", "d2", "d3")
    assert one.gold == (frozenset({0, 1}), frozenset({2, 1}))
    assert next(p for p in pools if p.repository == "h/two").documents == ("elsewhere",)
