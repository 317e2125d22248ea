"""The PostgreSQL text index scores exactly as SQLite FTS5's bm25(): the same rows in both, the same answers."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from typing import Any

import apsw
import pytest
from _pg import PgShim, pg_schema, pg_shim  # noqa: F401 - pg_schema is a fixture
from _pg_server import PgServer

from igraph_mcp.store import pg_text
from igraph_mcp.store.fts import NODE_BM25_WEIGHTS, fts_or_query

NODE_FTS = """CREATE VIRTUAL TABLE nodes_fts USING fts5(
    name, words, qualified_name, path, signature, docstring, body,
    tokenize = "unicode61 remove_diacritics 2 tokenchars '_'")"""

WORDS = [
    "parse",
    "parser",
    "Parse_Tree",
    "__init__",
    "_private",
    "a__b",
    "get",
    "set",
    "self",
    "return",
    "café",
    "cafe",
    "CAFÉ",
    "naïve",
    "Ꭰ",
    "ᏸ",
    "東京",
    "データ",
    "😀",
    "x",
    "y",
    "x.y",
    "x_y",
    "1234",
    "0x1F",
    "don't",
    'say "hi"',
    "über",
    "straße",
    "ǅemal",
    "İstanbul",
    "ﬁle",
    "e\u0301",
    "tab\tsep",
    "nul\x00byte",
    "",
    "   ",
    "...",
    "a-b-c",
    "HTTPServer",
    "http_server",
    "load_config",
    "config",
    "LoadConfig",
    "q" * 300,
    "long_" + "z" * 400,
]


def _rows(n: int, seed: int) -> list[tuple[Any, ...]]:
    rnd = random.Random(seed)

    def text(k: int) -> str:
        return " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(0, k)))

    def zipf() -> str:
        # Words from common to rare, as in code, so some query terms are common and others rare.
        return "".join(f" zipf{min(int(rnd.paretovariate(0.8)), 500)}" for _ in range(rnd.randint(0, 12)))

    out = []
    for i in range(1, n + 1):
        name = rnd.choice(WORDS)
        path = f"src/pkg/{rnd.choice(WORDS)}.py"
        out.append((i, name, text(3), f"pkg.mod.{name}", path, text(4), text(8), text(30) + zipf()))
    return out


QUERIES: list[list[str]] = [
    ["parse"],
    ["parse", "config", "self"],  # "self" is in most rows: its IDF is FTS5's 1e-6 floor
    ["café", "cafe"],  # two phrases, one term: counted twice, as FTS5 does
    ["x.y"],  # one token the tokenizer cuts in two: a phrase
    ["x.y", "load_config", "東京"],
    ["a-b-c", "b c"],  # multi-term phrases
    ["x x"],  # overlapping instances of a phrase
    ['say "hi"', "don't"],
    ["", "..."],  # no terms at all
    ["", "parse"],
    ["Ꭰ", "ᏸ", "😀", "データ"],
    ["e\u0301", "e"],
    ["q" * 300],
    ["long_" + "z" * 400, "nothing_like_this"],
    ["__init__", "_private", "a__b"],
    ["ﬁle", "file", "straße", "strasse"],
    ["HTTPServer", "httpserver", "http_server"],
    ["absent_token"],
    ["get", "set", "return", "parse", "parser", "config", "load_config", "x_y", "1234", "0x1f"],
]


def _fill(pg: PgShim) -> apsw.Connection:
    """The same rows in a real FTS5 table and in the PostgreSQL text index."""
    lite = apsw.Connection(":memory:")
    lite.execute(NODE_FTS)
    lite.execute("CREATE VIRTUAL TABLE nodes_fts_vocab USING fts5vocab(nodes_fts, 'row')")
    rows = _rows(400, seed=7)
    with lite:
        lite.executemany(
            "INSERT INTO nodes_fts(rowid, name, words, qualified_name, path, signature, docstring, body) "
            "VALUES(?,?,?,?,?,?,?,?)",
            rows,
        )
    with pg.atomic() as con:
        for sql in pg_text.DDL + pg_text.DDL_V4:
            con.execute(sql)
        pg_text.insert_rows(con, pg_text.NODE_TEXT, rows)
    return lite


@pytest.fixture(scope="module")
def shared(pg_server: PgServer) -> Iterator[tuple[apsw.Connection, PgShim]]:
    """Both tables filled once for the tests that only read them."""
    url = pg_server.new_database(vector=False)
    try:
        with pg_shim(url) as pg:
            lite = _fill(pg)
            yield lite, pg
            lite.close()
    finally:
        pg_server.drop_database(url)


@pytest.fixture
def both(pg_schema: PgShim) -> Iterator[tuple[apsw.Connection, PgShim]]:  # noqa: F811 - the imported fixture
    """Both tables filled for a test that changes them."""
    lite = _fill(pg_schema)
    yield lite, pg_schema
    lite.close()


def _lite_search(
    lite: apsw.Connection, tokens: list[str], limit: int, weights: Sequence[float]
) -> list[tuple[int, float]]:
    query = fts_or_query(tokens)
    if not query:
        return []
    w = ",".join(repr(float(x)) for x in weights)
    return [
        (int(r[0]), float(r[1]))
        for r in lite.execute(
            f"SELECT rowid, -bm25(nodes_fts, {w}) FROM nodes_fts WHERE nodes_fts MATCH ? "
            f"ORDER BY bm25(nodes_fts, {w}), rowid LIMIT ?",
            (query, limit),
        )
    ]


def _assert_same(lite: list[tuple[int, float]], pg: list[tuple[int, float]]) -> None:
    assert [i for i, _ in pg] == [i for i, _ in lite]
    for (_, a), (_, b) in zip(lite, pg, strict=True):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (a, b)


@pytest.mark.parametrize("tokens", QUERIES, ids=[repr(q)[:40] for q in QUERIES])
@pytest.mark.parametrize("weights", [NODE_BM25_WEIGHTS, (1.0,) * 7, (0.3, 0.0, 2.5, 1.0, 1.0, 0.7, 1.1)])
def test_scores_and_order_match_fts5(
    shared: tuple[apsw.Connection, PgShim], tokens: list[str], weights: tuple[float, ...]
) -> None:
    lite, pg = shared
    expected = _lite_search(lite, tokens, 1000, weights)
    got = pg_text.search(pg, pg_text.NODE_TEXT, tokens, 1000, weights)
    _assert_same(expected, got)
    assert pg_text.search(pg, pg_text.NODE_TEXT, tokens, 5, weights) == got[:5]
    if any(t for t in tokens if t.strip(" .")):
        assert expected or tokens == ["absent_token"] or tokens[0].startswith("long_")


def test_queries_cover_real_matches(shared: tuple[apsw.Connection, PgShim]) -> None:
    lite, _pg = shared
    matched = [q for q in QUERIES if _lite_search(lite, q, 10, NODE_BM25_WEIGHTS)]
    assert len(matched) >= len(QUERIES) - 4  # the table would not test much if most queries found nothing


def test_vocabulary_matches_fts5vocab(shared: tuple[apsw.Connection, PgShim]) -> None:
    lite, pg = shared
    vocab = {str(t): int(d) for t, d in lite.execute("SELECT term, doc FROM nodes_fts_vocab")}
    assert pg_text.doc_freqs(pg, pg_text.NODE_TEXT, list(vocab)) == vocab
    assert pg_text.doc_freqs(pg, pg_text.NODE_TEXT, ["absent_token", ""]) == {}


def test_deletes_and_updates_keep_parity(both: tuple[apsw.Connection, PgShim]) -> None:
    lite, pg = both
    gone = list(range(1, 400, 3))
    with lite:
        lite.executemany("DELETE FROM nodes_fts WHERE rowid = ?", [(i,) for i in gone])
        lite.execute("UPDATE nodes_fts SET path = 'src/x.y/load_config.py' WHERE rowid BETWEEN 100 AND 160")
        lite.execute("UPDATE nodes_fts SET name = 'café', words = '' WHERE rowid = 200")
    with pg.atomic() as con:
        pg_text.delete_rows(con, pg_text.NODE_TEXT, "SELECT unnest(?::bigint[])", (gone,))
        pg_text.update_rows(
            con,
            pg_text.NODE_TEXT,
            {"path": "src/x.y/load_config.py"},
            "SELECT rowid FROM nodes_fts WHERE rowid BETWEEN ? AND ?",
            (100, 160),
        )
        pg_text.update_rows(con, pg_text.NODE_TEXT, {"name": "café", "words": ""}, "SELECT ?::bigint", (200,))
    vocab = {str(t): int(d) for t, d in lite.execute("SELECT term, doc FROM nodes_fts_vocab")}
    assert pg_text.doc_freqs(pg, pg_text.NODE_TEXT, list(vocab)) == vocab
    assert pg.rows("SELECT count(*) FROM nodes_fts_terms") == [(len(vocab),)]  # emptied terms are gone
    for tokens in QUERIES:
        _assert_same(
            _lite_search(lite, tokens, 1000, NODE_BM25_WEIGHTS),
            pg_text.search(pg, pg_text.NODE_TEXT, tokens, 1000, NODE_BM25_WEIGHTS),
        )


def test_within_keeps_whole_table_statistics(shared: tuple[apsw.Connection, PgShim]) -> None:
    lite, pg = shared
    keep = list(range(50, 120))
    query = fts_or_query(["parse", "x.y", "config"])
    expected = [
        int(r[0])
        for r in lite.execute(
            "SELECT rowid FROM nodes_fts WHERE nodes_fts MATCH ? AND rowid BETWEEN 50 AND 119 ORDER BY rank, rowid",
            (query,),
        )
    ]
    got = pg_text.search(
        pg,
        pg_text.NODE_TEXT,
        ["parse", "x.y", "config"],
        1000,
        (1.0,) * 7,
        within_sql="SELECT unnest(?::bigint[])",
        within_params=(keep,),
    )
    assert [i for i, _ in got] == expected
    assert expected


def test_clear_empties_everything(both: tuple[apsw.Connection, PgShim]) -> None:
    _lite, pg = both
    with pg.atomic() as con:
        pg_text.clear(con, pg_text.NODE_TEXT)
    assert pg_text.search(pg, pg_text.NODE_TEXT, ["parse"], 10, NODE_BM25_WEIGHTS) == []
    assert pg.rows("SELECT rows, tokens FROM nodes_fts_totals") == [(0, 0)]
