"""Incremental indexing: walk, detect changes by sha256, parse changed files, store them atomically, resolve.

The ``Indexer`` orders the steps and fills in the run's summary; each step lives in its own module and returns
what it found: diffing (index/diff.py), row building (index/rows.py), writing (index/write.py) and binding
(index/bind.py).
"""

from __future__ import annotations

import logging
import time
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from igraph_mcp.index import go_modules, parse_pool, rust_crates
from igraph_mcp.index.bind import BindScope, bind, binds_everything, deletion_scope
from igraph_mcp.index.collector import collector_paused
from igraph_mcp.index.diff import (
    Change,
    Renames,
    TreeDiff,
    diff_files,
    gone_files,
    known_by_stat,
    lost_paths,
    match_renames,
    racy_ns,
)
from igraph_mcp.index.mass_delete import check_deletions
from igraph_mcp.index.nothing_to_index import check_something_to_index
from igraph_mcp.index.phases import Progress
from igraph_mcp.index.walk import WalkResult, walk_repository
from igraph_mcp.index.write import (
    ParsedChange,
    Written,
    clear_index,
    defer_binding_indexes,
    delete_files,
    stamp_build,
    store_moves,
    write_batch,
    write_file,
)
from igraph_mcp.models import IndexResult, SkippedFile
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import FileState
from igraph_mcp.vocab.languages import language_for_path
from igraph_mcp.vocab.skips import SkippedPath, first_of_each

log = logging.getLogger(__name__)

FILES_PER_TRANSACTION = 100
MAX_REPARSED_LISTED = 50  # paths named in a summary; the counts say how many there were
MAX_SKIPPED_LISTED = 20  # skipped files named in a summary unless all are asked for; the total says how many


@dataclass(frozen=True, slots=True)
class _Scan:
    """What the walk and the diff decided, before anything is written."""

    walked: WalkResult
    states: dict[str, FileState]  # the index's files before the run ({} for a full rebuild)
    diff: TreeDiff
    skips: list[SkippedPath]  # every skipped file, by reason, then path
    renames: Renames  # with the changes and gone files that are not renames


@dataclass(frozen=True, slots=True)
class _Stored:
    """What parsing and writing the changed files left: what to bind, and the counts of the summary."""

    scope: BindScope
    parsed: int
    parse_errors: int
    workers: int
    skipped: dict[str, int]  # files the parser skipped, by reason, in the order first met


def _parsed_change(change: Change, outcome: parse_pool.ParseOutcome, skipped: dict[str, int]) -> ParsedChange:
    """The parsed records of one file; a skip reason is counted and its warning logged here, in file order."""
    if outcome.skipped:
        skipped[outcome.skipped] = skipped.get(outcome.skipped, 0) + 1
    if outcome.warning:
        log.warning("%s", outcome.warning)
    return ParsedChange(change, outcome.parsed, outcome.draft)


def _add_counts(counts: dict[str, int], more: dict[str, int]) -> None:
    """Add ``more`` to ``counts``, a reason new to it going last."""
    for reason, n in more.items():
        counts[reason] = counts.get(reason, 0) + n


class Indexer:
    """Runs one index update against a database."""

    def __init__(
        self,
        root: Path,
        db: Database,
        *,
        max_file_bytes: int = 1_000_000,
        extra_ignores: tuple[str, ...] = (),
        parse_workers: int = 0,
        skipped_listed: int | None = MAX_SKIPPED_LISTED,
    ) -> None:
        self.root = root
        self.skipped_listed = skipped_listed  # skipped files named in the summary (None: all of them)
        self.parse_workers = parse_workers  # 0 = one per core for a large job, 1 = parse in this process
        self.parse_task: parse_pool.ParseTask = parse_pool.parse_job  # tests swap in a task that crashes
        self.db = db
        self.max_file_bytes = max_file_bytes
        self.extra_ignores = extra_ignores
        # embed_hash -> vector of nodes about to be re-parsed, so unchanged symbols are not embedded again.
        self.reusable_vectors: dict[str, bytes] = {}

    # -- entry point ---------------------------------------------------------------------------------------
    def run(
        self,
        *,
        full: bool = False,
        dry_run: bool = False,
        progress: Progress | None = None,
        allow_mass_delete: bool = False,
    ) -> IndexResult:
        """Bring the structure index up to date with the working tree; returns what changed.

        A full rebuild is one transaction: readers keep answering from the old index until the new one is
        complete, and a rebuild that dies leaves the old index as it was. A run that would delete more than half
        of the indexed files raises MassDelete before it writes anything, unless ``allow_mass_delete``.
        """
        if full and not dry_run:
            with self.db.atomic():
                return self._run(full=True, dry_run=False, progress=progress, allow_mass_delete=allow_mass_delete)
        return self._run(full=full, dry_run=dry_run, progress=progress, allow_mass_delete=allow_mass_delete)

    def _run(self, *, full: bool, dry_run: bool, progress: Progress | None, allow_mass_delete: bool) -> IndexResult:
        started = lap = time.perf_counter()
        report = progress or (lambda _phase, _done, _total: None)
        summary = IndexResult(dryRun=dry_run)

        def phase_done(name: str) -> None:
            nonlocal lap
            now = time.perf_counter()
            summary.phases[name] = round(now - lap, 3)
            lap = now

        scan = self._scan(full=full, dry_run=dry_run, report=report, allow_mass_delete=allow_mass_delete)
        if full and not dry_run:
            self.reusable_vectors.update(clear_index(self.db))
        self._summarise_scan(summary, scan)
        phase_done("scan")
        if dry_run:
            summary.files = len(scan.walked.files)  # what the index would hold
            summary.seconds = round(time.perf_counter() - started, 3)
            return summary

        changes, gone = scan.renames.changes, scan.renames.gone
        store_moves(self.db, scan.skips, scan.renames.moved, scan.diff.touched)
        go_modules.note(self.db, self.root, (f.path for f in scan.walked.files if f.language == "go"))
        rust_crates.note(self.db, self.root, (f.path for f in scan.walked.files if f.language == "rust"))
        # A previous run that died between storing files and binding their edges left this flag set.
        pending = self.db.get_meta("resolve_pending") == "1"
        added = [c.walked.path for c in changes if c.old_id is None]
        everything = full or pending or binds_everything(len(changes), added, gone, len(scan.states))
        if everything and not gone and len(added) == len(changes):
            defer_binding_indexes(self.db)  # nothing stored now reads them: no file is deleted or replaced
        stored = self._store_changes(changes, gone, report)
        summary.parseWorkers = stored.workers
        summary.parsed, summary.parseErrors = stored.parsed, stored.parse_errors
        _add_counts(summary.skipped, stored.skipped)
        phase_done("parse")
        report("resolve", 0, 1)
        summary.rebound = self._resolve(stored.scope, everything=everything)
        report("resolve", 1, 1)
        summary.files, summary.symbols, summary.edges = count_store.index_totals(self.db)
        stamp_build(self.db)
        phase_done("resolve")
        summary.seconds = round(time.perf_counter() - started, 3)
        return summary

    # -- steps -----------------------------------------------------------------------------------------------
    def _scan(self, *, full: bool, dry_run: bool, report: Progress, allow_mass_delete: bool) -> _Scan:
        """Walk the tree and diff it against the index; refuse here, before any write, a run that would empty it."""
        states = {} if full else file_store.file_states(self.db)
        racy = racy_ns(float(self.db.get_meta("last_build", "0") or 0))
        walked = walk_repository(
            self.root,
            language_for_path,
            max_file_bytes=self.max_file_bytes,
            extra_ignores=self.extra_ignores,
            known=known_by_stat(states, racy),
        )
        diff = diff_files(walked.files, states, racy, report)
        skips = sorted([*walked.skipped_files, *diff.unreadable], key=lambda skip: (skip.reason, skip.path))
        gone = gone_files(states, diff.seen)
        if not dry_run:  # before renames are matched: they are taken out of ``changes``
            indexed = file_store.file_states(self.db) if full else states
            lost = lost_paths(indexed, diff.seen, diff.changes)
            check_deletions(lost, len(indexed), self.root, allowed=allow_mass_delete)
        if not allow_mass_delete:  # before any write: a wrong root must not wipe a good index unless asked to
            check_something_to_index(self.root, walked)
        return _Scan(walked, states, diff, skips, match_renames(diff.changes, gone))

    def _summarise_scan(self, summary: IndexResult, scan: _Scan) -> None:
        """The scan's part of the summary: skips, and files added, modified, renamed, deleted and unchanged."""
        summary.skipped = dict(scan.walked.skipped)
        if scan.diff.unreadable:
            _add_counts(summary.skipped, {"unreadable": len(scan.diff.unreadable)})
        summary.skippedFilesTotal = len(scan.skips)
        listed = scan.skips if self.skipped_listed is None else first_of_each(scan.skips, self.skipped_listed)
        summary.skippedFiles = [SkippedFile.of(s) for s in listed]
        changes = scan.renames.changes
        summary.renamed = len(scan.renames.moved)
        summary.deleted = len(scan.renames.gone)
        summary.added = sum(1 for c in changes if c.old_id is None)
        summary.modified = len(changes) - summary.added
        summary.unchanged = scan.diff.unchanged
        summary.reparsedPaths = [c.walked.path for c in changes][:MAX_REPARSED_LISTED]

    def _store_changes(self, changes: list[Change], gone: dict[str, FileState], report: Progress) -> _Stored:
        """Delete the gone files, then parse and write the changed ones in batches; each batch (whole files only) is
        one transaction."""
        vectors = self.db.vec_available and vec_store.has_node_vectors(self.db)
        scopes: list[BindScope] = []
        if gone:
            scopes.append(deletion_scope(self.db, [s.id for s in gone.values()]))
            delete_files(self.db, list(gone.values()), vectors=vectors)
        total = len(changes)
        jobs = [parse_pool.ParseJob(c.walked.path, c.walked.language, c.data) for c in changes]
        workers = parse_pool.worker_count(self.parse_workers, parse_pool.total_bytes(jobs))
        skipped: dict[str, int] = {}
        parse_errors = 0
        # The collector paused: unpickling parsed files and building their rows make millions of acyclic objects.
        with (
            closing(parse_pool.parse_all(jobs, workers, self.parse_task, batch=FILES_PER_TRANSACTION)) as outcomes,
            collector_paused(),
        ):
            for start in range(0, total, FILES_PER_TRANSACTION):
                batch = changes[start : start + FILES_PER_TRANSACTION]
                parsed = [_parsed_change(c, next(outcomes), skipped) for c in batch]
                written = write_batch(self.db, parsed, vectors=vectors, write=self._write_file)
                # Written: their bytes go, so a large tree's text is never all held (OpenJDK's class library: 228 MB,
                # held through the resolve phase too).
                for i, c in enumerate(batch, start):
                    c.data = b""
                    jobs[i] = parse_pool.ParseJob(c.walked.path, c.walked.language, b"")
                self.reusable_vectors.update(written.reusable)
                scopes.append(written.scope)
                parse_errors += sum(int(p.parsed.has_error) for p in parsed)
                report("parse", min(start + len(batch), total), total)
        return _Stored(BindScope.join(scopes), total, parse_errors, workers, skipped)

    def _write_file(self, con: WriteConnection, item: ParsedChange, *, module_id: int | None = None) -> Written:
        """Store one parsed file (index/write.py); a seam the crash tests replace to fail inside a batch."""
        return write_file(con, item, module_id=module_id)

    def _resolve(self, scope: BindScope, *, everything: bool) -> int:
        """Bind what the run's changes reach, or every edge (index/bind.py); a seam the crash tests replace."""
        return bind(self.db, scope, everything=everything)
