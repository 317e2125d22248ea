"""Incremental indexing: walk, detect changes by sha256, parse changed files, store them atomically, resolve."""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import re
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from igraph_mcp import crashpoints
from igraph_mcp.index import parse_pool
from igraph_mcp.index.declarations import link_declarations
from igraph_mcp.index.interface import Interface, matched_ids, parsed_interface, stored_interface
from igraph_mcp.index.mass_delete import check_deletions
from igraph_mcp.index.model import ParsedFile, Symbol
from igraph_mcp.index.nothing_to_index import check_something_to_index
from igraph_mcp.index.parts import split_parts
from igraph_mcp.index.phases import Progress
from igraph_mcp.index.resolve import Binding, Resolver
from igraph_mcp.index.symbols import OnDemand, Sym, SymbolTable, facts_by_name
from igraph_mcp.index.walk import WalkedFile, walk_repository
from igraph_mcp.models import IndexResult, SkippedFile
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import edges as edge_store
from igraph_mcp.store import facts as fact_store
from igraph_mcp.store import files as file_store
from igraph_mcp.store import imports as import_store
from igraph_mcp.store import node_text
from igraph_mcp.store import nodes as node_store
from igraph_mcp.store import skipped as skipped_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.backend import WriteConnection
from igraph_mcp.store.db import Database
from igraph_mcp.store.declarations import HERITAGE
from igraph_mcp.store.records import EdgeBinding, FileState, NewEdge, NewFile, NewImport, NewNode, NodeText
from igraph_mcp.text.identifiers import identifier_words, split_identifier
from igraph_mcp.vocab.languages import CONTAINER_KINDS, PART_KIND, language_for_path
from igraph_mcp.vocab.skips import SkippedPath, first_of_each
from igraph_mcp.vocab.source import normalize_source

log = logging.getLogger(__name__)

MAX_BODY_CHARS = 4000  # stored per node: enough for snippets, FTS and the embedded head of a body
MODULE_HEAD_CHARS = 1500
FILES_PER_TRANSACTION = 100
MAX_REPARSED_LISTED = 50  # paths named in a summary; the counts say how many there were
MAX_SKIPPED_LISTED = 20  # skipped files named in a summary unless all are asked for; the total says how many
RACY_WINDOW_S = 2.0
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{3,}")


@dataclass(slots=True)
class _Change:
    walked: WalkedFile
    data: bytes
    sha256: str
    old_id: int | None  # set for a modified file


def first_child_starts(symbols: list[Symbol]) -> dict[int, int]:
    """Where each symbol's first child starts (by index in ``symbols``): a class-like body is cut there."""
    starts: dict[int, int] = {}
    for s in symbols[1:]:
        if s.parent is not None:
            starts.setdefault(s.parent, s.start_byte)
    return starts


def stored_body(source: bytes, sym: Symbol, first_child_start: int | None) -> str:
    """The body stored (and embedded) for a non-module symbol; training's miners cut it the same way."""
    end = sym.end_byte
    if sym.kind in CONTAINER_KINDS and first_child_start is not None:
        # A class body would repeat every method; keep its header, docstring and attributes.
        end = max(first_child_start, sym.start_byte)
    end = min(end, sym.start_byte + MAX_BODY_CHARS * 2)
    return source[sym.start_byte : end].decode("utf-8", "replace")[:MAX_BODY_CHARS]


def fts_body(body: str) -> str:
    """Body text for FTS plus the words of its compound identifiers (``resolve_parameter`` also as ``resolve
    parameter``, ``getAttribute`` as ``get attribute``), so prose queries reach code that only names things."""
    compound = {m for m in set(_IDENTIFIER.findall(body)) if len(split_identifier(m)) > 1}
    return body + "\n" + identifier_words(*sorted(compound)) if compound else body


def module_names(path: str) -> tuple[str, str]:
    """(name, qualified name) of a file's module node: ``pkg/mod.py`` -> ("mod", "pkg.mod")."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    return stem.rsplit("/", 1)[-1], stem.replace("/", ".")


# Up to this many changed files (or 5% of the index) bind only what they can affect; more re-bind every edge.
SCOPED_MAX_FILES = 50


def _is_package_marker(path: str) -> bool:
    """Whether a file makes its folder a Python package (``__init__.py``, ``__init__.pyi``)."""
    return path.rsplit("/", 1)[-1] in ("__init__.py", "__init__.pyi")


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No cyclic garbage collection inside the block: building the symbol table allocates a few hundred thousand
    small objects, which set off full collections over the whole heap again and again (113k symbols: 1.3 s to
    build the table with the collector, 0.3 s without). The resolver makes no cycles worth collecting meanwhile."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(slots=True)
class _OldFile:
    """A modified file before its re-parse: node ids (module first), interface, other files' edges into it and the
    ambiguous edges naming its definitions (edge id, candidates)."""

    ids: list[int]
    interface: Interface
    incoming: list[EdgeBinding]
    ambiguous: list[tuple[int, str]]


@dataclass(slots=True)
class _Stored:
    """What storing changed files leaves for binding."""

    changed_ids: list[int] = field(default_factory=list)  # new file ids: every reference from them is bound
    reach: list[int] = field(default_factory=list)  # files whose interface changed: their importers are bound too
    names: set[str] = field(default_factory=set)  # names whose definitions changed: every edge naming one
    edge_ids: list[int] = field(default_factory=list)  # edges that lost their target or a candidate
    scope: set[int] = field(default_factory=set)  # files that imported a deleted file: every reference from them


class _StoreSymbols:
    """The index's definitions read through the store's indexed lookups (a SymbolReader)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def file_symbols(self, file_id: int) -> list[Sym]:
        """Every definition of one file, in id order."""
        return node_store.file_symbols(self._db, file_id)

    def symbols_named(self, name: str) -> list[Sym]:
        """Every non-module definition called ``name``, by path, then id."""
        return node_store.symbols_named(self._db, name)

    def file_of_node(self, node_id: int) -> int | None:
        """The file of one node, if there is one."""
        return node_store.node_file(self._db, node_id)


class _StoreImports:
    """The index's imports read by word or all at once (an ImportRows, for importers_closure)."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def mentioning(self, words: list[str]) -> dict[int, list[tuple[str, str, str]]]:
        """Imports that may contain one of ``words``."""
        return import_store.imports_mentioning(self._db, words)

    def every(self) -> dict[int, list[tuple[str, str, str]]]:
        """Every import."""
        return import_store.imports_by_file(self._db)


def _scoped_table(db: Database, paths: dict[int, str], languages: dict[int, str]) -> SymbolTable:
    """A symbol table that reads definitions and imports when a question needs them (a scoped run)."""
    return SymbolTable(
        _StoreSymbols(db),
        paths,
        OnDemand(lambda fid: import_store.imports_in_file(db, fid)),
        languages=languages,
        import_rows=_StoreImports(db),
    )


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

        states = {} if full else file_store.file_states(self.db)
        racy_ns = self._racy_ns()

        def known(path: str, size: int, mtime_ns: int) -> bool:
            old = states.get(path)
            return old is not None and old.size == size and old.mtime_ns == mtime_ns and mtime_ns < racy_ns

        walked = walk_repository(
            self.root,
            language_for_path,
            max_file_bytes=self.max_file_bytes,
            extra_ignores=self.extra_ignores,
            known=known,
        )
        summary.skipped = dict(walked.skipped)
        skips = list(walked.skipped_files)
        changes, unchanged, touched = self._diff(walked.files, states, summary, report, skips)
        skips.sort(key=lambda skip: (skip.reason, skip.path))
        summary.skippedFilesTotal = len(skips)
        listed = skips if self.skipped_listed is None else first_of_each(skips, self.skipped_listed)
        summary.skippedFiles = [SkippedFile.of(s) for s in listed]
        seen = {w.path for w in walked.files}
        gone = {p: s for p, s in states.items() if p not in seen}
        if not dry_run:  # before renames are matched: they are taken out of ``changes``
            indexed = file_store.file_states(self.db) if full else states
            check_deletions(self._lost(indexed, seen, changes), len(indexed), self.root, allowed=allow_mass_delete)
        if not allow_mass_delete:  # before any write: a wrong root must not wipe a good index unless asked to
            check_something_to_index(self.root, walked)
        renames = self._match_renames(changes, gone)
        if full and not dry_run:
            self._clear()
        summary.renamed = len(renames)
        summary.deleted = len(gone)
        summary.added = sum(1 for c in changes if c.old_id is None)
        summary.modified = len(changes) - summary.added
        summary.unchanged = unchanged
        summary.reparsedPaths = [c.walked.path for c in changes][:MAX_REPARSED_LISTED]
        phase_done("scan")
        if dry_run:
            summary.files = len(walked.files)  # what the index would hold
            summary.seconds = round(time.perf_counter() - started, 3)
            return summary

        with self.db.atomic() as con:
            # The list is replaced whole, with the first write; a newly skipped file leaves ``files`` when the gone
            # files are deleted below, and until then the store reads it as indexed (store/skipped.py).
            skipped_store.replace_skipped(con, skips)
            for file_id, w in renames:
                file_store.rename_file(con, file_id, w.path, w.mtime_ns)
                mod_name, mod_qname = module_names(w.path)
                file_store.rename_module_node(con, file_id, mod_name, mod_qname, identifier_words(mod_name, mod_qname))
            if renames:
                # Import paths and directories moved: bind every reference again, as a clean build would.
                self.db.set_meta(con, "resolve_pending", "1")
            for file_id, mtime in touched:
                file_store.touch_file(con, file_id, mtime)
            crashpoints.reached("index.renames")
        # A previous run that died between storing files and binding their edges left this flag set.
        pending = self.db.get_meta("resolve_pending") == "1"
        # Many changed files (a first build, a branch switch) reach most of the repository through their importers:
        # one pass over every edge with the whole table read at once is then cheaper than scoping. A package marker
        # that comes or goes changes which files absolute imports anywhere may name (infer.py): bind everything.
        many = len(changes) + len(gone) > max(len(states) // 20, SCOPED_MAX_FILES)
        markers = any(_is_package_marker(p) for p in gone) or any(
            _is_package_marker(c.walked.path) for c in changes if c.old_id is None
        )
        everything = full or pending or many or markers
        stored = self._store_changes(changes, gone, summary, report)
        phase_done("parse")
        report("resolve", 0, 1)
        summary.rebound = self._resolve(stored, everything=everything)
        report("resolve", 1, 1)
        summary.files, summary.symbols, summary.edges = count_store.index_totals(self.db)
        with self.db.atomic() as con:
            self.db.set_meta(con, "last_build", str(time.time()))
            gen = int(self.db.get_meta("generation", "0") or 0) + 1
            self.db.set_meta(con, "generation", str(gen))
            crashpoints.reached("index.finish")
        phase_done("resolve")
        summary.seconds = round(time.perf_counter() - started, 3)
        return summary

    # -- steps -----------------------------------------------------------------------------------------------
    @staticmethod
    def _lost(indexed: dict[str, FileState], seen: set[str], changes: list[_Change]) -> set[str]:
        """Indexed paths the run would delete whose content is nowhere in the tree now (a moved file is not lost)."""
        present = {c.sha256 for c in changes}
        return {p for p, st in indexed.items() if p not in seen and st.sha256 not in present}

    def _clear(self) -> None:
        if self.db.vec_available and vec_store.has_node_vectors(self.db):
            # A full rebuild re-parses everything, but unchanged symbol text keeps its vector (no re-embedding).
            self.reusable_vectors.update(vec_store.all_vectors_by_hash(self.db))
        with self.db.atomic() as con:
            if self.db.vec_available:
                vec_store.drop_node_vectors(con)
            file_store.clear_code_tables(con)
            crashpoints.reached("index.clear")

    def _racy_ns(self) -> int:
        """Files modified after this mtime are hashed, not trusted by their stat.

        Like git's "racily clean" entries: a file modified within the timestamp tick of the last build could have
        changed again without a new mtime or size.
        """
        last_build = float(self.db.get_meta("last_build", "0") or 0)
        return int((last_build - RACY_WINDOW_S) * 1e9)

    def _diff(
        self,
        files: list[WalkedFile],
        states: dict[str, FileState],
        summary: IndexResult,
        report: Progress,
        skips: list[SkippedPath],
    ) -> tuple[list[_Change], int, list[tuple[int, int]]]:
        changes: list[_Change] = []
        touched: list[tuple[int, int]] = []
        unchanged = 0
        racy_ns = self._racy_ns()
        for i, w in enumerate(files):
            if i % 200 == 0:
                report("scan", i, len(files))
            old = states.get(w.path)
            if old is not None and old.size == w.size and old.mtime_ns == w.mtime_ns and w.mtime_ns < racy_ns:
                unchanged += 1  # same size and mtime, written well before the last build: trust the stat
                continue
            try:
                data = w.abs_path.read_bytes()
            except OSError as exc:
                summary.skipped["unreadable"] = summary.skipped.get("unreadable", 0) + 1
                skips.append(SkippedPath(w.path, "unreadable", exc.strerror or ""))
                log.warning("cannot read %s: %s", w.path, exc.strerror)
                continue
            sha = hashlib.sha256(data).hexdigest()
            if old is not None and old.sha256 == sha:
                unchanged += 1
                touched.append((old.id, w.mtime_ns))
                continue
            changes.append(_Change(w, data, sha, old.id if old else None))
        report("scan", len(files), len(files))
        return changes, unchanged, touched

    @staticmethod
    def _match_renames(changes: list[_Change], gone: dict[str, FileState]) -> list[tuple[int, WalkedFile]]:
        """Added files whose content equals exactly one deleted file are renames: keep nodes, change the path."""
        by_sha: dict[str, list[str]] = {}
        for path, st in gone.items():
            by_sha.setdefault(st.sha256, []).append(path)
        renames: list[tuple[int, WalkedFile]] = []
        for change in list(changes):
            olds = by_sha.get(change.sha256)
            if change.old_id is None and olds and len(olds) == 1:
                old_path = olds.pop()
                renames.append((gone.pop(old_path).id, change.walked))
                changes.remove(change)
        return renames

    def _store_changes(
        self,
        changes: list[_Change],
        gone: dict[str, FileState],
        summary: IndexResult,
        report: Progress,
    ) -> _Stored:
        """Parse and write changed files in batches; each batch (whole files only) is one transaction."""
        stored = _Stored()
        vectors = self.db.vec_available and vec_store.has_node_vectors(self.db)
        if gone:
            gone_ids = [s.id for s in gone.values()]
            stored.names |= node_store.names_in_files(self.db, gone_ids)
            # A deleted file's importers may now resolve to another file or none, which no row left behind names:
            # they are found while the file is still in the table.
            before = _scoped_table(self.db, file_store.file_paths(self.db), {})
            stored.scope |= before.importers_closure(gone_ids) - set(gone_ids)
            for fid in gone_ids:
                nodes = [s.id for s in node_store.file_symbols(self.db, fid)]
                stored.edge_ids += [b.edge_id for b in edge_store.incoming_bindings(self.db, nodes)]
            with self.db.atomic() as con:
                self.db.set_meta(con, "resolve_pending", "1")
                for st in gone.values():
                    file_store.delete_file(con, st.id, vectors=vectors)
                crashpoints.reached("index.delete")
        total = len(changes)
        jobs = [parse_pool.ParseJob(c.walked.path, c.walked.language, c.data) for c in changes]
        workers = parse_pool.worker_count(self.parse_workers, parse_pool.total_bytes(jobs))
        summary.parseWorkers = workers
        with closing(parse_pool.parse_all(jobs, workers, self.parse_task)) as outcomes:
            for start in range(0, total, FILES_PER_TRANSACTION):
                batch = changes[start : start + FILES_PER_TRANSACTION]
                parsed = [(c, self._outcome(next(outcomes), summary)) for c in batch]
                self._store_batch(parsed, stored, vectors, summary)
                report("parse", min(start + len(batch), total), total)
        return stored

    def _old_state(self, file_id: int) -> _OldFile:
        """What a modified file looked like to other files, and their edges into it, before it is re-parsed."""
        db = self.db
        symbols = node_store.file_symbols(db, file_id)
        ids = [s.id for s in symbols]
        interface = stored_interface(
            symbols,
            fact_store.facts_of_nodes(db, ids),
            import_store.imports_in_file(db, file_id),
            edge_store.base_refs_of_nodes(db, ids),
        )
        names = {s.name for s in symbols[1:]}
        return _OldFile(
            ids, interface, edge_store.incoming_bindings(db, ids), edge_store.ambiguous_candidates(db, sorted(names))
        )

    def _store_batch(
        self, parsed: list[tuple[_Change, ParsedFile]], stored: _Stored, vectors: bool, summary: IndexResult
    ) -> None:
        """Write one batch of parsed files (whole files only) in one transaction.

        A modified file's nodes get new ids. A definition that keeps its place among its name's definitions
        (index/interface.py) keeps what other files bound to it: their edges and candidate lists take the new id.
        The rest are bound again: edges to a definition that changed or vanished, and every edge naming a name whose
        definitions changed. A file whose interface stayed equal needs no other file bound again (``reach``).
        """
        old_ids = [c.old_id for c, _ in parsed if c.old_id is not None]
        olds = {fid: self._old_state(fid) for fid in old_ids}
        if old_ids and vectors:
            self.reusable_vectors.update(vec_store.vectors_for_files(self.db, old_ids))
        with self.db.atomic() as con:
            self.db.set_meta(con, "resolve_pending", "1")
            for c, pf in parsed:
                if c.old_id is not None:
                    file_store.delete_file(con, c.old_id, vectors=vectors)
                old = olds.get(c.old_id) if c.old_id is not None else None
                file_id, ids = self._write_file(con, c, pf, module_id=old.ids[0] if old is not None else None)
                stored.changed_ids.append(file_id)
                new = parsed_interface(pf)
                if old is None:
                    stored.names |= {d.name for d in new.definitions[1:]}
                    stored.reach.append(file_id)
                else:
                    self._carry_bindings(con, old, new, ids, stored)
                    if old.interface != new:
                        stored.reach.append(file_id)
                summary.parsed += 1
                summary.parseErrors += int(pf.has_error)
            crashpoints.reached("index.batch")

    @staticmethod
    def _carry_bindings(con: WriteConnection, old: _OldFile, new: Interface, ids: list[int], stored: _Stored) -> None:
        """Give other files' edges into a re-parsed file the new ids of the definitions that kept their place."""
        mapping, changed = matched_ids(old.interface, old.ids, new, ids)
        stored.names |= changed
        moved = [b._replace(target_id=mapping[b.target_id]) for b in old.incoming if b.target_id in mapping]
        stored.edge_ids += [b.edge_id for b in old.incoming if b.target_id not in mapping]
        edge_store.set_edge_targets(con, moved)
        gone_ids = set(old.ids)
        rewritten: list[tuple[str, int]] = []
        for edge_id, candidates in old.ambiguous:
            listed = json.loads(candidates) if candidates else []
            if gone_ids.isdisjoint(listed):
                continue
            if all(c in mapping or c not in gone_ids for c in listed):
                rewritten.append((json.dumps([mapping.get(c, c) for c in listed]), edge_id))
            else:
                stored.edge_ids.append(edge_id)  # a candidate vanished: its name is bound again anyway
        edge_store.set_candidates(con, rewritten)

    @staticmethod
    def _outcome(outcome: parse_pool.ParseOutcome, summary: IndexResult) -> ParsedFile:
        """The parsed records of one file; a skip reason is counted and its warning logged here, in file order."""
        if outcome.skipped:
            summary.skipped[outcome.skipped] = summary.skipped.get(outcome.skipped, 0) + 1
        if outcome.warning:
            log.warning("%s", outcome.warning)
        return outcome.parsed

    def _write_file(
        self, con: WriteConnection, change: _Change, pf: ParsedFile, *, module_id: int | None = None
    ) -> tuple[int, list[int]]:
        """Insert one parsed file's rows, the parts of its long definitions included; returns its file id and its
        symbols' node ids (module node first).

        A re-parsed file's module node keeps its id (``module_id``, below the fresh ids of its definitions): import
        edges and ambiguous imports elsewhere that name the file stay valid without being bound again.
        """
        w = change.walked
        source = normalize_source(change.data)
        text_lines = source.count(b"\n") + 1
        file_id = file_store.insert_file(
            con,
            NewFile(
                path=w.path,
                language=pf.language,  # a `.h` header read as C++ is stored as C++ (parse.py, shared headers)
                sha256=change.sha256,
                size=w.size,
                mtime_ns=w.mtime_ns,
                line_count=text_lines,
                parse_status="partial" if pf.has_error else "ok",
                indexed_at=time.time(),
            ),
        )
        mod_name, mod_qname = module_names(w.path)
        symbols = pf.symbols or [Symbol("module", "", "", 1, text_lines, 0, len(source))]
        first_child = first_child_starts(symbols)
        parts = split_parts(source, symbols, skip_lines={imp.line for imp in pf.imports})
        # Ids first, so a file's nodes go in as one batch (a round-trip per node dominated a cold PostgreSQL build).
        count = len(symbols) + len(parts)
        if module_id is None:
            ids = node_store.reserve_node_ids(con, count)
        else:
            ids = [module_id, *node_store.reserve_node_ids(con, count - 1, above=module_id)]
        nodes: list[NewNode] = []
        fts_rows: list[NodeText] = []
        edges: list[NewEdge] = []
        for i, s in enumerate(symbols):
            if i == 0:
                name, qname = mod_name, mod_qname
                body = source[: MODULE_HEAD_CHARS * 2].decode("utf-8", "replace")[:MODULE_HEAD_CHARS]
            else:
                name, qname = s.name, s.qualified_name
                body = stored_body(source, s, first_child.get(i))
            parent = ids[s.parent] if i > 0 and s.parent is not None and s.parent < i else None
            nid = ids[i]
            nodes.append(
                NewNode(
                    file_id=file_id,
                    parent_id=parent,
                    kind=s.kind,
                    name=name,
                    qualified_name=qname,
                    signature=s.signature,
                    docstring=s.docstring,
                    body=body,
                    start_line=s.start_line,
                    end_line=s.end_line,
                    start_byte=s.start_byte,
                    end_byte=s.end_byte,
                    exported=s.exported,
                    declaration=s.declaration,
                ),
            )
            fts_rows.append(
                NodeText(
                    node_id=nid,
                    name=name,
                    words=identifier_words(name, qname),
                    qualified_name=qname,
                    path=w.path,
                    signature=s.signature,
                    docstring=s.docstring,
                    body=fts_body(body) if i > 0 else "",
                )
            )
            if i > 0:
                edges.append(
                    NewEdge(
                        source_id=parent if parent is not None else ids[0],
                        target_id=nid,
                        kind="contains",
                        target_name=name,
                        qualifier="",
                        resolution="same_file",
                        line=s.start_line,
                    )
                )
        for p, nid in zip(parts, ids[len(symbols) :], strict=True):
            body = p.text[:MAX_BODY_CHARS]
            nodes.append(
                NewNode(
                    file_id=file_id,
                    parent_id=ids[p.owner],
                    kind=PART_KIND,
                    name="",
                    qualified_name="",
                    signature="",
                    docstring="",
                    body=body,
                    start_line=p.start_line,
                    end_line=p.end_line,
                    start_byte=p.start_byte,
                    end_byte=p.end_byte,
                    exported=False,
                )
            )
            # Only the part's text: its definition's row has the names, so a name never ranks a part.
            fts_rows.append(NodeText(nid, "", "", "", "", "", "", fts_body(body)))
        node_store.insert_nodes(con, ids, nodes)
        node_text.insert_fts(con, fts_rows)
        for ref in pf.references:
            src_id = ids[ref.source] if 0 <= ref.source < len(ids) else ids[0]
            edges.append(NewEdge(src_id, None, ref.kind, ref.name, ref.qualifier, "unresolved", ref.line))
        for imp in pf.imports:
            edges.append(NewEdge(ids[0], None, "imports", imp.name, imp.module, "unresolved", imp.line))
        edge_store.insert_edges(con, edges)
        fact_store.insert_facts(con, [(ids[f.source], f.name, f.kind, f.text) for f in pf.facts if f.source < len(ids)])
        import_store.insert_imports(
            con, [NewImport(file_id, imp.module, imp.name, imp.alias, imp.line) for imp in pf.imports]
        )
        return file_id, ids[: len(symbols)]

    def _resolve(self, stored: _Stored, *, everything: bool) -> int:
        """Bind reference edges and return how many: those from changed files, from files that import a file whose
        interface changed or a deleted file (directly or through others), edges elsewhere naming a name whose
        definitions changed, and edges that lost their target.

        Why that is all a full rebuild would change: a reference reaches definitions only through its own file, the
        files its file imports (transitively: re-exports, type facts, bases), or by its own name anywhere (a
        candidate of a name-only guess); renames and package markers re-bind everything.
        """
        with _collector_paused():
            return self._bind(stored, everything=everything)

    def _bind(self, stored: _Stored, *, everything: bool) -> int:
        if not (everything or stored.changed_ids or stored.names or stored.edge_ids or stored.scope):
            with self.db.atomic() as con:
                self.db.set_meta(con, "resolve_pending", "0")
                crashpoints.reached("index.resolve")
            return 0
        heritage: set[int] = set()  # nodes on either end of an inheritance edge whose binding changed
        bound = self._bind_references(stored, everything=everything, heritage=heritage)
        # Declarations are linked to their implementations once every edge is bound (the links follow inheritance);
        # resolve_pending stays set until they are, so a run that dies in between links everything next time.
        if everything:
            link_declarations(self.db)
        else:
            files = {f for n in heritage if (f := node_store.node_file(self.db, n)) is not None}
            names = stored.names | node_store.names_in_files(self.db, [*stored.changed_ids, *files])
            link_declarations(self.db, names)
        with self.db.atomic() as con:
            self.db.set_meta(con, "resolve_pending", "0")
            crashpoints.reached("index.resolve")
        return bound

    def _bind_references(self, stored: _Stored, *, everything: bool, heritage: set[int]) -> int:
        """Bind the reference edges in scope; the ends of inheritance edges whose binding changed go to ``heritage``."""
        db = self.db
        paths = file_store.file_paths(db)
        # A scoped run reads the definitions (and imports) its references ask about, not all of them.
        symbols = node_store.symbol_table(db) if everything else _StoreSymbols(db)
        languages = file_store.file_language_ids(db)
        if everything:
            table = SymbolTable(symbols, paths, import_store.imports_by_file(db), languages=languages)
        else:
            table = _scoped_table(db, paths, languages)
        if everything:
            rows = edge_store.all_reference_edges(self.db)
            scope: set[int] = set()
        else:
            # A binding may go through any file the source imports, transitively (re-exports, type facts, bases).
            scope = set(stored.changed_ids) | stored.scope
            if stored.reach:
                scope |= table.importers_closure(stored.reach)
            rows = edge_store.edges_to_resolve(self.db, sorted(scope), stored.names, stored.edge_ids)
        if everything or len(scope) > len(paths) // 20:
            table.set_facts(fact_store.facts_by_node(db), edge_store.base_refs(db))
        else:
            # A few hundred edges consult a few hundred scopes: read those, not every fact (0.3-0.5 s at 113k);
            # past 5% of the files one read of every fact costs less than a query per scope.
            table.set_facts(
                OnDemand(lambda nid: facts_by_name(fact_store.facts_of_node(db, nid))),
                OnDemand(lambda cid: edge_store.base_refs_of(db, cid)),
            )
        resolver = Resolver(table)
        updates: list[EdgeBinding] = []
        for r in rows:
            try:
                if r.kind == "imports":
                    b = resolver.resolve_import(r.file_id, r.qualifier, r.target_name)
                else:
                    b = resolver.resolve(r.source_id, r.file_id, r.kind, r.target_name, r.qualifier)
            except RecursionError:  # one pathological chain of definitions must not stop the run
                log.warning("resolving %s recursed too deeply; left unresolved", r.target_name[:80])
                b = Binding(None, "unresolved")
            candidates = b.candidates_json()
            if (b.target, b.how, b.confidence, candidates) != (r.target_id, r.resolution, r.confidence, r.candidates):
                # Most references of a fresh build stay unresolved as inserted: no write for those.
                updates.append(EdgeBinding(b.target, b.how, b.confidence, candidates, r.edge_id))
                if r.kind in HERITAGE:
                    heritage.update(n for n in (r.source_id, r.target_id, b.target) if n is not None)
        with self.db.atomic() as con:
            edge_store.set_edge_targets(con, updates, bulk=everything)
        return len(rows)
