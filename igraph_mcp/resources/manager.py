"""ResourceManager: the small API the service calls for mounted PRDs and DB schemas.

mount / unmount / list_resources change user state (mounts.json) and the index together; ``after_index``
runs after every index build to restore mounts (after ``--full`` or a corrupt-index rebuild), refresh edited
sources, embed chunks that lack vectors and re-link resources to the files that changed. The explore resource
channel (retrieve/resource_channel.py) reads what is stored here; the service wires it with ``thresholds``.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from igraph_mcp import crashpoints
from igraph_mcp.config import Config
from igraph_mcp.embed.base import Embedder
from igraph_mcp.errors import EmbedderError, InvalidInput, ResourceError
from igraph_mcp.next_step import NextStep, ask
from igraph_mcp.paths import file_sha256, is_inside, relative_posix, resolve_inside
from igraph_mcp.resources.linking import SEMANTIC, compute_links
from igraph_mcp.resources.mounts import (
    MountEntry,
    MountsFile,
    delete_source,
    embed_pending,
    store_source,
)
from igraph_mcp.resources.results import MountResult, Problem, ResourceList, SourceInfo, UnmountResult
from igraph_mcp.store import resources as res_store
from igraph_mcp.store import status as status_store
from igraph_mcp.store import vectors as vec_store
from igraph_mcp.store.db import Database
from igraph_mcp.store.records import SourceRow
from igraph_mcp.vocab.links import Thresholds

log = logging.getLogger(__name__)

SOURCE_TYPES = ("auto", "prd", "db")
MAX_NAME_CHARS = 200
# meta keys: when identifier / semantic links were last brought up to date, and with which embedder.
_IDENT_MARK = "resource_links_identifier_at"
_SEM_MARK = "resource_links_semantic_at"
_SEM_MODEL = "resource_links_semantic_model"


def _source_fields(s: SourceRow) -> dict[str, Any]:
    """The fields a mount result and a listed source both take from a stored source."""
    return {
        "id": s.id,
        "name": s.name,
        "path": s.path,
        "sourceType": s.source_type,
        "chunks": s.chunks,
        "links": s.links,
        "problems": [Problem(**p) for p in s.problems],
    }


class ResourceManager:
    """Mounted resources for one repository root."""

    def __init__(
        self,
        root: Path,
        state_dir: Path,
        config: Config,
        *,
        embedder: Callable[[], Embedder | None],
        writer: Callable[[], AbstractContextManager[Database]],
        reader: Callable[[], Database],
    ) -> None:
        self.root = Path(os.path.realpath(root))
        self.mounts = MountsFile(state_dir)
        self.thresholds = Thresholds.from_config(config.multimodal)
        self.allowed = [Path(os.path.realpath(self.root / d)) for d in config.multimodal.allowedDirs]
        self._embedder = embedder
        self._writer = writer
        self._reader = reader

    # -- paths ---------------------------------------------------------------------------------------------
    def _resolve(self, user_path: str) -> tuple[Path, str]:
        """(real path, storage key): the key is root-relative POSIX, or absolute in an allowed directory."""
        real = resolve_inside(self.root, user_path, allowed=self.allowed)
        return real, relative_posix(self.root, real) if is_inside(self.root, real) else real.as_posix()

    def _real_of(self, key: str) -> Path:
        """The file a stored key names, re-checked against the root: mounts.json may be hand-edited."""
        return resolve_inside(self.root, key, allowed=self.allowed)

    # -- mount / unmount / list ------------------------------------------------------------------------------
    def mount(self, path: str, source_type: str = "auto", name: str | None = None) -> MountResult:
        """Mount (or re-mount) a PRD or DB schema; the same path again replaces the earlier copy."""
        if source_type not in SOURCE_TYPES:
            raise InvalidInput(f"type must be one of {', '.join(SOURCE_TYPES)}")
        if name is not None:
            name = re.sub(r"[\x00-\x1f\x7f]", " ", name).strip()[:MAX_NAME_CHARS] or None
        real, key = self._resolve(path)
        if real.is_dir():
            raise InvalidInput(f"'{path}' is a directory; mount one document or schema file at a time")
        if not real.exists():
            raise ResourceError(f"'{path}' does not exist; check the path relative to {self.root}")
        embedder = self._embedder()
        with self._writer() as db:
            out = store_source(db, real, key, source_type, name, embedder, self.thresholds)
        self.mounts.upsert(MountEntry(path=key, type=source_type, name=name, mountedAt=out.source.mounted_at))
        s = out.source
        return MountResult(
            **_source_fields(s),
            replaced=out.replaced,
            unchanged=out.unchanged,
            embedded=out.embedded,
            reusedVectors=out.reused,
            note=out.note,
        )

    def unmount(self, target: str) -> UnmountResult:
        """Unmount by source id or path: chunks, vectors and links go, and the source leaves mounts.json."""
        if not isinstance(target, str) or not target.strip():
            raise InvalidInput(f"target is empty; pass a source id (see {ask(NextStep.RESOURCES)}) or its path")
        target = target.strip()
        db = self._reader()
        source: SourceRow | None = None
        key: str | None = None
        if target.isdigit():
            source = res_store.source_by_id(db, int(target))
        if source is None:
            key = target if res_store.source_by_path(db, target) else self._resolve(target)[1]
            source = res_store.source_by_path(db, key)
        key = source.path if source is not None else key
        in_file = any(e.path == key for e in self._load_mounts(strict=True))
        if source is None and not in_file:
            return UnmountResult(
                found=False,
                message=f"nothing mounted matches '{target}'; list mounted sources with {ask(NextStep.RESOURCES)}",
            )
        if source is not None:
            with self._writer() as wdb:
                delete_source(wdb, source.id)
        if in_file and key is not None:
            self.mounts.remove(key)
        name = source.name if source else key
        return UnmountResult(
            found=True,
            id=source.id if source else None,
            name=name,
            path=key,
            chunks=source.chunks if source else 0,
            links=source.links if source else 0,
            message=f"unmounted {name} ({key}): {source.chunks if source else 0} chunks, "
            f"{source.links if source else 0} links removed",
        )

    def list_resources(self) -> ResourceList:
        """Mounted sources, flagging files that are gone or changed and entries not (yet) in the index."""
        notes: list[str] = []
        try:
            entries = self.mounts.load()
        except ResourceError as exc:
            entries, notes = [], [str(exc)]
        db = self._reader()
        out: list[SourceInfo] = []
        stored = res_store.list_sources(db)
        for s in stored:
            state = self._disk_state(s.path, s.sha256)
            out.append(
                SourceInfo(
                    **_source_fields(s),
                    mountedAt=s.mounted_at,
                    missing=state == "missing",
                    changed=state == "changed",
                )
            )
        known = {s.path for s in stored}
        for e in entries:
            if e.path not in known:
                state = self._disk_state(e.path, None)
                out.append(
                    SourceInfo(
                        id=0,
                        name=e.name or Path(e.path).stem,
                        path=e.path,
                        sourceType=e.type,
                        mountedAt=e.mountedAt or None,
                        missing=state == "missing",
                        indexed=False,
                    )
                )
        if any(s.missing for s in out):
            notes.append("some mounted files are missing on disk; restore them or unmount them")
        if any(not s.indexed and not s.missing for s in out):
            notes.append(f"some mounts are not in the index yet; run {ask(NextStep.INDEX)}")
        return ResourceList(sources=out, notes=notes)

    def _disk_state(self, key: str, sha: str | None) -> str:
        """'missing', 'changed' or 'ok' for a stored key."""
        try:
            real = self._real_of(key)
        except InvalidInput:
            return "missing"
        if not real.is_file():
            return "missing"
        try:
            return "changed" if sha is not None and file_sha256(real) != sha else "ok"
        except OSError:
            return "missing"

    def _load_mounts(self, *, strict: bool) -> list[MountEntry]:
        try:
            return self.mounts.load()
        except ResourceError:
            if strict:
                raise
            log.warning("mounts.json cannot be read; mounted sources were not restored")
            return []

    # -- after an index run ----------------------------------------------------------------------------------
    def links_pending(self, db: Database) -> bool:
        """Whether code was (re)indexed after mounted resources were last linked to it (a build stopped before
        its last step): ``after_index`` has work to do."""
        if not status_store.has_resources(db):
            return False
        return res_store.latest_index_time(db) > float(db.get_meta(_IDENT_MARK, "0") or 0)

    def after_index(self, db: Database, embedder: Embedder | None) -> None:
        """Restore and refresh mounts, embed chunks without vectors, re-link resources to changed files."""
        fresh = self._restore(db, embedder)  # these were linked to all code while being stored
        resources = res_store.all_resources(db)
        if not resources:
            return
        newest = res_store.latest_index_time(db)
        stale = [r for r in resources if r.source_id not in fresh]
        changed = res_store.files_indexed_after(db, float(db.get_meta(_IDENT_MARK, "0") or 0))
        links = compute_links(db, stale, self.thresholds, file_ids=changed, semantic=False)
        model: str | None = None
        relink_all = False
        if embedder is not None and db.vec_available and vec_store.has_node_vectors(db):
            try:
                embedded = set(embed_pending(db, embedder))
            except EmbedderError as exc:
                log.warning("resource chunks could not be embedded: %s", exc)
                embedded = set()
            model = embedder.id
            relink_all = db.get_meta(_SEM_MODEL) != model  # first semantic pass, or another model's links
            if relink_all:
                links += compute_links(db, resources, self.thresholds, identifier=False)
            else:
                sem_changed = res_store.files_indexed_after(db, float(db.get_meta(_SEM_MARK, "0") or 0))
                links += compute_links(db, [r for r in stale if r.id in embedded], self.thresholds, identifier=False)
                links += compute_links(
                    db,
                    [r for r in stale if r.id not in embedded],
                    self.thresholds,
                    file_ids=sem_changed,
                    identifier=False,
                )
        with db.atomic() as con:
            if relink_all:
                res_store.delete_links(con, method=SEMANTIC)
            res_store.insert_links(con, links)
            db.set_meta(con, _IDENT_MARK, repr(newest))
            if model is not None:
                db.set_meta(con, _SEM_MARK, repr(newest))
                db.set_meta(con, _SEM_MODEL, model)
            crashpoints.reached("resources.links")

    def _restore(self, db: Database, embedder: Embedder | None) -> set[int]:
        """Mount again what mounts.json lists but the index lacks or holds an older copy of; returns ids."""
        done: set[int] = set()
        for e in self._load_mounts(strict=False):
            try:
                real = self._real_of(e.path)
            except InvalidInput as exc:
                log.warning("mounted source %s skipped: %s", e.path, exc)
                continue
            if not real.is_file():
                log.warning("mounted source %s is missing on disk; its last copy stays in the index", e.path)
                continue
            old = res_store.source_by_path(db, e.path)
            try:
                if old is not None and old.sha256 == file_sha256(real):
                    continue
                out = store_source(db, real, e.path, e.type, e.name, embedder, self.thresholds)
            except (ResourceError, OSError) as exc:
                log.warning("mounted source %s could not be re-read: %s", e.path, exc)
                continue
            done.add(out.source.id)
            log.info("mounted source %s %s", e.path, "refreshed" if old else "restored")
        return done
