"""Retrieval channels, each returning a ranked list: FTS5/BM25 over symbols, dense KNN over node vectors, the
symbols a query names, their graph neighbours and the definitions its links to lines point at."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from igraph_mcp.retrieve.analyze import (
    FTS_COMMON_FROM,
    FTS_COMMON_SHARE,
    FTS_MAX_TOKENS,
    FTS_WORD_FORMS,
    QueryAnalysis,
    select_fts_tokens,
    token_forms,
)
from igraph_mcp.retrieve.vector_search import VectorSearch
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import node_text
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS

FILE_POOL_PROBE = 200  # global neighbours looked at to choose the closest files


def fts_channel(
    db: Database,
    qa: QueryAnalysis,
    limit: int,
    total_docs: int,
    weights: tuple[float, ...] = NODE_BM25_WEIGHTS,
    *,
    max_tokens: int = FTS_MAX_TOKENS,
    common_from: int = FTS_COMMON_FROM,
    common_share: float = FTS_COMMON_SHARE,
    word_forms: int = FTS_WORD_FORMS,
) -> list[tuple[int, float]]:
    """BM25 ranking of symbols for the query's informative tokens (``select_fts_tokens`` chooses them, with the
    other inflections of its words as ``word_forms`` says)."""
    if not qa.tokens:
        return []
    forms = token_forms(qa, word_forms)
    # Without forms (the default) the query's tokens are already unique: no second list to build per query.
    lookup = list(dict.fromkeys([*qa.tokens, *(f for fs in forms.values() for f in fs)])) if forms else qa.tokens
    freqs = node_text.token_doc_freqs(db, lookup)
    tokens = select_fts_tokens(
        qa,
        freqs,
        total_docs,
        max_tokens,
        common_from=common_from,
        common_share=common_share,
        forms=forms,
        forms_mode=word_forms,
    )
    return node_text.fts_search(db, tokens, limit, weights)


def count_definitions(db: Database, qa: QueryAnalysis) -> None:
    """Fill ``qa.definition_counts``: how many symbols define each identifier the query mentions."""
    qa.definition_counts = node_store.name_counts(db, qa.identifiers[:200])


@dataclass(slots=True)
class DenseResult:
    """Ranked (node id, similarity) plus whether the file pre-filter had to be widened."""

    ranked: list[tuple[int, float]]
    fallback_triggered: bool
    best_similarity: float
    pool_files: int


def dense_channel(
    search: VectorSearch,
    query_vector: bytes,
    *,
    limit: int,
    file_top_k: int,
    fallback_threshold: float,
    pool_probe: int = FILE_POOL_PROBE,
) -> DenseResult:
    """IGraph's dense semantics: KNN inside the fileTopK closest files (chosen among the ``pool_probe`` nearest
    symbols), widened to a global KNN when the best similarity is below fallbackThreshold or the pool is empty."""
    probe = search.knn(query_vector, max(pool_probe, limit))
    best_by_file: dict[int, float] = {}
    for _nid, fid, sim in probe:
        best_by_file[fid] = max(sim, best_by_file.get(fid, -1.0))
    files = sorted(best_by_file, key=lambda f: -best_by_file[f])[:file_top_k]
    pool = search.in_files(query_vector, files, limit)
    best = pool[0][2] if pool else 0.0
    if not pool or best < fallback_threshold:
        ranked = [(nid, sim) for nid, _fid, sim in probe[:limit]]
        return DenseResult(ranked, True, probe[0][2] if probe else 0.0, len(files))
    return DenseResult([(nid, sim) for nid, _fid, sim in pool], False, best, len(files))


MAX_NAMED = 40  # identifiers of a query looked up by name (each is one indexed lookup)
NAMED_RARE = 10  # a name defined more often than this (`save`, `get`) says little about where to look


def named_channel(
    db: Database, qa: QueryAnalysis, limit: int, *, max_named: int = MAX_NAMED, rare: int = NAMED_RARE
) -> list[int]:
    """Symbols the query names, in the order it names them: dotted names first, then identifiers defined at most
    ``rare`` times; at most ``max_named`` names looked up."""
    out: dict[int, None] = {}
    looked = 0
    for dotted in qa.dotted:
        if looked >= max_named or len(out) >= limit:
            break
        parts = dotted.split(".")
        # "QuerySet.bulk_update" or "django.db.models.QuerySet.bulk_update": the last two parts name a member.
        tail = ".".join(parts[-2:]) if len(parts) >= 2 else dotted
        looked += 1
        for row in node_store.nodes_named(db, tail, limit=rare + 1)[:rare]:
            if row.qualified_name == tail or row.qualified_name.endswith("." + tail):
                out.setdefault(row.id, None)
    for name in qa.identifiers:
        if looked >= max_named or len(out) >= limit:
            break
        count = qa.definition_counts.get(name, 0)
        if not 0 < count <= rare:
            continue
        looked += 1
        for row in node_store.nodes_named(db, name, limit=rare):
            if row.name == name:
                out.setdefault(row.id, None)
    return list(out)[:limit]


LINKED_WEIGHT = 1.0  # RRF weight of the linked channel (RetrievalParams.linked_weight)
LINKED_PER_RANGE = 5  # definitions taken from one link to several lines
LINKED_NAMESAKES = 8  # indexed files read per tail of a link's path (two already make it ambiguous)


# Where lines a link names at its commit are now (link_lines.LinesNow): (link, path, start, end) -> lines or None.
LineMover = Callable[[str, str, int, int], "tuple[int, int] | None"]


def linked_channel(db: Database, qa: QueryAnalysis, limit: int, moved: LineMover | None = None) -> list[int]:
    """The definitions that the query's links to lines point at, in the order linked: for one line the innermost
    definition holding it, for a range those holding either end or lying within, innermost first. A link's file is
    found by its name and tail of folders (the ref before the path may hold slashes, and the index may hold the
    repository inside a folder); a file the index does not hold is passed over. ``moved`` says where the linked
    lines are now, where the checkout knows the link's commit."""
    out: dict[int, None] = {}
    files: dict[str, tuple[int, str] | None] = {}
    for link in qa.line_links:
        if link.path not in files:
            files[link.path] = _indexed_file(db, link.path)
        found = files[link.path]
        if found is None:
            continue
        file_id, path = found
        start, end = (moved(link.path, path, link.start, link.end) if moved else None) or (link.start, link.end)
        per_link = 1 if start == end else LINKED_PER_RANGE
        for row in node_store.definitions_at_lines(db, file_id, start, end, limit=per_link):
            out.setdefault(row.id, None)
        if len(out) >= limit:
            break
    return list(out)[:limit]


def _indexed_file(db: Database, ref_and_path: str) -> tuple[int, str] | None:
    """The id and path of the indexed file that "<ref>/<path>" names: the one file whose path ends in the longest
    tail of the link's folders (the whole link, or at least a folder and the name: a link to another project's
    `typing.py` is not ours). Where two files share that tail, the one whose whole path it is; else None."""
    segments = ref_and_path.split("/")[1:]  # the first segment is the ref (or its start)
    for k in range(len(segments), min(2, len(segments)) - 1, -1):
        tail = "/".join(segments[-k:])
        # The store's suffix lookup ignores ASCII case; a link's path does not.
        found = [
            p
            for p in file_store.file_paths_with_suffix(db, tail, limit=LINKED_NAMESAKES)
            if p == tail or p.endswith("/" + tail)
        ]
        if not found:
            continue
        chosen = tail if tail in found else (found[0] if len(found) == 1 else None)
        row = file_store.file_row(db, chosen) if chosen is not None else None
        return (row.id, row.path) if row is not None else None
    return None


GRAPH_SEEDS = 20  # named symbols whose neighbours the graph channel follows


def graph_channel(db: Database, seeds: list[int], limit: int, *, max_seeds: int = GRAPH_SEEDS) -> list[int]:
    """Neighbours of the first ``max_seeds`` named symbols along calls and inheritance, best first by edge
    certainty."""
    if not seeds:
        return []
    score: dict[int, float] = {}
    seed_set = set(seeds)
    prior = {seed: 1.0 / (1 + rank) for rank, seed in reversed(list(enumerate(seeds[:max_seeds])))}
    kinds = ("calls", "inherits", "implements")
    # Two batched lookups (edges leaving and entering the seeds) rather than two per seed.
    edges = edge_store.edges_of(db, list(prior), outgoing=True, kinds=kinds)
    edges += edge_store.edges_of(db, list(prior), outgoing=False, kinds=kinds)
    for e in edges:
        for seed, other in ((e.source_id, e.target_id), (e.target_id, e.source_id)):
            if seed not in prior or other is None or other in seed_set:
                continue
            s = prior[seed] * e.confidence  # how sure the indexer was of this edge
            score[other] = max(score.get(other, 0.0), s)
    return sorted(score, key=lambda n: (-score[n], n))[:limit]
