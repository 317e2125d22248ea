"""One index run under the writer lock: structure + FTS first (committed), then embeddings batch by batch; or the
second phase alone, to finish an index whose embedding was cut short."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path

from igraph_mcp.config import Config
from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import EmbedderError
from igraph_mcp.index.embedding import embed_nodes
from igraph_mcp.index.indexer import MAX_SKIPPED_LISTED, Indexer
from igraph_mcp.index.phases import Progress
from igraph_mcp.models import IndexResult
from igraph_mcp.store import counts as count_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database

# Called after every real (not dry) run with the write connection and the embedder (None when embedding failed).
AfterIndex = Callable[[Database, Embedder | None], None]


def build_index(
    root: Path,
    db: Database,
    config: Config,
    *,
    full: bool,
    dry_run: bool,
    embedder: Embedder | None,
    embedder_note: str | None,
    progress: Progress | None,
    after_index: Sequence[AfterIndex] = (),
    all_skipped: bool = False,
    allow_mass_delete: bool = False,
) -> IndexResult:
    """Index ``root`` into ``db``; ``embedder`` None means no embedding (``embedder_note`` says why, if asked);
    the summary names the first skipped files, or every one with ``all_skipped``; a run that would delete most of
    the index is refused unless ``allow_mass_delete`` (index/mass_delete.py)."""
    started = time.perf_counter()
    idx = Indexer(
        root,
        db,
        max_file_bytes=config.index.maxFileBytes,
        extra_ignores=tuple(config.index.exclude),
        parse_workers=config.index.parseWorkers,
        skipped_listed=None if all_skipped else MAX_SKIPPED_LISTED,
    )
    with db.bulk_writes():
        result = idx.run(full=full, dry_run=dry_run, progress=progress, allow_mass_delete=allow_mass_delete)
    if not dry_run:
        # Vectors kept from re-parsed symbols are another model's after an embedder switch: never reused.
        reuse = idx.reusable_vectors if embedder is not None and vec_store.made_by(db, embedder) else {}
        embed_and_link(db, config, result, embedder, embedder_note, progress, after_index, reuse=reuse)
    result.seconds = round(time.perf_counter() - started, 3)  # the whole run, not only the structure phase
    result.recoveredFrom = db.recovered_from
    return result


def finish_index(
    db: Database,
    config: Config,
    *,
    embedder: Embedder | None,
    embedder_note: str | None,
    progress: Progress | None,
    after_index: Sequence[AfterIndex] = (),
) -> IndexResult:
    """The second phase alone, for an index whose structure is complete: embed the symbols still without a vector
    (a build stopped while embedding) and run the after-index hooks; the tree is not walked."""
    started = time.perf_counter()
    result = IndexResult()
    result.files, result.symbols, result.edges = count_store.index_totals(db)
    embed_and_link(db, config, result, embedder, embedder_note, progress, after_index)
    result.seconds = round(time.perf_counter() - started, 3)
    result.recoveredFrom = db.recovered_from
    return result


def embed_and_link(
    db: Database,
    config: Config,
    result: IndexResult,
    embedder: Embedder | None,
    embedder_note: str | None,
    progress: Progress | None,
    after_index: Sequence[AfterIndex],
    *,
    reuse: dict[str, bytes] | None = None,
) -> None:
    """Embed every symbol without a vector (batch by batch, each committed), then run the hooks; into ``result``."""
    lap = time.perf_counter()
    embedded = reused = 0
    note: str | None = None  # why the index has no (or not all) vectors
    if embedder is None:
        note = embedder_note
    elif not db.vec_available:
        note = db.vec_error
    else:
        try:
            vec_store.prepare_vector_tables(db, embedder)
            embedded, reused = embed_nodes(
                db,
                embedder,
                reuse=reuse,
                batch_size=max(256, config.embedder.batchSize),
                progress=progress,
            )
        except EmbedderError as exc:
            note = f"embedding stopped: {exc}; structure and FTS are up to date"
        result.phases["embed"] = round(time.perf_counter() - lap, 3)
    result.embedded, result.embedReused, result.embedNote = embedded, reused, note  # the wire names
    lap = time.perf_counter()
    for hook in after_index:
        hook(db, embedder if note is None else None)
    if after_index:
        result.phases["link"] = round(time.perf_counter() - lap, 3)
