"""The benchmarks' adapter to the igraph-mcp service, and the query sets as tasks: one tree, its cases.

Everything that knows the service's API is here (``open_service``, ``service_search``, ``default_call``), so the
scripts that measure it (``retrieval.py``, ``tune_levers.py``, ``default_call.py``, ``rerank_dump.py``,
``tune_fusion.py``) adjust in one place when the API moves. A run's settings are module attributes a script sets
once (``EMBED_CACHE``, ``REINDEX``, ``PARAMS``, ``MAX_QUERY_CHARS``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bench_data as bd
import common  # noqa: F401 - the checkout on sys.path
from baseline_bm25 import Ranking
from devset_half import HALVES, load_split
from embed_cache import CachedEmbedder

TOP_K = 10
GRAPH_TOP_K = 5  # igraph_explore's default topK

# --------------------------------------------------------------------------- service adapter
SERVICE_SYSTEMS: dict[str, tuple[tuple[str, ...], int]] = {
    "fts": (("fts",), 0),
    "dense": (("dense",), 0),
    "hybrid": (("fts", "dense"), 0),
    "hybrid+graph": (("fts", "dense"), 2),
}
# Queries are cut to what the service accepts (its own limit, read at start-up).
MAX_QUERY_CHARS = 10_000
# The answer budget trims hits and files to fit an agent's context; the benchmark measures ranking,
# so it asks for the largest budget the service accepts (read at start-up).
MAX_TOKENS = 100_000


REINDEX = False  # --reindex: rebuild structure + FTS with the current code (vectors of unchanged text are reused)
EMBED_CACHE: Path | None = None  # --embed-cache: vectors shared across trees and runs (None = off)
STORE: str | None = None  # --store: a postgresql:// URL (each tree its own repository there); None = SQLite file


def without_part_vectors() -> None:
    """--no-part-vectors: the dense channel reads only definitions' own vectors, as if the parts of long definitions
    (index/parts.py) were never embedded; FTS still reads the parts. Answers what the part vectors buy (issue 33: on
    sympy they are 58% of the vectors)."""
    _dense_without("--no-part-vectors", "SELECT id FROM nodes WHERE kind = 'part'")


def without_short_vectors(max_lines: int) -> None:
    """--no-short-vectors N: the dense channel leaves out functions and methods of at most ``max_lines`` lines
    (accessors, one-line delegations, trivial overrides, prototypes), as if they were never embedded; FTS still reads
    them. Answers issue 33's question whether their vectors add anything."""
    _dense_without(
        "--no-short-vectors",
        "SELECT id FROM nodes WHERE kind IN ('function', 'method') AND end_line - start_line < ?",
        (max_lines,),
    )


def _dense_without(flag: str, ids_sql: str, params: tuple[Any, ...] = ()) -> None:
    """The dense channel without the vectors of the nodes ``ids_sql`` selects. Only the in-memory matrix search is
    filtered, so a tree above the matrix limit stops the run instead of being measured with them."""
    from igraph_mcp.retrieve import vector_search
    from igraph_mcp.store import vectors as vec_store

    every = vec_store.all_node_vectors

    def kept(db: Any) -> tuple[list[int], list[int], list[bytes]]:
        ids, fids, blobs = every(db)
        if len(ids) > vector_search.MATRIX_MAX_VECTORS:
            raise SystemExit(f"{flag}: a tree above the matrix search's limit cannot be filtered")
        left_out = {int(r[0]) for r in db.rows(ids_sql, params)}
        keep = [i for i, nid in enumerate(ids) if nid not in left_out]
        return [ids[i] for i in keep], [fids[i] for i in keep], [blobs[i] for i in keep]

    vec_store.all_node_vectors = kept  # type: ignore[assignment]


def store_repo_name(set_name: str, label: str) -> str:
    """The repository name a tree gets in a shared store: its set and label (a tree may serve two sets)."""
    return f"{set_name}-{label}"


def open_service(root: Path, repo_name: str | None = None) -> tuple[Any, float, dict[str, Any]]:
    """Build the service for a tree and run its index; return (service, seconds, index summary).

    With ``STORE`` set the index goes into that database as repository ``repo_name``; the embedding cache is first
    seeded from the tree's SQLite index, so vectors the model computed for that index are not computed again.
    """
    from igraph_mcp.config import load_config  # imported lazily: the bm25-only run needs no package
    from igraph_mcp.embed.registry import embedder_from_config
    from igraph_mcp.service import IGraphService

    started = time.perf_counter()
    config = load_config(root)
    embedder = embedder_from_config(config.embedder)
    if embedder is not None and EMBED_CACHE is not None:
        cached = CachedEmbedder(embedder, EMBED_CACHE)
        if STORE is not None:
            seeded = cached.seed_from_index(root / ".igraph" / "igraph.db")
            if seeded:
                print(f"    embed cache: {seeded} vectors added from {root.name}'s SQLite index", file=sys.stderr)
        embedder = cached
    svc = IGraphService(root, config=config, embedder=embedder, store=STORE, repo_name=repo_name)
    summary = _index_when_free(svc, root)
    seconds = time.perf_counter() - started
    dump = getattr(summary, "model_dump", None)
    return svc, seconds, dump() if callable(dump) else {"summary": str(summary)}


def _index_when_free(svc: Any, root: Path) -> Any:
    """Bring the tree's index up to date, waiting (up to an hour) while another process is indexing it."""
    from igraph_mcp.errors import IndexBusy

    for _ in range(120):
        try:
            return svc.index(full=REINDEX)
        except IndexBusy as exc:
            print(f"    {root.name}: waiting ({exc})", file=sys.stderr, flush=True)
            time.sleep(30)
    raise SystemExit(f"{root}: still being indexed by another process after an hour")


# "-hand" systems: the same call with the graph channel and the learned re-ranking switched off (the hand-set
# ranking they replace), so before and after come from one run on the same index.
HAND_SET = ("graph_weight=0.0", "rerank_weights=()")
PARAMS: tuple[str, ...] = ()  # --param: assignments applied to every service system's parameters


def params_of(svc: Any, hand: bool = False) -> Any:
    """The service's parameters with --param applied (and HAND_SET on top for the "-hand" systems)."""
    return svc.retrieval_params.with_assignments([*PARAMS, *(HAND_SET if hand else ())])


def service_search(svc: Any, query: str, system: str, top_k: int = TOP_K, params: Any = None) -> Ranking:
    """Run one query through the service as `system` (``params``: RetrievalParams; None = params_of(svc)).

    Without expansion, functions = the top_k hits. With expansion the call is the agent's default
    (topK=5, hops=2): the 5 hits first, then the graph neighbours by score, so @10 measures whether
    expansion finds gold code that hits 6-10 would have missed. Files are the service's file ranking.
    """
    channels, hops = SERVICE_SYSTEMS[system]
    params = params_of(svc) if params is None else params
    k = GRAPH_TOP_K if hops else top_k
    text = query[:MAX_QUERY_CHARS]
    result = svc.explore(text, top_k=k, hops=hops, channels=channels, max_tokens=MAX_TOKENS, params=params)
    nodes = list(result.hits)
    if hops:
        nodes += sorted(result.neighbours, key=lambda n: -float(n.score))
    functions = [(n.filePath, n.qualifiedName) for n in nodes]
    files = [f.filePath for f in result.files]
    if hops:  # the file ranking of the 10-hit call, so file metrics do not depend on topK
        wide = svc.explore(text, top_k=top_k, hops=0, channels=channels, max_tokens=MAX_TOKENS, params=params)
        files = [f.filePath for f in wide.files]
    return Ranking(functions, files)


@dataclass(frozen=True)
class AnswerTokens:
    """Estimated tokens of one answer as an MCP client gets it: its text and its structuredContent."""

    text: int
    structured: int

    @property
    def both(self) -> int:
        """Text and structured content together: what a client that forwards both pays."""
        return self.text + self.structured


def default_call(svc: Any, query: str, params: Any = None, top_k: int | None = None) -> tuple[Ranking, AnswerTokens]:
    """igraph_explore with only a query, as an agent calls it: (hits then neighbours, tokens of its answer)."""
    result, tokens = default_answer(svc, query, params, top_k)
    places = [(h.filePath, h.qualifiedName) for h in result.hits]
    places += [(n.filePath, n.qualifiedName) for n in result.neighbours] + also_places(result.hits)
    return Ranking(places, [f.filePath for f in result.files]), tokens


def also_places(hits: Any) -> list[tuple[str, str]]:
    """(path, qualified name) of the same-named definitions the hits list in other files (``alsoAt``). They come after
    the hits and neighbours: the answer names their place, so "the answer holds it" counts them, but they are
    not ranked entries of their own and take no rank that function Acc@k reads."""
    return [(at.rsplit(":", 1)[0], h.qualifiedName) for h in hits for at in h.alsoAt]


def default_answer(svc: Any, query: str, params: Any = None, top_k: int | None = None) -> tuple[Any, AnswerTokens]:
    """igraph_explore with only a query: (the ExploreResult, tokens of its answer as the wire sends it)."""
    from igraph_mcp.instructions import AGENT_WORDS
    from igraph_mcp.next_step import word, word_data
    from igraph_mcp.render import render_explore
    from igraph_mcp.retrieve.budget import estimate_tokens
    from igraph_mcp.structured import compact

    params = params_of(svc) if params is None else params
    result = svc.explore(query[:MAX_QUERY_CHARS], top_k=top_k, params=params)
    # As the wire sends it: next steps worded as the server words them.
    structured = json.dumps(word_data(compact(result), AGENT_WORDS), separators=(",", ":"), ensure_ascii=False)
    tokens = AnswerTokens(estimate_tokens(word(render_explore(result), AGENT_WORDS)), estimate_tokens(structured))
    return result, tokens


def _service_search_as(svc: Any, system: str, query: str) -> Ranking:
    return service_search(svc, query, system)


def close_service(svc: Any) -> None:
    """Release the service's resources when it offers a close()."""
    close = getattr(svc, "close", None)
    if callable(close):
        close()


# --------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class Case:
    """One query with its gold; docstring cases have one gold function and no file-level gold."""

    qid: str
    text: str
    gold_files: tuple[str, ...]
    gold_functions: tuple[str, ...]
    half: str = ""  # devset: "tuning" or "heldout"
    language: str = ""  # multilang: the instance's language (c, cpp, java, rust, ...)


@dataclass(frozen=True)
class TreeTask:
    """A tree to index and the cases of one set that run against it."""

    set_name: str
    label: str
    root: Path
    cases: tuple[Case, ...]


def only_cases(task: TreeTask, keep: Callable[[Case], bool]) -> TreeTask:
    """The task with only the cases ``keep`` accepts (a tree left with none is not worth opening)."""
    return dataclasses.replace(task, cases=tuple(c for c in task.cases if keep(c)))


def devset_tasks(args: argparse.Namespace, cache: Path) -> list[TreeTask]:
    """Select the devset trees, fetch them, and wrap their instances as cases."""
    # Trees are chosen on the whole devset, so both halves run on the same trees; then the half is applied.
    halves = load_split()
    wanted = set(HALVES) if args.half == "all" else {args.half}
    rows = bd.load_devset(args.devset)
    if args.trees:
        named = [tuple(t.split("==", 1)) for t in args.trees.split(",") if t.strip()]
        trees = {(p.strip(), v.strip()) for p, v in named}
    elif args.other_trees:  # every devset tree except the listed ones (the rest of an "all instances" table)
        named = [tuple(t.split("==", 1)) for t in args.other_trees.split(",") if t.strip()]
        trees = {(r.project, r.version) for r in rows} - {(p.strip(), v.strip()) for p, v in named}
    else:
        trees = {(t.project, t.version) for t in bd.select_devset(rows, args.max_trees)}
    kept = [r for r in rows if (r.project, r.version) in trees and halves.get(r.instance_id) in wanted]
    selection = bd.select_devset(kept, len(trees), args.limit)
    if args.trees:  # the order given: cheap trees first, so a long run reports early
        order = [t.strip() for t in args.trees.split(",")]
        selection.sort(key=lambda t: order.index(f"{t.project}=={t.version}"))
    script = args.fetch_tree or bd.devset_fetch_script(args.devset)
    tasks = []
    for tree in selection:
        root = bd.fetch_tree(tree.project, tree.version, cache / "devset", script)
        cases = tuple(
            Case(i.instance_id, i.query, i.gold_files, i.gold_functions, halves[i.instance_id]) for i in tree.instances
        )
        tasks.append(TreeTask("devset", f"{tree.project}=={tree.version}", root, cases))
    return tasks


def multilang_tasks(args: argparse.Namespace, cache: Path) -> list[TreeTask]:
    """The multi-language devset's instances of the chosen half, one tree each (its repository at its base commit).

    ``--repos`` keeps only the named repositories or instance ids, ``--languages`` only those languages; ``--limit``
    takes instances round-robin over the repositories.
    """
    wanted = set(HALVES) if args.half == "all" else {args.half}
    rows = [r for r in bd.load_multilang(args.multilang_file) if r.half in wanted]
    if args.repos:
        named = {n.strip().lower() for n in args.repos.split(",") if n.strip()}
        rows = [r for r in rows if r.repo.lower() in named or r.instance_id.lower() in named]
    if args.languages:
        languages = {n.strip() for n in args.languages.split(",") if n.strip()}
        rows = [r for r in rows if r.language in languages]
    by_repo: dict[str, list[bd.MultilangInstance]] = {}
    for row in rows:
        by_repo.setdefault(row.repo, []).append(row)
    kept = [row for queue in bd.round_robin(list(by_repo.values()), args.limit) for row in queue]
    script = args.fetch_tree or bd.multilang_fetch_script(args.multilang_file)
    tasks = []
    for row in kept:
        root = bd.fetch_multilang_tree(row.instance_id, args.multilang_file, cache / "multilang", script, args.mirrors)
        case = Case(row.instance_id, row.query, row.gold_files, row.gold_functions, row.half, row.language)
        tasks.append(TreeTask("multilang", row.instance_id, root, (case,)))
    return tasks


def doc_projects(args: argparse.Namespace) -> list[tuple[str, str]]:
    """The docstring set's projects: the pinned evaluation three, or --doc-projects (a tuning set of others)."""
    if not getattr(args, "doc_projects", None):
        return list(bd.DEFAULT_DOC_PROJECTS)
    return [(n.strip(), v.strip()) for n, v in (t.split("==", 1) for t in args.doc_projects.split(",") if t.strip())]


def docstring_tasks(args: argparse.Namespace, cache: Path) -> list[TreeTask]:
    """Fetch the docstring projects, strip them, and wrap their sampled queries as cases."""
    script = args.fetch_tree or bd.devset_fetch_script(args.devset)
    prepared = [
        (name, version, *bd.prepare_docstring_project(name, version, cache, script, args.docstring_sample))
        for name, version in doc_projects(args)
    ]
    capped = bd.round_robin([queries for *_, queries in prepared], args.limit)
    tasks = []
    for (name, version, root, _), queries in zip(prepared, capped, strict=True):
        cases = tuple(Case(q.gold, q.query, (), (q.gold,)) for q in queries)
        tasks.append(TreeTask("docstrings", f"{name}=={version}", root, cases))
    return tasks
