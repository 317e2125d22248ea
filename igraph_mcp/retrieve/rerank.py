"""The learned re-ranking step: a linear score over the fused top candidates (coefficients trained offline).

``benchmarks/rerank_train.py`` fits the weights with a pairwise logistic regression on the devset's tuning
half only and prints them; they are pasted into ``WEIGHTS``. Features are cheap facts the ranker already has:
each channel's rank, the boosts that applied, the symbol's kind, the path words of its file the query uses and
how many of the top candidates share its file.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from igraph_mcp.models import FileHit, Hit

RERANK_DEPTH = 50  # candidates re-ranked; the rest keep their fused order below them
_ABSENT = 101  # rank given to a channel that did not return the candidate (channels return 100)
_BOOST_FEATURES = (
    "exactName",
    "qualifiedName",
    "identifier",
    "tracebackFrame",
    "pathMentioned",
    "kindHint",
    "testCode",
)
_KINDS = ("class", "method", "function", "module")
FEATURES: tuple[str, ...] = (
    "base_logrank",
    "fts_logrank",
    "dense_logrank",
    "named",
    "graph",
    *_BOOST_FEATURES,
    *(f"kind_{k}" for k in _KINDS),
    "path_words",
    "file_candidates",
    "file_logrank",
)
# Trained weights, one per feature (empty = the step is off and the fused order stands). Fitted by
#   python benchmarks/rerank_train.py <dumps> --base graph=0.5 --train \
#     --features base_logrank,kind_function,kind_method,kind_class,kind_module,testCode,path_words,file_logrank
# on the devset's tuning half (46 issues of 17 trees; issue 11). The eight-feature set won 5-fold cross-validation
# on the tuning half against all features and narrower sets (function Acc@10 47.8 -> 54.3, MRR 41.0 -> 47.1).
# In words: functions and methods over classes and modules, tests further down, files the query names by their
# path words and files already ranked high lifted.
WEIGHTS: tuple[float, ...] = (
    0.839,  # base_logrank
    0.0,  # fts_logrank
    0.0,  # dense_logrank
    0.0,  # named
    0.0,  # graph
    0.0,  # exactName
    0.0,  # qualifiedName
    0.0,  # identifier
    0.0,  # tracebackFrame
    0.0,  # pathMentioned
    0.0,  # kindHint
    -2.201,  # testCode
    -0.847,  # kind_class
    0.940,  # kind_method
    1.597,  # kind_function
    -1.095,  # kind_module
    0.852,  # path_words
    0.0,  # file_candidates
    0.274,  # file_logrank
)


def _neg_log_rank(rank: int) -> float:
    return -math.log(rank if rank > 0 else _ABSENT)


def feature_row(
    *,
    base_rank: int,
    fts_rank: int,
    dense_rank: int,
    named_rank: int,
    graph_rank: int,
    boosts: Sequence[str],
    kind: str,
    path_words: int,
    file_candidates: int,
    file_rank: int,
) -> list[float]:
    """One candidate's features in FEATURES order (ranks from 1; 0 = the channel did not return it)."""
    why = {"exactName" if b == "exactNameCaseInsensitive" else b for b in boosts}
    return [
        _neg_log_rank(base_rank),
        _neg_log_rank(fts_rank),
        _neg_log_rank(dense_rank),
        float(named_rank > 0),
        float(graph_rank > 0),
        *(float(b in why) for b in _BOOST_FEATURES),
        *(float(kind == k) for k in _KINDS),
        float(min(path_words, 3)),
        math.log1p(file_candidates),
        _neg_log_rank(file_rank),
    ]


FILE_RERANK_DEPTH = 30  # files re-ranked; the rest keep their order below them
FILE_FEATURES: tuple[str, ...] = (
    "file_logrank",
    "best_symbol_logrank",
    "symbols_top50",
    "symbols_top10",
    "path_words",
    "path_word_rarity",
    "best_fts_logrank",
    "best_dense_logrank",
    "module_hit",
    "named",
    "graph",
    "path_mentioned",
    "traceback_frame",
    "test_code",
)
FILE_WEIGHTS: tuple[float, ...] = ()


def file_feature_row(
    *,
    file_rank: int,
    best_symbol_rank: int,
    symbols_top50: int,
    symbols_top10: int,
    path_words: int,
    path_word_rarity: float,
    best_fts_rank: int,
    best_dense_rank: int,
    module_hit: bool,
    named: bool,
    graph: bool,
    boosts: set[str],
) -> list[float]:
    """One file's features in FILE_FEATURES order (ranks from 1; 0 = none)."""
    return [
        _neg_log_rank(file_rank),
        _neg_log_rank(best_symbol_rank),
        math.log1p(symbols_top50),
        math.log1p(symbols_top10),
        float(min(path_words, 3)),
        min(path_word_rarity, 3.0),
        _neg_log_rank(best_fts_rank),
        _neg_log_rank(best_dense_rank),
        float(module_hit),
        float(named),
        float(graph),
        float("pathMentioned" in boosts),
        float("tracebackFrame" in boosts),
        float("testCode" in boosts),
    ]


def _linear(weights: Sequence[float], row: Sequence[float]) -> float:
    return sum(w * x for w, x in zip(weights, row, strict=True))


def rerank_hits(hits: list[Hit], file_order: Sequence[str], path_words: Mapping[str, int]) -> list[Hit]:
    """The top RERANK_DEPTH hits re-scored by the learned weights (no-op when WEIGHTS is empty).

    ``file_order`` is the hand-set file ranking and ``path_words`` the number of a file's path words the query
    uses. New scores keep the top score and scale the others by exp(learned - best), so files still aggregate
    them like fused scores; hits below the depth keep their order underneath.
    """
    if not WEIGHTS or not hits:
        return hits
    top, rest = hits[:RERANK_DEPTH], hits[RERANK_DEPTH:]
    per_file = Counter(h.filePath for h in top)
    file_pos = {f: i for i, f in enumerate(file_order, start=1)}
    learned = [
        _linear(
            WEIGHTS,
            feature_row(
                base_rank=rank,
                fts_rank=h.ranks.get("fts5", 0),
                dense_rank=h.ranks.get("dense", 0),
                named_rank=h.ranks.get("named", 0),
                graph_rank=h.ranks.get("graph", 0),
                boosts=h.boosts,
                kind=h.kind,
                path_words=path_words.get(h.filePath, 0),
                file_candidates=per_file[h.filePath],
                file_rank=file_pos.get(h.filePath, 0),
            ),
        )
        for rank, h in enumerate(top, start=1)
    ]
    best, scale = max(learned), max(h.score for h in top)
    for h, value in zip(top, learned, strict=True):
        h.score = scale * math.exp(value - best)
    floor = min(h.score for h in top) * 0.999
    for h in rest:
        h.score = min(h.score, floor)
    return sorted(top, key=lambda h: (-h.score, h.nodeId)) + rest


def rerank_files(
    files: list[FileHit], hits: Sequence[Hit], path_words: Mapping[str, int], path_rarity: Mapping[str, float]
) -> list[FileHit]:
    """The top FILE_RERANK_DEPTH files re-ordered by the learned file score (no-op when FILE_WEIGHTS is empty)."""
    if not FILE_WEIGHTS or not files:
        return files
    top, rest = files[:FILE_RERANK_DEPTH], files[FILE_RERANK_DEPTH:]
    of_file: dict[str, list[tuple[int, Hit]]] = {}
    for rank, h in enumerate(hits, start=1):
        of_file.setdefault(h.filePath, []).append((rank, h))
    learned = []
    for pos, f in enumerate(top, start=1):
        mine = of_file.get(f.filePath, [])
        ranks = [r for r, _ in mine]
        learned.append(
            _linear(
                FILE_WEIGHTS,
                file_feature_row(
                    file_rank=pos,
                    best_symbol_rank=min(ranks, default=0),
                    symbols_top50=sum(r <= 50 for r in ranks),
                    symbols_top10=sum(r <= 10 for r in ranks),
                    path_words=path_words.get(f.filePath, 0),
                    path_word_rarity=path_rarity.get(f.filePath, 0.0),
                    best_fts_rank=min((h.ranks["fts5"] for _, h in mine if "fts5" in h.ranks), default=0),
                    best_dense_rank=min((h.ranks["dense"] for _, h in mine if "dense" in h.ranks), default=0),
                    module_hit=any(h.kind == "module" for _, h in mine),
                    named=any("named" in h.ranks for _, h in mine),
                    graph=any("graph" in h.ranks for _, h in mine),
                    boosts={b for _, h in mine for b in h.boosts},
                ),
            )
        )
    order = sorted(range(len(top)), key=lambda i: (-learned[i], i))
    return [top[i] for i in order] + rest
