"""SQL DDL and JSON schema dumps: dialects, keys, indexes, comments, splitting, damage and hostile input."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from igraph_mcp.resources import sql_cursor, sql_lexer
from igraph_mcp.resources.json_schema import looks_like_schema, parse_json_schema
from igraph_mcp.resources.model import Chunk, ParseProblem
from igraph_mcp.resources.sql_schema import parse_sql_schema


def parse(sql: str) -> tuple[dict[str, Chunk], list[ParseProblem]]:
    chunks, problems = parse_sql_schema(sql, "shop")
    return {c.title: c for c in chunks}, problems


def col(chunk: Chunk, name: str) -> dict[str, str]:
    return next(c for c in chunk.columns if c["name"] == name)


POSTGRES = """\
CREATE TABLE public.customers (
    id SERIAL PRIMARY KEY,
    email character varying(255) NOT NULL UNIQUE,
    tags text[] DEFAULT '{}'::text[]
);

-- One row per checkout
CREATE TABLE IF NOT EXISTS "orders" (
    "id" integer NOT NULL,
    customer_id integer REFERENCES public.customers(id) ON DELETE CASCADE,
    -- in cents
    total numeric(12,2) DEFAULT 0 CHECK (total >= 0),
    status text DEFAULT 'new'::text NOT NULL, -- lifecycle state
    note text DEFAULT 'a;b',
    created_at timestamp with time zone DEFAULT now(),
    CONSTRAINT orders_pkey PRIMARY KEY (id)
);
COMMENT ON TABLE orders IS 'Customer orders';
COMMENT ON COLUMN public.orders.note IS 'It''s free text';
CREATE INDEX orders_customer_idx ON ONLY public.orders USING btree (customer_id);
CREATE UNIQUE INDEX CONCURRENTLY ON orders (lower(status));
"""


def test_postgres_tables_columns_keys_and_rendering() -> None:
    tables, problems = parse(POSTGRES)
    assert problems == []
    orders = tables["orders"]
    assert orders.kind == "db_table" and orders.heading_path == ["shop", "orders"]
    assert orders.text.startswith(
        "Table orders: id integer primary key; customer_id integer -> public.customers.id on delete cascade;"
    )
    assert col(orders, "id") == {
        "name": "id",
        "type": "integer",
        "notes": "primary key",
        "nullable": "no",
        "primary_key": "yes",
    }
    assert col(orders, "customer_id")["references"] == "public.customers.id on delete cascade"
    assert col(orders, "total")["type"] == "numeric(12, 2)" and "check (total >= 0)" in col(orders, "total")["notes"]
    assert col(orders, "status")["default"] == "'new'::text" and col(orders, "status")["nullable"] == "no"
    assert col(orders, "created_at")["type"] == "timestamp with time zone"
    assert col(orders, "created_at")["default"] == "now()"
    assert col(orders, "note")["default"] == "'a;b'"  # a ';' inside a string does not split
    assert orders.identifiers == ["orders", "id", "customer_id", "total", "status", "note", "created_at"]
    assert (orders.start_line, orders.end_line) == (8, 17)


def test_postgres_comments_and_indexes_attach_to_their_table() -> None:
    tables, _ = parse(POSTGRES)
    orders = tables["orders"]
    assert "Comment: Customer orders" in orders.text  # COMMENT ON wins over the -- comment above
    assert col(orders, "total")["comment"] == "in cents"  # -- comment right above a column
    assert col(orders, "status")["comment"] == "lifecycle state"  # trailing -- comment
    assert col(orders, "note")["comment"] == "It's free text"
    assert "Indexes: orders_customer_idx (customer_id); unique (lower(status))" in orders.text
    customers = tables["customers"]
    assert customers.heading_path == ["public", "customers"] and "public.customers" in customers.identifiers
    assert col(customers, "tags")["type"] == "text[]" and col(customers, "tags")["default"] == "'{}'::text[]"
    assert col(customers, "email")["type"] == "character varying(255)" and "unique" in col(customers, "email")["notes"]


def test_comment_directly_above_table_is_its_comment() -> None:
    tables, _ = parse("-- Checkout carts\n-- one per session\nCREATE TABLE carts (id int);\n")
    assert "Comment: Checkout carts one per session" in tables["carts"].text
    tables, _ = parse("-- unrelated\n\nCREATE TABLE carts (id int);\n")  # a blank line breaks the link
    assert "Comment" not in tables["carts"].text


MYSQL = """\
--
-- Table structure for table `items`
--
DROP TABLE IF EXISTS `items`;
/*!40101 SET character_set_client = utf8 */;
CREATE TABLE `items` (
  `id` int(11) unsigned NOT NULL AUTO_INCREMENT,
  `order_id` int(11) NOT NULL COMMENT 'the order; see orders',
  `sku` varchar(64) CHARACTER SET utf8mb4 DEFAULT NULL,
  `label` varchar(20) DEFAULT 'it\\'s',
  `updated_at` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  PRIMARY KEY (`id`),
  UNIQUE KEY `uq_sku` (`sku`(32)),
  KEY `idx_order` (`order_id`),
  FULLTEXT KEY `ft_label` (`label`),
  CONSTRAINT `fk_order` FOREIGN KEY (`order_id`) REFERENCES `orders` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COMMENT='Order line items';
INSERT INTO `items` VALUES (1,2,'x','CREATE TABLE nope (a int);',NOW());
"""


def test_mysql_backticks_inline_comments_keys_and_options() -> None:
    tables, problems = parse(MYSQL)
    assert problems == []
    assert list(tables) == ["items"]
    items = tables["items"]
    assert col(items, "id")["type"] == "int(11) unsigned" and "auto-increment" in col(items, "id")["notes"]
    assert col(items, "order_id")["comment"] == "the order; see orders"
    assert col(items, "order_id")["references"] == "orders.id on delete cascade"
    assert col(items, "label")["default"] == "'it\\'s'"  # backslash escapes in MySQL strings
    assert col(items, "updated_at")["default"] == "CURRENT_TIMESTAMP"
    assert "on update current_timestamp" in col(items, "updated_at")["notes"]
    assert "Comment: Order line items" in items.text
    assert "unique uq_sku (sku)" in items.text and "idx_order (order_id)" in items.text
    assert "fulltext ft_label (label)" in items.text


SQLITE = """\
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE kv (key TEXT PRIMARY KEY, value TEXT) WITHOUT ROWID;
CREATE TABLE [order lines] (id INTEGER PRIMARY KEY AUTOINCREMENT, kv_key TEXT REFERENCES kv, qty);
CREATE TABLE pairs (a INT, b INT, PRIMARY KEY (a, b), FOREIGN KEY (a, b) REFERENCES other (x, y));
CREATE VIRTUAL TABLE docs USING fts5(title, body, tokenize='porter');
CREATE TRIGGER trg AFTER INSERT ON kv BEGIN
  INSERT INTO pairs VALUES (1, 2);
  UPDATE kv SET value = CASE WHEN 1 THEN 'x' END;
END;
CREATE INDEX kv_value ON kv(value);
COMMIT;
"""


def test_sqlite_schema() -> None:
    tables, problems = parse(SQLITE)
    assert problems == []
    assert list(tables) == ["kv", "order lines", "pairs", "docs"]
    assert col(tables["kv"], "key")["primary_key"] == "yes"  # a column named "key" is a column
    assert "Notes: without rowid" in tables["kv"].text and "kv_value (value)" in tables["kv"].text
    lines = tables["order lines"]
    assert "auto-increment" in col(lines, "id")["notes"] and col(lines, "qty")["type"] == ""
    assert col(lines, "kv_key")["references"] == "kv"
    pairs = tables["pairs"].text
    assert "Primary key: (a, b)" in pairs and "Foreign keys: (a, b) -> other(x, y)" in pairs
    assert [c["name"] for c in tables["docs"].columns] == ["title", "body"]


PG_DUMP = """\
\\restrict abc123
SET statement_timeout = 0;
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.invoices (
    id integer NOT NULL,
    order_id integer,
    body text
);

ALTER TABLE public.invoices OWNER TO app;
CREATE SEQUENCE public.invoices_id_seq AS integer START WITH 1;
ALTER TABLE ONLY public.invoices ALTER COLUMN id SET DEFAULT nextval('public.invoices_id_seq'::regclass);
COPY public.invoices (id, order_id, body) FROM stdin;
1\t2\tCREATE TABLE fake (a int); it's 'quoted
2\t3\t\\N
\\.

ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);
ALTER TABLE ONLY public.invoices
    ADD CONSTRAINT invoices_order_fk FOREIGN KEY (order_id) REFERENCES public.orders(id);
ALTER TABLE public.invoices ADD COLUMN paid boolean DEFAULT false;
CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  EXECUTE 'CREATE TABLE evil (x int); ATTACH DATABASE ''x'' AS y;';
  RETURN NEW;
END;
$fn$;
\\unrestrict abc123
"""


def test_pg_dump_alter_constraints_copy_data_and_dollar_bodies() -> None:
    tables, problems = parse(PG_DUMP)
    assert problems == []
    assert list(tables) == ["invoices"]  # nothing from COPY data or the function body
    invoices = tables["invoices"]
    assert col(invoices, "id")["primary_key"] == "yes"
    assert col(invoices, "id")["default"] == "nextval('public.invoices_id_seq'::regclass)"
    assert col(invoices, "order_id")["references"] == "public.orders.id"
    assert col(invoices, "paid")["default"] == "false"
    assert (invoices.start_line, invoices.end_line) == (5, 9)


def test_mysql_delimiter_blocks() -> None:
    sql = (
        "DELIMITER ;;\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 2; END ;;\nDELIMITER ;\n"
        "CREATE TABLE after_proc (id int);\n"
    )
    tables, problems = parse(sql)
    assert list(tables) == ["after_proc"] and problems == []


def test_statement_without_semicolon_before_create() -> None:
    tables, problems = parse("CREATE TABLE a (id int)\nCREATE TABLE b (id int)\n")
    assert list(tables) == ["a", "b"] and problems == []


def test_quoted_names_and_comments_containing_semicolons() -> None:
    sql = 'CREATE TABLE "we;ird" (\n  "col;1" int, /* a ; comment */\n  `x` int -- trailing; comment\n);\n'
    tables, problems = parse(sql)
    assert problems == []
    assert [c["name"] for c in tables["we;ird"].columns] == ["col;1", "x"]


MALFORMED = """\
CREATE TABLE good_one (id int);
CREATE TABLE bad_string (
  a int,
  b text DEFAULT 'oops
);
CREATE TABLE good_two (id int);
CREAT TABLE typo (x int);
CREATE TABLE no_close (a int, b int;
CREATE TABLE (x int);
@@@ garbage here;
CREATE TABLE "unterminated_name (x int);
CREATE TABLE good_three (
  id int,
  42 nonsense,
  name text
);
"""


def test_malformed_statements_become_line_numbered_problems_and_the_rest_parses() -> None:
    tables, problems = parse(MALFORMED)
    assert {"good_one", "good_two", "good_three"} <= set(tables)
    lines = {p.line: p.message for p in problems}
    assert "unterminated string literal" in lines[2]
    assert "unrecognized statement 'CREAT TABLE" in lines[7]
    assert "missing ')'" in lines[8]
    assert "without a table name" in lines[9]
    assert "unrecognized statement '@" in lines[10]
    assert "unterminated quoted identifier" in lines[11]
    assert "could not read column '42 nonsense'" in lines[14]
    assert [c["name"] for c in tables["good_three"].columns] == ["id", "name"]
    assert [c["name"] for c in tables["no_close"].columns] == ["a", "b"]  # salvaged as far as it parses
    assert all(p.line >= 1 for p in problems)


def test_unterminated_string_at_end_of_file() -> None:
    tables, problems = parse("CREATE TABLE t (id int);\nINSERT INTO t VALUES ('never closed\n")
    assert list(tables) == ["t"]
    assert [(p.line, "unterminated string literal" in p.message) for p in problems] == [(2, True)]


def test_unknown_index_target_and_duplicate_table_are_reported() -> None:
    sql = "CREATE TABLE t (id int);\nCREATE TABLE t (id bigint);\nCREATE INDEX i ON missing (x);\n"
    tables, problems = parse(sql)
    assert col(tables["t"], "id")["type"] == "bigint"
    assert [p.line for p in problems] == [2, 3]
    assert "defined again" in problems[0].message and "unknown table missing" in problems[1].message


def test_hostile_ddl_is_never_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_connections(*args: object, **kwargs: object) -> None:
        raise AssertionError("the DDL reader opened a database connection")

    monkeypatch.setattr(sqlite3, "connect", no_connections)
    x_db, y_db = tmp_path / "x.db", tmp_path / "y.db"
    sql = (
        f"ATTACH DATABASE '{x_db}' AS x; VACUUM INTO '{y_db}'; SELECT load_extension('x');\n"
        f"DETACH DATABASE x;\nCREATE TABLE x.victim AS SELECT load_extension('{tmp_path}/evil');\n"
    )
    chunks, problems = parse_sql_schema(sql, "hostile")
    assert not x_db.exists() and not y_db.exists() and list(tmp_path.iterdir()) == []
    assert [c.title for c in chunks] == []
    messages = [p.message for p in problems]
    assert len(messages) == 5 and all("never executed" in m for m in messages)
    assert any("load_extension" in m for m in messages)


@dataclass
class _Work:
    """Tokens the splitter produced and token reads the statement reader made: the reader's work, counted."""

    tokens: int = 0
    reads: int = 0


@pytest.fixture
def work(monkeypatch: pytest.MonkeyPatch) -> _Work:
    counted = _Work()
    add, peek = sql_lexer._Splitter._add, sql_cursor._Cursor.peek

    def counting_add(self: sql_lexer._Splitter, tok: sql_lexer._Tok) -> Iterator[sql_lexer._Statement]:
        counted.tokens += 1
        return add(self, tok)

    def counting_peek(self: sql_cursor._Cursor, ahead: int = 0) -> sql_lexer._Tok | None:
        counted.reads += 1
        return peek(self, ahead)

    monkeypatch.setattr(sql_lexer._Splitter, "_add", counting_add)
    monkeypatch.setattr(sql_cursor._Cursor, "peek", counting_peek)
    return counted


def test_pathological_nesting_is_bounded(work: _Work) -> None:
    depth = 20_000  # far past the recursion limit: a recursive reader would fail, not just slow down
    sql = f"CREATE TABLE deep (a int DEFAULT {'(' * depth}1{')' * depth}, b int);\n" + "(" * depth
    tables, _ = parse(sql)
    assert [c["name"] for c in tables["deep"].columns] == ["a", "b"]
    # Linear work: one token per bracket, each read a couple of times (measured: 60,012 tokens, 80,053 reads).
    assert work.tokens <= 3 * depth + 20 and work.reads <= 2 * work.tokens, work


def test_one_line_dump_with_many_statements_is_bounded(work: _Work) -> None:
    rows = 20_000
    sql = "CREATE TABLE t (id int, v text);" + "INSERT INTO t VALUES (1, 'a;b', \"q\");" * rows
    tables, problems = parse(sql)
    assert list(tables) == ["t"] and problems == []
    # An INSERT is skipped, not tokenised: a few tokens each, whatever its values hold (measured: 3 per row).
    assert work.tokens <= 4 * rows and work.reads <= work.tokens, work


# --- JSON schema dumps -------------------------------------------------------------------------


def test_json_list_of_tables() -> None:
    data = [
        {
            "name": "orders",
            "comment": "Customer orders",
            "columns": [
                {"name": "id", "type": "integer", "primary_key": True, "nullable": False},
                {"name": "customer_id", "type": "integer", "references": "customers.id"},
                {"name": "status", "type": "text", "default": "new", "description": "lifecycle"},
            ],
            "indexes": [{"name": "orders_status_idx", "columns": ["status"], "unique": False}],
        },
        {"table": "customers", "columns": ["id", "email"]},
        {"columns": [{"name": "x"}]},
    ]
    assert looks_like_schema(data)
    chunks, problems = parse_json_schema(data, "dump")
    orders, customers = chunks
    assert orders.text.startswith("Table orders: id integer primary key; customer_id integer -> customers.id;")
    assert "Comment: Customer orders" in orders.text and "Indexes: orders_status_idx (status)" in orders.text
    assert col(orders, "status")["comment"] == "lifecycle"
    assert [c["name"] for c in customers.columns] == ["id", "email"]
    assert [(p.line, p.message) for p in problems] == [(0, "table entry #3 has no name; skipped")]


def test_json_tables_object_variants() -> None:
    nested = {"tables": {"orders": {"columns": {"id": {"type": "int", "pk": 1}, "total": "numeric"}}}}
    listed = {"tables": [{"name": "public.orders", "columns": [{"name": "id", "data_type": "int"}]}]}
    (a,), _ = parse_json_schema(nested, "dump")
    (b,), _ = parse_json_schema(listed, "dump")
    assert a.text == "Table orders: id int primary key; total numeric"
    assert b.heading_path == ["public", "orders"] and col(b, "id")["type"] == "int"


def test_json_information_schema_rows() -> None:
    rows = [
        {"table_schema": "public", "table_name": "orders", "column_name": "id", "data_type": "integer"},
        {"table_schema": "public", "table_name": "orders", "column_name": "note", "is_nullable": "YES"},
        {"table_schema": "public", "table_name": "users", "column_name": "id", "data_type": "uuid"},
    ]
    assert looks_like_schema(rows)
    chunks, _ = parse_json_schema(rows, "dump")
    assert [c.title for c in chunks] == ["orders", "users"]
    assert col(chunks[0], "note")["nullable"] == "yes"


@pytest.mark.parametrize("data", [{"name": "x"}, [1, 2], [{"a": 1}], "text", {"tables": 5}, []])
def test_json_that_is_not_a_schema(data: object) -> None:
    assert not looks_like_schema(data)
