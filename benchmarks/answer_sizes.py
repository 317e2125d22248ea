"""What every MCP session pays: tools/list bytes, and text vs structuredContent bytes of typical tool answers.

    python benchmarks/answer_sizes.py                    # this checkout, its configured embedder
    python benchmarks/answer_sizes.py --root PATH --embedder hashing --json sizes.json

The tree is indexed (incrementally, into its own .igraph/), served in-process and asked through the SDK's client,
so the figures are the wire's: tools/list as one JSON document (and per tool: description, input schema, output
schema), then for each query igraph_explore, and for its first hit igraph_node, igraph_related (both directions) and
igraph_file. Per tool it prints the median text and structured bytes and the median ratio structured / text; the
last line is the median ratio over every call (the target: at most 1.5). Tokens are bytes / 4, as the budget counts.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import anyio
import common  # the checkout on sys.path

QUERIES = [
    "where is the token budget of an answer enforced",
    "how are search channels fused into one ranking",
    "incremental index of changed files",
    "mount a requirements document",
    "resolve a call site to its definition",
    "HTTP bearer token check",
    "reciprocal rank fusion",
    "FTS query quoting",
    "watch the repository for file changes",
    "what happens when the index database is corrupt",
]


def wire_bytes(value: Any) -> int:
    """Bytes of ``value`` as compact JSON (how the transports send it)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def text_bytes(result: Any) -> int:
    """Bytes of a tool result's text content."""
    return sum(len(c.text.encode()) for c in result.content if c.type == "text")


def tools_list_sizes(tools: list[Any]) -> dict[str, Any]:
    """tools/list in bytes, in total and per tool and part."""
    dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    per_tool = {
        d["name"]: {
            "total": wire_bytes(d),
            "description": len(d.get("description", "").encode()),
            "inputSchema": wire_bytes(d.get("inputSchema", {})),
            "outputSchema": wire_bytes(d["outputSchema"]) if "outputSchema" in d else 0,
        }
        for d in dumped
    }
    return {"total": wire_bytes({"tools": dumped}), "tools": per_tool}


async def measure(server: Any, queries: list[str]) -> dict[str, Any]:
    """tools/list and (text, structured) bytes of each call, through a real client."""
    from mcp import Client

    from igraph_mcp.structured import entries

    calls: dict[str, list[tuple[int, int]]] = defaultdict(list)
    async with Client(server) as client:
        listing = tools_list_sizes((await client.list_tools()).tools)

        async def ask(tool: str, args: dict[str, Any]) -> dict[str, Any]:
            result = await client.call_tool(tool, args)
            if result.is_error:
                print(f"  {tool} {sorted(args)}: error: {text_bytes(result)} bytes", file=sys.stderr)
                return {}
            data = result.structured_content or {}
            calls[tool].append((text_bytes(result), wire_bytes(data)))
            return data

        for query in queries:
            explored = await ask("igraph_explore", {"query": query})
            hits = entries(explored["hits"]) if explored.get("hits") else []
            if not hits:
                continue
            top = hits[0]
            await ask("igraph_node", {"name": top["qualifiedName"], "file": top["filePath"]})
            await ask("igraph_related", {"name": top["qualifiedName"]})
            await ask("igraph_file", {"path": top["filePath"]})
        await ask("igraph_status", {})
    return {"toolsList": listing, "calls": dict(calls)}


def summarize(calls: dict[str, list[tuple[int, int]]]) -> dict[str, dict[str, float]]:
    """Per tool and over all calls: medians of text bytes, structured bytes and structured / text."""
    rows: dict[str, dict[str, float]] = {}
    everything: list[tuple[int, int]] = []
    for tool, pairs in calls.items():
        everything += pairs
        rows[tool] = _row(pairs)
    rows["all calls"] = _row(everything)
    return rows


def _row(pairs: list[tuple[int, int]]) -> dict[str, float]:
    return {
        "n": len(pairs),
        "text": statistics.median(t for t, _ in pairs),
        "structured": statistics.median(s for _, s in pairs),
        "ratio": statistics.median(s / max(t, 1) for t, s in pairs),
    }


def print_report(sizes: dict[str, Any]) -> None:
    """The figures as a few aligned lines."""
    listing = sizes["toolsList"]
    parts = defaultdict(int)
    for row in listing["tools"].values():
        for key in ("description", "inputSchema", "outputSchema"):
            parts[key] += row[key]
    print(
        f"tools/list: {listing['total']:,} bytes ({len(listing['tools'])} tools; descriptions {parts['description']:,},"
        f" input schemas {parts['inputSchema']:,}, output schemas {parts['outputSchema']:,})"
    )
    for name, row in listing["tools"].items():
        print(f"  {name:<26} {row['total']:>6,}  (output schema {row['outputSchema']:,})")
    print(f"{'tool':<17} {'n':>3} {'text B':>8} {'struct B':>9} {'text tok':>9} {'struct tok':>11} {'ratio':>6}")
    for tool, row in summarize(sizes["calls"]).items():
        print(
            f"{tool:<17} {row['n']:>3} {row['text']:>8,.0f} {row['structured']:>9,.0f} {row['text'] / 4:>9,.0f} "
            f"{row['structured'] / 4:>11,.0f} {row['ratio']:>6.2f}"
        )


def main() -> None:
    """Index the tree, serve it in-process, measure, print (and write --json)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=common.CHECKOUT, help="the tree to index and ask (default: here)")
    ap.add_argument("--embedder", choices=("config", "hashing"), default="config", help="hashing: fast, no model")
    ap.add_argument("--query", action="append", help="a query (repeatable; default: a set about this checkout)")
    ap.add_argument("--json", type=Path, help="also write the raw figures here")
    args = ap.parse_args()

    from igraph_mcp.embed.hashing import HashingEmbedder
    from igraph_mcp.server import create_server
    from igraph_mcp.server_state import ServerState
    from igraph_mcp.service import IGraphService

    svc = IGraphService(args.root, embedder=HashingEmbedder() if args.embedder == "hashing" else None)
    try:
        svc.index()
        sizes = anyio.run(measure, create_server(ServerState(svc, auto_index=False)), args.query or QUERIES)
    finally:
        svc.close()
    print_report(sizes)
    if args.json:
        args.json.write_text(json.dumps(sizes, indent=2) + "\n")


if __name__ == "__main__":
    main()
