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

VIS_VERSION = "9.1.2"  # the build the page is tested with (pyvis 0.3.2); another 9.x shipped by pyvis is used if not
EXTRA_HINT = "pip install 'igraph-mcp[view]'"


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


def _version(folder: Path) -> tuple[int, ...]:
    """'vis-9.1.2' -> (9, 1, 2); (0,) when the name carries no version."""
    digits = folder.name.removeprefix("vis-").split(".")
    return tuple(int(d) for d in digits) if all(d.isdigit() for d in digits) else (0,)


def _folders(base: Path) -> list[Path]:
    """pyvis's vis-network folders: the tested version first, then the newest 9.x."""
    found = [p for sub in ("lib", "templates/lib") for p in sorted((base / sub).glob("vis-9.*")) if p.is_dir()]
    return sorted(found, key=lambda p: (p.name != f"vis-{VIS_VERSION}", [-v for v in _version(p)]))


def load_vis() -> VisAssets:
    """vis-network from the installed pyvis, or ViewExtraMissing naming the extra to install."""
    base = _package_dir()
    for folder in _folders(base) if base is not None else []:
        js, css = folder / "vis-network.min.js", folder / "vis-network.css"
        if js.is_file() and css.is_file():
            script = js.read_text(encoding="utf-8")
            # The map file is not shipped: drop the comment so a browser's developer tools do not ask for it.
            script = script.replace("//# sourceMappingURL=vis-network.min.js.map", "")
            return VisAssets(script=script, css=css.read_text(encoding="utf-8"), origin=folder)
    found = f" (pyvis is installed at {base} but holds no vis-network 9.x)" if base else ""
    raise ViewExtraMissing(
        f"the browser view draws with vis-network, which comes with the optional 'view' extra{found}; "
        f"install it with: {EXTRA_HINT}"
    )
