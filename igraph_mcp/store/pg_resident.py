"""A large text index's postings held in a reader's memory, so BM25 over common terms does not cost one SQL
aggregate entry per posting (docs/postgresql_search.md: exact BM25 in SQL at 1M rows, p50 ~300-600 ms).

A resident copy is taken at one version of the index (``<index>_totals.version``, bumped by every write) in one
snapshot. A search against a later version scores the copy's rows in numpy, leaves out the rows the change log
names since the copy's version, and scores those few rows in SQL: the answer is the SQL search's, with the current
statistics (N, avgdl, document counts come from the tables at query time). When the log no longer reaches back
to the copy, or names more than MAX_PENDING rows, a new copy is loaded in the background while the old one (or
SQL) answers. The arithmetic follows pg_text's SQL operation by operation in float8 and sums a row's terms in
query order (FTS5's order); PostgreSQL sums in its plan's order, so scores agree to ~1e-15 and only rows whose
scores are equal in exact arithmetic may come in another order (tests/test_pg_resident.py).
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from igraph_mcp.store import pg_text

log = logging.getLogger(__name__)

# Below this many rows the SQL search takes tens of milliseconds and a copy is not worth its memory (at 1M rows of
# code, 40M postings: ~0.45 GB).
RESIDENT_FROM_ROWS = 200_000
# Changed rows scored in SQL beside the copy before a fresh copy is loaded (each costs one index probe per term).
MAX_PENDING = 2_000
RETRY_AFTER_S = 60.0  # after a failed load (server gone, out of memory), SQL answers this long before a new try
ROWS_ENV = "IGRAPH_PG_RESIDENT_ROWS"  # rows from which readers hold a copy; "off": never


def from_rows_setting() -> int | None:
    """RESIDENT_FROM_ROWS, or the environment's override (None: resident copies are off)."""
    raw = os.environ.get(ROWS_ENV, "").strip().lower()
    if not raw:
        return RESIDENT_FROM_ROWS
    if raw in {"off", "no", "false"}:
        return None
    try:
        return max(1, int(raw))
    except ValueError:
        log.warning("%s=%r is not a number of rows or 'off'; using %d", ROWS_ENV, raw, RESIDENT_FROM_ROWS)
        return RESIDENT_FROM_ROWS


_SIGNATURE = b"PGCOPY\n\xff\r\n\x00"
_BATCH_BYTES = 1 << 23  # COPY output parsed at once


class CopyFormatError(RuntimeError):
    """The binary COPY stream is not what the loader asked for (a NULL, a wider field, a cut stream)."""


def _tuple_type(fields: Sequence[tuple[str, str]]) -> np.dtype[Any]:
    """One binary COPY tuple of fixed-width fields: the field count, then each field's length and value."""
    parts: list[tuple[str, str]] = [("n", ">i2")]
    for name, kind in fields:
        parts += [(f"{name}_len", ">i4"), (name, kind)]
    return np.dtype(parts)


def _batches(copy: Iterable[Any], fields: Sequence[tuple[str, str]], total: int) -> Iterator[np.ndarray]:
    """The tuples of a binary COPY of ``total`` rows of fixed-width non-NULL fields, a few MB at a time (the
    server sends one message per row; a million-row index's postings are ~3 GB of COPY output)."""
    dtype = _tuple_type(fields)
    size = dtype.itemsize
    buf = bytearray()
    header = True
    seen = 0

    def parse(final: bool) -> Iterator[np.ndarray]:
        nonlocal header, seen
        if header:
            if len(buf) < 19 or len(buf) < 19 + int.from_bytes(buf[15:19], "big"):
                return
            if bytes(buf[:11]) != _SIGNATURE:
                raise CopyFormatError("not a binary COPY stream")
            del buf[: 19 + int.from_bytes(buf[15:19], "big")]
            header = False
        whole = min(len(buf) // size, total - seen)
        if whole and (final or whole * size >= _BATCH_BYTES):
            batch = np.frombuffer(bytes(buf[: whole * size]), dtype=dtype)
            del buf[: whole * size]
            if (batch["n"] != len(fields)).any() or any(
                (batch[f"{name}_len"] != np.dtype(kind).itemsize).any() for name, kind in fields
            ):
                raise CopyFormatError("a field is NULL or not of the expected width")
            seen += whole
            yield batch

    for chunk in copy:
        buf.extend(chunk)
        if len(buf) >= _BATCH_BYTES:
            yield from parse(final=False)
    yield from parse(final=True)
    if header or seen != total or bytes(buf) != b"\xff\xff":
        raise CopyFormatError(f"expected {total} rows and the trailer, got {seen} rows")


def _fixed_tuples(copy: Iterable[Any], fields: Sequence[tuple[str, str]], total: int) -> np.ndarray:
    """All tuples of a binary COPY (see _batches) in one array."""
    out = np.empty(total, dtype=_tuple_type(fields))
    at = 0
    for batch in _batches(copy, fields, total):
        out[at : at + len(batch)] = batch
        at += len(batch)
    return out


class _Counts:
    """One column's per-posting counts, filled batch by batch, in the narrowest unsigned type that holds them."""

    def __init__(self, total: int) -> None:
        self.values: np.ndarray = np.zeros(total, dtype=np.uint8)

    def put(self, at: int, batch: np.ndarray) -> None:
        top = int(batch.max()) if len(batch) else 0
        if top > np.iinfo(self.values.dtype).max:
            wider = next(k for k in (np.uint16, np.uint32, np.uint64) if top <= np.iinfo(k).max)
            self.values = self.values.astype(wider)
        self.values[at : at + len(batch)] = batch


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The postings of one text index at one version: per term a slice of (row index, count per column)."""

    version: int
    row_ids: np.ndarray  # sorted row ids (int64)
    lengths: np.ndarray  # each row's token count, as float8 (the SQL casts it so)
    slices: dict[str, tuple[int, int]]  # term key -> [start, end) in the posting arrays
    rows: np.ndarray  # posting -> index into row_ids
    counts: tuple[np.ndarray, ...]  # per column: the term's count in that column of the row

    @property
    def nbytes(self) -> int:
        """Memory of the arrays."""
        return int(self.row_ids.nbytes + self.lengths.nbytes + self.rows.nbytes + sum(c.nbytes for c in self.counts))

    def positions(self, row_ids: Sequence[int]) -> np.ndarray:
        """Indexes of those of ``row_ids`` the copy holds."""
        ids = np.asarray(sorted(set(row_ids)), dtype=np.int64)
        at = np.searchsorted(self.row_ids, ids)
        inside = at < len(self.row_ids)
        at = at[inside]
        held: np.ndarray = at[self.row_ids[at] == ids[inside]]
        return held

    def search(
        self,
        terms: Sequence[str],
        docs: Sequence[int],
        n_rows: int,
        n_tokens: int,
        weights: Sequence[float],
        limit: int,
        *,
        leave_out: Sequence[int] = (),
    ) -> list[tuple[int, float]]:
        """The best ``limit`` rows over ``terms`` (term keys with their current document counts), best first with
        ties by row id, as pg_text's SQL orders them; rows in ``leave_out`` are skipped."""
        score = np.zeros(len(self.row_ids))
        hit = np.zeros(len(self.row_ids), dtype=bool)
        avgdl = float(n_tokens) / float(n_rows)
        norm_a, norm_b = 1.0 - pg_text.B, pg_text.B
        for term, n in zip(terms, docs, strict=True):
            where = self.slices.get(term)
            if where is None:
                continue
            lo, hi = where
            idx = self.rows[lo:hi]
            idf = math.log(((float(n_rows) - float(n)) + 0.5) / (float(n) + 0.5))  # libm's log, as ln() uses
            if idf <= 0:
                idf = pg_text.MIN_IDF
            tf = np.zeros(hi - lo)
            for col, w in zip(self.counts, weights, strict=False):
                if w != 0.0:  # x + c * 0.0 is x for the non-negative sums here
                    tf = tf + col[lo:hi] * float(w)
            length = self.lengths[idx]
            score[idx] += idf * ((tf * (pg_text.K1 + 1.0)) / (tf + pg_text.K1 * (norm_a + (norm_b * length) / avgdl)))
            hit[idx] = True
        if len(leave_out):
            hit[self.positions(leave_out)] = False
        found = np.flatnonzero(hit)
        scores = score[found]
        if len(found) > limit > 0:
            kth = np.partition(scores, len(found) - limit)[len(found) - limit]
            keep = scores >= kth  # every row tied with the limit-th best stays for the tie-break by id
            found, scores = found[keep], scores[keep]
        ids = self.row_ids[found]
        order = np.lexsort((ids, -scores))[:limit]
        return [(int(ids[i]), float(scores[i])) for i in order]


def load(con: Any, index: pg_text.TextTables) -> Snapshot:
    """Copy one text index's postings out of the database, in one REPEATABLE READ snapshot of ``con``
    (a psycopg connection in autocommit mode whose search path names the repository's schema)."""
    freq = index.freq_columns
    with con.transaction(), con.cursor() as cur:
        cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cur.execute("SET LOCAL enable_sort = off")  # the primary keys' order, not a sort of every posting
        version, n_rows = (int(v) for v in cur.execute(f"SELECT version, rows FROM {index.totals}").fetchall()[0])  # noqa: S608
        terms = cur.execute(f"SELECT term, docs FROM {index.terms} ORDER BY term").fetchall()  # noqa: S608
        total = sum(int(d) for _, d in terms)
        with cur.copy(
            f"COPY (SELECT rowid, length FROM {index.name} ORDER BY rowid) TO STDOUT (FORMAT binary)"  # noqa: S608
        ) as copy:
            row_part = _fixed_tuples(copy, [("id", ">i8"), ("length", ">i4")], n_rows)
        row_ids = row_part["id"].astype(np.int64)
        rows = np.empty(total, dtype=np.int32 if len(row_ids) < 2**31 else np.int64)
        counts = [_Counts(total) for _ in freq]
        done = 0
        with cur.copy(
            f"COPY (SELECT row_id, {', '.join(freq)} FROM {index.postings} ORDER BY term, row_id) "  # noqa: S608
            "TO STDOUT (FORMAT binary)"
        ) as copy:
            for batch in _batches(copy, [("row", ">i8"), *((c, ">i4") for c in freq)], total):
                ids = batch["row"].astype(np.int64)
                at = np.minimum(np.searchsorted(row_ids, ids), max(len(row_ids) - 1, 0))
                if len(row_ids) == 0 or (row_ids[at] != ids).any():
                    raise CopyFormatError("a posting names a row the text table does not hold")
                rows[done : done + len(batch)] = at
                for column, name in zip(counts, freq, strict=True):
                    column.put(done, batch[name])
                done += len(batch)
    slices: dict[str, tuple[int, int]] = {}
    start = 0
    for term, docs in terms:
        slices[str(term)] = (start, start + int(docs))
        start += int(docs)
    return Snapshot(
        version=version,
        row_ids=row_ids,
        lengths=row_part["length"].astype(np.float64),
        slices=slices,
        rows=rows,
        counts=tuple(c.values for c in counts),
    )


class Resident:
    """One reader's copy of one text index: loaded in the background once the index holds ``from_rows`` rows and
    the reader searches a second time (a one-shot CLI search never pays for it)."""

    def __init__(
        self,
        connect: Callable[[], Any],
        index: pg_text.TextTables,
        *,
        from_rows: int = RESIDENT_FROM_ROWS,
        max_pending: int = MAX_PENDING,
    ) -> None:
        self._connect = connect
        self.index = index
        self.from_rows = from_rows
        self.max_pending = max_pending
        self._snapshot: Snapshot | None = None
        self._loader: threading.Thread | None = None
        self._lock = threading.Lock()
        self._asks = 0
        self.loads = 0
        self.answered = 0  # searches answered from a copy
        self.error: str | None = None
        self._failed_at = -math.inf

    @property
    def held(self) -> Snapshot | None:
        """The copy held now, of whatever version (status and benchmarks)."""
        return self._snapshot

    def usable(self, rows: int, version: int, log_from: int) -> Snapshot | None:
        """The copy to answer from at this state of the index (None: answer in SQL); starts a load when due."""
        if rows < self.from_rows:
            self._snapshot = None  # the index shrank: SQL is fast again, free the memory
            return None
        snap = self._snapshot
        fits = snap is not None and log_from <= snap.version <= version
        with self._lock:
            self._asks += 1
            if not fits and self._asks >= 2:
                self._start()
            self.answered += fits
        return snap if fits else None

    def search(self, query: pg_text.Query, terms: Sequence[str], limit: int) -> list[tuple[int, float]] | None:
        """pg_text.search() from the copy, with the rows changed since its version scored in SQL; None where no
        copy fits this state of the index (SQL answers)."""
        stats = query.stats
        snap = self.usable(stats.rows, stats.version, stats.log_from)
        if snap is None:
            return None
        changed = [] if snap.version == stats.version else pg_text.changed_since(query.db, query.index, snap.version)
        if len(changed) > self.max_pending:
            self.refresh()
        docs = [stats.docs[t] for t in terms]
        found = snap.search(terms, docs, stats.rows, stats.tokens, query.weights, limit, leave_out=changed)
        if not changed:
            return found
        found += query.scores_of(terms, changed)
        return sorted(found, key=lambda kv: (-kv[1], kv[0]))[:limit]

    def refresh(self) -> None:
        """Load a fresh copy in the background (the log since the current one has grown long)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._loader is not None and self._loader.is_alive():
            return
        if time.monotonic() - self._failed_at < RETRY_AFTER_S:
            return
        self._loader = threading.Thread(target=self._load, name=f"igraph-resident-{self.index.name}", daemon=True)
        self._loader.start()

    def _load(self) -> None:
        try:
            self.load_now()
        except Exception as exc:  # SQL keeps answering; the reason is kept for status and logs
            self.error = f"{type(exc).__name__}: {exc}"
            self._failed_at = time.monotonic()
            log.warning("could not load %s into memory, searching it in SQL: %s", self.index.name, self.error)

    def load_now(self) -> Snapshot:
        """Load a copy in this thread (the background loader, benchmarks, tests); searches use it from now on."""
        con = self._connect()
        try:
            snap = load(con, self.index)
        finally:
            con.close()
        self._snapshot = snap
        self.loads += 1
        self.error = None
        return snap

    def wait(self, timeout: float | None = None) -> None:
        """Wait for a background load in progress (tests and benchmarks)."""
        loader = self._loader
        if loader is not None:
            loader.join(timeout)
