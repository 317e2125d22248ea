"""``igraph-mcp view``: serve the live page, or write one file (``--out``: HTML that opens offline, or the map as
GraphML / JSON)."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from igraph_mcp.errors import InvalidInput
from igraph_mcp.transport import is_loopback
from igraph_mcp.view.aggregate import MAX_UNITS
from igraph_mcp.view.assets import load_vis
from igraph_mcp.view.data import ViewData
from igraph_mcp.view.graphml import to_graphml
from igraph_mcp.view.page import render_page

if TYPE_CHECKING:
    from igraph_mcp.service import IGraphService

OUT_FORMATS = (".html", ".htm", ".graphml", ".json")


def _write_atomic(path: Path, text: str) -> None:
    """Write next to the target and rename, so a reader never sees half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_out(service: IGraphService, out: Path, *, queries: list[str], focus: str) -> str:
    """Write the file ``out`` names (its suffix picks the format); returns a line saying what was written."""
    suffix = out.suffix.lower()
    if suffix not in OUT_FORMATS:
        raise InvalidInput(f"--out must end in {', '.join(OUT_FORMATS)}: an offline page, or the map as GraphML/JSON")
    if not out.parent.is_dir():
        raise InvalidInput(f"the folder of --out ({out.parent}) does not exist")
    data = ViewData(service)
    if suffix in (".graphml", ".json"):
        doc = data.map(focus)
        _write_atomic(out, to_graphml(doc) if suffix == ".graphml" else json.dumps(doc, indent=1, ensure_ascii=False))
        return f"wrote the map of {doc['meta']['focus'] or 'the repository'} ({len(doc['nodes'])} nodes) to {out}"
    from igraph_mcp.view.snapshot import build_snapshot

    vis = load_vis()  # before the work: a missing extra fails fast
    boot = build_snapshot(data, queries, max_units=MAX_UNITS)
    _write_atomic(out, render_page(vis, title=service.root.name, boot=boot, live=False))
    return f"wrote {out} ({out.stat().st_size // 1024} KB; opens offline, {len(queries)} searches held)"


def serve(service: IGraphService, *, host: str, port: int, allow_remote: bool, open_browser: bool) -> None:
    """Serve the live page until interrupted."""
    from igraph_mcp.view.server import build_view_app, new_token, run_view

    if not is_loopback(host) and not allow_remote:
        raise InvalidInput(
            f"refusing to bind {host}: a non-loopback address shows the repository to the network; pass "
            "--allow-remote (the page still needs the URL's token) or bind --host 127.0.0.1"
        )
    if not 0 <= port <= 65535:
        raise InvalidInput("--port must be between 0 (any free port) and 65535")
    vis = load_vis()
    data = ViewData(service)
    data.map("")  # fails now, with the usual message, when there is no index; and warms the map
    token = new_token()
    app = build_view_app(data, vis, token=token, host=host, title=service.root.name)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C is how a person closes the view: a normal end
        run_view(app, host=host, port=port, token=token, open_browser=open_browser)
    sys.stderr.write("igraph-mcp view: stopped\n")
