"""Rust oracle for graph_accuracy_langs.py: every call rustc resolves, with the definition it names.

usage: python benchmarks/rust_oracle.py TREE NAME

Compiles each crate of the pinned tree NAME (``CRATES``: its root file, the cfgs its features set and the tree's
other crates it uses) with a nightly rustc's ``-Zunpretty=thir-flat`` (the typed bodies: every call with the
function or method it resolved to, trait methods as the trait's item) and ``-Zunpretty=hir-tree`` (every
definition's lines). Needs ``rustc +nightly`` (rustup) and no network: only crates whose enabled features need no
crate from outside the tree can be read. Prints JSON lines in the other oracles' format:
``{"file", "line", "col", "name", "decls": [{"file", "line", "name", "kind"}]}`` per call written in the source
(the callee's name at its line and column; operators, `?` and `for` desugarings left out), ``{"file", ..,
"failed": true}`` for struct literals and macro calls (no function to name), ``{"skipped": path}`` for every `.rs`
file no crate compiled and ``{"inactive": path, "lines": [[a, b], ..]}`` for lines of a compiled file outside
every compiled body (`#[cfg]`-ed out).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Crate:
    """One crate of a tree: its name, root file, features (as cfgs) and the tree's crates it uses."""

    name: str
    root: str
    features: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    edition: str = "2021"


_UNICODE = ("unicode-age", "unicode-bool", "unicode-case", "unicode-gencat", "unicode-perl", "unicode-script")
CRATES: dict[str, tuple[Crate, ...]] = {
    "log": (Crate("log", "src/lib.rs", ("std",)),),
    # A workspace: regex-automata uses regex-syntax, regex uses both (perf-literal needs memchr: left off).
    "regex": (
        Crate("regex_syntax", "regex-syntax/src/lib.rs", ("std", "unicode", *_UNICODE, "unicode-segment")),
        Crate(
            "regex_automata",
            "regex-automata/src/lib.rs",
            (
                "std",
                "alloc",
                "syntax",
                "meta",
                "nfa",
                "nfa-thompson",
                "nfa-pikevm",
                "nfa-backtrack",
                "dfa",
                "dfa-build",
                "dfa-search",
                "dfa-onepass",
                "hybrid",
                "perf-inline",
                "unicode",
                *_UNICODE,
                "unicode-segment",
                "unicode-word-boundary",
            ),
            ("regex_syntax",),
        ),
        Crate("regex_lite", "regex-lite/src/lib.rs", ("std", "string")),
        Crate(
            "regex",
            "src/lib.rs",
            (
                "std",
                "perf-cache",
                "perf-dfa",
                "perf-onepass",
                "perf-backtrack",
                "perf-inline",
                "unicode",
                *_UNICODE,
                "unicode-segment",
            ),
            ("regex_syntax", "regex_automata"),
        ),
    ),
}

_BODY = re.compile(r"^DefId\((\d+):(\d+) ~ (.*)\):$")
_OWNER = re.compile(r"^DefId\((\d+):(\d+) ~ (.*)\) => OwnerNodes \{$")
_SPAN = re.compile(r"span: (.+?):(\d+):(\d+): (\d+):(\d+) \(#(\d+)\)")
_CALLEE = re.compile(r"^ {20}DefId\((\d+):(\d+) ~ (.*)\),$")
_HASH = re.compile(r"\[[0-9a-f]{4}\]")
_DEF = re.compile(r"^DefId\(\d+:\d+ ~ (.*)\),?$")
_RES_KINDS = {"trait": {"Trait,"}, "type": {"Struct,", "Enum,", "Union,", "TyAlias,"}}
_SELF_ARG = re.compile(r"^ {24}(.+),$")
_ALIASED = re.compile(r"(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)(?:::<.*>)?")
_BRACKETS = re.compile(r'"(?:\\.|[^"\\])*"|[()\[\]{}]')
_CALL_IN = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_MACRO_CALL = re.compile(r"(?<![\w:])([A-Za-z_]\w*)!\s*[(\[{]")


def path_key(path: str) -> str:
    """A DefId's path without crate hashes: `log[a94d]::Log::log` -> `log::Log::log`."""
    return _HASH.sub("", path)


def simple_name(path: str) -> str:
    """The name a call writes for a DefId path: its last segment that is a name."""
    for seg in reversed(path.split("::")):
        if seg and not seg.startswith("{") and not seg.startswith("'"):
            return seg.split("#")[0]
    return ""


@dataclass(slots=True)
class _Expr:
    kind: str = ""
    callee: str = ""
    self_arg: str = ""  # the callee's first generic argument (a trait method's Self)
    fun: int = -1
    adt: str = ""
    span: tuple[str, int, int, int, int] | None = None  # file, line, col, end line, end col (root context only)


@dataclass(slots=True)
class Dump:
    """What one crate's dumps say: definition places by path, calls and literals, compiled lines."""

    places: dict[str, tuple[str, int]] = field(default_factory=dict)  # path key -> (file, a line inside it)
    owner_lines: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    # file, line, col, name, callee key, the callee's Self type as a path ("" when generic or none)
    # ..., the calling crate, the callee's own name (a call may write an alias)
    calls: list[tuple[str, int, int, str, str, str, str, str]] = field(default_factory=list)
    literals: list[tuple[str, int, int, str]] = field(default_factory=list)
    bodies: set[str] = field(default_factory=set)
    impls: dict[str, tuple[str, str]] = field(default_factory=dict)  # impl key -> (trait key, self type key)
    made: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # macro-made definitions -> their lines

    def methods_of(self, impl: str) -> list[str]:
        """The keys of the items an `impl` block defines."""
        prefix = impl + "::"
        return [k for k in self.places if k.startswith(prefix) and "::" not in k[len(prefix) :]]


def _rustc(tree: Path, crate: Crate, out: Path, unpretty: str | None) -> str:
    cmd = ["rustc", "+nightly", f"--edition={crate.edition}", "--crate-type=lib", f"--crate-name={crate.name}"]
    for feature in crate.features:
        cmd += ["--cfg", f'feature="{feature}"']
    for dep in crate.uses:
        cmd += ["--extern", f"{dep}={out / f'lib{dep}.rmeta'}", "-L", str(out)]
    if unpretty is None:
        cmd += ["--emit=metadata", "--out-dir", str(out), "-Awarnings"]
    else:
        cmd += [f"-Zunpretty={unpretty}", "-o", str(out / f"{crate.name}.{unpretty}"), "-Awarnings"]
    try:
        subprocess.run([*cmd, crate.root], cwd=tree, check=True, capture_output=True, text=True)
    except FileNotFoundError as exc:
        raise SystemExit(
            "rust_oracle: no `rustc` on PATH; install rustup and a nightly (`rustup toolchain install nightly`)"
        ) from exc
    except subprocess.CalledProcessError as exc:
        raise SystemExit(
            f"rust_oracle: rustc could not read crate {crate.name} of {tree}:\n{exc.stderr[-2000:]}"
        ) from exc
    return "" if unpretty is None else (out / f"{crate.name}.{unpretty}").read_text(encoding="utf-8")


def _span(text: str, *, any_context: bool = False) -> tuple[str, int, int, int, int] | None:
    m = _SPAN.search(text)
    if m is None or (m.group(6) != "0" and not any_context) or m.group(1).startswith("/"):
        return None
    return m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5))


def read_hir(text: str, dump: Dump) -> None:
    """Each owner's file and lines (a definition's place is the first line its own spans name), and which trait
    each `impl` block implements for which type."""
    key = ""
    wanted = ""  # "Trait" after `of_trait:`, a type's kind after `self_ty:`
    expect_def = False
    for line in text.splitlines():
        m = _OWNER.match(line)
        if m is not None:
            key = path_key(m.group(3))
            wanted, expect_def = "", False
            continue
        if key.endswith("}") and "{impl#" in key.rpartition("::")[2]:
            stripped = line.strip()
            if stripped == "of_trait: Some(":
                wanted = "trait"
            elif stripped == "self_ty: Ty {":
                wanted = "type"
            elif wanted and stripped in _RES_KINDS[wanted]:
                expect_def = True
            elif expect_def:
                d = _DEF.match(stripped)
                if d is not None:
                    trait, ty = dump.impls.get(key, ("", ""))
                    dump.impls[key] = (path_key(d.group(1)), ty) if wanted == "trait" else (trait, path_key(d.group(1)))
                wanted, expect_def = "", False
        if key and "span: " in line:
            s = _span(line)
            if s is None:
                if key not in dump.places and (made := _span(line, any_context=True)) is not None:
                    # a definition a macro made: the macro's own lines and the line that calls it both write it
                    dump.made.setdefault(key, set()).add((made[0], made[1]))
                continue
            dump.places.setdefault(key, (s[0], s[1]))
            file, first, last = dump.owner_lines.get(key, (s[0], s[1], s[3]))
            if file == s[0]:
                dump.owner_lines[key] = (file, min(first, s[1]), max(last, s[3]))


def _flush(exprs: list[_Expr], source: dict[str, list[str]], tree: Path, dump: Dump, crate: str) -> None:
    for e in exprs:
        if e.kind == "Adt" and e.span is not None:
            dump.literals.append((e.span[0], e.span[1], e.span[2], simple_name(e.adt)))
        if e.kind != "Call" or not e.callee or not (0 <= e.fun < len(exprs)):
            continue
        fun = exprs[e.fun].span
        name = simple_name(e.callee)
        if fun is None or fun[1] != fun[3] or not name:
            continue
        lines = source.get(fun[0])
        if lines is None:
            try:
                lines = (tree / fun[0]).read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            source[fun[0]] = lines
        if fun[1] > len(lines):
            continue
        written = lines[fun[1] - 1][fun[2] - 1 : fun[4] - 1]
        at = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", written)]
        as_written = name
        if not at:
            alias = _ALIASED.fullmatch(written.strip())
            if alias is None:  # an operator, `?`, a `for` loop's next(), a deref: nothing written names the callee
                continue
            as_written, at = alias.group(1), [alias.start(1)]  # `use wire::write_state_id as write; write(x)`
        callee = path_key(e.callee)
        row = (fun[0], fun[1], fun[2] + at[-1], as_written, callee, _type_path(e.self_arg), crate, name)
        dump.calls.append(row)


def _type_path(arg: str) -> str:
    """A generic argument's type as a path (`&'{erased} mut dfa::dense::DFA<T>` -> `dfa::dense::DFA`); "" for a
    type parameter (`T/#1`), a tuple or a slice."""
    arg = re.sub(r"^(&('\S+ )?(mut )?)+", "", arg.strip())
    head = path_key(arg.split("<", 1)[0])
    return head if re.fullmatch(r"[A-Za-z_]\w*(::[A-Za-z_]\w*)*", head) else ""


def read_thir(text: str, tree: Path, dump: Dump) -> None:
    """Every call of every typed body: its callee's name at its place and the callee's path."""
    exprs: list[_Expr] = []
    source: dict[str, list[str]] = {}
    in_fndef = False
    crate = ""
    for line in text.splitlines():
        m = _BODY.match(line)
        if m is not None:
            _flush(exprs, source, tree, dump, crate)
            exprs = []
            key = path_key(m.group(3))
            dump.bodies.add(key)
            crate = key.split("::", 1)[0]
            continue
        if line == "        Expr {":
            exprs.append(_Expr())
            continue
        if not exprs:
            continue
        e = exprs[-1]
        if line.startswith("            kind: "):
            e.kind = line.strip()[len("kind: ") :].split(" ")[0].rstrip("({,")
        elif line == "                ty: FnDef(" and e.kind == "Call":
            in_fndef = True
        elif in_fndef:
            c = _CALLEE.match(line)
            if c is not None:
                e.callee = c.group(3)
            elif e.callee and line.strip() != "[":
                a = _SELF_ARG.match(line)
                e.self_arg = a.group(1) if a is not None else ""
                in_fndef = False
            if c is None and not e.callee:
                in_fndef = False
        elif line.startswith("                fun: e"):
            e.fun = int(line.strip()[len("fun: e") :].rstrip(","))
        elif line.startswith("                    adt_def: "):
            e.adt = line.strip()[len("adt_def: ") :].rstrip(",")
        elif line.startswith("            span: "):
            e.span = _span(line)
    _flush(exprs, source, tree, dump, crate)


def main() -> int:
    tree, name = Path(sys.argv[1]).resolve(), sys.argv[2]
    crates = CRATES[name]
    dump = Dump()
    with tempfile.TemporaryDirectory(prefix="rust-oracle-") as tmp:
        out = Path(tmp)
        for crate in crates:
            _rustc(tree, crate, out, None)
            read_hir(_rustc(tree, crate, out, "hir-tree"), dump)
            read_thir(_rustc(tree, crate, out, "thir-flat"), tree, dump)
    all_rs = sorted(p.relative_to(tree).as_posix() for p in tree.rglob("*.rs") if ".igraph" not in p.parts)
    compiled: dict[str, set[int]] = defaultdict(set)
    for key in dump.bodies:
        if key in dump.owner_lines:
            file, first, last = dump.owner_lines[key]
            compiled[file].update(range(first, last + 1))
    for path in all_rs:
        if path not in compiled:
            print(json.dumps({"skipped": path}))
            continue
        count = len((tree / path).read_text(encoding="utf-8", errors="replace").splitlines())
        runs: list[list[int]] = []
        for n in range(1, count + 1):
            if n in compiled[path]:
                continue
            if runs and runs[-1][1] == n - 1:
                runs[-1][1] = n
            else:
                runs.append([n, n])
        if runs:
            print(json.dumps({"inactive": path, "lines": runs}))
    # A trait's method called on a concrete type runs that type's impl of it: (trait, type, method) -> the impl's.
    implemented: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)  # -> [(type, impl's method)]
    for impl, (trait, ty) in dump.impls.items():
        if trait and ty:
            for method in dump.methods_of(impl):
                implemented[(trait, simple_name(method))].append((ty, method))
    for file, line, col, written_name, callee, self_type, crate_name, callee_name in dump.calls:
        targets = [callee]
        trait = callee.rpartition("::")[0]
        # A local type prints without its crate (`pikevm::FindMatches`), another crate's with it: the calling
        # crate's own type first (regex-lite and regex-automata both have a `pikevm::FindMatches`).
        fits = [(ty, m) for ty, m in implemented.get((trait, callee_name), ()) if self_type]
        impl_methods = (
            [m for ty, m in fits if ty in (f"{crate_name}::{self_type}", self_type)]
            or [m for ty, m in fits if ty.endswith("::" + self_type)]
            # a type named by the path that re-exports it (`meta::FindMatches` of `meta/regex.rs`)
            or [m for ty, m in fits if simple_name(ty) == simple_name(self_type)]
        )
        if len(impl_methods) == 1:
            targets.insert(0, impl_methods[0])
        decls = []
        for target in targets:
            place = dump.places.get(target)
            places = [place] if place else sorted(dump.made.get(target, ())) or [("", 0)]
            for path, at in places:
                decls.append(
                    {"file": path, "line": at, "name": callee_name, "kind": "impl" if target != callee else "fn"}
                )
        print(json.dumps({"file": file, "line": line, "col": col, "name": written_name, "decls": decls}))
    for file, line, col, lit_name in dump.literals:
        print(json.dumps({"file": file, "line": line, "col": col, "name": lit_name, "decls": [], "failed": True}))
    typed = {(file, line, written) for file, line, _col, written, *_rest in dump.calls}
    for path in compiled:
        text = (tree / path).read_text(encoding="utf-8", errors="replace")
        for m in _MACRO_CALL.finditer(text):
            if m.group(1) == "macro_rules":
                continue
            line = text.count("\n", 0, m.start()) + 1
            print(json.dumps({"file": path, "line": line, "col": 0, "name": m.group(1), "decls": [], "failed": True}))
            # a call among the macro's arguments that no typed body holds: the expansion dropped it (`trace!`
            # without the logging feature) or rustc saw it elsewhere; not judged
            for inner in _CALL_IN.finditer(text, m.end() - 1, _closing(text, m.end() - 1)):
                at = text.count("\n", 0, inner.start()) + 1
                if (path, at, inner.group(1)) not in typed:
                    row = {"file": path, "line": at, "col": 0, "name": inner.group(1), "decls": [], "failed": True}
                    print(json.dumps(row))
    return 0


def _closing(text: str, start: int) -> int:
    """The offset after the bracket closing the one at ``start``; string literals skip their brackets."""
    depth = 0
    for token in _BRACKETS.finditer(text, start):
        mark = token.group(0)
        if mark in "([{":
            depth += 1
        elif mark in ")]}":
            depth -= 1
            if depth == 0:
                return token.end()
    return len(text)


if __name__ == "__main__":
    sys.exit(main())
