"""A reader's in-memory copy of a PostgreSQL text index answers exactly as the SQL search does: the same rows in
the same order with the same scores, before and after other connections change the index, and it reloads when
the change log no longer brings it up to date."""

from __future__ import annotations

import math
import random
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from _pg import PgShim, pg_schema  # noqa: F401 - pg_schema is a fixture

from igraph_mcp.config import Config
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.index.build import build_index
from igraph_mcp.store import node_text, pg_resident, pg_text
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS

TEXT = pg_text.NODE_TEXT
WEIGHTS = [NODE_BM25_WEIGHTS, (1.0,) * 7, (0.3, 0.0, 2.5, 1.0, 1.0, 0.7, 1.1)]
COMMON = ["self", "return", "value", "get", "config"]


def _vocabulary(rnd: random.Random) -> list[str]:
    return COMMON + [f"w{i}_{rnd.choice('abcdef')}" for i in range(600)]


def _rows(ids: range, seed: int, vocab: list[str]) -> list[tuple[Any, ...]]:
    """Code-like rows: a few common words in most rows, the rest from a Zipf-like tail; some exact duplicates,
    so ties (broken by row id) are common, as in replicated code."""
    rnd = random.Random(seed)

    def words(k: int) -> str:
        return " ".join(vocab[min(int(rnd.paretovariate(0.7)) - 1, len(vocab) - 1)] for _ in range(rnd.randint(0, k)))

    out: list[tuple[Any, ...]] = []
    for i in ids:
        if out and rnd.random() < 0.1:
            out.append((i, *out[-1][1:]))  # the same text as the previous row
            continue
        name = rnd.choice(vocab)
        out.append((i, name, words(3), f"pkg.{name}", f"src/{rnd.choice(vocab)}.py", words(4), words(6), words(40)))
    return out


class _Reader(PgShim):
    """The shim with a resident copy holder, as PgDatabase has one."""

    resident: pg_resident.Resident | None = None

    def resident_text(self, index: pg_text.TextTables) -> pg_resident.Resident | None:
        return self.resident if index.name == TEXT.name else None


@pytest.fixture
def index(pg_schema: PgShim, pg_url: str) -> Iterator[tuple[PgShim, _Reader, list[str]]]:  # noqa: F811
    """1,500 rows in the text tables; a plain connection (SQL only) and one with a resident copy holder."""
    vocab = _vocabulary(random.Random(3))
    with pg_schema.atomic() as con:
        for sql in pg_text.DDL + pg_text.DDL_V4:
            con.execute(sql)
        pg_text.insert_rows(con, TEXT, _rows(range(1, 1501), 11, vocab))

    def connect() -> Any:
        con = psycopg.connect(pg_url, autocommit=True)
        con.execute("SET search_path = t, public")
        return con

    raw = connect()
    reader = _Reader(raw)
    reader.resident = pg_resident.Resident(connect, TEXT, from_rows=1)
    try:
        yield pg_schema, reader, vocab
    finally:
        raw.close()


def _queries(vocab: list[str], n: int, seed: int) -> list[list[str]]:
    rnd = random.Random(seed)
    out = [[t] for t in COMMON] + [["absent_word"], ["self", "self", "w3_a"], COMMON + vocab[5:40]]
    out += [[rnd.choice(vocab[: rnd.choice([10, 60, 600])]) for _ in range(rnd.randint(1, 12))] for _ in range(n)]
    return out


def _both(sql: PgShim, reader: _Reader, tokens: list[str], limit: int, weights: Any) -> tuple[list[Any], list[Any]]:
    return (
        pg_text.search(sql, TEXT, tokens, limit, weights),
        pg_text.search(reader, TEXT, tokens, limit, weights),
    )


def _rounded(score: float) -> float:
    return float(f"{score:.12g}")


def _same(got: list[tuple[int, float]], expected: list[tuple[int, float]]) -> bool:
    """The same answer as SQL's: scores equal but for the last bits (SQL sums in its plan's order, so rows whose
    scores are equal in exact arithmetic may come in either order there), the same rows but for those tied with
    the last one kept; and ``got`` in its own order, best first, ties by row id."""
    if got != sorted(got, key=lambda kv: (-kv[1], kv[0])) or len(got) != len(expected):
        return False
    g, e = (sorted(x, key=lambda kv: (-_rounded(kv[1]), kv[0])) for x in (got, expected))
    if not all(math.isclose(a[1], b[1], rel_tol=1e-12) for a, b in zip(g, e, strict=True)):
        return False
    last = _rounded(e[-1][1]) if e else 0.0
    return all(a[0] == b[0] or _rounded(b[1]) == last for a, b in zip(g, e, strict=True))


def test_copy_answers_as_sql(index: tuple[PgShim, _Reader, list[str]]) -> None:
    sql, reader, vocab = index
    assert reader.resident is not None
    snap = reader.resident.load_now()
    assert len(snap.row_ids) == 1500 and sum(hi - lo for lo, hi in snap.slices.values()) == len(snap.rows)
    checked = 0
    for weights in WEIGHTS:
        for tokens in _queries(vocab, 40, seed=5):
            for limit in (1, 7, 100, 5000):
                expected, got = _both(sql, reader, tokens, limit, weights)
                assert _same(got, expected), (tokens, limit, weights)
                checked += bool(expected)
    assert checked > 300
    assert reader.resident.loads == 1


def test_rows_changed_after_the_copy_are_scored_in_sql(index: tuple[PgShim, _Reader, list[str]]) -> None:
    sql, reader, vocab = index
    assert reader.resident is not None
    snap = reader.resident.load_now()
    with sql.atomic() as con:  # another connection's writes: deletes, updates, new rows with new words
        pg_text.delete_rows(con, TEXT, "SELECT unnest(?::bigint[])", (list(range(1, 1500, 37)),))
        pg_text.update_rows(con, TEXT, {"body": "self return brand_new_word"}, "SELECT ?::bigint", (100,))
        pg_text.insert_rows(con, TEXT, _rows(range(2001, 2041), 12, [*vocab[:50], "brand_new_word"]))
    queries = [*_queries(vocab, 30, seed=6), ["brand_new_word"], ["brand_new_word", "self"]]
    stale_differs = 0
    for tokens in queries:
        expected, got = _both(sql, reader, tokens, 50, NODE_BM25_WEIGHTS)
        assert _same(got, expected), tokens
        stats = pg_text._stats(sql, TEXT, [pg_text.term_key(t) for t in tokens])
        terms = [pg_text.term_key(t) for t in tokens if pg_text.term_key(t) in stats.docs]
        alone = snap.search(terms, [stats.docs[t] for t in terms], stats.rows, stats.tokens, NODE_BM25_WEIGHTS, 50)
        stale_differs += not _same(alone, expected)
    assert stale_differs > 10  # the copy alone would answer wrongly: the log is what keeps it exact
    assert reader.resident.loads == 1  # answered from the old copy plus the changed rows, no reload


def test_long_log_reloads_in_the_background(index: tuple[PgShim, _Reader, list[str]]) -> None:
    sql, reader, _vocab = index
    resident = reader.resident
    assert resident is not None
    first = resident.load_now()
    resident.max_pending = 5
    with sql.atomic() as con:
        pg_text.delete_rows(con, TEXT, "SELECT unnest(?::bigint[])", (list(range(1, 21)),))
    expected, got = _both(sql, reader, ["self", "value"], 30, NODE_BM25_WEIGHTS)
    assert _same(got, expected)  # exact while the fresh copy loads
    resident.wait(60)
    assert resident.loads == 2 and resident.error is None
    fresh = resident.usable(1480, first.version + 1, 0)
    assert fresh is not None and fresh.version == first.version + 1 and len(fresh.row_ids) == 1480


def test_clear_leaves_the_copy_unusable(index: tuple[PgShim, _Reader, list[str]]) -> None:
    sql, reader, vocab = index
    resident = reader.resident
    assert resident is not None
    old = resident.load_now()
    with sql.atomic() as con:
        pg_text.clear(con, TEXT)
        pg_text.insert_rows(con, TEXT, _rows(range(1, 101), 99, vocab))
    stats = pg_text._stats(sql, TEXT, [])
    assert stats.log_from > old.version  # the log no longer reaches back to the copy
    assert resident.usable(stats.rows, stats.version, stats.log_from) is None
    for tokens in _queries(vocab, 10, seed=8):
        expected, got = _both(sql, reader, tokens, 20, NODE_BM25_WEIGHTS)
        assert _same(got, expected), tokens
    resident.wait(60)  # the unusable copy started a fresh load
    assert resident.loads == 2 and resident.usable(stats.rows, stats.version, stats.log_from) is not None


def test_log_is_pruned_and_an_older_copy_reloads(
    index: tuple[PgShim, _Reader, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql, reader, _vocab = index
    resident = reader.resident
    assert resident is not None
    monkeypatch.setattr(pg_text, "LOG_VERSIONS", 6)
    monkeypatch.setattr(pg_text, "PRUNE_EVERY", 4)
    old = resident.load_now()
    for i in range(12):
        with sql.atomic() as con:
            pg_text.delete_rows(con, TEXT, "SELECT ?::bigint", (1 + i,))
    stats = pg_text._stats(sql, TEXT, [])
    versions = [int(v) for (v,) in sql.rows("SELECT DISTINCT version FROM nodes_fts_changes ORDER BY 1")]
    assert stats.log_from > old.version and min(versions) > stats.log_from and max(versions) == stats.version
    assert stats.version - stats.log_from <= 6 + 4
    assert resident.usable(stats.rows, stats.version, stats.log_from) is None


def test_a_failed_load_leaves_sql_answering_and_waits_before_retrying(
    index: tuple[PgShim, _Reader, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    sql, reader, _vocab = index
    tries: list[int] = []

    def refused() -> Any:
        tries.append(1)
        raise psycopg.OperationalError("connection refused")

    reader.resident = pg_resident.Resident(refused, TEXT, from_rows=1)
    for _ in range(3):
        expected, got = _both(sql, reader, ["self", "value"], 20, NODE_BM25_WEIGHTS)
        assert _same(got, expected)
        reader.resident.wait(30)
    assert len(tries) == 1 and "connection refused" in (reader.resident.error or "")
    monkeypatch.setattr(pg_resident, "RETRY_AFTER_S", 0.0)
    _both(sql, reader, ["self"], 5, NODE_BM25_WEIGHTS)
    reader.resident.wait(30)
    assert len(tries) == 2 and reader.resident.held is None


def test_a_cut_copy_stream_is_refused() -> None:
    header = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
    one = (1).to_bytes(2, "big") + (8).to_bytes(4, "big") + (7).to_bytes(8, "big")
    with pytest.raises(pg_resident.CopyFormatError):
        pg_resident._fixed_tuples([header, one], [("id", ">i8")], 2)  # a row and the trailer missing
    null = (1).to_bytes(2, "big") + (-1).to_bytes(4, "big", signed=True) + bytes(8)
    with pytest.raises(pg_resident.CopyFormatError):
        pg_resident._fixed_tuples([header, null, b"\xff\xff"], [("id", ">i8")], 1)
    got = pg_resident._fixed_tuples([header[:5], header[5:] + one[:3], one[3:] + b"\xff\xff"], [("id", ">i8")], 1)
    assert got["id"].tolist() == [7]


def test_setting_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_resident.ROWS_ENV, raising=False)
    assert pg_resident.from_rows_setting() == pg_resident.RESIDENT_FROM_ROWS
    monkeypatch.setenv(pg_resident.ROWS_ENV, "off")
    assert pg_resident.from_rows_setting() is None
    monkeypatch.setenv(pg_resident.ROWS_ENV, "5000")
    assert pg_resident.from_rows_setting() == 5000
    monkeypatch.setenv(pg_resident.ROWS_ENV, "lots")
    assert pg_resident.from_rows_setting() == pg_resident.RESIDENT_FROM_ROWS


def test_a_reader_loads_its_copy_on_the_second_search(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from igraph_mcp.store.pg_db import PgDatabase

    root = tmp_path / "repo"
    shutil.copytree(
        Path(node_text.__file__).resolve().parent, root / "store", ignore=shutil.ignore_patterns("__pycache__")
    )
    writer = PgDatabase.open_for_write(pg_url, "resident")
    try:
        build_index(
            root, writer, Config(), full=True, dry_run=False, embedder=HashingEmbedder(16), embedder_note=None,
            progress=None,
        )  # fmt: skip
        monkeypatch.setenv(pg_resident.ROWS_ENV, "1")
        reader = PgDatabase.open_for_read(pg_url, "resident")
        try:
            tokens = ["postings", "snapshot", "version", "self"]
            first = node_text.fts_search(reader, tokens, 40)
            resident = reader.resident_text(TEXT)
            assert resident is not None and resident.loads == 0  # one search: no copy yet
            assert _same(node_text.fts_search(reader, tokens, 40), first)
            resident.wait(60)
            assert resident.loads == 1 and resident.error is None
            assert _same(node_text.fts_search(reader, tokens, 40), first)
            assert _same(node_text.fts_search(writer, tokens, 40), first)
            assert resident.answered == 1
            assert writer.resident_text(TEXT) is None
        finally:
            reader.close()
    finally:
        writer.close()
