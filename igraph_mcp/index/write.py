"""Writing: the store calls of an index run, one transaction per step (renames, deletions, a batch of files, the end).

A write that changes what edges may bind to (renames, deletions, a batch of files) sets ``resolve_pending`` in its own
transaction: a run that dies before its edges are bound leaves the flag set, and the next run binds every edge.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from igraph_mcp import crashpoints
from igraph_mcp.index.bind import BindScope
from igraph_mcp.index.diff import Change
from igraph_mcp.index.interface import Interface, matched_ids, parsed_interface, stored_interface
from igraph_mcp.index.model import ParsedFile
from igraph_mcp.index.rows import FileDraft, draft_file, file_record, file_rows, module_names
from igraph_mcp.index.walk import WalkedFile
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
from igraph_mcp.store.records import AmbiguousEdge, EdgeBinding, FileState
from igraph_mcp.text.identifiers import identifier_words
from igraph_mcp.vocab.skips import SkippedPath


class Written(NamedTuple):
    """A stored file: its id and its symbols' node ids (module node first)."""

    file_id: int
    ids: list[int]


class ParsedChange(NamedTuple):
    """A changed file, what parsing it gave and, when the parse worker made them, its rows without ids."""

    change: Change
    parsed: ParsedFile
    draft: FileDraft | None = None


class FileWriter(Protocol):
    """Stores one parsed file (``write_file``, or a test's stand-in for it)."""

    def __call__(self, con: WriteConnection, item: ParsedChange, *, module_id: int | None) -> Written:
        """Insert the file's rows and return its ids."""
        ...


@dataclass(frozen=True, slots=True)
class OldFile:
    """A modified file before its re-parse: node ids (module first), interface, other files' edges into it and the
    ambiguous edges naming its definitions (edge id, candidates)."""

    ids: list[int]
    interface: Interface
    incoming: list[EdgeBinding]
    ambiguous: list[AmbiguousEdge]


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """What writing one batch of parsed files left: what to bind, and the vectors of the symbols it replaced."""

    scope: BindScope
    reusable: dict[str, bytes]  # embed_hash -> vector, so unchanged symbols are not embedded again


def clear_index(db: Database) -> dict[str, bytes]:
    """Empty the code tables for a full rebuild; returns the vectors of every symbol, to reuse by text hash."""
    reusable: dict[str, bytes] = {}
    if db.vec_available and vec_store.has_node_vectors(db):
        # A full rebuild re-parses everything, but unchanged symbol text keeps its vector (no re-embedding).
        reusable = vec_store.all_vectors_by_hash(db)
    with db.atomic() as con:
        if db.vec_available:
            vec_store.drop_node_vectors(con)
        file_store.clear_code_tables(con)
        crashpoints.reached("index.clear")
    return reusable


def defer_binding_indexes(db: Database) -> None:
    """Before a run that only adds files and binds every edge stores them: an empty edges table's binding indexes
    wait for the binding, which builds them again anyway (store/sqlite_bulk.py). ``resolve_pending`` makes a run
    that dies meanwhile bind every edge next time, which builds them."""
    with db.atomic() as con:
        if edge_store.defer_binding_indexes(con):
            db.set_meta(con, "resolve_pending", "1")


def store_moves(
    db: Database, skips: list[SkippedPath], renames: list[tuple[int, WalkedFile]], touched: list[tuple[int, int]]
) -> None:
    """The run's first write: the skipped list (replaced whole), renamed files' paths and touched files' mtimes."""
    with db.atomic() as con:
        # The list is replaced whole, with the first write; a newly skipped file leaves ``files`` when the gone
        # files are deleted, and until then the store reads it as indexed (store/skipped.py).
        skipped_store.replace_skipped(con, skips)
        for file_id, w in renames:
            file_store.rename_file(con, file_id, w.path, w.mtime_ns)
            mod_name, mod_qname = module_names(w.path)
            file_store.rename_module_node(con, file_id, mod_name, mod_qname, identifier_words(mod_name, mod_qname))
        if renames:
            # Import paths and directories moved: bind every reference again, as a clean build would.
            db.set_meta(con, "resolve_pending", "1")
        for file_id, mtime in touched:
            file_store.touch_file(con, file_id, mtime)
        crashpoints.reached("index.renames")


def delete_files(db: Database, gone: Sequence[FileState], *, vectors: bool) -> None:
    """Delete the files no longer in the tree, in one transaction."""
    with db.atomic() as con:
        db.set_meta(con, "resolve_pending", "1")
        for st in gone:
            file_store.delete_file(con, st.id, vectors=vectors)
        crashpoints.reached("index.delete")


def write_file(con: WriteConnection, item: ParsedChange, *, module_id: int | None = None) -> Written:
    """Insert one parsed file's rows, the parts of its long definitions included: from the rows the parse worker
    drafted (``draft_file``), else drafted here.

    A re-parsed file's module node keeps its id (``module_id``, below the fresh ids of its definitions): import
    edges and ambiguous imports elsewhere that name the file stay valid without being bound again.
    """
    change, pf, draft = item
    w = change.walked
    if draft is None:
        draft = draft_file(change.data, pf, w.path)
    file_id = file_store.insert_file(con, file_record(w.path, w.size, w.mtime_ns, change.sha256, pf, draft))
    # Ids first, so a file's nodes go in as one batch (a round-trip per node dominated a cold PostgreSQL build).
    count = draft.node_count
    if module_id is None:
        ids = node_store.reserve_node_ids(con, count)
    else:
        ids = [module_id, *node_store.reserve_node_ids(con, count - 1, above=module_id)]
    rows = file_rows(draft, pf, file_id, ids)
    node_store.insert_nodes(con, ids, rows.nodes)
    node_text.insert_fts(con, rows.texts)
    edge_store.insert_edges(con, rows.edges)
    fact_store.insert_facts(con, rows.facts)
    import_store.insert_imports(con, rows.imports)
    return Written(file_id, ids[: draft.symbol_count])


def old_state(db: Database, file_id: int) -> OldFile:
    """What a modified file looked like to other files, and their edges into it, before it is re-parsed."""
    symbols = node_store.file_symbols(db, file_id)
    ids = [s.id for s in symbols]
    interface = stored_interface(
        symbols,
        fact_store.facts_of_nodes(db, ids),
        import_store.imports_in_file(db, file_id),
        edge_store.base_refs_of_nodes(db, ids),
    )
    names = {s.name for s in symbols[1:]}
    return OldFile(
        ids, interface, edge_store.incoming_bindings(db, ids), edge_store.ambiguous_candidates(db, sorted(names))
    )


def carry_bindings(con: WriteConnection, old: OldFile, new: Interface, ids: list[int]) -> BindScope:
    """Give other files' edges into a re-parsed file the new ids of the definitions that kept their place; returns
    the names whose definitions changed and the edges left to bind again."""
    mapping, changed = matched_ids(old.interface, old.ids, new, ids)
    moved = [b._replace(target_id=mapping[b.target_id]) for b in old.incoming if b.target_id in mapping]
    lost = [b.edge_id for b in old.incoming if b.target_id not in mapping]
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
            lost.append(edge_id)  # a candidate vanished: its name is bound again anyway
    edge_store.set_candidates(con, rewritten)
    return BindScope(names=frozenset(changed), edge_ids=tuple(lost))


def _file_scope(con: WriteConnection, old: OldFile | None, pf: ParsedFile, written: Written) -> BindScope:
    """What one stored file leaves to bind; a modified file's bindings into it are carried over first."""
    new = parsed_interface(pf)
    fid = written.file_id
    if old is None:
        return BindScope(changed_ids=(fid,), reach=(fid,), names=frozenset(d.name for d in new.definitions[1:]))
    carried = carry_bindings(con, old, new, written.ids)
    reach = (fid,) if old.interface != new else ()
    return BindScope(changed_ids=(fid,), reach=reach, names=carried.names, edge_ids=carried.edge_ids)


def write_batch(
    db: Database, parsed: list[ParsedChange], *, vectors: bool, write: FileWriter = write_file
) -> StoredBatch:
    """Write one batch of parsed files (whole files only) in one transaction.

    A modified file's nodes get new ids. A definition that keeps its place among its name's definitions
    (index/interface.py) keeps what other files bound to it: their edges and candidate lists take the new id.
    The rest are bound again: edges to a definition that changed or vanished, and every edge naming a name whose
    definitions changed. A file whose interface stayed equal needs no other file bound again (``reach``).
    """
    old_ids = [p.change.old_id for p in parsed if p.change.old_id is not None]
    reusable = vec_store.vectors_for_files(db, old_ids) if old_ids and vectors else {}
    scopes: list[BindScope] = []
    with db.atomic() as con:
        db.set_meta(con, "resolve_pending", "1")
        for item in parsed:
            c, pf = item.change, item.parsed
            old = None
            if c.old_id is not None:
                # Read just before the file goes, not for the whole batch up front: the edges into it from a file
                # replaced earlier in the batch are gone by now, and SQLite may have given their ids to new edges.
                old = old_state(db, c.old_id)
                file_store.delete_file(con, c.old_id, vectors=vectors)
            written = write(con, item, module_id=old.ids[0] if old is not None else None)
            scopes.append(_file_scope(con, old, pf, written))
        crashpoints.reached("index.batch")
    return StoredBatch(BindScope.join(scopes), reusable)


def stamp_build(db: Database) -> None:
    """Record the end of a run: its time (racy files are hashed against it) and a new generation."""
    with db.atomic() as con:
        db.set_meta(con, "last_build", str(time.time()))
        gen = int(db.get_meta("generation", "0") or 0) + 1
        db.set_meta(con, "generation", str(gen))
        crashpoints.reached("index.finish")
