"""An ``--out`` file's answers: the map (the root and each folder it shows), status, resources, and the searches
and symbols asked for, keyed as the page asks for them, so the file opens offline with nothing to call."""

from __future__ import annotations

import json
import time
from typing import Any

from igraph_mcp.view.data import ViewData

MAX_FOLDER_MAPS = 40  # folder maps held besides the root's (deeper folders: the live view)
MAX_SYMBOLS = 200  # symbol answers held: the hits of the given searches and their neighbours, best first


def snapshot_key(path: str, params: dict[str, Any] | None = None) -> str:
    """An answer's key: the path, then its parameters sorted, as JSON (page.js ``key`` makes the same)."""
    items = sorted([k, str(v)] for k, v in (params or {}).items())
    return f"{path} {json.dumps(items, ensure_ascii=False, separators=(',', ':'))}" if items else path


def build_snapshot(data: ViewData, queries: list[str], *, max_units: int) -> dict[str, Any]:
    """The boot data of an offline page."""
    snap: dict[str, Any] = {"status": data.status(), "map": data.map("", max_units)}
    folders = [n["id"].rstrip("/") for n in snap["map"]["nodes"] if n["type"] == "folder" and not n["outside"]]
    for folder in folders[:MAX_FOLDER_MAPS]:
        snap[snapshot_key("map", {"focus": folder})] = data.map(folder, max_units)
    snap["resources"] = data.resources(0)
    symbols: list[int] = []
    for q in queries:
        answer = data.search(q)
        snap[snapshot_key("search", {"q": q})] = answer
        symbols += [h["nodeId"] for h in answer["result"]["hits"]]
        symbols += [n["nodeId"] for n in answer["result"]["neighbours"]]
    for chunk in snap["resources"]["chunks"]:
        symbols += [link["nodeId"] for link in chunk["links"]]
    for node_id in list(dict.fromkeys(symbols))[:MAX_SYMBOLS]:
        snap[snapshot_key("node", {"id": node_id})] = data.node(node_id)
    held = len(folders[:MAX_FOLDER_MAPS])
    return {
        "mode": "static",
        "snapshot": snap,
        "queries": queries,
        "tab": "search" if queries else "map",
        "written": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "missing": {
            "search": "this offline file holds only the searches it was written with (--query); "
            "run `igraph-mcp view` to search live",
            "node": "this offline file holds the symbols of its searches and resources only; "
            "run `igraph-mcp view` to open any symbol",
            "map": f"this offline file holds the map of the repository and of the {held} folders on it; "
            "run `igraph-mcp view` to open deeper folders",
            "file": "file outlines are in the live view only: run `igraph-mcp view`",
        },
    }
