"""Database schemas from SQL DDL: a tolerant, read-only parser for PostgreSQL, MySQL and SQLite dumps.

The text is only ever tokenised and read; nothing here opens a database connection, so hostile
statements (ATTACH, VACUUM INTO, load_extension) are inert text that is at most reported. The lexer is in
sql_lexer, token reading in sql_cursor, column definitions in sql_columns, and the table model with its chunk rendering
in sql_tables.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from igraph_mcp.resources.model import Chunk, ParseProblem
from igraph_mcp.resources.sql_columns import default_expression, read_column, references
from igraph_mcp.resources.sql_cursor import _column_list, _Cursor, _render, _split_commas
from igraph_mcp.resources.sql_lexer import _Splitter, _Statement, _Tok
from igraph_mcp.resources.sql_tables import ColumnInfo, IndexInfo, TableInfo, table_chunk

# The table model is re-exported: json_schema (and older callers) import it from here.


# --- statements --------------------------------------------------------------------------------


def _keywords(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CONSTRAINT_HEADS = {"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "EXCLUDE", "FULLTEXT", "SPATIAL"}
_QUIET_HEADS = _keywords(
    "INSERT REPLACE UPDATE DELETE SET BEGIN START COMMIT END ROLLBACK SAVEPOINT RELEASE DROP GRANT "
    "REVOKE LOCK UNLOCK USE COPY ANALYZE TRUNCATE SELECT WITH DO REINDEX CLUSTER REFRESH PRAGMA "
    "DECLARE SECURITY CALL EXPLAIN"
)
_OTHER_CREATES = _keywords(
    "VIEW MATERIALIZED SEQUENCE FUNCTION PROCEDURE TRIGGER TYPE SCHEMA EXTENSION DATABASE ROLE USER "
    "DOMAIN RULE POLICY AGGREGATE OPERATOR CAST COLLATION PUBLICATION SUBSCRIPTION SERVER EVENT "
    "TABLESPACE LANGUAGE TEXT STATISTICS FOREIGN DEFINER ALGORITHM SQL ACCESS CONVERSION TRANSFORM "
    "EDITIONABLE SYNONYM PACKAGE"
)
_HOSTILE_HEADS = {"ATTACH", "DETACH", "VACUUM", "LOAD", "INSTALL"}

_Pending = tuple[list[str], int, str, Callable[[TableInfo], None]]


class _SchemaReader:
    """Reads statements into tables; index, ALTER and COMMENT ON statements are applied at the end."""

    def __init__(self, splitter: _Splitter) -> None:
        self.tables: dict[str, TableInfo] = {}
        self.pending: list[_Pending] = []
        self.problems: list[ParseProblem] = []
        # Live views: comments before a statement are always lexed by the time it is read.
        self.above, self.trailing = splitter.above, splitter.trailing

    def statement(self, stmt: _Statement) -> None:
        """Read one statement; anything that is not schema DDL is ignored, never run."""
        if stmt.broken:
            self.problem(stmt.line, f"{stmt.broken}; the statement was read only as far as it parses")
        c = _Cursor(stmt.tokens)
        head = c.upper()
        if "LOAD_EXTENSION" in stmt.words or head in _HOSTILE_HEADS:
            what = f"{head} ... load_extension" if "LOAD_EXTENSION" in stmt.words else head or "?"
            self.problem(stmt.line, f"ignored statement {what} (not a table definition; never executed)")
        elif head == "CREATE":
            self.create(c, stmt)
        elif head == "ALTER" and c.upper(1) == "TABLE":
            self.alter(c, stmt.line)
        elif head == "COMMENT" and c.upper(1) == "ON":
            self.comment_on(c, stmt.line)
        elif head not in _QUIET_HEADS and head not in ("ALTER", "COMMENT") and not stmt.broken:
            self.problem(stmt.line, f"unrecognized statement '{_render(stmt.tokens[:4])[:60]}'; skipped")

    def problem(self, line: int, message: str) -> None:
        self.problems.append(ParseProblem(line, message))

    def create(self, c: _Cursor, stmt: _Statement) -> None:
        c.accept("CREATE")
        c.accept("OR", "REPLACE")
        c.skip("GLOBAL", "LOCAL", "TEMP", "TEMPORARY", "UNLOGGED", "TRANSIENT")
        virtual = c.accept("VIRTUAL")
        c.skip("UNIQUE", "FULLTEXT", "SPATIAL")
        if c.upper() == "TABLE":
            self.create_table(c, stmt, virtual)
        elif c.upper() == "INDEX":
            c.i = 1
            self.create_index(c, stmt.line)
        elif c.upper() not in _OTHER_CREATES and not stmt.broken:
            self.problem(stmt.line, f"unrecognized statement '{_render(stmt.tokens[:4])[:60]}'; skipped")

    def create_table(self, c: _Cursor, stmt: _Statement, virtual: bool) -> None:
        c.accept("TABLE")
        c.accept("IF", "NOT", "EXISTS")
        parts = c.name()
        if not parts:
            if not stmt.broken:
                self.problem(stmt.line, "CREATE TABLE without a table name; skipped")
            return
        table = TableInfo(parts[-1], ".".join(parts[:-1]), line=stmt.line, end_line=stmt.tokens[-1].line)
        table.comment = self.comment_above(stmt.line)
        if virtual and c.accept("USING"):
            module = c.take()
            table.notes.append(f"virtual table using {module.value if module else '?'}")
            args = c.group() or []
            table.columns = [ColumnInfo(p[0].value) for p in _split_commas(args) if len(p) == 1]
        elif c.accept("AS") or c.upper() == "SELECT":
            table.notes.append("created from a query")
        elif c.accept("LIKE"):
            table.notes.append(f"copy of {'.'.join(c.name())}")
        else:
            if c.accept("PARTITION", "OF"):
                table.notes.append(f"partition of {'.'.join(c.name())}")
            elements = c.group()
            if elements is None and not table.notes:
                if not stmt.broken:
                    self.problem(stmt.line, f"CREATE TABLE {table.name}: missing '(' column list; skipped")
                return
            for element in _split_commas(elements or []):
                self.element(table, element)
            if c.unclosed and not stmt.broken:
                self.problem(stmt.line, f"CREATE TABLE {table.name}: missing ')'; columns read up to the end")
        self.table_options(c, table)
        key = table.qualified.lower()
        if key in self.tables:
            self.problem(stmt.line, f"table {table.qualified} is defined again; the later definition is used")
        self.tables[key] = table

    def table_options(self, c: _Cursor, table: TableInfo) -> None:
        while c.peek() is not None:
            if c.accept("COMMENT"):
                if c.is_punct("="):
                    c.take()
                tok = c.take()
                if tok is not None and tok.kind == "string":
                    table.comment = tok.value
            elif c.accept("INHERITS"):
                table.notes.append(f"inherits {_render(c.group() or [])}")
            elif c.accept("WITHOUT", "ROWID"):
                table.notes.append("without rowid")
            else:
                c.take()

    def comment_above(self, line: int) -> str:
        """Own-line comments directly above a line (no blank line between)."""
        parts = []
        while (comment := self.above.get(line - 1)) is not None:
            parts.append(comment.text)
            line = comment.line
        return " ".join(reversed(parts))

    def element(self, table: TableInfo, tokens: list[_Tok]) -> None:
        c = _Cursor(tokens)
        head = c.upper()
        if head in _CONSTRAINT_HEADS or (head in ("KEY", "INDEX") and _looks_like_index(tokens)):
            self.table_constraint(c, table, tokens[0].line)
        elif head == "LIKE":
            table.notes.append(f"columns copied from {_render(tokens[1:])}")
        elif tokens[0].kind in ("word", "ident"):
            col = read_column(c, table)
            col.comment = " ".join(
                p
                for p in (
                    self.comment_above(tokens[0].line),
                    self.trailing.get(tokens[-1].line, ""),
                    col.comment,
                )
                if p
            )
            table.columns.append(col)
        else:
            self.problem(tokens[0].line, f"table {table.name}: could not read column '{_render(tokens)[:60]}'")

    def table_constraint(self, c: _Cursor, table: TableInfo, line: int) -> None:
        """PRIMARY KEY / FOREIGN KEY / UNIQUE / KEY / INDEX / CHECK as a table element or ALTER ADD."""
        name = c.name()[0] if c.accept("CONSTRAINT") and c.upper() not in _CONSTRAINT_HEADS else ""
        if c.accept("PRIMARY", "KEY"):
            c.skip("CLUSTERED", "NONCLUSTERED")
            table.primary_key = _column_list(_named_group(c))
            for col_name in table.primary_key:
                col = table.column(col_name)
                if col is not None and col.nullable is None:
                    col.nullable = False
        elif c.accept("FOREIGN", "KEY"):
            columns = _column_list(_named_group(c))
            if c.accept("REFERENCES"):
                table.foreign_keys.append(references(c, columns))
            else:
                self.problem(line, f"table {table.name}: FOREIGN KEY without REFERENCES")
        elif c.upper() in ("UNIQUE", "KEY", "INDEX", "FULLTEXT", "SPATIAL"):
            unique = c.accept("UNIQUE")
            kind = c.upper().lower() if c.upper() in ("FULLTEXT", "SPATIAL") else ""
            c.skip("FULLTEXT", "SPATIAL", "KEY", "INDEX")
            index_name = (c.name() or [name])[0] if not c.is_punct("(") else name
            if c.accept("USING"):
                c.take()
            table.indexes.append(IndexInfo(index_name, _column_list(c.group() or []), unique, kind))
        elif c.accept("CHECK"):
            table.notes.append(f"check ({_render(c.group() or [])})")
        elif c.accept("EXCLUDE"):
            table.notes.append(f"exclude {_render(c.rest())}"[:200])

    def create_index(self, c: _Cursor, line: int) -> None:
        unique, kind = False, ""
        while c.upper() in ("CREATE", "UNIQUE", "FULLTEXT", "SPATIAL", "INDEX", "CONCURRENTLY"):
            unique = unique or c.upper() == "UNIQUE"
            kind = c.upper().lower() if c.upper() in ("FULLTEXT", "SPATIAL") else kind
            c.take()
        c.accept("IF", "NOT", "EXISTS")
        name = "" if c.upper() == "ON" else ".".join(c.name())
        if not c.accept("ON"):
            self.problem(line, f"CREATE INDEX {name}: missing ON <table>; skipped")
            return
        c.accept("ONLY")
        target = c.name()
        method = c.upper().lower() if c.accept("USING") else ""
        if method:
            c.take()
        columns = _column_list(c.group() or [])
        index = IndexInfo(name.split(".")[-1], columns, unique, method if method not in ("btree", "") else kind)
        self.pending.append((target, line, f"index {name or '(unnamed)'}", lambda t: t.indexes.append(index)))

    def alter(self, c: _Cursor, line: int) -> None:
        c.accept("ALTER", "TABLE")
        c.accept("IF", "EXISTS")
        c.accept("ONLY")
        target = c.name()
        for action in _split_commas(c.rest()):
            self.pending.append((target, line, "ALTER TABLE", self.alter_action(action, line)))

    def alter_action(self, tokens: list[_Tok], line: int) -> Callable[[TableInfo], None]:
        def apply(table: TableInfo) -> None:
            c = _Cursor(tokens)
            if c.accept("ADD"):
                if c.upper() in _CONSTRAINT_HEADS or (
                    c.upper() in ("KEY", "INDEX") and _looks_like_index(c.toks[c.i :])
                ):
                    self.table_constraint(c, table, line)
                    return
                c.accept("COLUMN")
                c.accept("IF", "NOT", "EXISTS")
                if c.peek() is not None:
                    table.columns.append(read_column(c, table))
            elif c.accept("ALTER") or c.accept("MODIFY"):
                c.accept("COLUMN")
                col = table.column(c.name()[0] if c.peek() else "")
                if col is not None and c.accept("SET", "DEFAULT"):
                    col.default = default_expression(c)
                elif col is not None and c.accept("SET", "NOT", "NULL"):
                    col.nullable = False

        return apply

    def comment_on(self, c: _Cursor, line: int) -> None:
        c.accept("COMMENT", "ON")
        what = c.upper()
        if what not in ("TABLE", "COLUMN"):
            return
        c.take()
        parts = c.name()
        if not c.accept("IS"):
            self.problem(line, "COMMENT ON without IS; skipped")
            return
        tok = c.take()
        text = tok.value if tok is not None and tok.kind == "string" else ""
        if what == "TABLE":
            self.pending.append((parts, line, "COMMENT ON TABLE", lambda t: setattr(t, "comment", text)))
        elif len(parts) >= 2:

            def set_column_comment(table: TableInfo, column: str = parts[-1]) -> None:
                col = table.column(column)
                if col is not None:
                    col.comment = text

            self.pending.append((parts[:-1], line, "COMMENT ON COLUMN", set_column_comment))

    def finish(self) -> list[TableInfo]:
        """Apply deferred statements to their tables and return the tables in order."""
        for target, line, what, apply in self.pending:
            table = self.find(target)
            if table is None:
                self.problem(line, f"{what} refers to unknown table {'.'.join(target) or '?'}; skipped")
            else:
                apply(table)
        return list(self.tables.values())

    def find(self, parts: list[str]) -> TableInfo | None:
        """Exact schema.table match first, then a unique match on the bare table name."""
        if not parts:
            return None
        exact = self.tables.get(".".join(parts).lower())
        if exact is not None:
            return exact
        bare = [t for t in self.tables.values() if t.name.lower() == parts[-1].lower()]
        return bare[0] if len(bare) == 1 else None


def _looks_like_index(tokens: list[_Tok]) -> bool:
    """MySQL "KEY idx (col)" rather than a column named key (SQLite "key TEXT", "key varchar(9)")."""
    c = _Cursor(tokens)
    c.take()
    if c.peek() is not None and not c.is_punct("("):
        c.take()
    inner = c.peek(1)
    return c.is_punct("(") and inner is not None and inner.kind in ("word", "ident")


def _named_group(c: _Cursor) -> list[_Tok]:
    """A column group, skipping an optional name before it (MySQL "FOREIGN KEY fk_name (col)")."""
    if not c.is_punct("(") and c.peek() is not None:
        c.take()
    return c.group() or []


# --- entry point -------------------------------------------------------------------------------

_MYSQL_HINT = re.compile(r"`|\bENGINE\s*=|\bAUTO_INCREMENT\b", re.I)


def parse_sql_schema(text: str, doc_name: str) -> tuple[list[Chunk], list[ParseProblem]]:
    """One db_table chunk per CREATE TABLE, plus problems (with 1-based lines) for what did not parse."""
    splitter = _Splitter(text, mysql=bool(_MYSQL_HINT.search(text)))
    reader = _SchemaReader(splitter)
    for stmt in splitter.statements():  # streamed: a dump's INSERTs are never all held in memory
        reader.statement(stmt)
    tables = reader.finish()
    return [table_chunk(t, doc_name) for t in tables], sorted(reader.problems, key=lambda p: p.line)
