"""From fused candidates to ranked hits and files: boosts applied, kinds filtered (pure, no I/O)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from igraph_mcp.models import FileHit, Hit
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.boosts import DEFAULT_FACTORS, BoostFactors, Candidate, PathFacts, boost, path_facts
from igraph_mcp.retrieve.folding import name_key
from igraph_mcp.retrieve.fusion import Fused
from igraph_mcp.retrieve.params import DEFAULT_PARAMS, RetrievalParams
from igraph_mcp.retrieve.shapes import location
from igraph_mcp.store.records import NodeRow
from igraph_mcp.text.identifiers import split_identifier
from igraph_mcp.vocab.testcode import is_non_source

_GENERIC_PATH_WORDS = frozenset({"py", "init", "src", "lib", "main", "core", "base", "utils", "util", "tests", "test"})


def rank_hits(
    fused: Sequence[Fused],
    rows: Mapping[int, NodeRow],
    qa: QueryAnalysis,
    *,
    context_files: Sequence[str] = (),
    kinds: Sequence[str] | None = None,
    factors: BoostFactors = DEFAULT_FACTORS,
) -> list[Hit]:
    """Apply boosts to fused candidates and return hits best first (deterministic on ties)."""
    wanted_kinds = set(kinds) if kinds else None
    hits: list[Hit] = []
    facts: dict[str, PathFacts] = {}
    for f in fused:
        row = rows.get(f.id)
        if row is None or (wanted_kinds and row.kind not in wanted_kinds):
            continue
        if (known := facts.get(row.path)) is None:
            known = facts[row.path] = path_facts(row.path, qa, context_files)
        candidate = Candidate(row.name, row.qualified_name, row.kind, row.path, linked="linked" in f.ranks)
        factor, why = boost(candidate, qa, context_files, factors, known)
        hits.append(
            Hit(
                **location(row),
                score=f.score * factor,
                matchChannel=f.match_channel(),
                ranks=dict(f.ranks),
                boosts=why,
                docstring=row.docstring[:300],
            )
        )
    hits.sort(key=lambda h: (-h.score, h.nodeId))
    return hits


def _names_non_source(path: str, qa: QueryAnalysis | None) -> bool:
    """The query names this test, doc or example file (``tests/test_x.py``); "models.py" alone does not name
    ``tests/app/models.py``."""
    return qa is not None and any(
        is_non_source(p) and (path == p or path.endswith("/" + p.lstrip("/"))) for p in qa.paths
    )


def names_non_source(paths: Iterable[str], qa: QueryAnalysis) -> bool:
    """The query names one of these files that is a test, doc or example file."""
    return any(_names_non_source(path, qa) for path in paths) if qa.paths else False


def path_words(path: str) -> set[str]:
    """The words of a path's directories and file stem, lower case, without generic ones."""
    stem = path.rsplit(".", 1)[0] if "/" not in path.rsplit(".", 1)[-1] else path
    words = {w for part in stem.split("/") for w in split_identifier(part)}
    return {w for w in words if len(w) > 2 and w not in _GENERIC_PATH_WORDS}


def file_path_words(hits: Sequence[Hit], qa: QueryAnalysis | None) -> dict[str, set[str]]:
    """file -> the path words of that file the query uses, for every file among ``hits``."""
    query_words = set(qa.tokens) if qa is not None else set()
    out: dict[str, set[str]] = {}
    for h in hits:
        if h.filePath not in out:
            out[h.filePath] = path_words(h.filePath) & query_words if query_words else set()
    return out


def rank_files(
    hits: list[Hit],
    qa: QueryAnalysis | None = None,
    words: Mapping[str, set[str]] | None = None,
    *,
    issue: bool = False,
    params: RetrievalParams = DEFAULT_PARAMS,
) -> list[FileHit]:
    """Files ranked by their best symbol plus decaying credit for further ones, and by the path words the query
    uses (``words``: file -> those words, from file_path_words; computed here when not given)."""
    scores: dict[str, list[float]] = {}
    for h in hits:
        scores.setdefault(h.filePath, []).append(h.score)
    path_word = params.path_word
    matched = words if words is not None else file_path_words(hits, qa) if path_word > 0 else {}
    non_source = params.issue_non_source
    ranked = []
    for path, vals in scores.items():
        vals.sort(reverse=True)
        score = sum(v * params.file_score_decay**i for i, v in enumerate(vals[: params.file_symbols]))
        used = matched.get(path)
        if used and path_word > 0:
            score *= 1 + path_word * min(params.path_words_max, float(len(used)))
        if issue and non_source != 1.0 and is_non_source(path) and not _names_non_source(path, qa):
            score *= non_source
        ranked.append(FileHit(filePath=path, score=score))
    ranked.sort(key=lambda f: (-f.score, f.filePath))
    return ranked


@dataclass(frozen=True, slots=True)
class Repeat:
    """A definition the file ranking counts though the hits name it once (its name is a hit in another file): the
    hit keeping the name, and this one's score as a share of that hit's."""

    hit: Hit
    kept_id: int
    share: float


def repeats_of(candidates: Sequence[Hit], hits: Sequence[Hit]) -> list[Repeat]:
    """The ``candidates`` of the file ranking that are not ``hits`` but repeat the name of one, with their scores'
    shares of it (read before a learned step re-scores the hits)."""
    ids = {h.nodeId for h in hits}
    kept = {name_key(h.kind, h.qualifiedName, h.name, h.filePath): h for h in reversed(hits)}
    out = []
    for c in candidates:
        k = kept.get(name_key(c.kind, c.qualifiedName, c.name, c.filePath))
        if c.nodeId not in ids and k is not None and k.score > 0:
            out.append(Repeat(c, k.nodeId, c.score / k.score))
    return out


def with_repeats(hits: Sequence[Hit], repeats: Sequence[Repeat]) -> list[Hit]:
    """``hits`` and, for each repeat of a name they keep, a copy scored at its share of the keeping hit's (new)
    score: re-scored hits rank files as the fused ones did, each name counted in every file that defines it."""
    by_id = {h.nodeId: h for h in hits}
    extra = [
        r.hit.model_copy(update={"score": by_id[r.kept_id].score * r.share}) for r in repeats if r.kept_id in by_id
    ]
    return [*hits, *extra]
