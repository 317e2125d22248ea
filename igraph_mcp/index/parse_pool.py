"""Parsing files on several cores: worker processes parse, the indexer writes the results in file order.

A worker gets a file's bytes and language and returns plain records (``ParseOutcome``); nothing it does touches
the database, so a parallel build writes exactly what a serial one writes, in the same order. Workers start
from a fork server (spawn where there is none), never by forking the indexer itself, which may hold an open
SQLite connection and ONNX Runtime threads. A worker that dies (a crash in a grammar, the OOM killer) costs
only its file: the files it held are parsed again one at a time in a fresh pool, and the one that kills a worker
alone is indexed as text only, counted as skipped ("parser_crashed").
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import sys
import types
from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass

from igraph_mcp.index import parse as parse_mod
from igraph_mcp.index.model import ParsedFile
from igraph_mcp.index.nesting import MAX_NESTING
from igraph_mcp.index.rows import FileDraft, draft_file

log = logging.getLogger(__name__)

# Below this many bytes to parse, starting workers costs more than it saves. `index_speed.py --parse-crossover`
# on sympy 1.1.1's Python files, with 3 other jobs on the 2 cores (no core free, so the pool can only break even):
# 2 MB 2.53 s serial / 2.47 s with 2 workers, 8 MB 13.6 / 9.0; below 1 MB starting the pool cost 0.6-1.7 s more.
PARALLEL_MIN_BYTES = 2_000_000
MAX_AUTO_WORKERS = 4
AHEAD_PER_WORKER = 8  # files queued per worker, so a worker never waits for the parent between files


@dataclass(frozen=True, slots=True)
class ParseJob:
    """One file to parse."""

    path: str
    language: str
    data: bytes


@dataclass(slots=True)
class ParseOutcome:
    """What parsing one file gave: its records, or a bare module and the reason it was skipped."""

    parsed: ParsedFile
    skipped: str | None = None  # key counted in the run's ``skipped`` ("too_deeply_nested", "parser_crashed")
    warning: str | None = None  # logged by the indexer (workers log nowhere the user sees)
    # The file's rows without ids (index/rows.py), made beside the parse: the indexer's own process writes every
    # file, and building the rows there kept the workers idle half the time on a large tree.
    draft: FileDraft | None = None


ParseTask = Callable[[ParseJob], ParseOutcome]


def parse_job(job: ParseJob) -> ParseOutcome:
    """Parse one file and draft its rows; a file the parser rejects becomes a bare module with the reason, never an
    exception."""
    try:
        parsed = parse_mod.parse_source(job.data, job.language, job.path)
    except (ValueError, RecursionError, MemoryError) as exc:
        # One bad file must never stop the run: index it as a bare module and say why in the log.
        bare = ParsedFile(language=job.language, has_error=True)
        return ParseOutcome(bare, None, f"parse failed for {job.path}: {type(exc).__name__}")
    draft = draft_file(job.data, parsed, job.path)
    if parsed.deep_regions:
        # The regions' text stays searchable and the rest of the file keeps its symbols; the run counts the file.
        return ParseOutcome(
            parsed,
            "too_deeply_nested",
            f"{job.path}: {parsed.deep_regions} region(s) nested past {MAX_NESTING} brackets indexed as text only",
            draft,
        )
    return ParseOutcome(parsed, draft=draft)


def _crashed(job: ParseJob) -> ParseOutcome:
    bare = ParsedFile(language=job.language, has_error=True)
    return ParseOutcome(bare, "parser_crashed", f"{job.path} indexed as text only: its parser process died")


def worker_count(configured: int, total_bytes: int, cpus: int | None = None) -> int:
    """Processes to parse with: ``configured`` when set (1 = serial), else one per core for a large enough job."""
    if configured > 0:
        return configured
    cores = cpus if cpus is not None else (os.cpu_count() or 1)
    if total_bytes < PARALLEL_MIN_BYTES or cores < 2:
        return 1
    return min(cores, MAX_AUTO_WORKERS)


@contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start workers without the parent's ``__main__``: a fork server or spawned child would otherwise import the
    program's main script again, running an unguarded script's top level (a second index run) in every worker."""
    main = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if main is not None:
            sys.modules["__main__"] = main


def _context() -> multiprocessing.context.BaseContext:
    # fork would copy the indexer's SQLite connection and ONNX Runtime's thread pool into the child; a fork
    # server is one clean process, started once, that forks workers with the parser already imported.
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["igraph_mcp.index.parse"])
        return ctx
    return multiprocessing.get_context("spawn")


def parse_all(
    jobs: Sequence[ParseJob], workers: int, task: ParseTask = parse_job, *, batch: int = 1
) -> Generator[ParseOutcome]:
    """One outcome per job, in job order; ``workers`` <= 1 parses in this process. Close it to stop the workers.

    A consumer that takes ``batch`` outcomes and then stores them before taking more gets the next batch parsed
    while it stores: the files queued run that far ahead, or the workers would sit idle through every write.
    """
    if workers <= 1 or len(jobs) < 2:
        yield from (task(job) for job in jobs)
    else:
        yield from _parallel(jobs, workers, task, max(batch, 1) + workers * AHEAD_PER_WORKER)


def _parallel(jobs: Sequence[ParseJob], workers: int, task: ParseTask, ahead: int) -> Iterator[ParseOutcome]:
    pending = iter(jobs)
    pool = _new_pool(workers)
    window: deque[tuple[ParseJob, Future[ParseOutcome]]] = deque()
    try:
        _fill(pool, window, pending, task, ahead)
        while window:
            job, future = window.popleft()
            try:
                outcome = future.result()
            except BrokenProcessPool:
                # Every file still in flight failed with the pool; find the one that kills a worker by itself.
                suspects = [job, *(j for j, _ in window)]
                window.clear()
                pool.shutdown(wait=True, cancel_futures=True)
                pool = _new_pool(workers)
                for i, suspect in enumerate(suspects):
                    outcome, live = _isolated(pool, suspect, task, workers)
                    yield outcome
                    if live is None:
                        # Workers cannot run here at all: parse the rest in this process, as a serial build does.
                        yield from (task(j) for j in suspects[i + 1 :])
                        yield from (task(j) for j in pending)
                        return
                    pool = live
                _fill(pool, window, pending, task, ahead)
                continue
            yield outcome
            _fill(pool, window, pending, task, ahead)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=_context(), initializer=_stdout_to_stderr)


def _stdout_to_stderr() -> None:
    """In a worker: anything written to stdout goes to stderr, since a stdio MCP server's stdout is the protocol."""
    os.dup2(2, 1)


def _fill(
    pool: ProcessPoolExecutor,
    window: deque[tuple[ParseJob, Future[ParseOutcome]]],
    pending: Iterator[ParseJob],
    task: ParseTask,
    ahead: int,
) -> None:
    while len(window) < ahead:
        job = next(pending, None)
        if job is None:
            return
        with _main_module_hidden():  # a submit may start a worker (and the fork server)
            window.append((job, pool.submit(task, job)))


def _run_alone(pool: ProcessPoolExecutor, job: ParseJob, task: ParseTask) -> ParseOutcome | None:
    """The job's outcome from the pool, or None when its worker died (the pool is then broken)."""
    try:
        with _main_module_hidden():
            future = pool.submit(task, job)
        return future.result()
    except BrokenProcessPool:
        pool.shutdown(wait=True, cancel_futures=True)
        return None


_PROBE = ParseJob("<probe>", "python", b"")


def _isolated(
    pool: ProcessPoolExecutor, job: ParseJob, task: ParseTask, workers: int
) -> tuple[ParseOutcome, ProcessPoolExecutor | None]:
    """Parse one file alone in the pool. If its worker dies and a worker can still parse an empty file, the file
    is the culprit (counted as skipped); if not, workers cannot run here and the pool comes back as None."""
    outcome = _run_alone(pool, job, task)
    if outcome is not None:
        return outcome, pool
    pool = _new_pool(workers)
    if _run_alone(pool, _PROBE, task) is None:
        log.warning("parser worker processes cannot run here; parsing in the indexer process instead")
        return task(job), None
    log.warning("the parser process died on %s; indexed as text only", job.path)
    return _crashed(job), pool


def total_bytes(jobs: Iterable[ParseJob]) -> int:
    """Bytes the jobs will parse."""
    return sum(len(j.data) for j in jobs)
