"""igraph_explore's engine: channels -> weighted RRF -> boosts -> graph expansion -> resources -> budget."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from igraph_mcp.config import MIN_MAX_TOKENS, RetrievalConfig
from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import EmbedderError, InvalidInput
from igraph_mcp.models import Diagnostics, ExploreResult, Hit, Neighbour, ResourceHit
from igraph_mcp.retrieve import ranking, rerank
from igraph_mcp.retrieve.analyze import QueryAnalysis, analyze_query, cut_query
from igraph_mcp.retrieve.budget import fit_to_budget, snippet_of
from igraph_mcp.retrieve.channels import count_definitions, dense_channel, fts_channel, graph_channel, named_channel
from igraph_mcp.retrieve.expand import expand
from igraph_mcp.retrieve.fusion import rrf
from igraph_mcp.retrieve.query_parts import dense_texts, is_issue_shaped
from igraph_mcp.retrieve.ranking import PathWordCounts, file_path_words, names_non_source, rank_files, rank_hits
from igraph_mcp.retrieve.shapes import neighbours
from igraph_mcp.retrieve.vector_search import SqliteVecSearch, VectorSearch
from igraph_mcp.store import graph
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.status import node_count

log = logging.getLogger(__name__)

CHANNEL_DEPTH = 100  # candidates taken from each channel before fusion
# A long query's parts are searched one by one and fused (RRF) into the dense channel; the head (title and
# opening prose) says what the issue is about, the later parts add names, code and the traceback.
HEAD_PART_WEIGHT = 1.0
OTHER_PART_WEIGHT = 0.5
PART_FUSION = "rrf"  # "rrf": ranks of the parts fused; "max": a symbol's best similarity (tied on tuning)
# Channels beside FTS and dense, fused by the same RRF; 0 leaves a channel out of the fusion. The named channel
# (symbols the query names) only seeds the graph channel: fused on its own it measured no better on the devset's
# tuning half (issue 11, 46 issues: file MRR 70.8 -> 71.7 at 0.5, function MRR 41.7 -> 39.1), since names the
# query mentions already reach the ranking through FTS and the identifier boost. Their call/inheritance
# neighbours, by edge certainty, did: graph 0.5 took file Acc@1 58.7 -> 60.9, MRR 70.8 -> 72.9, function Acc@10
# 45.7 -> 47.8 (1.0 was a little better on tuning but lost a held-out function; 2.0 lost functions on tuning).
# A one-line prose question ("retry a request after a timeout") is the dense channel's ground: its words rarely
# match code tokens, and equal RRF weights let weak FTS matches push the dense channel's hits down. Its FTS weight
# is ftsWeight times this. Measured on a docstring set of sdists outside every benchmark (httpx, marshmallow, arrow:
# 364 queries, benchmarks/retrieval.py --doc-projects), MRR@10 by scale 1.0 / 0.5 / 0.3 / 0.2 / 0.1: 45.5 / 48.6 /
# 49.4 / 49.5 / 48.8 (dense alone 48.1). That set's docstrings are stripped from the code, which starves FTS; in a
# real repository the docstring is indexed text, so 0.5 keeps most of the gain without silencing keyword matches.
# Identifier queries and issues keep ftsWeight.
PROSE_FTS_SCALE = 0.5
# Test code is demoted unless the query talks about tests; for an issue, only naming one of the repository's test,
# doc or example files counts (tuning half: function MRR 51.6 -> 52.1, nothing else moved; the re-ranker's test
# feature now sees the test code of issues whose reproducer says "test").
ISSUE_TESTS_BY_PATH = True
NAMED_WEIGHT = 0.0  # symbols the query names
GRAPH_WEIGHT = 0.5  # their call/inheritance neighbours, by edge certainty
# The first hits carry a source snippet; the rest of the nodeTopK hits are one line each (name, place, signature),
# so an answer names more candidates for the same tokens (benchmarks/default_call.py chose the sizes).
SNIPPET_HITS = 5
NEIGHBOUR_LIMIT = 10  # graph neighbours listed under the hits

# (analysis, query vector or None, node ids in the answer) -> (resources, note)
ResourceFinder = Callable[[QueryAnalysis, bytes | None, list[int]], tuple[list[ResourceHit], str | None]]
StaleCheck = Callable[[list[str]], set[str]]


@dataclass(slots=True)
class DenseState:
    """Whether the dense channel can be used, and if not, why."""

    embedder: Embedder | None
    reason: str | None  # why dense is off (None = usable)
    coverage: float | None
    search: VectorSearch | None = None  # None: sqlite-vec in the database
    embedded: int = 0  # symbols with a vector, of ``total``: how far the embedding phase has got
    total: int = 0


def validate(query: str, top_k: int, hops: int, max_tokens: int | None = None) -> None:
    """Reject inputs outside the documented bounds with a message that says what to send instead."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("query is empty; describe the code you are looking for, or paste the issue text")
    if not 1 <= top_k <= 50:
        raise InvalidInput("topK must be between 1 and 50")
    if not 0 <= hops <= 5:
        raise InvalidInput("hops must be between 0 and 5")
    if max_tokens is not None and not MIN_MAX_TOKENS <= max_tokens <= 100_000:
        raise InvalidInput(f"maxTokens must be between {MIN_MAX_TOKENS} and 100000")


class Explorer:
    """Runs one query against an index."""

    def __init__(
        self,
        db: Database,
        config: RetrievalConfig,
        dense: DenseState,
        resource_finder: ResourceFinder | None = None,
        stale_check: StaleCheck | None = None,
    ) -> None:
        self.db = db
        self.cfg = config
        self.dense = dense
        self.resource_finder = resource_finder
        self.stale_check = stale_check

    def explore(
        self,
        query: str,
        *,
        top_k: int | None = None,
        hops: int | None = None,
        kinds: Sequence[str] | None = None,
        context_files: Sequence[str] = (),
        max_tokens: int | None = None,
        channels: Sequence[str] = ("fts", "dense"),
    ) -> ExploreResult:
        """Answer a question about the code with ranked symbols, files, neighbours and resources."""
        hops = self.cfg.graphHops if hops is None else hops
        top_k = min(self.cfg.nodeTopK, 50) if top_k is None else top_k  # the config allows more than a call does
        validate(query, top_k, hops, max_tokens)
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        query, cut_note = cut_query(query)
        qa = analyze_query(query)
        count_definitions(self.db, qa)
        diag = Diagnostics()
        total_docs = node_count(self.db)

        ranked: dict[str, list[int]] = {}
        if "fts" in channels:
            t = time.perf_counter()
            fts = fts_channel(self.db, qa, CHANNEL_DEPTH, total_docs)
            ranked["fts5"] = [nid for nid, _ in fts]
            timings["fts"] = _ms(t)
            diag.channels.append("fts5")
        # The named/graph channels and the learned step were tuned on issues: a one-line query keeps the hand-set
        # ranking (see query_parts.is_issue_shaped).
        issue = is_issue_shaped(qa.text)
        learned = issue and bool(rerank.WEIGHTS)
        if "fts" in channels and issue and (NAMED_WEIGHT > 0 or GRAPH_WEIGHT > 0 or learned):
            t = time.perf_counter()
            ranked["named"] = named_channel(self.db, qa, CHANNEL_DEPTH)
            if GRAPH_WEIGHT > 0 or learned:
                ranked["graph"] = graph_channel(self.db, ranked["named"], CHANNEL_DEPTH)
            timings["named"] = _ms(t)
        query_vector: bytes | None = None
        part_vectors: list[bytes] = []
        notes: list[str] = [cut_note] if cut_note else []
        if "dense" in channels or self.resource_finder is not None:
            texts = dense_texts(qa.text) if "dense" in channels else dense_texts(qa.text, max_parts=1)
            part_vectors, dense_note = self._query_vectors(texts, timings)
            query_vector = part_vectors[0] if part_vectors else None
            if dense_note and "dense" in channels:
                notes.append(dense_note)
        if "dense" in channels and part_vectors:
            t = time.perf_counter()
            ranked["dense"], fallback = self.dense_ranked(part_vectors)
            diag.fallbackTriggered = diag.fallbackTriggered or fallback
            timings["dense"] = _ms(t)
            diag.channels.append("dense")
            if self.dense.embedded < self.dense.total:
                # Vectors are still being added (or a build stopped early): say how far, and flag the answer.
                notes.append(f"dense channel: {self.dense.embedded}/{self.dense.total} symbols embedded")
                diag.degraded = True
        diag.denseCoverage = self.dense.coverage
        diag.candidates = {k: len(v) for k, v in ranked.items()}

        t = time.perf_counter()
        prose = not issue and not qa.is_identifier_query
        fts_weight = self.cfg.ftsWeight * (PROSE_FTS_SCALE if prose else 1.0)
        weights = {"fts5": fts_weight, "dense": self.cfg.denseWeight, "named": NAMED_WEIGHT}
        weights["graph"] = GRAPH_WEIGHT
        # A channel at weight 0 still runs when the re-ranker reads its ranks; what only it found is left out.
        fused = [
            f for f in rrf(ranked, weights, self.cfg.rrfK) if f.score > 0 or "fts5" in f.ranks or "dense" in f.ranks
        ]
        rows = graph.nodes_by_ids(self.db, [f.id for f in fused])
        if issue and ISSUE_TESTS_BY_PATH:
            # An issue's reproducer says "test" nearly always; only naming one of the repository's test files (not
            # the reporter's own test_repro.py) makes the tests the topic.
            qa.mentions_tests = names_non_source({row.path for row in rows.values()}, qa)
        all_hits = rank_hits(fused, rows, qa, context_files=context_files, kinds=kinds)
        words = file_path_words(all_hits, qa)
        counts = self._path_word_counts() if ranking.PATH_WORD_RARITY else None
        files = rank_files(all_hits, qa, counts, words, issue=issue)
        if learned:
            hand_order = [f.filePath for f in files]
            word_counts = {path: len(w) for path, w in words.items()}
            all_hits = rerank.rerank_hits(all_hits, hand_order, word_counts)
        hits = all_hits[:top_k]
        timings["fuse"] = _ms(t)

        t = time.perf_counter()
        neighbours = self._neighbours(hits, hops)
        timings["expand"] = _ms(t)

        bodies = graph.node_bodies(self.db, [h.nodeId for h in hits[:SNIPPET_HITS]])
        for h in hits[:SNIPPET_HITS]:
            h.snippet = snippet_of(bodies.get(h.nodeId, ""))

        resources: list[ResourceHit] = []
        if self.resource_finder is not None:
            t = time.perf_counter()
            resources, rnote = self.resource_finder(
                qa, query_vector, [h.nodeId for h in hits] + [n.nodeId for n in neighbours]
            )
            diag.resourceNote = rnote
            timings["resources"] = _ms(t)

        if self.stale_check is not None:
            stale = self.stale_check(sorted({h.filePath for h in hits} | {n.filePath for n in neighbours}))
            for h in hits:
                h.stale = h.filePath in stale
            diag.staleFiles = sorted(stale)
            if stale:
                notes.append(f"{len(stale)} file(s) in this answer changed since indexing; run igraph_index")

        if "dense" in channels and "dense" not in diag.channels:
            diag.degraded = True
        diag.note = "; ".join(notes) if notes else None
        timings["total"] = _ms(t0)
        diag.timingsMs = timings
        # Echo the cleaned text: a lone surrogate (undecodable CLI bytes) cannot be serialised to JSON.
        echo = qa.text
        result = ExploreResult(
            query=echo if len(echo) <= 200 else echo[:200] + "…",
            degraded=diag.degraded,
            note=diag.note,
            hits=hits,
            files=files[: max(top_k, 10)],
            neighbours=neighbours,
            resources=resources,
            diagnostics=diag,
        )
        return fit_to_budget(result, max_tokens or self.cfg.maxTokens)

    def dense_ranked(self, part_vectors: Sequence[bytes]) -> tuple[list[int], bool]:
        """The dense channel's ranking for the query's part vectors (fused by RRF when there are several), and
        whether the fileTopK pre-filter had to be widened for any part."""
        search = self.dense.search or SqliteVecSearch(self.db)
        per_part: dict[str, list[int]] = {}
        best_sim: dict[int, float] = {}
        fallback = False
        for n, vector in enumerate(part_vectors):
            dres = dense_channel(
                search,
                vector,
                limit=CHANNEL_DEPTH,
                file_top_k=self.cfg.fileTopK,
                fallback_threshold=self.cfg.fallbackThreshold,
            )
            per_part[f"part{n}"] = [nid for nid, _ in dres.ranked]
            for nid, sim in dres.ranked:
                best_sim[nid] = max(sim, best_sim.get(nid, -1.0))
            fallback = fallback or dres.fallback_triggered
        if len(per_part) == 1:
            return per_part["part0"], fallback
        if PART_FUSION == "max":
            return sorted(best_sim, key=lambda nid: (-best_sim[nid], nid))[:CHANNEL_DEPTH], fallback
        part_weights = {name: OTHER_PART_WEIGHT for name in per_part} | {"part0": HEAD_PART_WEIGHT}
        return [f.id for f in rrf(per_part, part_weights, self.cfg.rrfK)[:CHANNEL_DEPTH]], fallback

    # -- helpers --------------------------------------------------------------------------------------------
    def _path_word_counts(self) -> PathWordCounts:
        """Path-word counts of this index, built once per index generation (a few ms on 3,000 files)."""
        key = (str(self.db.path), self.db.get_meta("generation"))
        cached = _PATH_WORD_COUNTS.get(key)
        if cached is None:
            cached = PathWordCounts(list(graph.file_paths(self.db).values()))
            _PATH_WORD_COUNTS.clear()  # one index at a time is the common case; keep memory flat
            _PATH_WORD_COUNTS[key] = cached
        return cached

    def _query_vectors(self, texts: list[str], timings: dict[str, float]) -> tuple[list[bytes], str | None]:
        if self.dense.reason is not None or self.dense.embedder is None:
            return [], self.dense.reason or "dense channel off"
        t = time.perf_counter()
        dim = int(self.db.get_meta("embedder_dim", "0") or 0)
        out: list[bytes] = []
        for text in texts:
            try:
                vec = np.asarray(self.dense.embedder.embed_query(text), dtype=np.float32)
            except EmbedderError as exc:
                return [], f"embedding backend failed ({exc}); answered from FTS only"
            if vec.shape != (dim,):
                return (
                    [],
                    f"query vector has dimension {vec.shape[-1]}, the index has {dim}; answered from FTS only",
                )
            out.append(vec_store.to_blob(vec))
        timings["embed"] = _ms(t)
        return out, None

    def _neighbours(self, hits: list[Hit], hops: int) -> list[Neighbour]:
        if hops <= 0 or not hits:
            return []
        seeds = {h.nodeId: h.score for h in hits}
        reached = expand(self.db, seeds, hops, limit=NEIGHBOUR_LIMIT)
        return neighbours(self.db, reached, {h.nodeId: h.qualifiedName or h.name for h in hits})


_PATH_WORD_COUNTS: dict[tuple[str, str | None], PathWordCounts] = {}


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)
