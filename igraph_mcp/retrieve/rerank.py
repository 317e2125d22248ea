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
from collections.abc import Set as AbstractSet

from igraph_mcp.models import Hit
from igraph_mcp.text.identifiers import split_identifier
from igraph_mcp.vocab.testcode import is_non_source

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
    # Added with the commit-trained weights (training/train_rerank.py): ranks instead of presence for the named
    # symbols and their graph neighbours, agreement of the two searches, where and how large the symbol is, how
    # many of its name's words the query uses, and whether it is its file's first candidate.
    "named_logrank",
    "graph_logrank",
    "both_channels",
    "non_source",
    "lines_log",
    "name_words",
    "file_first",
)
# Trained weights, one per feature (empty = the step is off and the fused order stands), as printed by
# ``benchmarks/rerank_train.py --train`` on the devset's tuning half; docs/ranking.md has the command and figures.
# In words: functions and methods over classes and modules, tests further down, files the query names by their
# path words and files already ranked high lifted. The seven newer features stay at 0: weights fitted on mined
# commits (training/train_rerank.py) won on held-out repositories but not on the devset (docs/ranking.md).
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
    0.94,  # kind_method
    1.597,  # kind_function
    -1.095,  # kind_module
    0.852,  # path_words
    0.0,  # file_candidates
    0.274,  # file_logrank
    0.0,  # named_logrank
    0.0,  # graph_logrank
    0.0,  # both_channels
    0.0,  # non_source
    0.0,  # lines_log
    0.0,  # name_words
    0.0,  # file_first
)


def neg_log_rank(rank: int) -> float:
    """-log(rank): rank 1 -> 0, and a channel that did not return the candidate (0) counts as past its depth."""
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
    non_source: bool = False,
    lines: int = 1,
    name_words: float = 0.0,
    file_first: bool = False,
) -> list[float]:
    """One candidate's features in FEATURES order (ranks from 1; 0 = the channel did not return it)."""
    why = {"exactName" if b == "exactNameCaseInsensitive" else b for b in boosts}
    absent = neg_log_rank(0)
    return [
        neg_log_rank(base_rank),
        neg_log_rank(fts_rank),
        neg_log_rank(dense_rank),
        float(named_rank > 0),
        float(graph_rank > 0),
        *(float(b in why) for b in _BOOST_FEATURES),
        *(float(kind == k) for k in _KINDS),
        float(min(path_words, 3)),
        math.log1p(file_candidates),
        neg_log_rank(file_rank),
        neg_log_rank(named_rank) - absent,
        neg_log_rank(graph_rank) - absent,
        float(fts_rank > 0 and dense_rank > 0),
        float(non_source),
        math.log1p(max(lines, 1)),
        name_words,
        float(file_first),
    ]


def _linear(weights: Sequence[float], row: Sequence[float]) -> float:
    return sum(w * x for w, x in zip(weights, row, strict=True))


def name_word_share(name: str, query_words: AbstractSet[str]) -> float:
    """The share of a symbol name's words (``parse_file`` -> parse, file) that the query uses."""
    words = set(split_identifier(name))
    return len(words & query_words) / len(words) if words and query_words else 0.0


def feature_rows(
    top: Sequence[Hit],
    file_order: Sequence[str],
    path_words: Mapping[str, int],
    query_words: AbstractSet[str] = frozenset(),
) -> list[list[float]]:
    """The feature rows of ``top`` (hits in fused order): what the learned weights score, and what
    ``benchmarks/rerank_train.py`` and ``training/train_rerank.py`` fit them on (``query_words``: the query's
    FTS tokens)."""
    per_file = Counter(h.filePath for h in top)
    file_pos = {f: i for i, f in enumerate(file_order, start=1)}
    first_of_file: dict[str, int] = {}
    for h in top:
        first_of_file.setdefault(h.filePath, h.nodeId)
    return [
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
            non_source=is_non_source(h.filePath),
            lines=h.endLine - h.startLine + 1,
            name_words=name_word_share(h.name, query_words),
            file_first=first_of_file[h.filePath] == h.nodeId,
        )
        for rank, h in enumerate(top, start=1)
    ]


def rerank_hits(
    hits: list[Hit],
    file_order: Sequence[str],
    path_words: Mapping[str, int],
    weights: Sequence[float] = WEIGHTS,
    depth: int = RERANK_DEPTH,
    query_words: AbstractSet[str] = frozenset(),
) -> list[Hit]:
    """The top ``depth`` hits re-scored by the learned ``weights`` (no-op when they are empty).

    ``file_order`` is the hand-set file ranking and ``path_words`` the number of a file's path words the query
    uses. New scores keep the top score and scale the others by exp(learned - best), so files still aggregate
    them like fused scores; hits below the depth keep their order underneath.
    """
    if not weights or not hits:
        return hits
    top, rest = hits[:depth], hits[depth:]
    learned = [_linear(weights, row) for row in feature_rows(top, file_order, path_words, query_words)]
    best, scale = max(learned), max(h.score for h in top)
    for h, value in zip(top, learned, strict=True):
        h.score = scale * math.exp(value - best)
    floor = min(h.score for h in top) * 0.999
    for h in rest:
        h.score = min(h.score, floor)
    return sorted(top, key=lambda h: (-h.score, h.nodeId)) + rest
