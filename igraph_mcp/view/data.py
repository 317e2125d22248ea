"""What the page asks for, answered from one service: the explore call, a symbol, a file, the map, resources.

Every answer is a JSON-ready dict. Lists are bounded and what was cut is counted, as in the text tools; the map
is folded (``aggregate``) so the browser never receives more than a few hundred nodes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec

from igraph_mcp.errors import InvalidInput
from igraph_mcp.instructions import AGENT_WORDS
from igraph_mcp.next_step import word_data
from igraph_mcp.render import render_explore, render_related
from igraph_mcp.view.aggregate import MAX_UNITS, fold_map, normalize_focus
from igraph_mcp.view.graph_doc import explore_doc, map_doc, node_doc

if TYPE_CHECKING:
    from igraph_mcp.service import IGraphService

MAX_QUERY_CHARS = 10_000  # the page's box; the explore call itself accepts more
RESOURCE_PAGE = 100  # chunks per resources page
LINKS_PER_RESOURCE = 10
MAX_STALE_LISTED = 50
RELATED_HOPS = 2  # the Symbol tab's related entries: igraph_related at two hops, as an agent would ask
RELATED_LIMIT = 30
_P = ParamSpec("_P")


def _as_the_agent_reads(method: Callable[_P, dict[str, Any]]) -> Callable[_P, dict[str, Any]]:
    """An answer with its next steps worded as the agent reads them (the view shows what the agent sees)."""

    @functools.wraps(method)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> dict[str, Any]:
        answer: dict[str, Any] = word_data(method(*args, **kwargs), AGENT_WORDS)
        return answer

    return wrapper


class ViewData:
    """The browser view's answers for one repository (a service's reads, plus the map and resource pages)."""

    def __init__(self, service: IGraphService) -> None:
        self.service = service
        self.overview = service.overview

    # -- the agent's call ------------------------------------------------------------------------------------
    @_as_the_agent_reads
    def search(self, query: str) -> dict[str, Any]:
        """``igraph_explore`` with its defaults: the structured answer, its text as the agent reads it, its graph."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInput("type a question or a symbol name to search for")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidInput(f"the query is longer than {MAX_QUERY_CHARS} characters")
        result = self.service.explore(query)
        return {"result": result.model_dump(mode="json"), "text": render_explore(result), "graph": explore_doc(result)}

    # -- one symbol ------------------------------------------------------------------------------------------
    @_as_the_agent_reads
    def node(self, node_id: int) -> dict[str, Any]:
        """A symbol by id: what ``igraph_node`` and ``igraph_related`` say of it (the service's own answers), its
        imports and edge totals, as a graph."""
        near = self.overview.neighbourhood(node_id, hops=RELATED_HOPS, limit=RELATED_LIMIT)
        detail, related, t, imported_by = near.detail, near.related, near.totals, near.imported_by
        if related is None or t is None:
            return {"found": False, "message": detail.message}
        imports = [
            r for r in near.imports if r.nodeId is not None
        ]  # an unbound import names a module outside the index
        totals = {
            "callers": t.callers,
            "callees": t.callees,
            "bases": t.bases,
            "imports": t.imports,
            "importedBy": t.imported_by,
        }
        return {
            "found": True,
            "detail": detail.model_dump(mode="json"),
            "related": related.model_dump(mode="json", include={"related", "truncated", "omitted", "message"}),
            "relatedHops": RELATED_HOPS,
            "relatedText": render_related(related),
            "imports": [r.model_dump(mode="json") for r in imports],
            "importedBy": [r.model_dump(mode="json") for r in imported_by],
            "totals": totals,
            "graph": node_doc(detail, totals, imports=imports, imported_by=imported_by, related=related.related),
        }

    @_as_the_agent_reads
    def file(self, path: str) -> dict[str, Any]:
        """A file's outline (``igraph_file``)."""
        return self.service.file(path).model_dump(mode="json")

    # -- the map ---------------------------------------------------------------------------------------------
    @_as_the_agent_reads
    def map(self, focus: str = "", max_units: int = MAX_UNITS) -> dict[str, Any]:
        """The map of a folder ('' = the whole repository) as a graph document."""
        if not 10 <= max_units <= 1000:
            raise InvalidInput("max_units must be between 10 and 1000")
        files, edges = self.overview.map_rows()
        focus = normalize_focus(focus)
        if focus and not any(f.path.startswith(focus + "/") for f in files):
            raise InvalidInput(f"no indexed folder '{focus}'; open the map of the whole repository")
        return map_doc(fold_map(files, edges, focus=focus, max_units=max_units))

    @_as_the_agent_reads
    def status(self) -> dict[str, Any]:
        """``igraph_status``: counts, languages, embedder, dense coverage, stale files."""
        status = self.service.status().model_dump(mode="json")
        status["staleFiles"] = status["staleFiles"][:MAX_STALE_LISTED]
        return status

    # -- resources -------------------------------------------------------------------------------------------
    @_as_the_agent_reads
    def resources(self, offset: int = 0) -> dict[str, Any]:
        """Mounted sources, then one page of their chunks with the code each is linked to (best links first)."""
        if offset < 0:
            raise InvalidInput("offset must be 0 or more")
        sources = self.service.list_resources().model_dump(mode="json")
        page = self.overview.resource_page(offset=offset, limit=RESOURCE_PAGE, per_resource=LINKS_PER_RESOURCE)
        total, chunks, links = page.total, page.chunks, page.links
        by_chunk: dict[int, list[dict[str, Any]]] = {}
        for link in links:
            by_chunk.setdefault(link.resource_id, []).append(
                {
                    "nodeId": link.node_id,
                    "name": link.name,
                    "qualifiedName": link.qualified_name,
                    "kind": link.kind,
                    "filePath": link.path,
                    "line": link.start_line,
                    "score": round(link.score, 3),
                    "method": link.method,
                }
            )
        items = [
            {
                "resourceId": c.id,
                "sourceName": c.source_name,
                "sourcePath": c.source_path,
                "sourceType": c.source_type,
                "kind": c.kind,
                "title": c.title,
                "headingPath": _heading(c.heading_path),
                "startLine": c.start_line,
                "endLine": c.end_line,
                "linkCount": c.links,
                "columns": _columns(c.columns),
                "links": by_chunk.get(c.id, []),
            }
            for c in chunks
        ]
        return {"sources": sources, "total": total, "offset": offset, "chunks": items, "graph": _resource_graph(items)}


def _heading(stored: str) -> str:
    """A chunk's heading path as one line ('Guide › Install'); it is stored as a JSON list."""
    try:
        parts = json.loads(stored)
    except ValueError:
        return stored
    return " › ".join(str(p) for p in parts) if isinstance(parts, list) else stored


def _columns(stored: str) -> list[dict[str, str]]:
    """A schema table's columns (name and type), from their stored JSON; [] for prose or unreadable text."""
    try:
        cols = json.loads(stored or "[]")
    except ValueError:
        return []
    if not isinstance(cols, list):
        return []
    return [{"name": str(c.get("name", "")), "type": str(c.get("type", ""))} for c in cols if isinstance(c, dict)]


def _resource_graph(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Chunks and the code they link to, as a graph document."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    for item in items:
        rid = f"r{item['resourceId']}"
        nodes[rid] = {
            "id": rid,
            "label": item["headingPath"].rsplit(" › ", 1)[-1] or item["title"],
            "type": "resource",
            "kind": item["kind"],
            "path": item["sourcePath"],
            "line": item["startLine"],
            "size": 1 + item["linkCount"],
            "group": item["sourceName"],
            "nodeId": None,
            "title": f"[{item['kind']}] {item['title']} ({item['sourceName']}, {item['linkCount']} links)",
        }
        for link in item["links"]:
            nid = f"n{link['nodeId']}"
            nodes.setdefault(
                nid,
                {
                    "id": nid,
                    "label": link["qualifiedName"] or link["name"],
                    "type": "symbol",
                    "kind": link["kind"],
                    "path": link["filePath"],
                    "line": link["line"],
                    "size": 1,
                    "group": "code",
                    "nodeId": link["nodeId"],
                    "title": f"{link['kind']} {link['qualifiedName']} {link['filePath']}:{link['line']}",
                },
            )
            edges.append({"from": rid, "to": nid, "kind": link["method"], "certain": None, "weight": 1})
    return {"nodes": list(nodes.values()), "edges": edges, "meta": {"view": "resources"}}
