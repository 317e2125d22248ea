"""An embedder wrapper for the benchmarks that remembers every vector it computed, across trees and runs.

Consecutive sdists of one project (Django 2.2 ... 4.1) share most symbol texts, so a cache keyed by
(embedder id, sha256 of the text) makes each further tree cost only its changed symbols. The cache is
a SQLite file in the benchmark cache, never in the repository; the product's own index keeps reusing
vectors per index as before.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


class CachedEmbedder:
    """Delegates to ``inner`` for texts it has not seen; same id, so the index cannot tell the difference."""

    def __init__(self, inner: Any, path: Path) -> None:
        self.inner = inner
        path.parent.mkdir(parents=True, exist_ok=True)
        self._con = sqlite3.connect(str(path), check_same_thread=False)
        self._con.execute("create table if not exists vec (model text, hash text, v blob, primary key (model, hash))")
        self._queries: dict[str, Any] = {}
        self.hits = 0
        self.misses = 0

    @property
    def id(self) -> str:
        """The wrapped embedder's id."""
        return str(self.inner.id)

    @property
    def dimension(self) -> int:
        """The wrapped embedder's dimension."""
        return int(self.inner.dimension)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def embed(self, texts: Sequence[str]) -> Any:
        """Vectors for texts: cached ones read back, the rest computed by the wrapped embedder and stored."""
        keys = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found: dict[str, bytes] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            rows = self._con.execute(
                f"select hash, v from vec where model = ? and hash in ({marks})",
                [self.id, *chunk],
            )
            found.update(rows)
        missing = [i for i, k in enumerate(keys) if k not in found]
        self.hits += len(texts) - len(missing)
        self.misses += len(missing)
        if missing:
            fresh = np.asarray(self.inner.embed([texts[i] for i in missing]), dtype=np.float32)
            with self._con:
                self._con.executemany(
                    "insert or replace into vec values (?, ?, ?)",
                    [(self.id, keys[i], fresh[j].tobytes()) for j, i in enumerate(missing)],
                )
            for j, i in enumerate(missing):
                found[keys[i]] = fresh[j].tobytes()
        return (
            np.stack([np.frombuffer(found[k], dtype=np.float32) for k in keys])
            if keys
            else np.zeros((0, self.dimension), dtype=np.float32)
        )

    def seed_from_index(self, db_path: Path) -> int:
        """Add the vectors a SQLite index already holds (keyed by its ``embed_hash``, the same sha256 of the text)
        when that index was embedded by this embedder; return how many were new to the cache."""
        if not db_path.is_file():
            return 0
        import apsw  # the SQLite binding the product uses, which can load sqlite-vec
        import sqlite_vec

        src = apsw.Connection(str(db_path), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            src.enable_load_extension(True)
            src.load_extension(sqlite_vec.loadable_path())
            meta = dict(src.execute("select key, value from meta where key = 'embedder_id'"))
            if meta.get("embedder_id") != self.id:
                return 0
            rows = src.execute(
                "select n.embed_hash, v.embedding from nodes n join node_vectors v on v.node_id = n.id"
                " where n.embed_hash is not null"
            ).fetchall()
        except apsw.Error:
            return 0  # no vector tables (an index built without the model): nothing to seed
        finally:
            src.close()
        before = self._con.total_changes
        with self._con:
            self._con.executemany("insert or ignore into vec values (?, ?, ?)", [(self.id, h, v) for h, v in rows])
        return self._con.total_changes - before

    def embed_query(self, text: str) -> Any:
        """The wrapped query embedding, memoised for the run (every system asks for the same queries)."""
        if text not in self._queries:
            self._queries[text] = self.inner.embed_query(text)
        return self._queries[text]
