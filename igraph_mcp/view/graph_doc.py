"""Graph documents: the one shape every view draws and exports (nodes and edges with plain attributes).

``{"nodes": [{id, label, type, kind, path, line, size, group, nodeId, title}], "edges": [{from, to, kind, certain,
weight}], "meta": {...}}``. The page draws it with vis-network, downloads it as JSON, and writes it as GraphML;
``graphml.to_graphml`` writes the same document from Python.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from igraph_mcp.models import EdgeRef, ExploreResult, Neighbour, NodeDetail, NodeSummary
from igraph_mcp.view.aggregate import MapUnit, MapView, abbreviate

GraphDoc = dict[str, Any]

# "Session.send (src/requests/sessions.py:673) fts 0.91 strong: ..." -> the code a resource hit is linked via.
_LINKED_VIA = re.compile(r"^(?P<name>.+?) \((?P<path>.+):(?P<line>\d+)\)")


def symbol_id(node_id: int) -> str:
    """The graph id of a stored symbol (the same in every view, so views can be merged)."""
    return f"n{node_id}"


def _node(
    id: str,
    label: str,
    type: str,
    *,
    kind: str = "",
    path: str = "",
    line: int = 0,
    size: int = 1,
    group: str = "",
    node_id: int | None = None,
    title: str = "",
) -> dict[str, Any]:
    return {
        "id": id,
        "label": label,
        "type": type,
        "kind": kind,
        "path": path,
        "line": line,
        "size": size,
        "group": group or type,
        "nodeId": node_id,
        "title": title or label,
    }


def _edge(source: str, target: str, kind: str, *, certain: bool | None = None, weight: int = 1) -> dict[str, Any]:
    return {"from": source, "to": target, "kind": kind, "certain": certain, "weight": weight}


def map_doc(view: MapView) -> GraphDoc:
    """The repository map: units sized by their symbols, edges weighted by how many symbol edges they sum; only
    ``view.labelled`` units carry a label at the overview zoom (``fullLabel`` is drawn on zooming in)."""
    nodes = [
        _node(
            u.id,
            abbreviate(u.label) + (f" ({u.files} files, folded)" if u.folded else ""),
            u.kind,
            kind=u.kind,
            path=u.id,
            size=max(1, u.symbols),
            group=u.group,
            title=_unit_title(u, view.focus),
        )
        | {
            "files": u.files,
            "outside": u.outside,
            "folded": u.folded,
            "labelled": u.id in view.labelled,
            "fullLabel": u.label,
            "languages": u.languages,
        }
        for u in view.units
    ]
    edges = [
        _edge(e.source, e.target, "+".join(sorted(e.counts)), certain=e.certain == e.total, weight=e.total)
        | {"counts": dict(sorted(e.counts.items())), "certainCount": e.certain}
        for e in view.edges
    ]
    return {
        "nodes": nodes,
        "edges": edges,
        "meta": {
            "view": "map",
            "focus": view.focus,
            "files": view.files,
            "symbols": view.symbols,
            "omittedEdges": view.omitted_edges,
            "omittedOutside": view.omitted_outside,
        },
    }


def _unit_title(u: MapUnit, focus: str) -> str:
    if u.outside:
        return f"{u.id} (outside {focus or 'the root'})"
    files = f"{u.symbols} symbols in {u.files} file{'s' if u.files != 1 else ''}"
    if u.folded:
        return f"{u.id}: tests, folded into one node: {files}; double-click to open its map"
    return f"{u.id}: {files}"


def _summary_node(s: NodeSummary, type: str) -> dict[str, Any]:
    return _node(
        symbol_id(s.nodeId),
        s.qualifiedName or s.name,
        type,
        kind=s.kind,
        path=s.filePath,
        line=s.startLine,
        node_id=s.nodeId,
        title=f"{s.kind} {s.qualifiedName} {s.filePath}:{s.startLine}",
    )


def _ref_node(ref: EdgeRef) -> dict[str, Any]:
    if ref.nodeId is None:  # unbound: the name written at the call site, not expandable
        return _node(
            f"ref:{ref.qualifiedName or ref.name}",
            ref.qualifiedName or ref.name,
            "unresolved",
            title=f"unresolved reference {ref.qualifiedName or ref.name} ({ref.resolution})"
            + (f"; may be {', '.join(ref.candidates[:5])}" if ref.candidates else ""),
        )
    return _node(
        symbol_id(ref.nodeId),
        ref.qualifiedName or ref.name,
        "symbol",
        kind=ref.kind,
        path=ref.filePath,
        line=ref.line,
        node_id=ref.nodeId,
        title=f"{ref.kind} {ref.qualifiedName} {ref.filePath}:{ref.line}",
    )


def _drawn(edges: list[dict[str, Any]], nodes: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """Each edge once (the first of the same ends and kind), and only between drawn nodes: a via-node left out of a
    capped list is named in the side list, not drawn as a dangling end."""
    seen: set[tuple[str, str, str]] = set()
    out = []
    for e in edges:
        key = (e["from"], e["to"], e["kind"])
        if key not in seen and e["from"] in nodes and e["to"] in nodes:
            seen.add(key)
            out.append(e)
    return out


def relation(n: Neighbour) -> str:
    """How a neighbour hangs off its via-node, as the service says: 'callee of X, distance 2'."""
    return f"{n.direction} of {n.viaName or symbol_id(n.viaNodeId)}, distance {n.distance}"


def _neighbour_node(n: Neighbour) -> dict[str, Any]:
    return _node(
        symbol_id(n.nodeId),
        n.qualifiedName or n.name,
        "neighbour",
        kind=n.kind,
        path=n.filePath,
        line=n.startLine,
        node_id=n.nodeId,
        title=f"{n.kind} {n.qualifiedName} {n.filePath}:{n.startLine} ({relation(n)})",
    ) | {"distance": n.distance}


def _neighbour_edge(n: Neighbour) -> dict[str, Any]:
    """The edge between a neighbour and its via-node, drawn the way the call goes (a callee is called by its via)."""
    nid, via = symbol_id(n.nodeId), symbol_id(n.viaNodeId)
    source, target = (via, nid) if n.direction == "callee" else (nid, via)
    return _edge(source, target, n.edgeKind, certain=n.certain) | {
        "resolution": n.resolution,
        "direction": n.direction,
        "distance": n.distance,
    }


def node_doc(
    detail: NodeDetail,
    totals: dict[str, int],
    *,
    imports: Sequence[EdgeRef] = (),
    imported_by: Sequence[EdgeRef] = (),
    related: Sequence[Neighbour] = (),
) -> GraphDoc:
    """One symbol and its callers, callees, bases and imports; certain edges apart from guesses (``certain``);
    then its related entries (``igraph_related``), each hung off the entry it names as its via-node."""
    if not detail.found or detail.node is None:
        return {"nodes": [], "edges": [], "meta": {"view": "node", "found": False}}
    centre = _summary_node(detail.node, "focus")
    me = centre["id"]
    nodes: dict[str, dict[str, Any]] = {me: centre}
    edges: list[dict[str, Any]] = []
    relations: list[tuple[Sequence[EdgeRef], bool]] = [
        (detail.callers, True),
        (detail.callees, False),
        (detail.bases, False),
        (imports, False),
        (imported_by, True),
    ]
    for refs, incoming in relations:
        for ref in refs:
            other = _ref_node(ref)
            nodes.setdefault(other["id"], other)
            source, target = (other["id"], me) if incoming else (me, other["id"])
            edges.append(_edge(source, target, ref.edgeKind, certain=ref.certain) | {"resolution": ref.resolution})
    for n in related:
        nodes.setdefault(symbol_id(n.nodeId), _neighbour_node(n))
        edges.append(_neighbour_edge(n))
    return {
        "nodes": list(nodes.values()),
        "edges": _drawn(edges, nodes),
        "meta": {"view": "node", "found": True, "centre": me, "totals": totals},
    }


def explore_doc(result: ExploreResult) -> GraphDoc:
    """What one explore call hands the agent: hits, the neighbours reached from them, the resources attached."""
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[dict[str, Any]] = []
    at: dict[tuple[str, int], str] = {}
    for rank, h in enumerate(result.hits, 1):
        nid = symbol_id(h.nodeId)
        nodes[nid] = _node(
            nid,
            h.qualifiedName or h.name,
            "hit",
            kind=h.kind,
            path=h.filePath,
            line=h.startLine,
            size=len(result.hits) - rank + 2,
            node_id=h.nodeId,
            title=f"#{rank} {h.kind} {h.qualifiedName} {h.filePath}:{h.startLine} [{h.matchChannel} {h.score:.4f}]",
        ) | {"rank": rank}
        at[(h.filePath, h.startLine)] = nid
    for n in result.neighbours:
        nid = symbol_id(n.nodeId)
        if nid not in nodes:
            nodes[nid] = _neighbour_node(n)
            at.setdefault((n.filePath, n.startLine), nid)
        edges.append(_neighbour_edge(n))
    for r in result.resources:
        rid = f"r{r.resourceId}"
        nodes[rid] = _node(
            rid,
            " › ".join(r.headingPath) or r.title,
            "resource",
            kind=r.kind,
            path=r.sourcePath,
            line=r.startLine,
            title=f"[{r.kind}] {r.title} ({r.sourceName}; {r.reason})",
        )
        for via in r.linkedVia:
            m = _LINKED_VIA.match(via)
            linked = at.get((m.group("path"), int(m.group("line")))) if m else None
            if linked is not None:
                edges.append(_edge(rid, linked, "links"))
    return {
        "nodes": list(nodes.values()),
        "edges": _drawn(edges, nodes),
        "meta": {"view": "search", "query": result.query},
    }
