"""From fused candidates to ranked hits and files: boosts applied, kinds filtered (pure, no I/O)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from igraph_mcp.models import FileHit, Hit
from igraph_mcp.retrieve.analyze import QueryAnalysis
from igraph_mcp.retrieve.boosts import Candidate, boost
from igraph_mcp.retrieve.fusion import Fused
from igraph_mcp.retrieve.shapes import location
from igraph_mcp.store.records import NodeRow
from igraph_mcp.text.identifiers import split_identifier
from igraph_mcp.vocab.testcode import is_test_path

FILE_SCORE_DECAY = 0.5  # a file's score: its best symbol plus decaying credit for further ones
FILE_SYMBOLS = 5  # symbols of one file that add to its score
# A file whose path words (directories and file name, split like identifiers) appear in the query gets this
# much more per word, up to PATH_WORDS_MAX words: "autodoc", "migrations" or "bulk_update" name a place.
# Devset tuning half (14 issues, issue 11): 0 -> 0.3 -> 0.5 gave file MRR 61.3 -> 64.3 -> 64.3 and file Acc@5
# 64.3 -> 64.3 -> 71.4, nothing else changed.
PATH_WORD = 0.5
PATH_WORDS_MAX = 3
# Weigh each path word by its rarity among the index's paths (log(files / files with the word) / log(files)):
# "django" is in every Django path and says nothing, "autodoc" names a place. 0 = count words alike.
PATH_WORD_RARITY = 0
# An issue is fixed in source: for issue-shaped queries a file of tests, docs or examples has its score multiplied
# by this, even when the issue talks about tests (its reproducer usually does), unless the issue names that very
# file. Devset tuning half (58 issues, 19 trees) by factor 1.0 / 0.7 / 0.5 / 0.3 / 0.2: file Acc@5 70.7 / 74.1 /
# 74.1 / 77.6 / 77.6, Acc@10 79.3 / 82.8 / 84.5 / 86.2 / 86.2, file MRR 72.3 / 73.3 / 73.9 / 74.9 / 74.9, function
# Acc@10 58.9 / 60.7 / 60.7 / 60.7 / 60.7; file Acc@1 stayed 60.3.
ISSUE_NON_SOURCE = 0.3
_NON_SOURCE_DIRS = frozenset({"doc", "docs", "example", "examples"})
_GENERIC_PATH_WORDS = frozenset({"py", "init", "src", "lib", "main", "core", "base", "utils", "util", "tests", "test"})


def rank_hits(
    fused: Sequence[Fused],
    rows: Mapping[int, NodeRow],
    qa: QueryAnalysis,
    *,
    context_files: Sequence[str] = (),
    kinds: Sequence[str] | None = None,
) -> list[Hit]:
    """Apply boosts to fused candidates and return hits best first (deterministic on ties)."""
    wanted_kinds = set(kinds) if kinds else None
    hits: list[Hit] = []
    for f in fused:
        row = rows.get(f.id)
        if row is None or (wanted_kinds and row.kind not in wanted_kinds):
            continue
        factor, why = boost(Candidate(row.name, row.qualified_name, row.kind, row.path), qa, context_files)
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


class PathWordCounts:
    """How many of an index's files carry each path word (the rarity of a word), from the list of paths."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.files = len(paths)
        self.counts: Counter[str] = Counter(w for p in paths for w in path_words(p))

    def rarity(self, words: set[str]) -> float:
        """Sum over ``words`` of log(files / files with the word) / log(files): 1 for a word in one file."""
        if self.files < 2:
            return float(len(words))
        top = math.log(self.files)
        return sum(math.log(self.files / max(self.counts.get(w, 1), 1)) / top for w in words)


def file_path_words(hits: Sequence[Hit], qa: QueryAnalysis | None) -> dict[str, set[str]]:
    """file -> the path words of that file the query uses, for every file among ``hits``."""
    query_words = set(qa.tokens) if qa is not None else set()
    out: dict[str, set[str]] = {}
    for h in hits:
        if h.filePath not in out:
            out[h.filePath] = path_words(h.filePath) & query_words if query_words else set()
    return out


def is_non_source(path: str) -> bool:
    """Tests, documentation and examples: where an issue's fix rarely is."""
    return is_test_path(path) or any(part.lower() in _NON_SOURCE_DIRS for part in path.split("/")[:-1])


def rank_files(
    hits: list[Hit],
    qa: QueryAnalysis | None = None,
    counts: PathWordCounts | None = None,
    words: Mapping[str, set[str]] | None = None,
    *,
    issue: bool = False,
) -> list[FileHit]:
    """Files ranked by their best symbol plus decaying credit for further ones, and by path words the query uses
    (each weighed by its rarity among ``counts``' paths when PATH_WORD_RARITY is on and counts are given)."""
    scores: dict[str, list[float]] = {}
    for h in hits:
        scores.setdefault(h.filePath, []).append(h.score)
    matched = words if words is not None else file_path_words(hits, qa) if PATH_WORD > 0 else {}
    ranked = []
    for path, vals in scores.items():
        vals.sort(reverse=True)
        score = sum(v * FILE_SCORE_DECAY**i for i, v in enumerate(vals[:FILE_SYMBOLS]))
        used = matched.get(path)
        if used and PATH_WORD > 0:
            evidence = counts.rarity(used) if PATH_WORD_RARITY and counts is not None else float(len(used))
            score *= 1 + PATH_WORD * min(PATH_WORDS_MAX, evidence)
        if issue and ISSUE_NON_SOURCE != 1.0 and is_non_source(path) and not _names_non_source(path, qa):
            score *= ISSUE_NON_SOURCE
        ranked.append(FileHit(filePath=path, score=score))
    ranked.sort(key=lambda f: (-f.score, f.filePath))
    return ranked
