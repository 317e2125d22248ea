"""Definition recall per language against universal-ctags, on one real project per language.

usage: python benchmarks/definitions.py [--lang javascript,go] [--misses 8] [--json out.json]

Each project comes from a registry reachable here (npm, PyPI, Debian) into
~/.cache/igraph-mcp-bench/defs (override: IGRAPH_BENCH_CACHE); nothing lands in the repository.
The tree is walked with the indexer's own rules and each file of the language is parsed (the
structure-only index stores exactly these symbols). universal-ctags (Debian `universal-ctags`)
tags the same files. A ctags definition of a counted kind (functions, methods, classes, structs,
interfaces; anonymous entries excluded) is found when a symbol of that name in that file starts
at its line, or up to DECORATOR_LINES lines before it (decorators, attributes, doc comments).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import common  # the checkout on sys.path, the download cache
from reference_defs import regex_definitions, script_definitions

from igraph_mcp.index.parse import parse_source
from igraph_mcp.index.walk import walk_repository
from igraph_mcp.vocab.languages import language_for_path

CACHE = common.cache_root() / "defs"
DECORATOR_LINES = 5
# ctags kind names that mean "function, method, class, struct or interface" in some language.
DEFAULT_KINDS = frozenset(
    {"function", "func", "method", "class", "struct", "interface", "singletonMethod", "subroutine", "trait"}
)

# ctags' JavaScript parser reports a variable holding an object literal (`var headers = {`) as a class.
# So does its Svelte reading of `export let x = {` and `$: x = {`, and of a property holding one (`parent: {`).
JS_DATA_OBJECT = r"^/\^\s*(?:export\s+)?(?:(?:var|let|const)\s+|\$:\s*)?[\w$.]+\s*[=:]\s*\{"

# ctags' Kotlin parser reports lambda parameters (`{ holder -> ...}`) as methods; a Kotlin declaration has a keyword.
KOTLIN_DECLARATION = r"\b(?:fun|class|interface|object)\b"

# ctags' Lua parser also tags lines like `cmp = function_arg(1, cmp)`; a Lua function has the keyword `function`.
LUA_FUNCTION = r"\bfunction\b"
# ctags' Haskell parser tags fixity declarations and class headers as functions named `infixr`, `class`...
HASKELL_KEYWORD_LINE = r"^/\^(?:infix[lr]?|class)\b"
# ctags' Elixir kinds for functions (def, defmacro, defguard, defdelegate), modules and protocols
ELIXIR_KINDS = frozenset({"function", "macro", "guard", "delegate", "module", "protocol"})
# `def unquote(name)(args)` defines a function whose name is computed at compile time; ctags calls it `unquote`.
ELIXIR_COMPUTED_NAME = r"^/\^\s*def\w*\s+unquote\("
_PLACEHOLDER = re.compile(r"^(?:<\w+>|\d|_$|\(\)$|.*=$)")


@dataclass(frozen=True)
class Project:
    """One benchmark tree: where it comes from and which part of it holds the language's sources."""

    language: str  # our language name
    # "npm", "pypi", "wheel", "deb", "jar" (a Debian package whose .jar files hold the sources) or "debsrc" (a
    # Debian source package, spec `name_version`, fetched by URL from the pool and checked against its .dsc)
    source: str
    spec: str  # package spec for the registry
    subdir: str = ""  # sources live under this path of the unpacked tree
    include: str = ""  # only files whose path (relative to subdir) matches this regex count (e.g. not the tests)
    kinds: frozenset[str] = DEFAULT_KINDS
    languages: tuple[str, ...] = ()  # our languages counted here (default: just `language`)
    # ctags entries whose source line matches this are not definitions (see JS_DATA_OBJECT)
    exclude: str = ""
    # ... and only entries whose source line matches this count (see KOTLIN_DECLARATION)
    require: str = ""
    note: str = ""
    # who lists the definitions: "ctags", "regex" (reference_defs.RULES, for languages ctags cannot read) or
    # "script" (ctags on the `<script>` blocks of Vue and Svelte components)
    reference: str = "ctags"
    # drop reference entries inside triple-quoted strings: ctags' Elixir parser tags the example code in
    # `@moduledoc """ ... """` and `@doc` heredocs, and Groovy sources generate code from `"""` templates
    skip_heredocs: bool = False
    ctags_options: tuple[str, ...] = ()


PROJECTS = [
    Project("python", "pypi", "attrs==23.2.0", kinds=DEFAULT_KINDS | {"member"}),
    Project("javascript", "npm", "express@4.19.2", "package", exclude=JS_DATA_OBJECT),
    Project("typescript", "npm", "rxjs@7.8.1", "package/src"),
    Project("go", "deb", "golang-github-spf13-cobra-dev", "usr/share/gocode"),
    Project("java", "npm", "react-native-gesture-handler@2.16.2", "package/android", kinds=DEFAULT_KINDS),
    Project("kotlin", "npm", "expo-modules-core@1.12.11", "package/android", require=KOTLIN_DECLARATION),
    Project("csharp", "pypi", "pythonnet==3.0.3", kinds=DEFAULT_KINDS),
    Project("rust", "deb", "librust-anyhow-dev", "usr/share/cargo"),
    Project("c", "pypi", "lz4==4.3.3", "", languages=("c",)),
    Project("cpp", "deb", "libcli11-dev", "usr/include"),
    Project("ruby", "deb", "ruby-rack", "usr"),
    Project("php", "deb", "php-symfony-console", "usr/share/php"),
    Project("lua", "deb", "lua-penlight", "usr/share/lua", require=LUA_FUNCTION),
    Project("erlang", "deb", "erlang-src", "usr/lib/erlang/lib/stdlib-*"),
    Project("perl", "deb", "liburi-perl", "usr/share/perl5"),
    Project("bash", "npm", "bats@1.11.0", "package"),
    Project("ocaml", "deb", "ocaml", "usr/lib/ocaml"),
    Project("haskell", "deb", "hugs", "usr/lib/hugs/programs", exclude=HASKELL_KEYWORD_LINE),
    Project("clojure", "jar", "libclojure-java", ""),
    # ctags' TypeScript parser reads .tsx too when told to (JSX bodies are skipped, definitions are found)
    Project(
        "tsx", "npm", "react-native-gesture-handler@2.16.2", "package/src", ctags_options=("--map-TypeScript=+.tsx",)
    ),
    Project(
        "vue", "npm", "vitepress@1.3.4", "package/dist/client/theme-default", reference="script", exclude=JS_DATA_OBJECT
    ),
    Project(
        "svelte", "npm", "carbon-components-svelte@0.85.0", "package/src", reference="script", exclude=JS_DATA_OBJECT
    ),
    Project("swift", "npm", "expo-modules-core@1.12.11", "package/ios", reference="regex"),
    # Groovy: Groovy's own Groovy-written sources (the shell, Swing builder, console, JMX...; not tests or examples)
    Project(
        "groovy",
        "debsrc",
        "groovy_2.4.21-8",
        "groovy-2.4.21",
        include=r"^(?:src/main|subprojects/[^/]+/src/main)/",
        reference="regex",
        skip_heredocs=True,  # code generated from `"""` templates defines nothing here
    ),
    # Elixir's standard library: the `lib/` of each of its applications (elixir, mix, ex_unit, iex, logger, eex)
    Project(
        "elixir",
        "debsrc",
        "elixir-lang_1.14.0.dfsg-2",
        "elixir-1.14.0/lib",
        include=r"^[^/]+/lib/",
        kinds=ELIXIR_KINDS,
        skip_heredocs=True,
        exclude=ELIXIR_COMPUTED_NAME,
    ),
    # Dart: Apache Thrift's Dart library and its tests (no Dart in Debian's binary packages, nor on npm/PyPI)
    Project("dart", "debsrc", "thrift_0.17.0-2", "thrift-0.17.0/lib/dart", reference="regex"),
    # Scala's standard library
    Project("scala", "debsrc", "scala_2.11.12-5", "scala-2.11.12/src/library", reference="regex"),
    Project("solidity", "npm", "@openzeppelin/contracts@5.0.2", "package", reference="regex"),
    Project("objc", "npm", "react-native-gesture-handler@2.16.2", "package/apple"),
    Project("r", "deb", "r-cran-littler", "usr/lib/R/site-library/littler"),
    Project("julia", "pypi", "julia==0.6.2", "julia-0.6.2/src/julia"),
    Project("zig", "wheel", "ziglang==0.13.0", "ziglang/lib/std", reference="regex"),
]


@dataclass
class Result:
    """Recall of one language on its project."""

    language: str
    project: str
    files: int = 0
    total: int = 0
    found: int = 0
    misses: list[str] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)


def _run(cmd: list[str], cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


DEBIAN_POOL = "http://deb.debian.org/debian/pool/main"


def _download_debsrc(spec: str, dl: Path) -> Path:
    """Download a Debian source package's upstream tarball (the `.orig.tar.*` its .dsc names), checked against the
    SHA-256 the .dsc gives; no deb-src entry is needed, the pool is plain HTTP."""
    name = spec.split("_", 1)[0]
    pool = f"{DEBIAN_POOL}/{name[:4] if name.startswith('lib') else name[0]}/{name}"
    dsc = dl / f"{spec}.dsc"
    if not dsc.exists():
        urllib.request.urlretrieve(f"{pool}/{dsc.name}", dsc)
    text = dsc.read_text(encoding="utf-8")
    sums = text.split("Checksums-Sha256:", 1)[1]
    m = re.search(r"^ ([0-9a-f]{64}) \d+ (\S+\.orig\.tar\.\w+)$", sums, re.M)
    if m is None:
        raise SystemExit(f"{dsc}: no orig tarball listed")
    want, archive = m[1], dl / m[2]
    if not archive.exists():
        urllib.request.urlretrieve(f"{pool}/{archive.name}", archive)
    got = hashlib.sha256(archive.read_bytes()).hexdigest()
    if got != want:
        archive.unlink()
        raise SystemExit(f"{archive.name}: sha256 {got} differs from the .dsc's {want}; removed, run again")
    return archive


def fetch(p: Project) -> Path:
    """Download and unpack a project once into the cache; return the unpacked tree."""
    slug = re.sub(r"[^\w.-]+", "_", p.spec)
    tree = CACHE / "trees" / slug
    if tree.is_dir():
        return tree
    dl = CACHE / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    tmp = tree.with_name(tree.name + ".part")
    tmp.mkdir(parents=True, exist_ok=True)
    if p.source == "npm":
        name = p.spec.lstrip("@").replace("/", "-").replace("@", "-")
        archive = dl / f"{name}.tgz"
        if not archive.exists():
            _run(["npm", "pack", p.spec, "--pack-destination", str(dl)], dl)
        with tarfile.open(archive) as tf:
            tf.extractall(tmp, filter="data")
    elif p.source == "pypi":
        with tarfile.open(common.sdist_archive(p.spec, dl)) as tf:
            tf.extractall(tmp, filter="data")
    elif p.source == "wheel":  # a binary wheel that ships sources (ziglang: the Zig standard library)
        common.pip_download(p.spec, dl, binary=True, quiet=True)
        name, _, version = p.spec.partition("==")
        archive = next(f for f in dl.iterdir() if f.name.lower().startswith(f"{name}-{version}-".lower()))
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(tmp)
    elif p.source == "debsrc":
        with tarfile.open(_download_debsrc(p.spec, dl)) as tf:
            tf.extractall(tmp, filter="data")
    elif p.source in ("deb", "jar"):
        debs = sorted(dl.glob(f"{p.spec}_*.deb"))
        if not debs:
            _run(["apt-get", "download", p.spec], dl)
            debs = sorted(dl.glob(f"{p.spec}_*.deb"))
        _run(["dpkg", "-x", str(debs[-1]), str(tmp)], dl)
        if p.source == "jar":  # Clojure ships its sources inside the jar
            for jar in tmp.rglob("*.jar"):
                if jar.is_file() and not jar.is_symlink():
                    with zipfile.ZipFile(jar) as zf:
                        zf.extractall(tmp / "src" / jar.stem)
    else:
        raise ValueError(f"unknown source {p.source!r}")
    tmp.rename(tree)
    return tree


def _source_root(tree: Path, p: Project) -> Path:
    if not p.subdir:
        return tree
    hits = sorted(tree.glob(p.subdir))
    if not hits:
        raise SystemExit(f"{p.spec}: no {p.subdir} in {tree}")
    return hits[-1]


def _reference(p: Project, root: Path, files: list[str]) -> list[dict[str, object]]:
    """The reference's definitions (ctags JSON entries, or entries shaped like them)."""
    if p.reference == "regex":
        return regex_definitions(root, files, p.language)
    if p.reference == "script":
        return script_definitions(root, files)
    return _ctags(root, files, p.ctags_options)


def _ctags(root: Path, files: list[str], options: tuple[str, ...] = ()) -> list[dict[str, object]]:
    out = subprocess.run(
        ["ctags", *options, "--output-format=json", "--fields=+nKE", "-f", "-", "-L", "-"],
        cwd=root,
        input="\n".join(files),
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def heredoc_lines(lines: list[bytes]) -> set[int]:
    """1-based numbers of the lines inside triple-quoted strings (`\"\"\"` or `\'\'\'`), their closing line included."""
    inside: bytes | None = None
    found = set()
    for number, text in enumerate(lines, 1):
        if inside is not None:
            found.add(number)
        for quote in re.findall(rb'"""|\'\'\'', text):
            if inside is None:
                inside = quote
            elif quote == inside:
                inside = None
    return found


def _last_part(name: str) -> str:
    """`res.get` -> `get`; operators compare by their symbol (`operator +`, `operator+` -> `+`); an Objective-C
    selector by its first part (`touchesBegan:withEvent:` -> `touchesBegan`, as our symbols name it)."""
    if name.endswith(":") and "::" not in name:
        return name.split(":", 1)[0]
    last = re.split(r"\.|::|#|:", name)[-1] if name else name
    return re.sub(r"^operator\b\s*", "", last).replace(" ", "").strip("()").lstrip("~") or last


def _written_near(name: str, line: int, lines: list[bytes]) -> bool:
    """Whether the name appears on its line or the lines above it. ctags' Kotlin parser sometimes reports names made
    of stray bytes (`)Fgd`, `*Fgd`, differing from run to run); no such name is written in the file."""
    wanted = _last_part(name).replace(" ", "").encode("utf-8", "replace")  # `operator ()` is written `operator()`
    # ctags may put a long Objective-C selector's definition at its `{`, several lines below the name
    return any(wanted in text.replace(b" ", b"") for text in lines[max(0, line - 20) : line])


def _starts_at(start: int, line: int, lines: list[bytes]) -> bool:
    """A symbol starting at `start` is the definition ctags puts at `line`: the same line, a few lines before,
    or any number of lines before when it starts with a decorator or attribute block (`@pytest.mark...`)."""
    if line - DECORATOR_LINES <= start <= line:
        return True
    return start < line and 0 < start <= len(lines) and lines[start - 1].lstrip().startswith((b"@", b"#["))


def measure(p: Project, misses: int) -> Result:
    """Compare our symbols with ctags' definitions on one project."""
    root = _source_root(fetch(p), p)
    wanted = set(p.languages or (p.language,))
    walked = walk_repository(root, language_for_path, max_file_bytes=2_000_000)
    include = re.compile(p.include) if p.include else None
    files = [f.path for f in walked.files if f.language in wanted and (include is None or include.search(f.path))]
    res = Result(p.language, p.spec, files=len(files))
    starts: dict[tuple[str, str], list[int]] = defaultdict(list)
    sources: dict[str, list[bytes]] = {}
    for path in files:
        raw = (root / path).read_bytes()
        sources[path] = raw.splitlines()
        pf = parse_source(raw, language_for_path(path) or p.language)
        for s in pf.symbols[1:]:
            # a symbol answers to its name and to each part of its qualified name (`res.get`: res, get)
            for name in {s.name, _last_part(s.name), *re.split(r"\.|::", s.qualified_name)}:
                starts[(path, name)].append(s.start_line)
    # One definition per (file, line): ctags may name it twice (`module.exports = function query`).
    defs: dict[tuple[str, int], list[tuple[str, str]]] = defaultdict(list)
    exclude = re.compile(p.exclude) if p.exclude else None
    require = re.compile(p.require) if p.require else None
    in_heredoc = {path: heredoc_lines(sources[path]) for path in files} if p.skip_heredocs else {}
    for tag in _reference(p, root, files):
        kind = str(tag.get("kind", ""))
        if kind not in p.kinds or "anonymous" in str(tag.get("extras", "")):
            continue
        if _PLACEHOLDER.match(str(tag["name"])):  # `<lambda>`, `9V`, OCaml's `let () =`, Bash's `x=()`
            continue
        if exclude is not None and exclude.search(str(tag.get("pattern", ""))):
            continue
        if require is not None and not require.search(str(tag.get("pattern", ""))):
            continue
        path, line = str(tag["path"]), int(str(tag["line"]))
        if line in in_heredoc.get(path, ()):
            continue
        if not _written_near(str(tag["name"]), line, sources[path]):
            continue
        defs[(path, line)].append((kind, str(tag["name"])))
    for (path, line), names in sorted(defs.items()):
        kind = names[0][0]
        res.total += 1
        counts = res.by_kind.setdefault(kind, [0, 0])
        counts[1] += 1
        hit = any(
            _starts_at(s, line, sources[path]) for _k, name in names for s in starts.get((path, _last_part(name)), ())
        )
        if hit:
            res.found += 1
            counts[0] += 1
        elif len(res.misses) < misses:
            res.misses.append(f"{path}:{line} {kind} {names[0][1]}")
    return res


def main() -> None:
    """Measure every project (or those named) and print one line per language plus its first misses."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lang", default="", help="comma-separated languages (default: all)")
    ap.add_argument("--misses", type=int, default=8, help="misses listed per language")
    ap.add_argument("--json", type=Path, help="write the results here")
    args = ap.parse_args()
    chosen = {x for x in args.lang.split(",") if x}
    results = []
    print(f"{'language':<11} {'project':<40} {'files':>5} {'found':>6} {'ctags':>6} recall")
    for p in PROJECTS:
        if chosen and p.language not in chosen:
            continue
        try:
            r = measure(p, args.misses)
        except (subprocess.CalledProcessError, OSError, StopIteration, SystemExit) as exc:
            print(f"{p.language:<11} {p.spec:<40} not measured: {exc}", file=sys.stderr)
            continue
        results.append(r)
        recall = r.found / r.total if r.total else float("nan")
        print(f"{r.language:<11} {r.project:<40} {r.files:>5} {r.found:>6} {r.total:>6} {recall:.3f}")
        for miss in r.misses:
            print(f"    miss {miss}")
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=1))


if __name__ == "__main__":
    main()
