"""One answer from several repositories' answers: labels, the fused ranking, one token budget, merged lookups.

Each repository ranks its own candidates with its own stages (``retrieve.stages.run``); what is fused here is
the ranked lists those runs return. ``by_score`` merges them on the hits' final scores: every repository's
scores are the same weighted-RRF sums with the same boosts, so channel agreement and exact-name boosts carry
over, where rank-only RRF or a per-repository normalisation puts each repository's best hit level with the
others' however weak it is. Measured with ``benchmarks/workspace_fusion.py`` (200 docstring queries per
workspace, MRR@10; README "Workspaces"): requests + flask 49.4 by score against 40.3 for rank-only RRF, 39.1
max-normalised, 39.9 min-max; pytest + pylint 43.1 against 30.3, 29.5, 30.2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from igraph_mcp.models import ExploreResult, FileDetail, Neighbour, NodeDetail, NodeSummary, RelatedResult
from igraph_mcp.retrieve.budget import fit_to_budget

# (repository -> its scores, best first) -> (repository, index in its list), best first
Order = Callable[[Mapping[str, Sequence[float]]], list[tuple[str, int]]]
_R = TypeVar("_R", NodeDetail, FileDetail, RelatedResult)


def by_score(scores: Mapping[str, Sequence[float]]) -> list[tuple[str, int]]:
    """Merge ranked lists on their scores; ties keep the better rank, then the workspace's repository order."""
    order = {name: i for i, name in enumerate(scores)}
    flat = [(name, i, s) for name, values in scores.items() for i, s in enumerate(values)]
    flat.sort(key=lambda t: (-t[2], t[1], order[t[0]]))
    return [(name, i) for name, i, _ in flat]


def label_explore(result: ExploreResult, repo: str) -> ExploreResult:
    """Mark every hit, file, neighbour and resource of ``result`` as coming from ``repo`` (in place)."""
    for group in (result.hits, result.files, result.neighbours, result.resources):
        for item in group:
            item.repo = repo
    return result


def fuse_answers(
    answers: Sequence[tuple[str, ExploreResult]],
    *,
    top_k: int,
    max_tokens: int,
    snippet_hits: int,
    neighbour_limit: int,
    unavailable: Mapping[str, str] | None = None,
    order: Order = by_score,
) -> ExploreResult:
    """The workspace's answer: ``top_k`` hits over all ``answers`` (labelled, best first per ``order``), their
    files, neighbours and resources, diagnostics per repository, then the token budget once for the whole."""
    by_repo = dict(answers)
    merged = order({name: [h.score for h in r.hits] for name, r in answers})
    hits = [by_repo[name].hits[i] for name, i in merged[:top_k]]
    for h in hits[snippet_hits:]:
        h.snippet = ""  # the first hits of the answer carry the snippets, wherever they come from
    kept = {(h.repo, h.nodeId) for h in hits}
    files_order = order({name: [f.score for f in r.files] for name, r in answers})
    files = [by_repo[name].files[i] for name, i in files_order[: max(top_k, 10)]]
    neighbours = _hanging_off(kept, (n for _, r in answers for n in r.neighbours), neighbour_limit)
    resources = sorted((x for _, r in answers for x in r.resources), key=lambda x: -x.score)
    result = ExploreResult(
        query=answers[0][1].query, hits=hits, files=files, neighbours=neighbours, resources=resources
    )
    _merge_diagnostics(result, answers, unavailable or {})
    return fit_to_budget(result, max_tokens)


def _hanging_off(kept: set[tuple[str | None, int]], candidates: Iterable[Neighbour], limit: int) -> list[Neighbour]:
    """The best ``limit`` neighbours whose path starts at a kept hit: each hangs off a kept hit or off a neighbour
    taken before it (one repository's list is best first, so that one comes first; sorting keeps ties in order)."""
    held = set(kept)
    out: list[Neighbour] = []
    for n in sorted(candidates, key=lambda n: -n.score):
        if len(out) >= limit:
            break
        if (n.repo, n.viaNodeId) in held:
            out.append(n)
            held.add((n.repo, n.nodeId))
    return out


def _merge_diagnostics(
    result: ExploreResult, answers: Sequence[tuple[str, ExploreResult]], unavailable: Mapping[str, str]
) -> None:
    d = result.diagnostics
    notes: list[str] = []
    coverage: list[float] = []
    for name, r in answers:
        rd = r.diagnostics
        d.channels += [c for c in rd.channels if c not in d.channels]
        d.degraded = d.degraded or r.degraded
        d.fallbackTriggered = d.fallbackTriggered or rd.fallbackTriggered
        for key, count in rd.candidates.items():
            d.candidates[key] = d.candidates.get(key, 0) + count
        d.timingsMs[f"{name}.total"] = rd.timingsMs.get("total", 0.0)
        d.staleFiles += [f"{name}:{path}" for path in rd.staleFiles]
        if rd.denseCoverage is not None:
            coverage.append(rd.denseCoverage)
        if rd.note:
            notes.append(f"{name}: {rd.note}")
        if rd.resourceNote:
            d.resourceNote = "; ".join(filter(None, [d.resourceNote, f"{name}: {rd.resourceNote}"]))
    for name, why in unavailable.items():
        notes.append(f"repository '{name}' left out of this answer: {why}")
    d.denseCoverage = min(coverage) if coverage else None
    d.degraded = d.degraded or bool(unavailable)
    d.note = "; ".join(notes) if notes else None
    result.degraded, result.note = d.degraded, d.note


# -- node, file, related ---------------------------------------------------------------------------------------
def label_lookup(result: _R, repo: str) -> _R:
    """Mark a lookup answer, its symbol, candidates and related symbols as coming from ``repo`` (in place)."""
    result.repo = repo
    if isinstance(result, FileDetail):
        result.candidates = [f"{repo}:{c}" for c in result.candidates]
        return result
    summaries: list[NodeSummary] = [*result.candidates, *([result.node] if result.node else [])]
    for s in summaries:
        s.repo = repo
    if isinstance(result, RelatedResult):
        for n in result.related:
            n.repo = repo
    return result


def merge_lookups(answers: Sequence[tuple[str, _R]], what: str, failed: Mapping[str, str]) -> _R:
    """One lookup answer from several repositories': the one that found it; else an 'ambiguous: name a repo'
    answer listing each repository's match or candidates; else the first's not-found answer."""
    labelled = [(name, label_lookup(r, name)) for name, r in answers]
    found = [(name, r) for name, r in labelled if r.found]
    note = "; ".join(f"repository '{n}' did not answer: {why}" for n, why in failed.items()) or None
    if len(found) == 1:
        result = found[0][1]
        result.message = "; ".join(filter(None, [result.message, note])) or None
        return result
    with_candidates = [(name, r) for name, r in labelled if r.candidates]
    if not found and len(with_candidates) == 1:
        result = with_candidates[0][1]
    elif found or with_candidates:
        result = _ambiguous(labelled, what, [name for name, _ in (found or with_candidates)])
    else:
        result = labelled[0][1]
    result.message = "; ".join(filter(None, [result.message, note])) or None
    return result


def _ambiguous(labelled: Sequence[tuple[str, _R]], what: str, names: Sequence[str]) -> _R:
    first = labelled[0][1]
    message = f"{what} matches in several repositories ({', '.join(names)}): call again with repo set to one of them"
    if isinstance(first, FileDetail):
        paths = [c for _, r in labelled for c in ([f"{r.repo}:{r.filePath}"] if r.found else r.candidates)]
        return type(first)(found=False, message=message, candidates=paths)
    summaries: list[NodeSummary] = []
    for _, r in labelled:
        assert not isinstance(r, FileDetail)
        summaries += [r.node] if r.found and r.node is not None else r.candidates
    return type(first)(found=False, message=message, candidates=summaries)
