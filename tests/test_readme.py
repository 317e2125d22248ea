"""The README's layout section names every module of the package, so it cannot drift from the tree unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _layout_block() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Layout\n", 1)[1]
    return section.split("```", 2)[1]


def test_layout_names_every_module_and_room() -> None:
    block = _layout_block()
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
    package = ROOT / "igraph_mcp"
    missing = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if path.stem not in ("__init__", "__main__") and path.stem not in words
    ]
    rooms = [p.name for p in package.iterdir() if p.is_dir() and not p.name.startswith("__")]
    missing += [f"{room}/" for room in rooms if f"{room}/" not in block]
    assert not missing, f"add these to the README's Layout section: {missing}"
