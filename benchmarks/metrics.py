"""Retrieval metrics for the benchmarks (pure functions, no I/O).

Definitions (devset README): strict Acc@k = 1 when *every* gold item is in the top k, else 0;
Recall@k = fraction of gold items found in the top k; reciprocal rank = 1 / rank of the first
ranked item that matches any gold item (0 if none within the cutoff). Means are taken over
queries. MRR is cut at 10 (``MRR_CUTOFF``) for every system so a system that returns more
results gains nothing from its tail.

Gold functions look like ``path::Class.method``; a hit is ``(file_path, qualified_name)``.
Matching (``function_match``): same path (POSIX, leading ``./`` ignored) and

1. the qualified names are equal; or
2. the hit is nested inside the gold (``hit`` starts with ``gold + "."``) and the gold is not a
   class - a function defined inside the gold function is part of it; or
3. the gold is nested inside the hit and the hit is not a class - the gold lies inside a
   function the system returned (a system that does not index nested defs).

So a class never stands in for its methods, nor a method for its class. Which keys are classes
comes from ``class_keys`` (``path::qualname``); without it, rules 2-3 treat every name as a
function. Each gold item is counted at most once.

Other languages (``code_function_match``, the multilang set): the gold leaves out namespaces and writes C++
qualifiers with dots (``Capturer.Capturer`` for ``Catch::Capturer::Capturer``), while our outline names keep every
enclosing namespace (``Catch.Capturer.Capturer``) and write operators with a space (``operator ==``). Both sides are
brought to one spelling (``code_name``) and the gold may match the hit's qualified name without leading parts, so
the rules above apply to the hit's name seen from any enclosing scope.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence

MRR_CUTOFF = 10
FILE_KS = (1, 3, 5, 10)
FUNCTION_KS = (5, 10)
DOCSTRING_KS = (1, 5, 10)

Hit = tuple[str, str]
# (gold key, hit, class keys) -> whether the hit locates the gold: function_match or code_function_match
Matcher = Callable[[str, Hit, Collection[str]], bool]
_SPACES = re.compile(r"\s+")


def normalize_path(path: str) -> str:
    """Return a POSIX relative path without a leading './'."""
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def split_key(key: str) -> Hit:
    """Split 'path::Qualified.name' into (path, qualname)."""
    path, sep, qualname = key.partition("::")
    if not sep:
        raise ValueError(f"not a 'path::qualname' key: {key!r}")
    return normalize_path(path), qualname


def function_match(gold: str, hit: Hit, class_keys: Collection[str] = frozenset()) -> bool:
    """True when hit (path, qualname) locates the gold 'path::qualname' (rules in the module doc)."""
    gold_path, gold_qn = split_key(gold)
    hit_path, hit_qn = normalize_path(hit[0]), hit[1]
    if gold_path != hit_path or not hit_qn:
        return False
    if hit_qn == gold_qn:
        return True
    if hit_qn.startswith(gold_qn + "."):
        return f"{gold_path}::{gold_qn}" not in class_keys
    if gold_qn.startswith(hit_qn + "."):
        return f"{hit_path}::{hit_qn}" not in class_keys
    return False


def code_name(qualname: str) -> str:
    """A C/C++/Java/Rust qualified name in the devset's spelling: ``::`` as ``.``, no whitespace."""
    return _SPACES.sub("", qualname.replace("::", "."))


def code_key(key: str) -> str:
    """A ``path::qualname`` key with its name in ``code_name`` spelling (for the class keys of a code tree)."""
    path, qualname = split_key(key)
    return f"{path}::{code_name(qualname)}"


def code_function_match(gold: str, hit: Hit, class_keys: Collection[str] = frozenset()) -> bool:
    """``function_match`` for other languages: names in ``code_name`` spelling, and the gold may drop the hit's
    leading scopes (namespaces, packages); ``class_keys`` are ``code_key`` keys."""
    gold_path, gold_qn = split_key(gold)
    if normalize_path(hit[0]) != gold_path or not hit[1]:
        return False
    want = code_name(gold_qn).split(".")
    parts = code_name(hit[1]).split(".")
    tails = [parts[start:] for start in range(len(parts))]
    if want in tails:
        return True
    for start, tail in enumerate(tails):
        if len(tail) > len(want) and tail[: len(want)] == want:  # the hit is nested inside the gold (not a class)
            return f"{gold_path}::{'.'.join(parts[: start + len(want)])}" not in class_keys
    # the gold lies inside the hit (a function; the system does not list what it nests)
    inside = any(len(tail) < len(want) and want[: len(tail)] == tail for tail in tails)
    return inside and f"{gold_path}::{'.'.join(parts)}" not in class_keys


def dedupe(items: Iterable[str]) -> list[str]:
    """Keep the first occurrence of each item, preserving order."""
    return list(dict.fromkeys(items))


def file_ranks(gold_files: Sequence[str], ranked_files: Sequence[str]) -> list[int | None]:
    """Return the 1-based rank of each gold file in the (deduplicated) ranking, None if absent."""
    ranking = dedupe(normalize_path(f) for f in ranked_files)
    position = {f: i + 1 for i, f in enumerate(ranking)}
    return [position.get(normalize_path(g)) for g in gold_files]


def function_ranks(
    gold_functions: Sequence[str],
    ranked: Sequence[Hit],
    class_keys: Collection[str] = frozenset(),
    match: Matcher = function_match,
) -> list[int | None]:
    """Return, for each gold function, the 1-based rank of the first matching hit (None if absent)."""
    ranks: list[int | None] = []
    for gold in gold_functions:
        rank = next((i + 1 for i, hit in enumerate(ranked) if match(gold, hit, class_keys)), None)
        ranks.append(rank)
    return ranks


def strict_accuracy(ranks: Sequence[int | None], k: int) -> float:
    """1.0 when every gold rank is within k (and there is at least one gold), else 0.0."""
    return float(bool(ranks) and all(r is not None and r <= k for r in ranks))


def recall(ranks: Sequence[int | None], k: int) -> float:
    """Fraction of gold items ranked within k (0.0 for no gold)."""
    return sum(r is not None and r <= k for r in ranks) / len(ranks) if ranks else 0.0


def reciprocal_rank(ranks: Sequence[int | None], cutoff: int = MRR_CUTOFF) -> float:
    """1 / best gold rank when it is within cutoff, else 0.0."""
    found = [r for r in ranks if r is not None and r <= cutoff]
    return 1.0 / min(found) if found else 0.0


def devset_metrics(
    gold_files: Sequence[str],
    gold_functions: Sequence[str],
    ranked_files: Sequence[str],
    ranked_functions: Sequence[Hit],
    class_keys: Collection[str] = frozenset(),
    match: Matcher = function_match,
) -> dict[str, float | None]:
    """Per-instance file and function metrics; function metrics are None when there is no gold function."""
    fr = file_ranks(gold_files, ranked_files)
    out: dict[str, float | None] = {f"file_acc@{k}": strict_accuracy(fr, k) for k in FILE_KS}
    out["file_mrr"] = reciprocal_rank(fr)
    if gold_functions:
        fn = function_ranks(gold_functions, ranked_functions, class_keys, match)
        out.update({f"func_acc@{k}": strict_accuracy(fn, k) for k in FUNCTION_KS})
        out["func_recall@10"] = recall(fn, 10)
        out["func_mrr"] = reciprocal_rank(fn)
    else:
        out.update({f"func_acc@{k}": None for k in FUNCTION_KS} | {"func_recall@10": None, "func_mrr": None})
    return out


def docstring_metrics(
    gold: str, ranked_functions: Sequence[Hit], class_keys: Collection[str] = frozenset()
) -> dict[str, float | None]:
    """Per-query metrics for the docstring set (one gold symbol): Acc@1/5/10 and MRR@10."""
    ranks = function_ranks([gold], ranked_functions, class_keys)
    out: dict[str, float | None] = {f"acc@{k}": strict_accuracy(ranks, k) for k in DOCSTRING_KS}
    out["mrr@10"] = reciprocal_rank(ranks, 10)
    return out


def mean_metrics(rows: Sequence[Mapping[str, float | None]]) -> dict[str, float | None]:
    """Average each metric over the rows where it is not None (None when no row has it)."""
    keys = dedupe(k for row in rows for k in row)
    out: dict[str, float | None] = {}
    for key in keys:
        values = [v for row in rows if (v := row.get(key)) is not None]
        out[key] = sum(values) / len(values) if values else None
    return out


def reachable_golds(
    gold_functions: Sequence[str],
    symbol_keys: Collection[str],
    class_keys: Collection[str] = frozenset(),
    match: Matcher = function_match,
) -> list[str]:
    """Keep the gold functions that exist in the tree (some are added by the fix and cannot be found)."""
    by_path: dict[str, list[Hit]] = {}
    for key in symbol_keys:
        path, qn = split_key(key)
        by_path.setdefault(path, []).append((path, qn))
    return [g for g in gold_functions if any(match(g, h, class_keys) for h in by_path.get(split_key(g)[0], []))]
