"""SQL text to statements of tokens: strings, quoted names, comments, $$ quotes, DELIMITER and COPY data.

Lexical damage (an unterminated quote or comment) is recorded on the statement and lexing resumes on the
next line, so one broken statement never hides the rest of a dump. Nothing here executes SQL.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field


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
