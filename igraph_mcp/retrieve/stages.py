"""Where a query goes: analyze -> channels -> fuse -> boost -> rank files -> rerank -> expand -> answer -> budget.

``run`` is the whole path of one explore call; every stage is a function of the previous stage's output and a
``RetrievalParams``, so a benchmark or a trainer calls the same stages with other parameters (or on stored
channel lists) instead of copying them.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from igraph_mcp import link_lines
from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import EmbedderError
from igraph_mcp.explore_request import QUERY_ECHO_CHARS, ExploreRequest
from igraph_mcp.models import Diagnostics, ExploreResult, FileHit, Hit, Neighbour, ResourceHit
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.retrieve import folding, ranking, rerank
from igraph_mcp.retrieve.analyze import QueryAnalysis, analyze_query, cut_query, phrase_of, printable
from igraph_mcp.retrieve.budget import fit_to_budget, snippet_of
from igraph_mcp.retrieve.channels import (
    count_definitions,
    dense_channel,
    fts_channel,
    graph_channel,
    linked_channel,
    named_channel,
)
from igraph_mcp.retrieve.context_files import check_context_files
from igraph_mcp.retrieve.dense_state import DenseState
from igraph_mcp.retrieve.expand import expand, prefer_ranked
from igraph_mcp.retrieve.fusion import Fused, rrf
from igraph_mcp.retrieve.params import RetrievalParams
from igraph_mcp.retrieve.parts import PART_OVERFETCH, PartFolder, PartMatch
from igraph_mcp.retrieve.query_parts import dense_texts, is_issue_shaped
from igraph_mcp.retrieve.shapes import neighbours
from igraph_mcp.retrieve.vector_search import StoreVectorSearch, VectorSearch
from igraph_mcp.store import declarations as decl_store
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import EdgeRow, NodeRow
from igraph_mcp.store.status import node_count
from igraph_mcp.vocab.languages import language_for_path

# (analysis, query vector or None, node ids in the answer) -> (resources, note)
ResourceFinder = Callable[[QueryAnalysis, bytes | None, list[int]], tuple[list[ResourceHit], str | None]]
StaleCheck = Callable[[list[str]], set[str]]


def run(
    db: Database,
    request: ExploreRequest,
    params: RetrievalParams,
    dense: DenseState,
    resource_finder: ResourceFinder | None = None,
    stale_check: StaleCheck | None = None,
    root: Path | None = None,
) -> ExploreResult:
    """One explore call, stage by stage (topK and hops default to the parameters'; bounds are checked first;
    context files outside ``root`` or matching no indexed file are named in the note and not used)."""
    request = request.resolved(params.node_top_k, params.graph_hops)
    trace = Trace()
    if request.context_files:
        context = check_context_files(db, root, request.context_files)
        request = dataclasses.replace(request, context_files=context.usable)
        if note := context.note():
            trace.notes.append(note)
    assert request.top_k is not None and request.hops is not None  # resolved() sets both
    t0 = time.perf_counter()
    # The question's embedding starts first: it is the longest wait, and analysis and FTS run beside it.
    want_vector = resource_finder is not None
    head = printable(cut_query(request.query)[0])
    embedding = start_embedding(db, head, dense, params, request.channels, want_vector)
    query = analyze(db, request.query, params, trace)
    lists = search_channels(db, query, dense, params, request.channels, want_vector, trace, embedding, root)
    t = time.perf_counter()
    fused = fuse(lists.ranked, query, params)
    rows = fetch_rows(db, fused)
    fused = fuse_for_language(fused, rows, lists.ranked, query, params)
    all_hits = boost(fused, rows, query, params, request.kinds, request.context_files)
    folded = fold(db, all_hits, rows, query, params, request.kinds, unique=False)
    all_hits = folding.unique_names(folded) if params.unique_names else folded
    candidates = file_candidates(folded, all_hits, params)
    files = rank_files(candidates, query, params)
    # Read before the learned step re-scores the hits, and only where the files may be ranked again from them.
    repeats = ranking.repeats_of(candidates, all_hits) if may_refile(files, query, params) else []
    all_hits = rerank_hits(all_hits, files, query, params)
    files = refile(all_hits, files, query, params, repeats)
    if params.modules_after_files:
        all_hits = folding.without_modules_after_their_files(all_hits, lists.parts)
    hits = all_hits[: request.top_k]
    trace.timings_ms["fuse"] = _ms(t)
    t = time.perf_counter()
    below = {h.nodeId: i for i, h in enumerate(all_hits[request.top_k :])}
    reached = expand_hits(db, hits, request.hops, params, about_tests=query.analysis.mentions_tests, ranked=below)
    if params.unique_names:
        reached = folding.unique_neighbours(hits, reached)
    trace.timings_ms["expand"] = _ms(t)
    result = answer(db, query, hits, files.files[: max(request.top_k, 10)], reached, params, lists.parts)
    attach(result, query, lists.query_vector, trace, resource_finder, stale_check)
    if "dense" in request.channels and "dense" not in trace.channels:
        trace.degraded = True
    trace.timings_ms["total"] = _ms(t0)
    result.degraded, result.diagnostics = trace.degraded, trace.diagnostics()
    result.note = result.diagnostics.note
    return fit_to_budget(result, request.max_tokens or params.max_tokens)


@dataclass(slots=True)
class Trace:
    """What the stages did, for the answer's diagnostics (``models.Diagnostics`` is its wire form)."""

    channels: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    degraded: bool = False
    fallback_triggered: bool = False
    dense_coverage: float | None = None
    candidates: dict[str, int] = field(default_factory=dict)
    timings_ms: dict[str, float] = field(default_factory=dict)
    stale_files: list[str] = field(default_factory=list)
    resource_note: str | None = None

    def diagnostics(self) -> Diagnostics:
        """The wire form (camelCase keys)."""
        return Diagnostics(
            channels=self.channels,
            degraded=self.degraded,
            note="; ".join(self.notes) if self.notes else None,
            fallbackTriggered=self.fallback_triggered,
            denseCoverage=self.dense_coverage,
            candidates=self.candidates,
            timingsMs=self.timings_ms,
            staleFiles=self.stale_files,
            resourceNote=self.resource_note,
        )


# -- analyze --------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class AnalyzedQuery:
    """The query as the ranker reads it."""

    analysis: QueryAnalysis
    # Issue-shaped text (a title line and a body) gets the levers tuned on issues: the graph channel, the demotion
    # of test files and the learned step; a one-line question keeps the hand-set ranking.
    issue: bool


def analyze(
    db: Database | None,
    text: str,
    params: RetrievalParams,
    trace: Trace | None = None,
    definition_counts: Mapping[str, int] | None = None,
) -> AnalyzedQuery:
    """Cut, analyse and count how many symbols define each identifier the query mentions (in ``db``, or given
    as ``definition_counts`` when replaying stored candidates without an index)."""
    text, cut_note = cut_query(text)
    qa = analyze_query(text)
    if definition_counts is not None:
        qa.definition_counts = dict(definition_counts)
    elif db is not None:
        count_definitions(db, qa)
    if cut_note and trace is not None:
        trace.notes.append(cut_note)
    issue = is_issue_shaped(qa.text, params.issue_min_lines, params.issue_min_words)
    if not issue and params.boosts.name_phrase != 1.0:
        qa.phrase = phrase_of(qa.text)
    return AnalyzedQuery(qa, issue)


# -- channels -------------------------------------------------------------------------------------------------------
@dataclass(slots=True)
class ChannelLists:
    """Each channel's ranked node ids (in the order they were searched), and the query's head vector."""

    ranked: dict[str, list[int]]
    query_vector: bytes | None = None
    # definition id -> the part of it that a channel ranked above the definition itself (index/parts.py)
    parts: dict[int, PartMatch] = field(default_factory=dict)


def search_channels(
    db: Database,
    query: AnalyzedQuery,
    dense: DenseState,
    params: RetrievalParams,
    channels: Sequence[str],
    want_vector: bool = False,
    trace: Trace | None = None,
    embedding: Embedding | None = None,
    root: Path | None = None,
) -> ChannelLists:
    """FTS, the named symbols and their graph neighbours (issues only), and dense KNN, as ``channels`` asks;
    ``want_vector``: embed the query's head even without the dense channel (the resource channel reads it);
    ``embedding``: start_embedding's for this query, when the caller started it; ``root``: the checkout, whose git
    history says where the lines a link names at its commit are now."""
    trace = trace if trace is not None else Trace()
    qa = query.analysis
    ranked: dict[str, list[int]] = {}
    folder = PartFolder()
    if embedding is None:
        embedding = start_embedding(db, qa.text, dense, params, channels, want_vector)

    looked_up: set[int] = set()  # ids whose part span (or that they have none) is known: FTS and dense share many

    def fold(ids: list[int]) -> list[int]:
        new = [i for i in ids if i not in looked_up]
        looked_up.update(new)
        folder.spans.update(node_store.part_spans(db, new))
        return folder.fold(ids, params.channel_depth)

    if "fts" in channels:
        t = time.perf_counter()
        words = params if query.issue else dataclasses.replace(params, fts_word_forms=params.question_word_forms)
        ranked["fts5"] = fold([nid for nid, _ in fts(db, qa, words, limit=params.channel_depth * PART_OVERFETCH)])
        trace.timings_ms["fts"] = _ms(t)
        trace.channels.append("fts5")
    if "fts" in channels and qa.line_links and params.linked_weight > 0:
        t = time.perf_counter()
        moved = link_lines.LinesNow(root) if root is not None else None
        ranked["linked"] = linked_channel(db, qa, params.channel_depth, moved)
        trace.timings_ms["linked"] = _ms(t)
    if "fts" in channels and query.issue and (params.graph_weight > 0 or learned(query, params)):
        t = time.perf_counter()
        ranked["named"] = named_channel(
            db, qa, params.channel_depth, max_named=params.max_named, rare=params.named_rare
        )
        ranked["graph"] = graph_channel(db, ranked["named"], params.channel_depth, max_seeds=params.graph_seeds)
        trace.timings_ms["named"] = _ms(t)
    vectors: list[bytes] = []
    if embedding is not None:
        vectors, note, embed_ms = embedding.result()
        if not note:
            trace.timings_ms["embed"] = embed_ms
        elif "dense" in channels:
            trace.notes.append(note)
    if "dense" in channels and vectors:
        t = time.perf_counter()
        search = dense.search or StoreVectorSearch(db)
        ranked["dense"], fallback = dense_ranking(search, vectors, params, fold=fold)
        trace.fallback_triggered = trace.fallback_triggered or fallback
        trace.timings_ms["dense"] = _ms(t)
        trace.channels.append("dense")
        if dense.embedded < dense.total:
            # Vectors are still being added (or a build stopped early): say how far, and flag the answer.
            note = f"dense channel: {dense.embedded}/{dense.total} symbols embedded"
            trace.notes.append(f"{note}; {dense.finishing}" if dense.finishing else note)
            trace.degraded = True
    trace.dense_coverage = dense.coverage
    trace.candidates = {k: len(v) for k, v in ranked.items()}
    return ChannelLists(ranked, vectors[0] if vectors else None, folder.matches)


def fts(db: Database, qa: QueryAnalysis, params: RetrievalParams, limit: int | None = None) -> list[tuple[int, float]]:
    """The FTS channel's (node id, BM25 score) under ``params``, parts of long definitions included (at most
    ``limit``, default ``channel_depth``)."""
    return fts_channel(
        db,
        qa,
        limit or params.channel_depth,
        node_count(db),
        params.fts_column_weights,
        max_tokens=params.fts_max_tokens,
        common_from=params.fts_common_from,
        common_share=params.fts_common_share,
        word_forms=params.fts_word_forms,
    )


Embedding = Future[tuple[list[bytes], str | None, float]]  # the query parts' vectors, a note, milliseconds


def start_embedding(
    db: Database, text: str, dense: DenseState, params: RetrievalParams, channels: Sequence[str], want_vector: bool
) -> Embedding | None:
    """The query's parts embedded on the embedding thread (None when neither the dense channel nor the caller needs
    a vector); ``text`` is the query as analysed (``QueryAnalysis.text``)."""
    if "dense" not in channels and not want_vector:
        return None
    texts = query_texts(text, params, params.dense_parts if "dense" in channels else 1)
    dim = int(db.get_meta("embedder_dim", "0") or 0)
    return _query_embedder().submit(_timed_embedding, dense, texts, dim)


def query_texts(text: str, params: RetrievalParams, max_parts: int) -> list[str]:
    """The query's parts to embed, at most ``max_parts`` of them."""
    return dense_texts(text, max_parts, params.part_chars, params.min_part_chars)


@functools.cache
def _query_embedder() -> ThreadPoolExecutor:
    """The one worker that embeds questions while the asking thread searches FTS and the graph: ONNX Runtime and
    SQLite both let go of the GIL, so on two cores the two overlap."""
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="igraph-query-embed")


def _timed_embedding(dense: DenseState, texts: list[str], dim: int) -> tuple[list[bytes], str | None, float]:
    t = time.perf_counter()
    vectors, note = embed_query_parts(dense, texts, dim)
    return vectors, note, _ms(t)


def embed_query_parts(dense: DenseState, texts: list[str], dim: int) -> tuple[list[bytes], str | None]:
    """The query parts' vectors as stored blobs (of the index's dimension ``dim``), or none and a note saying why the
    dense channel cannot answer."""
    embedder: Embedder | None = dense.embedder
    if dense.reason is not None or embedder is None:
        return [], dense.reason or "dense channel off"
    out: list[bytes] = []
    for text in texts:
        try:
            vec = np.asarray(embedder.embed_query(text), dtype=np.float32)
        except EmbedderError as exc:
            return [], f"embedding backend failed ({exc}); answered from FTS only"
        if vec.shape != (dim,):
            return [], f"query vector has dimension {vec.shape[-1]}, the index has {dim}; answered from FTS only"
        out.append(vec_store.to_blob(vec))
    return out, None


def dense_ranking(
    search: VectorSearch,
    vectors: Sequence[bytes],
    params: RetrievalParams,
    fold: Callable[[list[int]], list[int]] | None = None,
) -> tuple[list[int], bool]:
    """The dense channel's ranking for the query's part vectors (fused by RRF when there are several), and
    whether the fileTopK pre-filter had to be widened for any part.

    With ``fold``, each query part's list is read PART_OVERFETCH times deeper and folded onto definitions before
    the query parts are fused (the parts of long definitions: retrieve/parts.py); without, the list may name parts.
    """
    per_part: dict[str, list[int]] = {}
    fallback = False
    for n, vector in enumerate(vectors):
        found = dense_channel(
            search,
            vector,
            limit=params.channel_depth * (PART_OVERFETCH if fold is not None else 1),
            file_top_k=params.file_top_k,
            fallback_threshold=params.fallback_threshold,
            pool_probe=params.file_pool_probe,
        )
        per_part[f"part{n}"] = [nid for nid, _ in found.ranked]
        fallback = fallback or found.fallback_triggered
    if fold is not None:
        per_part = {name: fold(ids) for name, ids in per_part.items()}
    if len(per_part) == 1:
        return per_part["part0"], fallback
    weights = {name: params.other_part_weight for name in per_part} | {"part0": params.head_part_weight}
    return [f.id for f in rrf(per_part, weights, params.rrf_k)[: params.channel_depth]], fallback


# -- fuse -----------------------------------------------------------------------------------------------------------
def fusion_weights(query: AnalyzedQuery, params: RetrievalParams) -> dict[str, float]:
    """Each channel's RRF weight for this query."""
    prose = not query.issue and not query.analysis.is_identifier_query
    return {
        "fts5": params.fts_weight * (params.prose_fts_scale if prose else 1.0),
        "dense": params.dense_weight,
        # The named symbols reach the ranking through FTS and the identifier boost; fused here at weight 0, their
        # ranks are still reported and read by the re-ranker.
        "named": 0.0,
        "graph": params.graph_weight,
        "linked": params.linked_weight,
    }


def fuse(ranked: Mapping[str, Sequence[int]], query: AnalyzedQuery, params: RetrievalParams) -> list[Fused]:
    """Weighted RRF of the channels; a candidate only a weight-0 channel found is left out."""
    fused = rrf(ranked, fusion_weights(query, params), params.rrf_k)
    return [f for f in fused if f.score > 0 or "fts5" in f.ranks or "dense" in f.ranks]


def fuse_for_language(
    fused: list[Fused],
    rows: Mapping[int, NodeRow],
    ranked: Mapping[str, Sequence[int]],
    query: AnalyzedQuery,
    params: RetrievalParams,
) -> list[Fused]:
    """``fused`` again with the FTS weight ``params.language_fts_weight`` gives the language most of its first
    files are written in; as it was when that language has none. The candidates are the same either way
    (only weights change), so ``rows`` holds theirs too."""
    if not params.language_fts_weight:
        return fused
    language = first_files_language(row.path for f in fused if (row := rows.get(f.id)) is not None)
    weight = dict(params.language_fts_weight).get(language or "")
    if weight is None:
        return fused
    return fuse(ranked, query, params.with_value("fts_weight", weight))


# -- boost ----------------------------------------------------------------------------------------------------------
def fetch_rows(db: Database, fused: Sequence[Fused]) -> dict[int, NodeRow]:
    """The stored symbols of the fused candidates."""
    return node_store.nodes_by_ids(db, [f.id for f in fused])


def boost(
    fused: Sequence[Fused],
    rows: Mapping[int, NodeRow],
    query: AnalyzedQuery,
    params: RetrievalParams,
    kinds: Sequence[str] | None = None,
    context_files: Sequence[str] = (),
) -> list[Hit]:
    """Hits best first after the multiplicative boosts (kinds filtered)."""
    qa = query.analysis
    if query.issue:
        # An issue's reproducer says "test" nearly always; only naming one of the repository's test files (not the
        # reporter's own test_repro.py) makes the tests the topic.
        qa.mentions_tests = ranking.names_non_source({rows[f.id].path for f in fused if f.id in rows}, qa)
    return ranking.rank_hits(fused, rows, qa, context_files=context_files, kinds=kinds, factors=params.boosts)


# -- fold declarations ----------------------------------------------------------------------------------------------
def fold(
    db: Database,
    hits: list[Hit],
    rows: Mapping[int, NodeRow],
    query: AnalyzedQuery,
    params: RetrievalParams,
    kinds: Sequence[str] | None = None,
    *,
    unique: bool = True,
) -> list[Hit]:
    """Declarations folded into their implementations and type-only hits demoted unless the question is about a
    type (``params.fold_declarations``), then each qualified name once (``params.unique_names``, when ``unique``);
    retrieve/folding.py."""
    unique = unique and params.unique_names
    if not params.fold_declarations:
        return folding.unique_names(hits) if unique else hits
    declared = [h.nodeId for h in hits if (row := rows.get(h.nodeId)) is not None and row.declaration]
    links = decl_store.implementations(db, declared) if declared else {}
    # A declaration with one implementation outside the candidates is replaced by it: its row is read here.
    lookup = {impls[0] for impls in links.values() if len(impls) == 1 and impls[0] not in rows}
    if lookup:
        rows = {**rows, **node_store.nodes_by_ids(db, sorted(lookup))}
    type_names = {h.name for h in hits if h.kind in folding.TYPE_ONLY_KINDS}
    hits = folding.fold_forwarders(hits, forwarders(db, hits, rows, kinds))
    folded = folding.fold_declarations(
        hits,
        rows,
        links,
        type_query=folding.is_type_query(query.analysis, type_names),
        type_only=params.type_only,
        kinds=kinds,
    )
    return folding.unique_names(folded) if unique else folded


_CALLABLE = ("function", "method")


def forwarders(
    db: Database, hits: Sequence[Hit], rows: Mapping[int, NodeRow], kinds: Sequence[str] | None = None
) -> dict[int, NodeRow]:
    """The functions among the hits that only pass a call on (folding.FORWARDER_LINES lines at most, one call, to a
    definition of their own name elsewhere that is no declaration, of ``kinds`` when given), each with the row of
    the definition it calls. A method that does so is left as it is: a proxy or decorator class is an
    implementation of its own, and what its call binds to may be an interface's member."""
    short = [
        h.nodeId
        for h in hits
        if h.kind == "function"
        and (row := rows.get(h.nodeId)) is not None
        and not row.declaration
        and row.end_line - row.start_line < folding.FORWARDER_LINES
    ]
    if not short:
        return {}
    calls: dict[int, list[EdgeRow]] = {}
    for e in edge_store.edges_of(db, short, outgoing=True, kinds=("calls",), resolved_only=False):
        calls.setdefault(e.source_id, []).append(e)
    wanted = {
        src: only[0].target_id
        for src, only in calls.items()
        if len(only) == 1 and only[0].target_id not in (None, src) and only[0].target_name == rows[src].name
    }
    targets = node_store.nodes_by_ids(db, sorted({t for t in wanted.values() if t is not None}))
    return {
        src: targets[t]
        for src, t in wanted.items()
        if t in targets
        and targets[t].kind in _CALLABLE
        and not targets[t].declaration
        and (not kinds or targets[t].kind in kinds)
    }


# -- rank files -----------------------------------------------------------------------------------------------------
def file_candidates(folded: list[Hit], unique: list[Hit], params: RetrievalParams) -> list[Hit]:
    """The hits the file ranking reads: with ``params.files_count_repeats``, a name repeated in another file counts
    there too (one per file: overloads do not add up), unless the hits' files are mostly of a language in
    ``files_count_repeats_skip``; else the answer's hits, each name once."""
    if not (params.unique_names and params.files_count_repeats):
        return unique
    if hits_language(unique) in params.files_count_repeats_skip:
        return unique
    return folding.unique_names(folded, per_file=True)


def hits_language(hits: Sequence[Hit]) -> str | None:
    """The language most of the first files the hits name are written in (on a tie, the better-placed)."""
    return first_files_language(h.filePath for h in hits)


def first_files_language(paths: Iterable[str], top: int = 5) -> str | None:
    """The language most of the first ``top`` distinct ``paths`` are written in (on a tie, the earlier path's)."""
    first: dict[str, None] = {}
    for path in paths:
        first.setdefault(path, None)
        if len(first) == top:
            break
    return main_language(list(first))


@dataclass(slots=True)
class RankedFiles:
    """Files best first, and the path words of each candidate file that the query uses."""

    files: list[FileHit]
    words: dict[str, set[str]]


def rank_files(hits: list[Hit], query: AnalyzedQuery, params: RetrievalParams) -> RankedFiles:
    """Files by their symbols' scores and the path words the query uses (an issue's tests demoted)."""
    words = ranking.file_path_words(hits, query.analysis)
    files = ranking.rank_files(hits, query.analysis, words, issue=query.issue, params=params)
    return RankedFiles(files, words)


# -- rerank ---------------------------------------------------------------------------------------------------------
def learned(query: AnalyzedQuery, params: RetrievalParams) -> bool:
    """Whether the learned step re-ranks this query (tuned on issues only)."""
    return query.issue and bool(params.rerank_weights)


def rerank_hits(hits: list[Hit], files: RankedFiles, query: AnalyzedQuery, params: RetrievalParams) -> list[Hit]:
    """The learned re-ranking of the top hits; the hand-set order when it is off for this query."""
    if not learned(query, params):
        return hits
    return rerank.rerank_hits(
        hits,
        [f.filePath for f in files.files],
        {path: len(w) for path, w in files.words.items()},
        params.rerank_weights,
        params.rerank_depth,
        frozenset(query.analysis.tokens),
    )


def refile(
    hits: list[Hit],
    files: RankedFiles,
    query: AnalyzedQuery,
    params: RetrievalParams,
    repeats: Sequence[ranking.Repeat] = (),
) -> RankedFiles:
    """The files ranked again from the re-ranked hits when ``rerank_files`` is on, or the top files are mostly of
    one of ``rerank_files_languages`` and the hits' top files not of one of ``rerank_files_skip``; else ``files``
    as they were. ``repeats`` (ranking.repeats_of the first file
    ranking's candidates) count there as they did in the first ranking: hono's fix to ``serveStatic`` in three
    adapters kept only the best-placed adapter in the top five files without them."""
    if not may_refile(files, query, params):
        return files
    if not params.rerank_files and hits_language(hits) in params.rerank_files_skip:
        return files
    return rank_files(ranking.with_repeats(hits, repeats), query, params)


def may_refile(files: RankedFiles, query: AnalyzedQuery, params: RetrievalParams) -> bool:
    """Whether ``refile`` may rank the files again (what it reads of the first ranking; the hits decide the rest)."""
    if not learned(query, params):
        return False
    return params.rerank_files or answer_language(files.files) in params.rerank_files_languages


def answer_language(files: Sequence[FileHit], top: int = 5) -> str | None:
    """The language most of the ``top`` first files are written in (on a tie, the better-placed file's)."""
    return main_language([f.filePath for f in files[:top]])


def main_language(paths: Sequence[str]) -> str | None:
    """The language most of ``paths`` are written in (on a tie, the earlier path's); None when none is known."""
    counts = Counter(language for p in paths if (language := language_for_path(p)) is not None)
    return counts.most_common(1)[0][0] if counts else None


# -- expand ---------------------------------------------------------------------------------------------------------
def expand_hits(
    db: Database,
    hits: list[Hit],
    hops: int,
    params: RetrievalParams,
    *,
    about_tests: bool = False,
    ranked: Mapping[int, int] | None = None,
) -> list[Neighbour]:
    """Callees and callers of the hits (and theirs, on the same side) up to ``hops`` away, scored by seed and
    distance; test code takes at most ``params.test_neighbours`` of them unless the query is ``about_tests``.
    With ``params.neighbour_pool`` above 1, those the ranking found below the hits (``ranked``: node id -> place)
    are listed first, and kept first where a node has more neighbours than ``params.per_node_cap``."""
    if hops <= 0 or not hits:
        return []
    pool = max(1, params.neighbour_pool) if ranked else 1
    reached = expand(
        db,
        {h.nodeId: h.score for h in hits},
        hops,
        limit=params.neighbour_limit * pool,
        per_node_cap=params.per_node_cap,
        decay=params.hop_decay,
        test_cap=None if about_tests else params.test_neighbours,
        ranked=ranked if pool > 1 else None,
    )
    if pool > 1 and ranked:
        reached = prefer_ranked(reached, ranked, params.neighbour_limit)
    return neighbours(db, reached, {h.nodeId: h.qualifiedName or h.name for h in hits})


# -- answer ---------------------------------------------------------------------------------------------------------
def answer(
    db: Database,
    query: AnalyzedQuery,
    hits: list[Hit],
    files: list[FileHit],
    reached: list[Neighbour],
    params: RetrievalParams,
    parts: Mapping[int, PartMatch] | None = None,
) -> ExploreResult:
    """The answer before resources and budget: hits (the first ones with a source snippet), files, neighbours.

    A hit found by a part of it (``parts``: retrieve/parts.py) says that part's lines, and its snippet is that part.
    """
    parts = parts or {}
    for h in hits:
        if (match := parts.get(h.nodeId)) is not None:
            h.partLines = [match.start_line, match.end_line]
    shown = hits[: params.snippet_hits]
    # The matching part's text where there is one, else the definition's head.
    source_of = {h.nodeId: parts[h.nodeId].part_id if h.nodeId in parts else h.nodeId for h in shown}
    bodies = node_store.node_bodies(db, list(source_of.values()))
    for h in shown:
        h.snippet = snippet_of(bodies.get(source_of[h.nodeId], ""), params.snippet_lines, params.snippet_chars)
    # Echo the cleaned text: a lone surrogate (undecodable CLI bytes) cannot be serialised to JSON.
    echo = query.analysis.text
    return ExploreResult(
        query=echo if len(echo) <= QUERY_ECHO_CHARS else echo[:QUERY_ECHO_CHARS] + "…",
        hits=hits,
        files=files,
        neighbours=reached,
    )


def attach(
    result: ExploreResult,
    query: AnalyzedQuery,
    query_vector: bytes | None,
    trace: Trace,
    resource_finder: ResourceFinder | None = None,
    stale_check: StaleCheck | None = None,
) -> None:
    """Add the resources linked to the answer's code or matching the query, and flag files changed on disk."""
    if resource_finder is not None:
        t = time.perf_counter()
        ids = [h.nodeId for h in result.hits] + [n.nodeId for n in result.neighbours]
        result.resources, trace.resource_note = resource_finder(query.analysis, query_vector, ids)
        trace.timings_ms["resources"] = _ms(t)
    if stale_check is not None:
        stale = stale_check(sorted({h.filePath for h in result.hits} | {n.filePath for n in result.neighbours}))
        for h in result.hits:
            h.stale = h.filePath in stale
        trace.stale_files = sorted(stale)
        if stale:
            trace.notes.append(f"{len(stale)} file(s) in this answer changed since indexing; run {ask(NextStep.INDEX)}")


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
