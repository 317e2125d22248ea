"""The answer budget: what it cuts depends on the answer, never on how long the call took."""

from __future__ import annotations

import pytest

from igraph_mcp.models import Diagnostics, ExploreResult, Hit
from igraph_mcp.retrieve.budget import estimate_tokens, fit_to_budget

STAGES = ("fts", "named", "embed", "dense", "fuse", "expand", "resources", "total")


def _answer(timing: float) -> ExploreResult:
    hits = [
        Hit(
            nodeId=n,
            name=f"handler_{n}",
            qualifiedName=f"pkg.mod.handler_{n}",
            kind="function",
            filePath=f"pkg/mod_{n}.py",
            startLine=1,
            endLine=30,
            score=1.0 / (n + 1),
            matchChannel="fts5",
            snippet="\n".join(f"    value_{n}_{i} = compute(value_{n}_{i - 1})" for i in range(12)),
        )
        for n in range(8)
    ]
    return ExploreResult(query="q", hits=hits, diagnostics=Diagnostics(timingsMs=dict.fromkeys(STAGES, timing)))


def _cut(result: ExploreResult) -> tuple[object, ...]:
    return ([h.model_dump() for h in result.hits], result.budgetNote, result.truncated)


@pytest.mark.parametrize("narrow_by", [0, 8, 24])
def test_the_timings_width_never_decides_a_cut(narrow_by: int) -> None:
    # A budget at the edge of the answer with one-character timings: the answer with eight-character timings (the
    # same ranking, a slower call) must be cut exactly as much. The budget moves over a token boundary per row.
    narrow = _answer(0.0)
    budget = estimate_tokens(narrow.model_dump_json()) - narrow_by
    assert _cut(fit_to_budget(_answer(0.0), budget)) == _cut(fit_to_budget(_answer(12_345.67), budget))


@pytest.mark.parametrize("timing", [0.0, 12_345.67, 99_999.99])
def test_a_cut_answer_fits_with_its_real_timings(timing: float) -> None:
    full = estimate_tokens(_answer(timing).model_dump_json())
    for budget in (full // 2, full - 30, full - 5):
        result = fit_to_budget(_answer(timing), budget)
        assert result.truncated and estimate_tokens(result.model_dump_json()) <= budget
        assert result.diagnostics.timingsMs == dict.fromkeys(STAGES, timing)  # measured, not changed
