"""A tree's build manifests (go.mod, Cargo.toml) as binding reads them: found beside or above the indexed files,
kept in the store's meta as JSON, and a change flags every edge for binding again (a name may lead elsewhere)."""

from __future__ import annotations

import json
import posixpath
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from igraph_mcp.store.db import Database

# A manifest larger than this is no manifest of ours (a generated file, a data file of that name).
MAX_MANIFEST_BYTES = 1 << 20


def folders_above(paths: Iterable[str]) -> list[str]:
    """Every folder holding or above one of ``paths`` (relative POSIX paths; "" for the root), in path order."""
    folders: set[str] = set()
    for path in paths:
        folder = posixpath.dirname(path)
        while folder not in folders:
            folders.add(folder)
            if not folder:
                break
            folder = posixpath.dirname(folder)
    return sorted(folders)


def manifest_texts(root: Path, paths: Iterable[str], file_name: str) -> Iterator[tuple[str, str]]:
    """(folder, text) of each readable ``file_name`` in a folder holding or above ``paths``, in path order."""
    for folder in folders_above(paths):
        manifest = root / folder / file_name if folder else root / file_name
        try:
            if not manifest.is_file() or manifest.stat().st_size > MAX_MANIFEST_BYTES:
                continue
            yield folder, manifest.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue


def note(db: Database, key: str, found: Mapping[str, str]) -> None:
    """Keep ``found`` under the meta ``key``; where it changed, flag every edge for binding again."""
    if dict(found) != stored(db, key):
        with db.atomic() as con:
            db.set_meta(con, key, dumps(found))
            db.set_meta(con, "resolve_pending", "1")


def stored(db: Database, key: str) -> dict[str, str]:
    """What the last run kept under the meta ``key``."""
    return loads(db.get_meta(key))


def dumps(found: Mapping[str, str]) -> str:
    """The meta text of ``found`` (sorted, so equal maps compare equal as text)."""
    return json.dumps(dict(sorted(found.items())), separators=(",", ":"))


def loads(text: str | None) -> dict[str, str]:
    """A map from its meta text; {} for none or unreadable text."""
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in value.items()} if isinstance(value, dict) else {}
