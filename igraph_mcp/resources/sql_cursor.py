"""Reading one SQL statement's tokens: a cursor, comma splitting, column lists, and rendering back to text."""

from __future__ import annotations

from igraph_mcp.resources.sql_lexer import _Tok


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
