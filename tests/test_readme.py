"""The README names every module of the package and every indexed language, so neither drifts unnoticed."""

from __future__ import annotations

import re
from pathlib import Path

from igraph_mcp.vocab.languages import LANGUAGES

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


# The README's name for each row of the language table (OCaml interfaces share OCaml's line).
_DISPLAY = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "tsx": "TSX",
    "go": "Go",
    "java": "Java",
    "csharp": "C#",
    "rust": "Rust",
    "c": "C",
    "cpp": "C++",
    "ruby": "Ruby",
    "php": "PHP",
    "kotlin": "Kotlin",
    "swift": "Swift",
    "scala": "Scala",
    "lua": "Lua",
    "dart": "Dart",
    "elixir": "Elixir",
    "haskell": "Haskell",
    "bash": "Bash",
    "zig": "Zig",
    "r": "R",
    "julia": "Julia",
    "ocaml": "OCaml",
    "ocaml_interface": "OCaml",
    "erlang": "Erlang",
    "perl": "Perl",
    "groovy": "Groovy",
    "clojure": "Clojure",
    "solidity": "Solidity",
    "objc": "Objective-C",
    "vue": "Vue",
    "svelte": "Svelte",
}


def test_language_list_and_recall_table_match_the_language_table() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Languages\n", 1)[1].split("\n## ", 1)[0]
    listed = re.search(r"^\*\*(\d+) languages:\*\* (.+?)\.\n\n", section, re.M | re.S)
    assert listed, "the Languages section needs its list paragraph: **N languages:** A, B, C."
    names = [n.strip() for n in listed.group(2).replace("\n", " ").split(",")]
    rows = [
        line.split("|")[1].strip()
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| language")
    ]
    # a language added to vocab/languages.py shows here under its table name until the README names it
    indexed = {_DISPLAY.get(name, name) for name in LANGUAGES}
    assert set(names) == indexed, "the README's language list differs from vocab/languages.py"
    assert rows == names, "the recall table needs one row per listed language, in the list's order"
    assert int(listed.group(1)) == len(names)
