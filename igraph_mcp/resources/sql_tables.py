"""The table model shared by the SQL DDL and JSON schema readers, and its rendering as one db_table chunk."""

from __future__ import annotations

from dataclasses import dataclass, field

from igraph_mcp.resources.documents import MAX_CHUNK_CHARS
from igraph_mcp.resources.model import Chunk


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
