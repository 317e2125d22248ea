"""Training pairs for the code adapter from mined commits, and the batches that mix them with docstring pairs.

A commit pair is the query the dense channel would embed for the commit written as an issue (its head: title and
prose, ``retrieve/query_parts.dense_texts``) and the embedded text of one definition the commit edited, as the
index stores it (``mine_commits`` records it). Batches are cut within one repository, so the other documents of a
batch, the in-batch negatives, are definitions of the same code base: hard negatives, as the dense channel meets
them. A held-out repository gives a pool: its newest commits' queries ranked against every definition edited by
its recent history.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_SRC = Path(__file__).resolve().parents[1]
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from mine_commits import issue_text  # noqa: E402

from igraph_mcp.retrieve.query_parts import dense_texts  # noqa: E402

MIN_BATCH = 8  # a repository's last, partial batch is kept from this size: fewer negatives teach little


@dataclass(frozen=True)
class CommitPair:
    """One mined commit: its dense query, the embedded texts of the definitions it edited, and its repository."""

    query: str
    documents: tuple[str, ...]
    repository: str


def read_commits(commits_dir: Path, split: str) -> Iterator[dict[str, object]]:
    """The mined records of one split (``train`` or ``heldout``), repository by repository in name order."""
    for path in sorted(commits_dir.glob("*.jsonl")):
        with path.open() as fh:
            for line in fh:
                rec = json.loads(line)
                if rec.get("split") == split:
                    yield rec


def commit_pairs(commits_dir: Path, split: str, per_repo: int) -> list[CommitPair]:
    """Each repository's newest ``per_repo`` commits that name an edited definition with its embedded text."""
    out: list[CommitPair] = []
    kept: dict[str, int] = {}
    for rec in read_commits(commits_dir, split):
        repo = str(rec["repository"])
        if kept.get(repo, 0) >= per_repo:
            continue
        functions = rec.get("functions")
        docs = tuple(dict.fromkeys(str(f["text"]) for f in functions if f.get("text"))) if functions else ()
        heads = dense_texts(issue_text(rec), max_parts=1)
        if not docs or not heads:
            continue
        out.append(CommitPair(heads[0], docs, repo))
        kept[repo] = kept.get(repo, 0) + 1
    return out


def _cut(pairs: list[tuple[str, str]], size: int) -> Iterator[list[tuple[str, str]]]:
    """Consecutive batches with no query or document twice in one batch (a repeat would be a false negative)."""
    batch: list[tuple[str, str]] = []
    seen: set[str] = set()
    for q, d in pairs:
        if q in seen or d in seen:
            continue
        batch.append((q, d))
        seen.update((q, d))
        if len(batch) == size:
            yield batch
            batch, seen = [], set()
    if len(batch) >= MIN_BATCH:
        yield batch


def batches(
    commits: list[CommitPair],
    docstrings: list[tuple[str, str]],
    size: int,
    docstring_share: float,
    rng: random.Random,
) -> list[list[tuple[str, str]]]:
    """One epoch's batches in random order: commit batches within a repository (each commit with one of its
    edited definitions, drawn anew each epoch), and docstring batches making up ``docstring_share`` of them."""
    by_repo: dict[str, list[tuple[str, str]]] = {}
    for p in commits:
        by_repo.setdefault(p.repository, []).append((p.query, rng.choice(p.documents)))
    out: list[list[tuple[str, str]]] = []
    for repo in sorted(by_repo):
        rows = by_repo[repo]
        rng.shuffle(rows)
        out.extend(_cut(rows, size))
    if docstrings and docstring_share > 0:
        every = not out or docstring_share >= 1.0  # no commits, or docstrings only: all of them
        wanted = len(docstrings) / size if every else len(out) * docstring_share / (1.0 - docstring_share)
        rows = list(docstrings)
        rng.shuffle(rows)
        out.extend(b for i, b in enumerate(_cut(rows, size)) if i < max(1, int(wanted)))
    rng.shuffle(out)
    return out


@dataclass(frozen=True)
class Pool:
    """A held-out repository's check: queries with the indices of their gold documents in ``documents``."""

    repository: str
    queries: tuple[str, ...]
    gold: tuple[frozenset[int], ...]
    documents: tuple[str, ...]


def heldout_pools(commits: list[CommitPair], queries: int, history: int) -> list[Pool]:
    """Per repository: its newest ``queries`` commits ranked against the definitions edited by its newest
    ``history`` commits (theirs included), so the distractors are code the same project was changing."""
    by_repo: dict[str, list[CommitPair]] = {}
    for p in commits:
        by_repo.setdefault(p.repository, []).append(p)
    pools: list[Pool] = []
    for repo in sorted(by_repo):
        recent = by_repo[repo][:history]
        docs = list(dict.fromkeys(d for p in recent for d in p.documents))
        index = {d: i for i, d in enumerate(docs)}
        asked = recent[:queries]
        pools.append(
            Pool(
                repo,
                tuple(p.query for p in asked),
                tuple(frozenset(index[d] for d in p.documents) for p in asked),
                tuple(docs),
            )
        )
    return pools
