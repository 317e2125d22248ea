"""The compact form of a tool's answer that MCP clients get as structuredContent, and the output schema it conforms to.

Models read the text content, which holds snippets and source; structuredContent carries what a program needs to
act on the answer, once: ids, names, kinds, locations, scores and flags. The CLI's ``--json`` keeps the full model.
The rules are generic, so a field added to a model needs nothing here:

- a field marked ``NOT_STRUCTURED`` in models.py is left out (text the answer already holds, or debug figures);
- an optional field equal to its default is left out: the default is empty (null, '', 0, false, [], {}) unless
  the output schema names another (``"default": true``);
- ``name`` is left out where ``qualifiedName`` ends with it, and ``xName`` where ``xNodeId`` names a symbol listed
  in the same answer (a neighbour's ``viaName``);
- a nested object's ``filePath`` and ``repo`` are left out when the object holding it has the same ones, and a
  nested object with nothing left is left out;
- a ranked file (``files``) that a hit of the same answer is in is left out: the hits name it, and the text's
  "more files" line lists the same others;
- floats are rounded to 4 decimal places, as the text shows scores;
- a list of objects (related symbols, a file's outline, hits, callers) is a table,
  ``{"columns": [...], "rows": [[...], ...], "same": {...}}``: the columns are the fields present in any entry, in
  the model's order; a ``null`` cell is a field that entry leaves out by the rules above; a field with one value in
  every entry (of two or more) is given once in ``same`` instead of a column. ``entries`` turns a table back into
  objects. An object per entry would name every key again: that made such answers twice their text.
"""

from __future__ import annotations

import json
import types
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo
from pydantic_core import to_jsonable_python

from igraph_mcp.models import NOT_STRUCTURED

_INHERITED = ("filePath", "repo")  # a nested object shares these with its holder more often than not
_DIGITS = 4


def compact(model: BaseModel) -> dict[str, Any]:
    """The structuredContent of a tool answer: ``model`` without what the rules above leave out."""
    data = _model(model, {})
    _drop_listed_names(data, _node_ids(data))
    _drop_files_of_hits(data)
    tabled: dict[str, Any] = _tabulate(data)
    return tabled


def entries(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries of a table in ``compact``'s output as objects (``same`` in each), without left-out (null) cells."""
    columns, same = table["columns"], table.get("same", {})
    return [same | {c: v for c, v in zip(columns, row, strict=True) if v is not None} for row in table["rows"]]


class _Entries(list[Any]):
    """The compact forms of a list of models, written as a table once the other rules have run."""

    def __init__(self, items: list[Any], order: list[str]) -> None:
        super().__init__(items)
        self.order = order


def _tabulate(data: Any) -> Any:
    if isinstance(data, _Entries):
        return _table_of([{key: _tabulate(value) for key, value in row.items()} for row in data], data.order)
    if isinstance(data, dict):
        return {key: _tabulate(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_tabulate(value) for value in data]
    return data


def _table_of(rows: list[dict[str, Any]], order: list[str]) -> dict[str, Any]:
    present = {key for row in rows for key in row}
    fields = [name for name in order if name in present]
    first = rows[0]
    same = {f: first[f] for f in fields if len(rows) > 1 and all(f in row and row[f] == first[f] for row in rows)}
    columns = [f for f in fields if f not in same]
    table = {"columns": columns, "rows": [[row.get(c) for c in columns] for row in rows]}
    return table | ({"same": same} if same else {})


def _model(model: BaseModel, holder: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        if NOT_STRUCTURED in field.metadata or _is_default(field, value):
            continue
        if name in _INHERITED and holder.get(name) == value:
            continue
        kept[name] = value
    qualified, short = kept.get("qualifiedName"), kept.get("name")
    if isinstance(qualified, str) and isinstance(short, str) and _ends_with_name(qualified, short):
        del kept["name"]
    out = {key: _value(value, kept) for key, value in kept.items()}
    return {key: value for key, value in out.items() if value or not isinstance(kept[key], BaseModel)}


def _value(value: Any, holder: dict[str, Any]) -> Any:
    if isinstance(value, BaseModel):
        return _model(value, holder)
    if isinstance(value, list | tuple):
        if value and all(isinstance(v, BaseModel) for v in value):
            return _Entries([_value(v, holder) for v in value], list(type(value[0]).model_fields))
        return [_value(v, holder) for v in value]
    if isinstance(value, dict):
        return {str(k): _value(v, holder) for k, v in value.items()}
    if isinstance(value, float):
        return round(value, _DIGITS)
    return to_jsonable_python(value)


def _is_default(field: FieldInfo, value: Any) -> bool:
    if field.is_required():
        return False
    if field.exclude_if is not None and field.exclude_if(value):
        return True
    return bool(value == field.get_default(call_default_factory=True))


def _ends_with_name(qualified: str, name: str) -> bool:
    """``Session.request`` ends with ``request``; ``Session.prequest`` does not."""
    if not name or not qualified.endswith(name):
        return False
    before = qualified[: -len(name)]
    return not before or not (before[-1].isalnum() or before[-1] == "_")


def _node_ids(data: Any) -> set[int]:
    found: set[int] = set()
    if isinstance(data, dict):
        if isinstance(data.get("nodeId"), int):
            found.add(data["nodeId"])
        for value in data.values():
            found |= _node_ids(value)
    elif isinstance(data, list):
        for value in data:
            found |= _node_ids(value)
    return found


def _drop_listed_names(data: Any, ids: set[int]) -> None:
    """Leave out ``xName`` next to an ``xNodeId`` that the answer lists itself (its name is there already)."""
    if isinstance(data, dict):
        for key in [k for k in data if k.endswith("Name") and data.get(k[: -len("Name")] + "NodeId") in ids]:
            del data[key]
        for value in data.values():
            _drop_listed_names(value, ids)
    elif isinstance(data, list):
        for value in data:
            _drop_listed_names(value, ids)


def _drop_files_of_hits(data: dict[str, Any]) -> None:
    hits, files = data.get("hits"), data.get("files")
    if not isinstance(hits, _Entries) or not isinstance(files, _Entries):
        return
    named = {(h.get("repo"), h.get("filePath")) for h in hits}
    others = [f for f in files if (f.get("repo"), f.get("filePath")) not in named]
    if others:
        data["files"] = _Entries(others, files.order)
    else:
        del data["files"]


# -- the output schema ---------------------------------------------------------------------------------------
@cache
def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A terse JSON schema that ``compact(model)`` conforms to: the top-level fields, their JSON types, the fields
    that are always there, and (at any depth) the defaults that are not empty."""
    fields = model.model_fields
    properties: dict[str, Any] = {}
    for name, field in fields.items():
        if NOT_STRUCTURED in field.metadata:
            continue
        nullable = field.is_required() or field.default is not None  # a None default is left out, never sent
        properties[name] = _table(field) or _types(field.annotation, nullable=nullable) | _defaults(field)

    def always_there(name: str) -> bool:
        maybe_dropped = (
            name in _INHERITED
            or (name == "name" and "qualifiedName" in fields)
            or (name.endswith("Name") and f"{name[: -len('Name')]}NodeId" in fields)
        )
        return fields[name].is_required() and not maybe_dropped

    required = [name for name in properties if always_there(name)]
    return {"type": "object", "properties": properties, **({"required": required} if required else {})}


def _table(field: FieldInfo) -> dict[str, Any]:
    """A list of models is sent as a table (``compact``); its description names the left-out cells that are not
    empty (``left out: certain=true``), a standard keyword that strict validators accept. Inline rather than one
    ``$defs`` entry per tool: fewer bytes over the tools that have tables."""
    item = _nested_model(field.annotation)
    if item is None or not _is_list(field.annotation):
        return {}
    return {"type": "object", "required": ["columns", "rows"]} | _column_defaults(item)


def _column_defaults(item: type[BaseModel]) -> dict[str, Any]:
    hints = _nested_defaults(item).get("properties", {})
    defaults = {name: hint["default"] for name, hint in hints.items() if "default" in hint}
    said = ", ".join(f"{name}={json.dumps(value)}" for name, value in defaults.items())
    return {"description": f"left out: {said}"} if defaults else {}


def _defaults(field: FieldInfo) -> dict[str, Any]:
    """``{"default": value}`` when a left-out field would not be empty; for a nested model the same for its own
    fields, and for a table (a list of models) in its description, so a client can tell what every left-out
    field holds."""
    if not field.is_required():
        default = field.get_default(call_default_factory=True)
        if default and not isinstance(default, BaseModel):  # a model's default is its fields' defaults
            return {"default": to_jsonable_python(default)}
    nested = _nested_model(field.annotation)
    if nested is None:
        return {}
    return _column_defaults(nested) if _is_list(field.annotation) else _nested_defaults(nested)


@cache
def _nested_defaults(model: type[BaseModel]) -> dict[str, Any]:
    found = {
        name: hint
        for name, field in model.model_fields.items()
        if NOT_STRUCTURED not in field.metadata and (hint := _defaults(field))
    }
    return {"properties": found} if found else {}


def _members(annotation: Any) -> list[Any]:
    """The types an annotation may hold: union members, ``Annotated`` unwrapped."""
    origin = get_origin(annotation)
    if origin is Union or origin is types.UnionType:
        return [m for arg in get_args(annotation) for m in _members(arg)]
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    return [annotation]


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    for member in _members(annotation):
        if get_origin(member) in (list, tuple):
            member = (get_args(member) or (None,))[0]
        if isinstance(member, type) and issubclass(member, BaseModel):
            return member
    return None


def _is_list(annotation: Any) -> bool:
    return any(get_origin(m) in (list, tuple) for m in _members(annotation))


def _types(annotation: Any, *, nullable: bool) -> dict[str, Any]:
    kinds: list[str] = []
    for member in _members(annotation):
        if get_origin(member) is Literal:
            candidates = [_json_type(type(v)) for v in get_args(member)]
        else:
            candidates = [_json_type(get_origin(member) or member)]
        for kind in candidates:
            if kind == "any":
                return {}
            if kind not in kinds and (kind != "null" or nullable):
                kinds.append(kind)
    return {"type": kinds[0] if len(kinds) == 1 else kinds}


def _json_type(python_type: Any) -> str:
    if python_type is None or python_type is type(None):
        return "null"
    for base, json_type in _JSON_TYPES:
        if isinstance(python_type, type) and issubclass(python_type, base):
            return json_type
    return "any"


_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"),  # before int: bool is an int
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (tuple, "array"),
    (dict, "object"),
    (BaseModel, "object"),
)
