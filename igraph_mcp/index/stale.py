"""Which indexed files differ from the working tree now (answers flag them instead of trusting old lines)."""

from __future__ import annotations

from pathlib import Path

from igraph_mcp.store import files as file_store
from igraph_mcp.store.db import Database


def stale_files(db: Database, root: Path, paths: list[str]) -> set[str]:
    """Those of ``paths`` whose file on disk differs in size or mtime from what was indexed, or is gone."""
    recorded = file_store.file_stats(db, paths)
    stale: set[str] = set()
    for path in paths:
        try:
            st = (root / path).stat()
        except OSError:
            stale.add(path)
            continue
        if recorded.get(path) != (st.st_size, st.st_mtime_ns):
            stale.add(path)
    return stale
