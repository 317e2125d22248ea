"""Column definitions in CREATE TABLE and ALTER TABLE ADD: name, type and constraints in any order, with the
foreign keys they declare and their DEFAULT expressions."""

from __future__ import annotations

from igraph_mcp.resources.sql_cursor import _column_list, _Cursor, _render
from igraph_mcp.resources.sql_lexer import _Tok
from igraph_mcp.resources.sql_tables import ColumnInfo, ForeignKey, TableInfo

_TYPE_STOP = frozenset(
    "NOT NULL DEFAULT PRIMARY REFERENCES UNIQUE CHECK CONSTRAINT COLLATE GENERATED AUTO_INCREMENT "
    "AUTOINCREMENT COMMENT ON AS CHARSET VISIBLE INVISIBLE IDENTITY STORED KEY".split()
)
_FK_ACTIONS = ("CASCADE", "RESTRICT", "NO ACTION", "SET NULL", "SET DEFAULT")


def read_column(c: _Cursor, table: TableInfo) -> ColumnInfo:
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
    _column_constraints(c, table, col)
    return col


def _column_constraints(c: _Cursor, table: TableInfo, col: ColumnInfo) -> None:
    """NOT NULL, DEFAULT, PRIMARY KEY, REFERENCES ... after a column's type, in any order, until the element ends."""
    fk: ForeignKey | None = None
    while c.peek() is not None:
        if c.accept("NOT", "NULL"):
            col.nullable = False
        elif c.accept("NULL"):
            col.nullable = True
        elif c.accept("DEFAULT"):
            col.default = default_expression(c)
        elif c.accept("PRIMARY", "KEY"):
            col.primary_key, col.nullable = True, False if col.nullable is None else col.nullable
            if col.name not in table.primary_key:
                table.primary_key.append(col.name)
        elif c.accept("UNIQUE"):
            col.unique = True
            c.accept("KEY")
        elif c.accept("REFERENCES"):
            fk = references(c, [col.name])
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


def references(c: _Cursor, columns: list[str]) -> ForeignKey:
    """The target of a REFERENCES clause (its keyword already read) and its ON DELETE / ON UPDATE actions."""
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


def default_expression(c: _Cursor) -> str:
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
