"""Database schemas from SQL DDL: a tolerant, read-only parser for PostgreSQL, MySQL and SQLite dumps.

The text is only ever tokenised and read; nothing here opens a database connection, so hostile
statements (ATTACH, VACUUM INTO, load_extension) are inert text that is at most reported.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from igraph_mcp.resources.documents import MAX_CHUNK_CHARS
from igraph_mcp.resources.model import Chunk, ParseProblem

# --- table model, shared with json_schema ------------------------------------------------------


@dataclass(slots=True)
class ColumnInfo:
    """One column as read from DDL or a JSON dump."""

    name: str
    type: str = ""
    nullable: bool | None = None  # None: not stated
    default: str = ""
    primary_key: bool = False
    unique: bool = False
    comment: str = ""
    notes: list[str] = field(default_factory=list)  # auto-increment, generated, check (...), ...


@dataclass(slots=True)
class ForeignKey:
    """Columns of this table that point at another table."""

    columns: list[str]
    ref_table: str
    ref_columns: list[str] = field(default_factory=list)
    actions: str = ""  # e.g. "on delete cascade"


@dataclass(slots=True)
class IndexInfo:
    """An index or unique constraint on a table."""

    name: str
    columns: list[str]
    unique: bool = False
    kind: str = ""  # fulltext, spatial, or a USING method


@dataclass(slots=True)
class TableInfo:
    """Everything known about one table."""

    name: str
    schema: str = ""
    columns: list[ColumnInfo] = field(default_factory=list)
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    indexes: list[IndexInfo] = field(default_factory=list)
    comment: str = ""
    notes: list[str] = field(default_factory=list)
    line: int = 0
    end_line: int = 0

    @property
    def qualified(self) -> str:
        """schema.table, or the bare name when there is no schema."""
        return f"{self.schema}.{self.name}" if self.schema else self.name

    def column(self, name: str) -> ColumnInfo | None:
        """The column with this name (case-insensitive), if any."""
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)


def table_chunk(table: TableInfo, doc_name: str) -> Chunk:
    """One db_table chunk: a readable rendering, the columns list and the identifiers."""
    pk = [c.lower() for c in table.primary_key]
    single_fk = {fk.columns[0].lower(): fk for fk in table.foreign_keys if len(fk.columns) == 1}
    rendered, columns = [], []
    for col in table.columns:
        notes = _column_notes(col, len(pk) == 1 and pk[0] == col.name.lower(), single_fk.get(col.name.lower()))
        rendered.append(" ".join(p for p in (col.name, col.type, notes) if p))
        entry = {"name": col.name, "type": col.type, "notes": notes}
        if col.nullable is not None:
            entry["nullable"] = "yes" if col.nullable else "no"
        if col.default:
            entry["default"] = col.default
        if col.name.lower() in single_fk:
            entry["references"] = _ref_text(single_fk[col.name.lower()]).removeprefix("-> ")
        if col.comment:
            entry["comment"] = col.comment
        if col.name.lower() in pk:
            entry["primary_key"] = "yes"
        columns.append(entry)
    lines = [f"Table {table.qualified}: " + "; ".join(rendered)]
    if table.comment:
        lines.append(f"Comment: {table.comment}")
    if len(pk) > 1:
        lines.append(f"Primary key: ({', '.join(table.primary_key)})")
    multi = [fk for fk in table.foreign_keys if len(fk.columns) != 1]
    if multi:
        lines.append("Foreign keys: " + "; ".join(f"({', '.join(fk.columns)}) {_ref_text(fk)}" for fk in multi))
    if table.indexes:
        lines.append("Indexes: " + "; ".join(_index_text(ix) for ix in table.indexes))
    if table.notes:
        lines.append("Notes: " + "; ".join(table.notes))
    text = "\n".join(lines)
    if len(text) > MAX_CHUNK_CHARS:
        text = text[:MAX_CHUNK_CHARS] + f"\n[… cut; all {len(table.columns)} columns are in the columns list]"
    identifiers = dict.fromkeys([table.name, table.qualified, *(c.name for c in table.columns)])
    return Chunk(
        kind="db_table",
        title=table.name,
        heading_path=[table.schema or doc_name, table.name],
        text=text,
        start_line=table.line,
        end_line=table.end_line or table.line,
        identifiers=list(identifiers),
        columns=columns,
    )


def _column_notes(col: ColumnInfo, is_pk: bool, fk: ForeignKey | None) -> str:
    parts = ["primary key"] if is_pk or col.primary_key else []
    if col.nullable is False and not parts:
        parts.append("not null")
    if col.unique:
        parts.append("unique")
    if col.default:
        parts.append(f"default {col.default}")
    parts += col.notes
    if fk is not None:
        parts.append(_ref_text(fk))
    if col.comment:
        parts.append(f"-- {col.comment}")
    return " ".join(parts)


def _ref_text(fk: ForeignKey) -> str:
    target = fk.ref_table
    if len(fk.ref_columns) == 1 and len(fk.columns) == 1:
        target += f".{fk.ref_columns[0]}"
    elif fk.ref_columns:
        target += f"({', '.join(fk.ref_columns)})"
    return f"-> {target}" + (f" {fk.actions}" if fk.actions else "")


def _index_text(ix: IndexInfo) -> str:
    words = [w for w in ("unique" if ix.unique else "", ix.kind, ix.name) if w]
    return " ".join(words) + f" ({', '.join(ix.columns)})"


# --- tokenizer and statement splitter ----------------------------------------------------------


@dataclass(slots=True)
class _Tok:
    kind: str  # word | ident | string | number | punct | dollar
    value: str  # identifier without quotes, string contents, or the text itself
    raw: str
    line: int


@dataclass(slots=True)
class _Comment:
    text: str
    line: int
    end_line: int
    own_line: bool  # nothing but whitespace before it on its line


@dataclass(slots=True)
class _Statement:
    tokens: list[_Tok]
    line: int
    broken: str = ""  # why the statement could not be read to its end
    words: set[str] = field(default_factory=set)  # notable words seen even where tokens were not kept


_SPACE = re.compile(r"[ \t\r\f\v]+")
_WORD = re.compile(r"[^\W\d][\w$]*")
_NUMBER = re.compile(r"\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+")
_DOLLAR = re.compile(r"\$(?:[^\W\d]\w*)?\$")
_STRING = re.compile(r"'[^']*(?:''[^']*)*'")
_STRING_ESC = re.compile(r"'[^'\\]*(?:(?:''|\\.)[^'\\]*)*'", re.S)
# A literal that swallows ";<newline>CREATE ..." is an unterminated quote eating the next statements.
_SWALLOWED = re.compile(r";[ \t]*\r?\n[ \t]*(?:CREATE|ALTER|DROP|INSERT|COMMENT[ \t]+ON)\b", re.I)
_DELIMITER_CMD = re.compile(r"delimiter[ \t]+(\S+)[ \t]*(?=\r?\n|$)", re.I)
_COPY_END = re.compile(r"^\\\.[ \t]*\r?$", re.M)
_PUNCT2 = ("::", "||", "<=", ">=", "<>", "!=", "->")
_QUOTE_NAMES = {"'": "string literal", '"': "quoted identifier", "`": "quoted identifier"}
_NOTABLE = {"STDIN", "LOAD_EXTENSION"}
_MAX_KEPT_TOKENS = 8  # for statements that are only ever ignored (a dump's INSERTs)
_FAST_HEADS = {"INSERT", "REPLACE", "UPDATE", "DELETE"}
# Inside an ignored DML statement, runs of these characters cannot start a string, quoted name,
# comment or statement end, so they are skipped in one step instead of token by token.
_BORING = re.compile(r"[^;'\"`\-/#$\n\[]+")
_LOAD_EXTENSION = re.compile(r"load_extension", re.I)
_CREATE_WORD = re.compile(r"create\b", re.I)
_DDL_HEADS = {"CREATE", "ALTER", "COMMENT"}


class _Splitter:
    """Splits SQL text into statements, respecting strings, quoted names, comments and $$ quotes."""

    def __init__(self, text: str, mysql: bool) -> None:
        self.text, self.mysql = text, mysql
        self.pos, self.line, self.last_token_line = 0, 1, 0
        self.delimiter = ";"
        self.above: dict[int, _Comment] = {}  # own-line comments by the line they end on
        self.trailing: dict[int, str] = {}  # comments after code, by line
        self._line_span = (-1, -1)
        self._reset()

    def _reset(self) -> None:
        self.cur: list[_Tok] = []
        self.start_line = 0
        self.broken = ""
        self.words: set[str] = set()
        self.routine = False
        self.depth = 0  # BEGIN ... END nesting inside trigger and routine bodies
        self.fast = False  # inside an INSERT/UPDATE/DELETE, which is skipped rather than tokenised

    def statements(self) -> Iterator[_Statement]:
        """Yield statements in order; lexical damage is recorded on the statement, never raised."""
        text, size = self.text, len(self.text)
        while self.pos < size:
            char = text[self.pos]
            if char == "\n":
                self.line, self.pos = self.line + 1, self.pos + 1
                continue
            space = _SPACE.match(text, self.pos)
            if space:
                self.pos = space.end()
                continue
            if not self.cur and not self.broken and self._client_command():
                continue
            if self.fast and self._skip_boring():
                continue
            if self.delimiter != ";" and text.startswith(self.delimiter, self.pos):
                self.pos += len(self.delimiter)
                yield from self._end()
            elif text.startswith("--", self.pos) or (self.mysql and char == "#"):
                self._line_comment()
            elif text.startswith("/*", self.pos):
                self._block_comment()
            else:
                tok = self._token()
                if tok is None:
                    continue
                if tok.value == ";" and tok.kind == "punct" and self.delimiter == ";" and self.depth == 0:
                    yield from self._end()
                else:
                    yield from self._add(tok)
        yield from self._end()

    def _add(self, tok: _Tok) -> Iterator[_Statement]:
        word = tok.value.upper() if tok.kind == "word" else ""
        # A CREATE at the start of a line begins a new statement even if the last one lost its ';'.
        if word == "CREATE" and (self.cur or self.broken) and self.depth == 0 and tok.line != self.last_token_line:
            yield from self._end(skip_copy=False)
        self.last_token_line = tok.line
        if not self.cur and not self.broken:
            self.start_line = tok.line
        if word in _NOTABLE:
            self.words.add(word)
        head = self.cur[0].value.upper() if self.cur and self.cur[0].kind == "word" else ""
        if head in _DDL_HEADS or len(self.cur) < _MAX_KEPT_TOKENS:
            self.cur.append(tok)
        self.fast = self.delimiter == ";" and self.cur[0].value.upper() in _FAST_HEADS
        if head == "CREATE" and len(self.cur) <= 8 and word in ("TRIGGER", "PROCEDURE", "FUNCTION", "EVENT"):
            self.routine = True
        if self.routine and word:
            prev = self.cur[-2].value.upper() if len(self.cur) > 1 else ""
            if word in ("BEGIN", "CASE") and prev != "END":
                self.depth += 1
            elif word == "END":
                self.depth = max(0, self.depth - 1)
            elif word in ("IF", "LOOP", "WHILE", "REPEAT") and prev == "END":
                self.depth += 1  # "END IF" closes an IF, not the BEGIN counted above

    def _end(self, *, skip_copy: bool = True) -> Iterator[_Statement]:
        if self.cur or self.broken:
            stmt = _Statement(self.cur, self.start_line, self.broken, self.words)
            is_copy = bool(self.cur) and self.cur[0].value.upper() == "COPY" and "STDIN" in self.words
            self._reset()
            if skip_copy and is_copy:  # psql COPY ... FROM stdin: data rows follow until "\."
                end = _COPY_END.search(self.text, self.pos)
                stop = end.end() if end else len(self.text)
                self.line += self.text.count("\n", self.pos, stop)
                self.pos = stop
            yield stmt
        else:
            self._reset()

    def _skip_boring(self) -> bool:
        """Skip a run of plain text inside an ignored DML statement; False if nothing was skipped."""
        if _CREATE_WORD.match(self.text, self.pos) and self._at_line_start(self.pos):
            return False  # a CREATE at a line start may begin a new statement (lost ';')
        run = _BORING.match(self.text, self.pos)
        if run is None:
            return False
        if _LOAD_EXTENSION.search(run.group(0)):
            self.words.add("LOAD_EXTENSION")
        self.pos = run.end()
        return True

    def _client_command(self) -> bool:
        """Skip psql meta-commands (\\connect) and honour mysql's DELIMITER at a statement start."""
        if not self._at_line_start(self.pos):
            return False
        if self.text[self.pos] == "\\":
            self._skip_line()
            return True
        match = _DELIMITER_CMD.match(self.text, self.pos)
        if match:
            self.delimiter = match.group(1)
            self.pos = match.end()
            return True
        return False

    def _skip_line(self) -> None:
        end = self.text.find("\n", self.pos)
        self.pos = len(self.text) if end < 0 else end

    def _line_comment(self) -> None:
        start = self.pos
        self._skip_line()
        raw = self.text[start : self.pos]
        text = raw[1:] if raw.startswith("#") else raw[2:]
        self._add_comment(text.strip(), self.line, self.line, start)

    def _block_comment(self) -> None:
        start, line = self.pos, self.line
        end = self.text.find("*/", start + 2)
        if end < 0:
            self._break(f"unterminated /* comment starting on line {line}", start)
            return
        self.pos = end + 2
        body = self.text[start + 2 : end]
        self.line += body.count("\n")
        if not body.startswith("!"):  # /*!40101 ... */ are MySQL version switches, not descriptions
            lines = (ln.strip().lstrip("*").strip() for ln in body.split("\n"))
            self._add_comment(" ".join(ln for ln in lines if ln), line, self.line, start)

    def _add_comment(self, text: str, line: int, end_line: int, start: int) -> None:
        if text:
            if self._at_line_start(start):
                self.above[end_line] = _Comment(text, line, end_line, True)
            else:
                self.trailing[line] = text

    def _at_line_start(self, pos: int) -> bool:
        """Only whitespace between the previous newline and pos (walks back over blanks only)."""
        while pos > 0 and self.text[pos - 1] in " \t\r\f\v":
            pos -= 1
        return pos == 0 or self.text[pos - 1] == "\n"

    def _break(self, reason: str, start: int) -> None:
        """Record lexical damage and resume on the next line, so later statements still parse."""
        if not self.cur and not self.broken:
            self.start_line = self.line
        self.broken = self.broken or reason
        self.pos = start
        self._skip_line()

    def _token(self) -> _Tok | None:
        text, pos, line = self.text, self.pos, self.line
        char = text[pos]
        if char in "'\"`" or (char in "EeNnXxBb" and text.startswith("'", pos + 1)):
            # E'...' strings take backslash escapes; the E may already have been skipped as plain text.
            e_string = char in "Ee" or (char == "'" and _after_e_prefix(text, pos))
            return self._quoted(pos + (char not in "'\"`"), escapes=self.mysql or e_string)
        if char == "[":
            close = text.find("]", pos, self._line_end(pos))
            inner = text[pos + 1 : close] if close > 0 else ""
            if inner.strip() and not inner.strip().isdigit() and ":" not in inner:
                self.pos = close + 1  # [bracket quoted] identifier (SQLite, SQL Server); [] is an array
                return _Tok("ident", inner, text[pos : close + 1], line)
        if char == "$" and self.delimiter != "$$":
            tag = _DOLLAR.match(text, pos)
            if tag:
                close = text.find(tag.group(0), tag.end())
                if close < 0:
                    self._break(f"unterminated dollar-quoted string starting on line {line}", pos)
                    return None
                self.pos = close + len(tag.group(0))
                self.line += text.count("\n", pos, self.pos)
                return _Tok("dollar", text[tag.end() : close], text[pos : self.pos], line)
        for kind, pattern in (("word", _WORD), ("number", _NUMBER)):
            match = pattern.match(text, pos)
            if match:
                self.pos = match.end()
                return _Tok(kind, match.group(0), match.group(0), line)
        width = 2 if text.startswith(_PUNCT2, pos) else 1
        self.pos = pos + width
        return _Tok("punct", text[pos : pos + width], text[pos : pos + width], line)

    def _line_end(self, pos: int) -> int:
        """Index of the newline ending pos's line; cached, since minified dumps have huge lines."""
        if not self._line_span[0] <= pos <= self._line_span[1]:
            end = self.text.find("\n", pos)
            self._line_span = (pos, len(self.text) if end < 0 else end)
        return self._line_span[1]

    def _quoted(self, pos: int, *, escapes: bool) -> _Tok | None:
        text, line, quote = self.text, self.line, self.text[pos]
        what = _QUOTE_NAMES[quote]
        if quote == "'":
            match = (_STRING_ESC if escapes else _STRING).match(text, pos)
            end = match.end() if match and not _SWALLOWED.search(text, pos, match.end()) else -1
        else:
            # Names never span lines: a quote closing on a later line is a missing quote.
            line_end = self._line_end(pos)
            close = text.find(quote, pos + 1, line_end)
            while close >= 0 and text.startswith(quote * 2, close):
                close = text.find(quote, close + 2, line_end)
            end = close + 1 if close >= 0 else -1
        if end < 0:
            self._break(f"unterminated {what} starting on line {line}", pos)
            return None
        raw = text[self.pos : end]
        inner = text[pos + 1 : end - 1].replace(quote * 2, quote)
        self.pos = end
        self.line += raw.count("\n")
        if quote == "'":
            return _Tok("string", inner, raw, line)
        return _Tok("ident", inner, raw, line)


def _after_e_prefix(text: str, pos: int) -> bool:
    """Whether the quote at pos follows a lone E (PostgreSQL escape string), not a word ending in e."""
    return pos >= 1 and text[pos - 1] in "Ee" and (pos == 1 or not (text[pos - 2].isalnum() or text[pos - 2] in "_$"))


# --- parsing helpers ---------------------------------------------------------------------------


class _Cursor:
    """A read position over one statement's tokens."""

    def __init__(self, tokens: list[_Tok]) -> None:
        self.toks, self.i = tokens, 0
        self.unclosed = False

    def peek(self, ahead: int = 0) -> _Tok | None:
        at = self.i + ahead
        return self.toks[at] if at < len(self.toks) else None

    def upper(self, ahead: int = 0) -> str:
        tok = self.peek(ahead)
        return tok.value.upper() if tok is not None and tok.kind == "word" else ""

    def is_punct(self, value: str, ahead: int = 0) -> bool:
        tok = self.peek(ahead)
        return tok is not None and tok.kind == "punct" and tok.value == value

    def is_name(self) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind in ("word", "ident")

    def take(self) -> _Tok | None:
        tok = self.peek()
        self.i += tok is not None
        return tok

    def accept(self, *words: str) -> bool:
        if all(self.upper(k) == w for k, w in enumerate(words)):
            self.i += len(words)
            return True
        return False

    def skip(self, *words: str) -> None:
        while self.upper() in words:
            self.i += 1

    def name(self) -> list[str]:
        """A possibly qualified name (schema.table); empty if there is none here."""
        parts: list[str] = []
        while (tok := self.peek()) is not None and tok.kind in ("word", "ident"):
            parts.append(tok.value)
            self.i += 1
            if not self.is_punct("."):
                break
            self.i += 1
        return parts

    def group(self) -> list[_Tok] | None:
        """The tokens inside a parenthesised group at the cursor; None if no '(' is here."""
        if not self.is_punct("("):
            return None
        start, depth = self.i + 1, 0
        while (tok := self.take()) is not None:
            if tok.kind == "punct" and tok.value == "(":
                depth += 1
            elif tok.kind == "punct" and tok.value == ")":
                depth -= 1
                if depth == 0:
                    return self.toks[start : self.i - 1]
        self.unclosed = True
        return self.toks[start:]

    def rest(self) -> list[_Tok]:
        rest = self.toks[self.i :]
        self.i = len(self.toks)
        return rest


def _split_commas(tokens: list[_Tok]) -> list[list[_Tok]]:
    parts: list[list[_Tok]] = [[]]
    depth = 0
    for tok in tokens:
        if tok.kind == "punct" and tok.value in "()":
            depth += 1 if tok.value == "(" else -1
        if tok.kind == "punct" and tok.value == "," and depth == 0:
            parts.append([])
        else:
            parts[-1].append(tok)
    return [p for p in parts if p]


_TIGHT_AFTER = {"(", "[", ".", "::"}
_TIGHT_BEFORE = {")", "]", ",", ".", "::", "["}


def _render(tokens: list[_Tok]) -> str:
    """Tokens back to compact SQL text: numeric(10,2), now(), 'x'::text."""
    out: list[str] = []
    prev: _Tok | None = None
    for tok in tokens:
        punct = tok.value if tok.kind == "punct" else ""
        tight = prev is not None and (
            (prev.kind == "punct" and prev.value in _TIGHT_AFTER)
            or punct in _TIGHT_BEFORE
            or (punct == "(" and prev.kind in ("word", "ident"))
        )
        if out and not tight:
            out.append(" ")
        out.append(tok.raw if tok.kind in ("string", "ident", "dollar") else tok.value)
        if punct == ",":
            out.append(" ")
        prev = tok
    return "".join(out).replace(",  ", ", ").strip()


def _column_list(tokens: list[_Tok]) -> list[str]:
    """Column names of an index or key list; expressions are kept as text (lower(email))."""
    names = []
    for part in _split_commas(tokens):
        first = part[0]
        simple = first.kind in ("word", "ident") and (
            len(part) == 1 or not (part[1].kind == "punct" and part[1].value == "(") or _is_prefix_length(part)
        )
        names.append(first.value if simple else _render(part))
    return names


def _is_prefix_length(part: list[_Tok]) -> bool:
    return len(part) >= 4 and part[2].kind == "number" and part[3].value == ")"  # MySQL name(10)


# --- statements --------------------------------------------------------------------------------


def _keywords(text: str) -> frozenset[str]:
    return frozenset(text.split())


_CONSTRAINT_HEADS = {"CONSTRAINT", "PRIMARY", "FOREIGN", "UNIQUE", "CHECK", "EXCLUDE", "FULLTEXT", "SPATIAL"}
_TYPE_STOP = _keywords(
    "NOT NULL DEFAULT PRIMARY REFERENCES UNIQUE CHECK CONSTRAINT COLLATE GENERATED AUTO_INCREMENT "
    "AUTOINCREMENT COMMENT ON AS CHARSET VISIBLE INVISIBLE IDENTITY STORED KEY"
)
_FK_ACTIONS = ("CASCADE", "RESTRICT", "NO ACTION", "SET NULL", "SET DEFAULT")
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
            col = self.column(c, table)
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

    def column(self, c: _Cursor, table: TableInfo) -> ColumnInfo:
        """A column definition: name, type, then constraints in any order."""
        name_tok = c.take()
        col = ColumnInfo(name_tok.value if name_tok else "?")
        type_toks: list[_Tok] = []
        while (tok := c.peek()) is not None and not (
            c.upper() in _TYPE_STOP or (c.upper() == "CHARACTER" and c.upper(1) == "SET")
        ):
            if tok.kind == "punct" and tok.value == "(":
                start = c.i
                c.group()
                type_toks += c.toks[start : c.i]
            else:
                type_toks.append(tok)
                c.i += 1
        col.type = _render(type_toks)
        self.column_constraints(c, table, col)
        return col

    def column_constraints(self, c: _Cursor, table: TableInfo, col: ColumnInfo) -> None:
        fk: ForeignKey | None = None
        while c.peek() is not None:
            if c.accept("NOT", "NULL"):
                col.nullable = False
            elif c.accept("NULL"):
                col.nullable = True
            elif c.accept("DEFAULT"):
                col.default = _expression(c)
            elif c.accept("PRIMARY", "KEY"):
                col.primary_key, col.nullable = True, False if col.nullable is None else col.nullable
                if col.name not in table.primary_key:
                    table.primary_key.append(col.name)
            elif c.accept("UNIQUE"):
                col.unique = True
                c.accept("KEY")
            elif c.accept("REFERENCES"):
                fk = _references(c, [col.name])
                table.foreign_keys.append(fk)
            elif c.upper() == "ON" and c.upper(1) in ("DELETE", "UPDATE"):
                action = _fk_action(c)
                if fk is not None:
                    fk.actions = f"{fk.actions} {action}".strip()
                else:
                    col.notes.append(action)
            elif c.accept("CHECK"):
                col.notes.append(f"check ({_render(c.group() or [])})")
            elif any(c.accept(*w.split()) for w in ("CONSTRAINT", "COLLATE", "CHARACTER SET", "CHARSET")):
                c.take()  # a name we do not describe
            elif c.accept("GENERATED"):
                col.notes.append(_generated(c))
            elif c.accept("AS"):
                c.group()
                c.skip("STORED", "VIRTUAL", "PERSISTENT")
                col.notes.append("generated")
            elif c.upper() in ("AUTO_INCREMENT", "AUTOINCREMENT", "IDENTITY"):
                c.take()
                c.group()
                col.notes.append("auto-increment")
            elif c.accept("COMMENT"):
                tok = c.take()
                col.comment = tok.value if tok is not None and tok.kind == "string" else ""
            else:
                c.take()  # an attribute we do not describe (VISIBLE, ASC, ...)

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
                table.foreign_keys.append(_references(c, columns))
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
                    table.columns.append(self.column(c, table))
            elif c.accept("ALTER") or c.accept("MODIFY"):
                c.accept("COLUMN")
                col = table.column(c.name()[0] if c.peek() else "")
                if col is not None and c.accept("SET", "DEFAULT"):
                    col.default = _expression(c)
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


def _references(c: _Cursor, columns: list[str]) -> ForeignKey:
    target = c.name()
    ref_columns = _column_list(c.group() or [])
    fk = ForeignKey(columns, ".".join(target) or "?", ref_columns)
    actions = []
    while c.peek() is not None:
        if c.upper() == "ON" and c.upper(1) in ("DELETE", "UPDATE"):
            actions.append(_fk_action(c))
        elif c.accept("MATCH"):
            c.take()
        elif c.upper() in ("DEFERRABLE", "INITIALLY") or c.accept("NOT", "DEFERRABLE"):
            c.take()
            c.skip("DEFERRED", "IMMEDIATE")
        else:
            break
    fk.actions = " ".join(actions)
    return fk


def _fk_action(c: _Cursor) -> str:
    c.take()
    event = (c.take() or _Tok("word", "?", "?", 0)).value.lower()
    for action in _FK_ACTIONS:
        if c.accept(*action.split()):
            return f"on {event} {action.lower()}"
    rest = c.take()
    return f"on {event} {rest.value.lower() if rest else ''}".strip()


def _generated(c: _Cursor) -> str:
    c.skip("ALWAYS", "BY", "DEFAULT")
    c.accept("AS")
    if c.accept("IDENTITY"):
        c.group()
        return "identity"
    c.group()
    c.skip("STORED", "VIRTUAL")
    return "generated"


def _expression(c: _Cursor) -> str:
    """A DEFAULT expression: one operand (a literal, name(args) or (group)), casts and operators."""
    start = c.i
    while True:
        while c.is_punct("-") or c.is_punct("+"):
            c.take()
        if c.is_punct("("):
            c.group()
        elif c.take() is not None and c.is_punct("("):
            c.group()  # a function call: now(), nextval('seq'::regclass)
        while c.is_punct("::"):
            c.take()
            while c.is_name() and c.upper() not in _TYPE_STOP:
                c.take()
            c.group()
            while c.is_punct("[") or c.is_punct("]"):
                c.take()
        tok = c.peek()
        if tok is None or tok.kind != "punct" or tok.value not in ("||", "+", "-", "*", "/"):
            break
        c.take()
    return _render(c.toks[start : c.i])


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
