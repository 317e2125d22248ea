"""Database schemas from JSON dumps, rendered exactly like tables read from DDL.

Accepted shapes: a list of tables (`[{"name"|"table": ..., "columns": [...]}]`), `{"tables": [...]}`,
`{"tables": {"orders": {"columns": {...}}}}`, and information_schema rows
(`[{"table_name": ..., "column_name": ..., "data_type": ...}]`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from igraph_mcp.resources.model import Chunk, ParseProblem
from igraph_mcp.resources.sql_tables import ColumnInfo, ForeignKey, IndexInfo, TableInfo, table_chunk

_MAX_VALUE_CHARS = 200
_TRUE = {"yes", "y", "true", "t", "1"}


def looks_like_schema(data: object) -> bool:
    """Whether parsed JSON has one of the accepted schema-dump shapes."""
    if isinstance(data, dict):
        return isinstance(data.get("tables"), list | dict)
    if isinstance(data, list) and data and all(isinstance(item, dict) for item in data[:50]):
        first = _lower_keys(data[0])
        table_list = "columns" in first and bool(first & {"name", "table", "table_name"})
        return table_list or {"table_name", "column_name"} <= first
    return False


def parse_json_schema(data: object, doc_name: str) -> tuple[list[Chunk], list[ParseProblem]]:
    """One db_table chunk per table in a JSON schema dump; entries that cannot be read become problems."""
    problems: list[ParseProblem] = []
    tables: list[TableInfo] = []
    for position, (name, spec) in enumerate(_table_entries(data), 1):
        if not name:
            problems.append(ParseProblem(0, f"table entry #{position} has no name; skipped"))
            continue
        tables.append(_table(name, spec, problems))
    return [table_chunk(t, doc_name) for t in tables], problems


def _table_entries(data: object) -> list[tuple[str, dict[str, Any]]]:
    """(name, spec) pairs from any accepted shape."""
    items = data.get("tables") if isinstance(data, dict) else data
    if isinstance(items, dict):
        return [(str(k), v if isinstance(v, dict) else {"columns": v}) for k, v in items.items()]
    if not isinstance(items, list):
        return []
    rows = [item for item in items if isinstance(item, dict)]
    if rows and "column_name" in _lower_keys(rows[0]):
        return _group_rows(rows)
    return [(_text(_get(row, "name", "table", "table_name")), row) for row in rows]


def _group_rows(rows: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """information_schema.columns rows grouped into one spec per table."""
    grouped: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = _text(_get(row, "table_name", "table"))
        spec = grouped.setdefault(name, {"schema": _get(row, "table_schema", "schema"), "columns": []})
        spec["columns"].append({**row, "name": _get(row, "column_name", "name")})
    return list(grouped.items())


def _table(name: str, spec: dict[str, Any], problems: list[ParseProblem]) -> TableInfo:
    schema = _text(_get(spec, "schema", "table_schema"))
    if "." in name and not schema:
        schema, name = name.rsplit(".", 1)
    table = TableInfo(name, schema, comment=_text(_get(spec, "comment", "description", "table_comment")))
    columns = _get(spec, "columns", "fields")
    if isinstance(columns, dict):
        columns = [{"name": k, **(v if isinstance(v, dict) else {"type": v})} for k, v in columns.items()]
    for position, raw in enumerate(columns if isinstance(columns, list) else [], 1):
        if isinstance(raw, str):
            raw = {"name": raw}
        if not isinstance(raw, dict) or not _text(_get(raw, "name", "column_name", "column")):
            problems.append(ParseProblem(0, f"table {name}: column #{position} has no name; skipped"))
            continue
        table.columns.append(_column(raw, table))
    for key in _names(_get(spec, "primary_key", "primarykey", "pk")):
        if key not in table.primary_key:
            table.primary_key.append(key)
    for fk in _list(_get(spec, "foreign_keys", "foreignkeys")):
        if isinstance(fk, dict):
            target = _reference(_get(fk, "references", "ref", "references_table", "ref_table", "foreign_table"))
            cols = _names(_get(fk, "columns", "column", "from"))
            ref_cols = _names(_get(fk, "references_columns", "ref_columns", "foreign_columns", "to"))
            if target and cols:
                table.foreign_keys.append(ForeignKey(cols, target[0], ref_cols or target[1]))
    for ix in _list(_get(spec, "indexes", "indices")):
        if isinstance(ix, dict):
            index = IndexInfo(_text(_get(ix, "name")), _names(_get(ix, "columns", "column")), _flag(ix, "unique"))
            table.indexes.append(index)
    return table


def _column(raw: dict[str, Any], table: TableInfo) -> ColumnInfo:
    col = ColumnInfo(
        _text(_get(raw, "name", "column_name", "column")),
        _text(_get(raw, "type", "data_type", "datatype", "sql_type", "column_type")),
        default=_text(_get(raw, "default", "column_default", "dflt_value", "default_value")),
        comment=_text(_get(raw, "comment", "description", "column_comment")),
        unique=_flag(raw, "unique"),
    )
    nullable = _get(raw, "nullable", "is_nullable", "null")
    not_null = _get(raw, "notnull", "not_null", "required")
    if nullable is not None:
        col.nullable = _truthy(nullable)
    elif not_null is not None:
        col.nullable = not _truthy(not_null)
    if _flag(raw, "primary_key", "primarykey", "pk", "is_primary_key"):
        col.primary_key = True
        if col.name not in table.primary_key:
            table.primary_key.append(col.name)
    target = _reference(_get(raw, "references", "foreign_key", "foreignkey", "fk", "ref"))
    if target:
        table.foreign_keys.append(ForeignKey([col.name], target[0], target[1]))
    return col


def _reference(value: object) -> tuple[str, list[str]] | None:
    """ "customers.id", "customers(id)" or {"table": ..., "column(s)": ...} as (table, columns)."""
    if isinstance(value, dict):
        table = _text(_get(value, "table", "ref_table", "references_table"))
        return (table, _names(_get(value, "columns", "column", "ref_columns"))) if table else None
    text = _text(value)
    if not text or text.lower() in ("true", "false", "1", "0"):
        return None
    match = re.fullmatch(r"\s*([\w.\"`]+?)\s*\(\s*([^)]*)\)\s*", text)
    if match:
        return match.group(1), [c.strip() for c in match.group(2).split(",") if c.strip()]
    table, _, column = text.rpartition(".")
    return (table, [column]) if table else (text, [])


def _get(mapping: dict[str, Any], *keys: str) -> Any:
    """The first of keys present, matched case-insensitively and ignoring '_' ("primaryKey")."""
    wanted = {k.replace("_", "").lower(): n for n, k in enumerate(keys)}
    best: tuple[int, Any] | None = None
    for key, value in mapping.items():
        rank = wanted.get(str(key).replace("_", "").lower())
        if rank is not None and (best is None or rank < best[0]):
            best = (rank, value)
    return None if best is None else best[1]


def _lower_keys(mapping: dict[str, Any]) -> set[str]:
    return {str(k).lower() for k in mapping}


def _flag(mapping: dict[str, Any], *keys: str) -> bool:
    value = _get(mapping, *keys)
    return value is not None and _truthy(value)


def _truthy(value: object) -> bool:
    return value is True or (not isinstance(value, bool) and str(value).strip().lower() in _TRUE)


def _list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _names(value: object) -> list[str]:
    if isinstance(value, list):
        return [_text(v) for v in value if _text(v)]
    text = _text(value)
    return [text] if text else []


def _text(value: object) -> str:
    """A scalar as text (bounded); nested values as compact JSON."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text.strip()[:_MAX_VALUE_CHARS]
