"""Reference definitions for languages universal-ctags 5.9 has no parser for.

Two independent listers, neither using tree-sitter nor our query files:

- `regex_definitions`: one small table of line-anchored regular expressions per language, each keyed on the
  keyword that introduces a definition (`func`, `fn`, `function`, `contract` ...). Comments are blanked first
  (`//` and `/* */`, keeping line numbers) so commented-out code does not count. Checked by hand on a sample of
  files per language (see benchmarks/README.md). What a keyword-led regex cannot see (a definition without a
  keyword) it does not ask for, so this reference is kinder than ctags would be; it is written down where used.
- `script_definitions`: for single-file components (Vue, Svelte), universal-ctags itself on the `<script>`
  blocks, with everything else blanked (line numbers kept), as JavaScript or TypeScript after the block's `lang`.

Both return ctags-shaped dicts (name, path, line, kind, pattern) so definitions.py treats them like ctags output.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

_IDENT = r"(?P<name>[A-Za-z_$][\w$]*)"
# Keyword-led definitions; the kind names are ctags' (function / method / class / struct / interface).
RULES: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    "swift": [
        # `class func f()` and `class var x` are members, not classes
        ("class", re.compile(rf"^\s*(?:[@\w()]+\s+)*?(?:class|actor)\s+(?!func\b|var\b|let\b){_IDENT}")),
        ("struct", re.compile(rf"^\s*(?:[@\w()]+\s+)*?(?:struct|enum)\s+{_IDENT}")),
        ("interface", re.compile(rf"^\s*(?:[@\w()]+\s+)*?protocol\s+{_IDENT}")),
        ("function", re.compile(rf"^\s*(?:[@\w()]+\s+)*?func\s+{_IDENT}")),
        ("method", re.compile(r"^\s*(?:[@\w()]+\s+)*?(?P<name>init)[?!]?\s*[(<]")),
    ],
    "solidity": [
        ("class", re.compile(rf"^\s*(?:abstract\s+)?(?:contract|library)\s+{_IDENT}")),
        ("interface", re.compile(rf"^\s*interface\s+{_IDENT}")),
        ("struct", re.compile(rf"^\s*struct\s+{_IDENT}")),
        ("function", re.compile(rf"^\s*(?:function|modifier)\s+{_IDENT}\s*\(")),
    ],
    "groovy": [
        (
            "class",
            re.compile(
                r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|abstract|final|static)\s+)*"
                rf"(?:class|interface|trait|enum)\s+{_IDENT}"
            ),
        ),
        (
            "function",
            re.compile(
                r"^\s*(?:(?:public|private|protected|static|final|synchronized|abstract)\s+)*"
                r"(?:def|void|(?:boolean|int|long|double|float|char|byte|short|[A-Z][\w.]*(?:<[^>]*>)?)(?:\s*\[\])*)\s+"
                r"(?!(?:if|for|while|switch|catch|return|new)\b)(?P<name>[A-Za-z_]\w*)\s*\("
            ),
        ),
        # modifiers and no type: a constructor (`public Factory(Class c) {`) or an untyped method (`private wrap(s) {`)
        (
            "function",
            re.compile(
                r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|private|protected|static|final|synchronized|abstract)\s+)+"
                r"(?P<name>[A-Za-z_]\w*)\s*\("
            ),
        ),
    ],
    "scala": [
        # modifiers, access qualifiers (`private[collection]`) and annotations may precede the keyword
        (
            "class",
            re.compile(
                r"^\s*(?:(?:@[\w.]+(?:\([^)]*\))?|(?:private|protected)(?:\[\w+\])?|final|sealed|abstract|implicit"
                r"|override|case|lazy)\s+)*(?:class|object)\s+(?P<name>[A-Za-z_$][\w$]*)"
            ),
        ),
        (
            "interface",
            re.compile(
                r"^\s*(?:(?:@[\w.]+(?:\([^)]*\))?|(?:private|protected)(?:\[\w+\])?|sealed)\s+)*"
                r"trait\s+(?P<name>[A-Za-z_$][\w$]*)"
            ),
        ),
        # `def this(...)` is an auxiliary constructor, not a named definition; operator names (`def ++`) count
        (
            "function",
            re.compile(
                r"^\s*(?:(?:@[\w.]+(?:\([^)]*\))?|(?:private|protected)(?:\[\w+\])?|final|implicit|override"
                r"|abstract|inline)\s+)*def\s+(?!this\b)(?P<name>[A-Za-z_$][\w$]*?(?:_[^\s\w(\[:]+)?(?=[\s(\[:=]|$)|[^\s\w(\[\]{}:;,.`\"']+)"
            ),
        ),
    ],
    "dart": [
        (
            "class",
            re.compile(
                rf"^\s*(?:(?:abstract|sealed|base|final|interface)\s+)*(?:class|mixin|enum|extension)\s+{_IDENT}"
            ),
        ),
        # getters and setters: `int get length`, `set value(v)`
        (
            "method",
            re.compile(rf"^\s*(?:(?:static|external|@\w+)\s+)*(?:[\w.]+(?:<[^()]*>)?\??\s+)?(?:get|set)\s+{_IDENT}"),
        ),
        # a constructor, plain or named: `TSocket(this.x);`, `const Foo.named()`, `factory Foo.from(...)`; not a
        # call statement (`Foo.bar(x);`) nor one passing a closure (`Future.delayed(t, () {`)
        (
            "method",
            re.compile(
                r"^\s*(?:(?:const|factory|external)\s+)*(?P<name>[A-Z]\w*(?:\.\w+)?)\s*\((?!.*\(\)\s*\{)(?!.*\)\s*;\s*$|.*[^{:=>,(]$)"
            ),
        ),
        # a function or method has a return type before its name (Dart has no keyword for it)
        (
            "function",
            re.compile(
                r"^\s*(?:(?:static|external|abstract|@\w+)\s+)*"
                r"(?!(?:return|await|new|throw|yield|else|case|const|final|var|assert|if|for|while|switch|catch)\b)"
                r"[A-Za-z_]\w*(?:\.\w+)?(?:<[^()]*>)?\??\s+"
                r"(?!(?:get|set|operator)\b)(?P<name>[A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\("
            ),
        ),
    ],
    "zig": [
        (
            "function",
            re.compile(rf"^\s*(?:pub\s+)?(?:export\s+|extern\s+(?:\"\w+\"\s+)?)?(?:inline\s+)?fn\s+{_IDENT}\s*\("),
        ),
        (
            "struct",
            re.compile(
                rf"^\s*(?:pub\s+)?const\s+{_IDENT}\s*=\s*(?:extern\s+|packed\s+)?(?:struct|union|enum|opaque)\b"
            ),
        ),
    ],
}

_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"//.*")
# A string literal on one line, so `"http://x"` is not taken for a comment.
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def _blank_comments(text: str) -> str:
    text = _BLOCK_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    out = []
    for line in text.split("\n"):
        masked = _STRING.sub(lambda m: '"' + " " * (len(m.group()) - 2) + '"', line)
        cut = _LINE_COMMENT.search(masked)
        out.append(line[: cut.start()] if cut else line)
    return "\n".join(out)


def regex_definitions(root: Path, files: list[str], language: str) -> list[dict[str, object]]:
    """Definitions found by the language's keyword table in each file, shaped like ctags JSON entries."""
    rules = RULES[language]
    tags: list[dict[str, object]] = []
    for path in files:
        text = _blank_comments((root / path).read_text(encoding="utf-8", errors="replace"))
        for lineno, line in enumerate(text.split("\n"), 1):
            for kind, pattern in rules:
                m = pattern.match(line)
                if m:
                    tags.append({"name": m["name"], "path": path, "line": lineno, "kind": kind, "pattern": line})
                    break
    return tags


_SCRIPT = re.compile(r"(<script\b[^>]*>)(.*?)</script\s*>", re.S | re.I)
_TS_LANG = re.compile(r"""\blang\s*=\s*["']?ts""", re.I)


def blank_to_scripts(text: str) -> tuple[str, bool]:
    """The text with everything outside `<script>` bodies turned to spaces (newlines kept), and whether any
    script block is TypeScript."""
    chars = list(re.sub(r"[^\n]", " ", text))
    typescript = False
    for m in _SCRIPT.finditer(text):
        typescript = typescript or bool(_TS_LANG.search(m.group(1)))
        chars[m.start(2) : m.end(2)] = list(m.group(2))
    return "".join(chars), typescript


def script_definitions(root: Path, files: list[str]) -> list[dict[str, object]]:
    """universal-ctags' definitions in the `<script>` blocks of single-file components."""
    tags: list[dict[str, object]] = []
    with tempfile.TemporaryDirectory() as tmp:
        names: dict[str, str] = {}
        for i, path in enumerate(files):
            blanked, typescript = blank_to_scripts((root / path).read_text(encoding="utf-8", errors="replace"))
            name = f"f{i}.{'ts' if typescript else 'js'}"
            (Path(tmp) / name).write_text(blanked, encoding="utf-8")
            names[name] = path
        out = subprocess.run(
            ["ctags", "--output-format=json", "--fields=+nKE", "-f", "-", "-L", "-"],
            cwd=tmp,
            input="\n".join(names),
            capture_output=True,
            text=True,
            check=True,
        )
        for line in out.stdout.splitlines():
            if line.startswith("{"):
                tag = json.loads(line)
                tag["path"] = names[tag["path"]]
                tags.append(tag)
    return tags
