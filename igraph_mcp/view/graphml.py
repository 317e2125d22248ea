"""GraphML of a graph document, for Gephi, yEd and networkx (``networkx.read_graphml`` reads it back)."""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from igraph_mcp.view.graph_doc import GraphDoc

_NODE_KEYS = ("label", "type", "kind", "path", "line", "size", "group", "nodeId")
_EDGE_KEYS = ("kind", "certain", "weight", "resolution")


def _clean(value: str) -> str:
    """Characters XML 1.0 cannot carry (NUL, most control characters, lone surrogates) become U+FFFD."""
    return "".join(
        ch
        if ch in "\t\n\r" or (" " <= ch <= "\ud7ff") or ("\ue000" <= ch <= "\ufffd") or ch >= "\U00010000"
        else "\ufffd"
        for ch in value
    )


def _xml_text(value: str) -> str:
    """Element text: cleaned and escaped."""
    return escape(_clean(value))


def _type_of(values: list[Any]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "boolean"
    if present and all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return "long"
    if present and all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return "double"
    return "string"


def _value(value: Any, kind: str) -> str:
    if kind == "boolean":
        return "true" if value else "false"
    return _xml_text(str(value))


def to_graphml(doc: GraphDoc) -> str:
    """The document as GraphML: one directed graph, node and edge attributes declared with their types."""
    nodes: list[dict[str, Any]] = list(doc.get("nodes", []))
    edges: list[dict[str, Any]] = list(doc.get("edges", []))
    node_types = {k: _type_of([n.get(k) for n in nodes]) for k in _NODE_KEYS}
    edge_types = {k: _type_of([e.get(k) for e in edges]) for k in _EDGE_KEYS}
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">',
    ]
    out += [f'  <key id="n_{k}" for="node" attr.name="{k}" attr.type="{t}"/>' for k, t in node_types.items()]
    out += [f'  <key id="e_{k}" for="edge" attr.name="{k}" attr.type="{t}"/>' for k, t in edge_types.items()]
    out.append('  <graph id="G" edgedefault="directed">')
    for n in nodes:
        out.append(f"    <node id={quoteattr(_clean(str(n['id'])))}>")
        out += [
            f'      <data key="n_{k}">{_value(n[k], node_types[k])}</data>' for k in _NODE_KEYS if n.get(k) is not None
        ]
        out.append("    </node>")
    for i, e in enumerate(edges):
        source, target = quoteattr(_clean(str(e["from"]))), quoteattr(_clean(str(e["to"])))
        out.append(f'    <edge id="e{i}" source={source} target={target}>')
        out += [
            f'      <data key="e_{k}">{_value(e[k], edge_types[k])}</data>' for k in _EDGE_KEYS if e.get(k) is not None
        ]
        out.append("    </edge>")
    out += ["  </graph>", "</graphml>", ""]
    return "\n".join(out)
