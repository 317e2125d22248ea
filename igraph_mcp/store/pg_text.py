"""The text index on PostgreSQL: postings kept in tables and BM25 computed in SQL, equal to SQLite FTS5's bm25().

FTS5's bm25() (ext/fts5/fts5_aux.c), for a query of phrases p over a row of D tokens in all columns:

    score = sum_p idf(p) * f(p) * (k1 + 1) / (f(p) + k1 * (1 - b + b * D / avgdl)),  k1 = 1.2, b = 0.75
    f(p)  = sum over the phrase's instances in the row of the weight of the instance's column
    idf(p) = log((N - n(p) + 0.5) / (n(p) + 0.5)), replaced by 1e-6 when <= 0
    N = rows, avgdl = tokens of all rows / N, n(p) = rows that match p

Terms come from SQLite's own unicode61 tokenizer (store/fts.py), so a row holds exactly the terms FTS5 would
index. A query string that the tokenizer cuts into several terms ("a.b") is a phrase: it matches where the terms
are adjacent in one column, which postings without positions cannot tell, so such phrases are counted from the
stored text of the rows holding all their terms (rare: query tokens are single terms almost always).
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from igraph_mcp.store.fts import fts_terms

K1 = 1.2
B = 0.75
MIN_IDF = 1e-6  # FTS5's stand-in for an IDF <= 0 (a term in more than half the rows)
# FTS5 truncates a token to this many bytes before storing it (FTS5_MAX_TOKEN_SIZE).
MAX_TOKEN_BYTES = 32768
# A B-tree entry holds at most ~2.7 kB: longer terms are stored by digest ('#' never starts a unicode61 token).
MAX_KEY_BYTES = 256


class _Cursor(Protocol):
    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What writes need: the connection-like object ``Database.atomic()`` yields (``?`` placeholders)."""

    def execute(self, sql: str, params: Any = ...) -> Any: ...


def _copy(con: Connection, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """Append rows by COPY, in the caller's transaction (the psycopg connection under ``con``): dumping a build's
    postings as arrays took 47 of its 248 s (37.6k symbols, busy machine)."""
    raw: Any = getattr(con, "raw")  # noqa: B009 - PgConnection's, not part of the execute-only protocol
    with raw.cursor() as cur, cur.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


class Reader(Protocol):
    """What searches need: the Database read API."""

    def rows(self, sql: str, params: Any = ()) -> list[tuple[Any, ...]]: ...


@dataclass(frozen=True, slots=True)
class TextTables:
    """One FTS table as PostgreSQL tables: ``name`` holds the text, ``name_postings`` / ``_terms`` / ``_totals``
    the statistics bm25() reads."""

    name: str
    columns: tuple[str, ...]

    @property
    def postings(self) -> str:
        """(term, row) -> the row's token count and the term's frequency in each column."""
        return f"{self.name}_postings"

    @property
    def terms(self) -> str:
        """term -> number of rows holding it (fts5vocab's 'row' table)."""
        return f"{self.name}_terms"

    @property
    def totals(self) -> str:
        """One row: number of rows and of tokens in all of them."""
        return f"{self.name}_totals"

    @property
    def changes(self) -> str:
        """(version, row) for every row a write added or removed: how a resident copy catches up (pg_resident)."""
        return f"{self.name}_changes"

    @property
    def freq_columns(self) -> list[str]:
        """Names of the per-column frequency columns of the postings table."""
        return [f"c{i}" for i in range(len(self.columns))]


# Column order matters as in FTS5: bm25() weights are positional (see store/fts.py).
NODE_TEXT = TextTables("nodes_fts", ("name", "words", "qualified_name", "path", "signature", "docstring", "body"))
RESOURCE_TEXT = TextTables("resources_fts", ("title", "heading_path", "identifiers", "text"))


def ddl(index: TextTables) -> list[str]:
    """CREATE statements of one text index (run inside the repository's schema by the migrations)."""
    cols = ", ".join(f"{c} text NOT NULL DEFAULT ''" for c in index.columns)
    freqs = ", ".join(f"{c} integer NOT NULL DEFAULT 0" for c in index.freq_columns)
    fcols = ", ".join(index.freq_columns)
    return [
        # `rowid`, as FTS5 names it, so SQL joining nodes_fts to nodes by rowid reads the same on both stores.
        f"CREATE TABLE {index.name}(rowid bigint PRIMARY KEY, {cols}, length integer NOT NULL)",
        # Every statistic a query needs is on the posting itself (the row's length too) and in the primary key's
        # leaves (INCLUDE), so scoring one term is one index-only range scan: at 1M rows 4-10x faster than
        # fetching each posting from the heap (65-200 ms against 700-940 ms for 20-term queries).
        f'CREATE TABLE {index.postings}(term text COLLATE "C" NOT NULL, row_id bigint NOT NULL, '
        f"length integer NOT NULL, {freqs}, PRIMARY KEY (term, row_id) INCLUDE (length, {fcols}))",
        f"CREATE INDEX {index.postings}_row ON {index.postings}(row_id)",
        f'CREATE TABLE {index.terms}(term text COLLATE "C" PRIMARY KEY, docs bigint NOT NULL)',
        f"CREATE TABLE {index.totals}(one boolean PRIMARY KEY DEFAULT true CHECK (one), "
        "rows bigint NOT NULL, tokens bigint NOT NULL)",
        f"INSERT INTO {index.totals}(rows, tokens) VALUES (0, 0)",  # noqa: S608 - fixed names
    ]


DDL: list[str] = ddl(NODE_TEXT) + ddl(RESOURCE_TEXT)


def change_log_ddl(index: TextTables) -> list[str]:
    """Schema 4: a version on the totals, bumped by every write, and the log of the rows each version changed.
    ``log_from``: a copy of the postings taken at a version below it cannot be brought up to date from the log."""
    return [
        f"ALTER TABLE {index.totals} ADD COLUMN version bigint NOT NULL DEFAULT 0",
        f"ALTER TABLE {index.totals} ADD COLUMN log_from bigint NOT NULL DEFAULT 0",
        f"CREATE TABLE {index.changes}(version bigint NOT NULL, row_id bigint NOT NULL)",
        f"CREATE INDEX {index.changes}_version ON {index.changes}(version)",
    ]


DDL_V4: list[str] = change_log_ddl(NODE_TEXT) + change_log_ddl(RESOURCE_TEXT)

# The log keeps this many versions (one per insert or delete call: about one per file written); a resident copy
# older than that reloads. Pruned every PRUNE_EVERY versions.
LOG_VERSIONS = 20_000
PRUNE_EVERY = 1_000


# -- terms -------------------------------------------------------------------------------------------------------
def term_key(term: str) -> str:
    """How a term is stored: itself, cut to FTS5's token limit; a very long one by digest (B-tree entry limit)."""
    data = term.encode("utf-8", "replace")
    if len(data) <= MAX_KEY_BYTES:
        return term
    return "#" + hashlib.sha256(data[:MAX_TOKEN_BYTES]).hexdigest()


def _clean(text: str | None) -> str:
    # PostgreSQL text holds neither NUL nor lone surrogates; both are separators to the tokenizer anyway.
    return (text or "").encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")


@dataclass(frozen=True, slots=True)
class _Row:
    row_id: int
    texts: tuple[str, ...]
    length: int
    freqs: dict[str, list[int]]  # term key -> frequency per column


def _analyse(index: TextTables, row: Sequence[Any]) -> _Row:
    texts = tuple(_clean(v) for v in row[1:])
    if len(texts) != len(index.columns):
        raise ValueError(f"{index.name} has {len(index.columns)} columns, got {len(texts)} values")
    freqs: dict[str, list[int]] = {}
    length = 0
    for col, text in enumerate(texts):
        terms = fts_terms(text)
        length += len(terms)
        for term, n in Counter(terms).items():
            counts = freqs.setdefault(term_key(term), [0] * len(texts))
            counts[col] += n  # += : two long terms cut to the same bytes are one term, as in FTS5
    return _Row(int(row[0]), texts, length, freqs)


# -- writes ------------------------------------------------------------------------------------------------------
def insert_rows(con: Connection, index: TextTables, rows: Iterable[Sequence[Any]]) -> None:
    """Index rows given as (id, text of each column in order), with their statistics, in the caller's transaction."""
    analysed = [_analyse(index, r) for r in rows]
    if not analysed:
        return
    _copy(con, index.name, ("rowid", *index.columns, "length"), ((r.row_id, *r.texts, r.length) for r in analysed))
    docs: Counter[str] = Counter()
    for r in analysed:
        docs.update(r.freqs.keys())
    _copy(
        con,
        index.postings,
        ("term", "row_id", "length", *index.freq_columns),
        ((term, r.row_id, r.length, *freq) for r in analysed for term, freq in r.freqs.items()),
    )
    ordered = sorted(docs)  # a fixed order: two writers (of different schemas) never wait on each other's rows
    con.execute(
        f"INSERT INTO {index.terms} AS t(term, docs) SELECT * FROM unnest(?::text[], ?::bigint[]) "  # noqa: S608
        "ON CONFLICT (term) DO UPDATE SET docs = t.docs + excluded.docs",
        [ordered, [docs[t] for t in ordered]],
    )
    version = con.execute(
        f"UPDATE {index.totals} SET rows = rows + ?, tokens = tokens + ?, version = version + 1 "  # noqa: S608
        "RETURNING version",
        (len(analysed), sum(r.length for r in analysed)),
    ).fetchall()[0][0]
    _log(con, index, int(version), [r.row_id for r in analysed])


def _log(con: Connection, index: TextTables, version: int, row_ids: Sequence[int]) -> None:
    """Record the rows ``version`` changed; every PRUNE_EVERY versions drop what is older than LOG_VERSIONS."""
    _copy(con, index.changes, ("version", "row_id"), ((version, rid) for rid in row_ids))
    if version % PRUNE_EVERY == 0 and version > LOG_VERSIONS:
        cut = version - LOG_VERSIONS
        con.execute(f"DELETE FROM {index.changes} WHERE version <= ?", (cut,))  # noqa: S608
        con.execute(f"UPDATE {index.totals} SET log_from = greatest(log_from, ?)", (cut,))  # noqa: S608


def delete_rows(con: Connection, index: TextTables, ids_sql: str, params: Sequence[Any] = ()) -> None:
    """Remove the rows whose id the query ``ids_sql`` returns, with their statistics."""
    gone = con.execute(
        f"DELETE FROM {index.name} WHERE rowid IN ({ids_sql}) RETURNING rowid, length",  # noqa: S608 - caller's fixed SQL
        tuple(params),
    ).fetchall()
    if not gone:
        return
    ids = [int(r[0]) for r in gone]
    version = con.execute(
        f"UPDATE {index.totals} SET rows = rows - ?, tokens = tokens - ?, version = version + 1 "  # noqa: S608
        "RETURNING version",
        (len(ids), sum(int(r[1]) for r in gone)),
    ).fetchall()[0][0]
    _log(con, index, int(version), ids)
    left = con.execute(
        f"WITH gone AS (DELETE FROM {index.postings} WHERE row_id = ANY(?::bigint[]) RETURNING term), "  # noqa: S608
        "counted AS (SELECT term, count(*) AS n FROM gone GROUP BY term) "
        f"UPDATE {index.terms} AS t SET docs = t.docs - counted.n FROM counted WHERE t.term = counted.term "
        "RETURNING t.term, t.docs",
        (ids,),
    ).fetchall()
    unused = sorted(str(term) for term, docs in left if int(docs) <= 0)
    if unused:
        con.execute(f"DELETE FROM {index.terms} WHERE term = ANY(?::text[]) AND docs <= 0", (unused,))  # noqa: S608


def update_rows(
    con: Connection, index: TextTables, values: dict[str, str], ids_sql: str, params: Sequence[Any] = ()
) -> None:
    """Set some columns of the rows whose id ``ids_sql`` returns, re-indexing them (FTS5's UPDATE)."""
    unknown = set(values) - set(index.columns)
    if unknown:
        raise ValueError(f"{index.name} has no column {sorted(unknown)}")
    cols = ", ".join(index.columns)
    old = con.execute(
        f"SELECT rowid, {cols} FROM {index.name} WHERE rowid IN ({ids_sql}) ORDER BY rowid",  # noqa: S608 - fixed SQL
        tuple(params),
    ).fetchall()
    if not old:
        return
    new = [
        (r[0], *(values.get(c, r[i + 1]) for i, c in enumerate(index.columns)))  # the other columns stay
        for r in old
    ]
    delete_rows(con, index, "SELECT unnest(?::bigint[])", ([int(r[0]) for r in old],))
    insert_rows(con, index, new)


def clear(con: Connection, index: TextTables) -> None:
    """Empty one text index."""
    for table in (index.name, index.postings, index.terms, index.changes):
        con.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed names
    # Every row changed and none is logged: no earlier copy of the postings can catch up.
    con.execute(
        f"UPDATE {index.totals} SET rows = 0, tokens = 0, version = version + 1, log_from = version + 1"  # noqa: S608
    )


# -- reads -------------------------------------------------------------------------------------------------------
def doc_freqs(db: Reader, index: TextTables, terms: Sequence[str]) -> dict[str, int]:
    """term -> number of rows holding it, for the given terms that any row holds (fts5vocab 'row')."""
    keys = {term_key(t): t for t in terms}
    if not keys:
        return {}
    found = db.rows(
        f"SELECT term, docs FROM {index.terms} WHERE term = ANY(?::text[]) AND docs > 0",  # noqa: S608
        (sorted(keys),),
    )
    return {keys[str(k)]: int(n) for k, n in found}


def _phrases(tokens: Sequence[str]) -> list[list[str]]:
    """The query's phrases as FTS5 parses an OR of quoted tokens: one per non-empty token, each its query terms."""
    return [[term_key(t) for t in fts_terms(tok, query=True)] for tok in tokens if tok]


# The scoring query's hash aggregate holds one entry per matching row: at PostgreSQL's default 4 MB it spills to
# disk past ~100k rows (1M-row index, 460k postings: 1.1 s against 0.74 s at 128 MB). Each session sets it (pg_db).
SEARCH_WORK_MEM = "128MB"


@dataclass(frozen=True, slots=True)
class Stats:
    rows: int
    tokens: int
    docs: dict[str, int]  # term key -> rows holding it (terms no row holds are absent)
    version: int = 0  # the totals' version and log_from (pg_resident)
    log_from: int = 0


def _stats(db: Reader, index: TextTables, terms: Sequence[str]) -> Stats:
    """N, the token total and the document counts of some terms, in one snapshot of the statistics."""
    found = db.rows(
        f"SELECT t.rows, t.tokens, t.version, t.log_from, d.term, d.docs FROM {index.totals} t "  # noqa: S608
        f"LEFT JOIN {index.terms} d ON d.term = ANY(?::text[]) AND d.docs > 0",
        (sorted(set(terms)),),
    )
    if not found:
        return Stats(0, 0, {})
    first = found[0]
    docs = {str(r[4]): int(r[5]) for r in found if r[4] is not None}
    return Stats(int(first[0]), int(first[1]), docs, int(first[2]), int(first[3]))


def _score_sql(index: TextTables, within_sql: str | None, *, listed: bool = False) -> str:
    """Per-row bm25() sums over the postings of the given (term, docs) phrases.

    The arithmetic follows fts5_aux.c operation by operation in float8, so scores agree with FTS5's to the last
    bits (summation order aside). Document counts come in as parameters: the planner then walks the phrase list
    and does one index range scan per term instead of guessing how many terms match.
    """
    tf = " + ".join(f"p.{c} * ?::float8" for c in index.freq_columns)
    cond = f" AND p.row_id IN ({within_sql})" if within_sql else ""
    # ``listed``: only the rows of one more array parameter, probed per term in the primary key (a resident
    # copy's changed rows: a handful, where ``within_sql`` would scan each term's postings and filter).
    probe = " AND p.row_id = ANY(?::bigint[])" if listed else ""
    return (
        "SELECT p.row_id, sum(q.idf * ((f.tf * (?::float8 + 1.0::float8)) / "  # noqa: S608 - fixed names
        "(f.tf + ?::float8 * ((1.0::float8 - ?::float8) + (?::float8 * p.length::float8) / ?::float8)))) AS score "
        "FROM (SELECT k.term, CASE WHEN x.idf <= 0 THEN ?::float8 ELSE x.idf END AS idf "
        "FROM unnest(?::text[], ?::float8[]) AS k(term, docs) "
        "CROSS JOIN LATERAL (SELECT ln(((?::float8 - k.docs) + 0.5::float8) / (k.docs + 0.5::float8)) AS idf) x) q "
        f"JOIN {index.postings} p ON p.term = q.term{probe} CROSS JOIN LATERAL (SELECT {tf} AS tf) f "
        f"WHERE true{cond} GROUP BY p.row_id"
    )


def search(
    db: Reader,
    index: TextTables,
    tokens: Sequence[str],
    limit: int,
    weights: Sequence[float],
    *,
    within_sql: str | None = None,
    within_params: Sequence[Any] = (),
) -> list[tuple[int, float]]:
    """Rows matching any token, by FTS5's bm25() with these column weights: (row id, score) best first.

    ``within_sql`` (a query returning ids) keeps only those rows; the statistics stay those of the whole table,
    as FTS5's do when a MATCH is combined with another condition.
    """
    phrases = _phrases(tokens)
    singles = [p[0] for p in phrases if len(p) == 1]
    multi = [p for p in phrases if len(p) > 1]  # a phrase of no terms matches nothing and adds nothing
    if (not singles and not multi) or limit <= 0:
        return []
    w = [float(x) for x in weights] + [1.0] * (len(index.columns) - len(weights))  # FTS5: missing weights are 1
    stats = _stats(db, index, [*singles, *(t for p in multi for t in p)])
    if stats.rows == 0:
        return []
    singles = [t for t in singles if t in stats.docs]  # a term no row holds scores nothing
    query = Query(db, index, stats, w, within_sql, tuple(within_params))
    resident = _resident(db, index)
    if resident is not None and singles and not multi and within_sql is None:
        found = resident.search(query, singles, limit)
        if found is not None:
            return found
    if multi:
        scores = dict(query.scores(singles)) if singles else {}
        allowed = None if within_sql is None else {int(r[0]) for r in db.rows(within_sql, tuple(within_params))}
        for phrase in multi:
            for rid, score in _phrase_scores(db, index, phrase, w).items():
                if allowed is None or rid in allowed:
                    scores[rid] = scores.get(rid, 0.0) + score
        return sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    if not singles:
        return []
    return query.scores(singles, limit=limit)


class Resident(Protocol):
    """A reader's in-memory copy of a text index (store/pg_resident.py)."""

    def search(self, query: Query, terms: Sequence[str], limit: int) -> list[tuple[int, float]] | None:
        """The answer from the copy, or None where SQL must answer."""


def _resident(db: Reader, index: TextTables) -> Resident | None:
    """The reader's in-memory copy holder for this index, where the reader keeps them (PgDatabase)."""
    holder = getattr(db, "resident_text", None)
    return holder(index) if callable(holder) else None


def changed_since(db: Reader, index: TextTables, version: int) -> list[int]:
    """Rows that writes after ``version`` added or removed (the change log)."""
    return [
        int(r[0])
        for r in db.rows(f"SELECT DISTINCT row_id FROM {index.changes} WHERE version > ?", (version,))  # noqa: S608
    ]


@dataclass(slots=True)
class Query:
    """One search's fixed inputs: where, the statistics, the weights and the row restriction."""

    db: Reader
    index: TextTables
    stats: Stats
    weights: list[float]
    within_sql: str | None
    within_params: tuple[Any, ...]

    def _params(self, terms: Sequence[str]) -> list[Any]:
        s = self.stats
        avgdl = float(s.tokens) / float(s.rows)
        return [
            K1, K1, B, B, avgdl, MIN_IDF, list(terms), [float(s.docs[t]) for t in terms], float(s.rows), *self.weights
        ]  # fmt: skip

    def scores(self, terms: Sequence[str], *, limit: int | None = None) -> list[tuple[int, float]]:
        """Every matching row's score over ``terms`` (the best ``limit`` of them), best first."""
        sql = _score_sql(self.index, self.within_sql) + " ORDER BY score DESC, p.row_id"
        params = [*self._params(terms), *self.within_params]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [(int(r[0]), float(r[1])) for r in self.db.rows(sql, tuple(params))]

    def scores_of(self, terms: Sequence[str], row_ids: Sequence[int]) -> list[tuple[int, float]]:
        """The scores over ``terms`` of those of ``row_ids`` that match (no row restriction of its own)."""
        sql = _score_sql(self.index, None, listed=True)
        params = self._params(terms)
        at = len(params) - len(self.weights)  # the probe's array comes before the weights
        return [(int(r[0]), float(r[1])) for r in self.db.rows(sql, (*params[:at], list(row_ids), *params[at:]))]


def _instances(terms: list[str], phrase: list[str]) -> int:
    """How many times ``phrase`` starts at a position of ``terms`` (overlapping ones count, as FTS5's do)."""
    n = len(phrase)
    return sum(1 for i in range(len(terms) - n + 1) if terms[i : i + n] == phrase)


def _phrase_scores(db: Reader, index: TextTables, phrase: list[str], weights: list[float]) -> dict[int, float]:
    """bm25() contributions of one multi-term phrase, counted from the text of the rows holding all its terms."""
    distinct = sorted(set(phrase))
    cols = ", ".join(index.columns)
    candidates = db.rows(
        f"SELECT d.rowid, d.length, {cols} FROM {index.name} d WHERE d.rowid IN ("  # noqa: S608 - fixed names
        f"SELECT row_id FROM {index.postings} WHERE term = ANY(?::text[]) GROUP BY row_id "
        "HAVING count(*) = ?)",
        (distinct, len(distinct)),
    )
    total = db.rows(f"SELECT rows, tokens FROM {index.totals}")  # noqa: S608
    if not candidates or not total or int(total[0][0]) == 0:
        return {}
    n_rows, n_tokens = int(total[0][0]), int(total[0][1])
    matched: dict[int, tuple[float, int]] = {}  # row -> (weighted frequency, row length)
    for row in candidates:
        hits = [_instances([term_key(t) for t in fts_terms(str(text))], phrase) for text in row[2:]]
        if any(hits):
            matched[int(row[0])] = (sum(weights[c] * h for c, h in enumerate(hits)), int(row[1]))
    idf = _idf(n_rows, len(matched))
    avgdl = float(n_tokens) / float(n_rows)
    return {
        rid: idf * ((f * (K1 + 1.0)) / (f + K1 * ((1.0 - B) + (B * float(d)) / avgdl)))
        for rid, (f, d) in matched.items()
    }


def _idf(n_rows: int, hits: int) -> float:
    """FTS5's IDF of a phrase matched by ``hits`` of ``n_rows`` rows."""
    idf = math.log((float(n_rows - hits) + 0.5) / (float(hits) + 0.5))
    return MIN_IDF if idf <= 0.0 else idf
