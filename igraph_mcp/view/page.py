"""The page: one HTML document with vis-network, the page's script and style, and its boot data inlined.

The same document serves the live view (it asks ``api/...`` on the server that sent it) and an ``--out`` file
(it reads the answers embedded in it). A per-response nonce lets only these scripts run; ``connect-src`` is
``'self'`` live and ``'none'`` offline, so an offline file can never reach out.
"""

from __future__ import annotations

import json
import secrets
from importlib.resources import files
from typing import Any

from igraph_mcp.view.assets import VisAssets

_STATIC = files("igraph_mcp.view").joinpath("static")


def _static(name: str) -> str:
    return _STATIC.joinpath(name).read_text(encoding="utf-8")


def script_json(data: Any) -> str:
    """JSON safe inside a <script> element: no '</script>', '<!--' or U+2028/9 can end or confuse it."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _html_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def render_page(vis: VisAssets, *, title: str, boot: dict[str, Any], live: bool) -> str:
    """The whole page as one string."""
    nonce = secrets.token_urlsafe(16)
    parts = {
        "nonce": nonce,
        "connect": "'self'" if live else "'none'",
        "title": _html_text(title),
        "vis_css": vis.css,
        "page_css": _static("page.css"),
        "boot": script_json(boot),
        "vis_js": vis.script,
        "page_js": _static("page.js"),
    }
    template = _static("page.html")
    out: list[str] = []
    rest = template
    # One pass over the placeholders, so text inside an inlined file is never taken for one.
    while "{{" in rest:
        head, _, tail = rest.partition("{{")
        name, _, rest = tail.partition("}}")
        out += [head, parts[name]]
    out.append(rest)
    return "".join(out)
