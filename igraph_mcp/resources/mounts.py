"""Mount lifecycle: the user's list of mounted sources (``.igraph/mounts.json``) and storing sources.

The list in mounts.json is user state: it outlives ``index --full`` and a rebuild of a corrupt index, which
re-mount from it. The index copy (chunks, vectors, links) is derived data and can always be rebuilt.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import time
from collections import ChainMap
from dataclasses import asdict, dataclass
from pathlib import Path

from igraph_mcp import crashpoints
from igraph_mcp.config import MOUNTS_FILE
from igraph_mcp.embed.base import Embedder
from igraph_mcp.embed.reuse import embed_reusing
from igraph_mcp.embed.text import collapse_whitespace, text_hash
from igraph_mcp.errors import EmbedderError, ResourceError
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.paths import file_sha256
from igraph_mcp.resources.linking import compute_links
from igraph_mcp.store import resources as res_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import SourceRow
from igraph_mcp.vocab.links import Thresholds

log = logging.getLogger(__name__)

MOUNTS_VERSION = 1
EMBED_TEXT_CHARS = 1200  # ~256 word pieces of prose: what all-MiniLM-L6-v2 reads
EMBED_BATCH = 64


# -- user state ----------------------------------------------------------------------------------------------
@dataclass(slots=True)
class MountEntry:
    """One mounted source as the user asked for it."""

    path: str  # POSIX path relative to the root, or an absolute real path inside an allowed directory
    type: str = "auto"  # what the user asked for: auto, prd or db
    name: str | None = None
    mountedAt: float = 0.0


class MountsFile:
    """Reads and atomically rewrites ``<root>/.igraph/mounts.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / MOUNTS_FILE

    def load(self) -> list[MountEntry]:
        """The mounted sources; raises ResourceError if the file exists but is unreadable (never reset)."""
        if not self.path.exists():
            return []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            items = data["mounts"] if isinstance(data, dict) else data
            entries = [
                MountEntry(
                    path=str(m["path"]),
                    type=str(m.get("type", "auto")),
                    name=m.get("name") if isinstance(m.get("name"), str) else None,
                    mountedAt=float(m.get("mountedAt", 0.0)),
                )
                for m in items
            ]
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise ResourceError(
                f"{self.path} cannot be read ({type(exc).__name__}); fix it by hand, or move it away and "
                "mount the documents again"
            ) from exc
        return entries

    def save(self, entries: list[MountEntry]) -> None:
        """Write the list atomically (temp file + rename), so a crash never leaves half a file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {"version": MOUNTS_VERSION, "mounts": [asdict(e) for e in entries]}
        fd, tmp = tempfile.mkstemp(prefix=".mounts-", suffix=".json", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(payload, fh, indent=2)
                fh.write("\n")
                fh.flush()
                os.fsync(fh.fileno())
            crashpoints.reached("mount.save")
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def upsert(self, entry: MountEntry) -> None:
        """Add or replace the entry for ``entry.path``."""
        entries = [e for e in self.load() if e.path != entry.path]
        self.save([*entries, entry])

    def remove(self, path: str) -> bool:
        """Drop the entry for ``path``; True if there was one."""
        entries = self.load()
        kept = [e for e in entries if e.path != path]
        if len(kept) != len(entries):
            self.save(kept)
        return len(kept) != len(entries)


# -- vectors -------------------------------------------------------------------------------------------------
def embedding_text(kind: str, heading_path: list[str], text: str) -> str:
    """What is embedded for a chunk: where it sits (headings or schema.table), then its text, bounded."""
    label = "database table" if kind == "db_table" else "document section"
    head = f"{label}: {' > '.join(heading_path)}"
    return collapse_whitespace(f"{head}\n{text}")[:EMBED_TEXT_CHARS]


def vectors_ready(db: Database, embedder: Embedder | None) -> str | None:
    """Make sure resource vectors can be stored for ``embedder``; returns why not, or None when they can.

    Never drops the code's vectors: if the index was embedded by another model, resources wait for the next
    index run (which re-embeds everything with one model).
    """
    if embedder is None:
        return "no embedder: resources are found by keyword, and linked to code by identifiers only"
    if not db.vec_available:
        return db.vec_error
    stored = db.get_meta("embedder_id")
    if stored is not None and not vec_store.made_by(db, embedder):
        return (
            f"the index was embedded with {stored}, not {embedder.id}; run {ask(NextStep.INDEX)} to re-embed "
            "code and resources with one model"
        )
    if stored is None or not vec_store.has_resource_vectors(db):
        vec_store.prepare_vector_tables(db, embedder)
    return None


# -- lifecycle -----------------------------------------------------------------------------------------------
@dataclass(slots=True)
class MountOutcome:
    """What storing one source did."""

    source: SourceRow
    replaced: bool
    unchanged: bool
    embedded: int
    reused: int
    note: str | None


def store_source(
    db: Database,
    real_path: Path,
    key: str,
    requested_type: str,
    name: str | None,
    embedder: Embedder | None,
    thresholds: Thresholds,
) -> MountOutcome:
    """Read ``real_path`` and store it under ``key``, replacing any earlier copy, in one transaction."""
    from igraph_mcp.resources.reader import (
        read_resource,
    )  # the readers import pypdf/docx helpers; load lazily

    display = name or real_path.stem or real_path.name
    parsed = read_resource(real_path, requested_type, name=display)  # first: it refuses oversized files
    sha = file_sha256(real_path)
    old = res_store.source_by_path(db, key)
    note = vectors_ready(db, embedder)
    vectors: list[bytes] = []
    hashes: list[str] = []
    reused = 0
    if note is None and embedder is not None:
        texts = [embedding_text(c.kind, c.heading_path, c.text) for c in parsed.chunks]
        try:
            kept = res_store.source_vectors(db, old.id) if old else {}
            # Sections another repository of the same store already embedded are not embedded again.
            shared = vec_store.shared_vectors(db, embedder, [h for h in map(text_hash, texts) if h not in kept])
            vectors, hashes, reused = embed_reusing(embedder, texts, ChainMap(kept, shared), batch_size=EMBED_BATCH)
        except EmbedderError as exc:
            note = f"embedding failed ({exc}); mounted for keyword search, vectors follow at the next index run"
    problems = [{"line": p.line, "message": p.message} for p in parsed.problems]
    with db.atomic() as con:
        if old is not None:
            res_store.delete_source(con, old.id)
        sid = res_store.insert_source(con, key, display, parsed.source_type, sha, time.time(), problems)
        ids = res_store.insert_chunks(con, sid, parsed.chunks)
        if vectors:
            vec_store.store_resource_vectors(con, zip(ids, vectors, hashes, strict=True))
        rows = list(res_store.resources_by_ids(db, ids).values())
        res_store.insert_links(con, compute_links(db, rows, thresholds, semantic=bool(vectors)))
        crashpoints.reached("mount.store")
    source = res_store.source_by_id(db, sid)
    assert source is not None
    unchanged = old is not None and old.sha256 == sha and old.source_type == parsed.source_type
    return MountOutcome(source, old is not None, unchanged, len(vectors) - reused, reused, note)


def delete_source(db: Database, source_id: int) -> None:
    """Remove a source with its chunks, vectors and links."""
    with db.atomic() as con:
        res_store.delete_source(con, source_id)


def embed_pending(db: Database, embedder: Embedder) -> list[int]:
    """Embed chunks without a vector (mounted without an embedder, or vectors dropped); returns ids."""
    pending = res_store.resources_to_embed(db)
    if not pending or vectors_ready(db, embedder) is not None:
        return []
    texts = [embedding_text(r.kind, r.heading_path, r.text) for r in pending]
    shared = vec_store.shared_vectors(db, embedder, [text_hash(t) for t in texts])
    vectors, hashes, _ = embed_reusing(embedder, texts, shared, batch_size=EMBED_BATCH)
    with db.atomic() as con:
        vec_store.store_resource_vectors(con, zip([r.id for r in pending], vectors, hashes, strict=True))
    return [r.id for r in pending]
