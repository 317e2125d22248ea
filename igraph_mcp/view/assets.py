"""The drawing library, read from the installed ``pyvis`` package (the ``view`` extra); nothing is fetched.

pyvis ships vis-network's standalone build (JavaScript and CSS) inside its wheel. The page inlines those two
files, so a served page and an ``--out`` file both work with no network and no CDN, and this repository carries
no third-party code. Only the files are read: pyvis itself (and its IPython dependency) is never imported.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from pathlib import Path

from igraph_mcp.errors import IGraphError

VIS_VERSION = "9.1.2"
EXTRA_HINT = "pip install 'igraph-mcp[view]'"
_CANDIDATES = (f"lib/vis-{VIS_VERSION}", f"templates/lib/vis-{VIS_VERSION}")


class ViewExtraMissing(IGraphError):
    """The drawing library is not installed (the optional 'view' extra)."""


@dataclass(frozen=True, slots=True)
class VisAssets:
    """vis-network's script and stylesheet, as text."""

    script: str
    css: str
    origin: Path


def _package_dir() -> Path | None:
    spec = importlib.util.find_spec("pyvis")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def load_vis() -> VisAssets:
    """vis-network from the installed pyvis, or ViewExtraMissing naming the extra to install."""
    base = _package_dir()
    for rel in _CANDIDATES if base is not None else ():
        folder = base / rel  # type: ignore[operator]  # base is a Path here
        js, css = folder / "vis-network.min.js", folder / "vis-network.css"
        if js.is_file() and css.is_file():
            script = js.read_text(encoding="utf-8")
            # The map file is not shipped: drop the comment so a browser's developer tools do not ask for it.
            script = script.replace("//# sourceMappingURL=vis-network.min.js.map", "")
            return VisAssets(script=script, css=css.read_text(encoding="utf-8"), origin=folder)
    found = f" (pyvis is installed at {base} but has no vis-network {VIS_VERSION})" if base else ""
    raise ViewExtraMissing(
        f"the browser view draws with vis-network, which comes with the optional 'view' extra{found}; "
        f"install it with: {EXTRA_HINT}"
    )
