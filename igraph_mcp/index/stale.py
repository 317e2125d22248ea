"""Which indexed files differ from the working tree now (answers flag them instead of trusting old lines)."""

from __future__ import annotations

import os
from pathlib import Path

from igraph_mcp.store import files as file_store
from igraph_mcp.store.db import Database


def stale_files(db: Database, root: Path, paths: list[str]) -> set[str]:
    """Those of ``paths`` whose file on disk differs in size or mtime from what was indexed, or is gone."""
    recorded = file_store.file_stats(db, paths)
    stale: set[str] = set()
    base = str(root)
    for path in paths:
        try:
            st = os.stat(os.path.join(base, path))  # half of Path's cost: status stats every indexed file
        except OSError:
            stale.add(path)
            continue
        if recorded.get(path) != (st.st_size, st.st_mtime_ns):
            stale.add(path)
    return stale
