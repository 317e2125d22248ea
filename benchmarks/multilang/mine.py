"""Re-derive the mined rows of instances.jsonl: merged fixes that name the issue they fix, from fetched mirrors.

    python benchmarks/multilang/mine.py --survey            # candidates per repository, nothing written
    python benchmarks/multilang/mine.py                     # rewrite the mined rows of instances.jsonl
    python benchmarks/multilang/mine.py --check             # re-derive and compare with instances.jsonl

Each repository of REPOSITORIES is read from its bare mirror (``fetch github:<owner>/<name>`` puts it in
``<mirrors>/<owner>+<name>/repo``; ``--mirrors`` or $IGRAPH_MIRRORS, default the .mirror folder beside the
checkout). A row is one non-merge commit, up to the commit REPOSITORIES pins, whose message says which issue it
fixes ("Fixes #12", "Closes gh-3", "Fixes: https://github.com/o/n/issues/4"); its parent is the base commit. The
problem statement is the message (subject, a blank line, the body) without trailers, issue references, template
noise or diff lines, and with the gold files' paths and file names masked as ``<file>``. Gold files and functions
are derived as for the Multi-SWE-bench rows (benchmarks/multilang/README.md). Reserved projects are refused by
training/mine_commits.py's ``refusal``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for _p in (ROOT, ROOT / "training"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

import mine_commits as mc  # noqa: E402  (training/: the one refusal list and the commit-stream reader)

from igraph_mcp.index.parse import parse_source  # noqa: E402
from igraph_mcp.vocab.languages import language_for_path  # noqa: E402
from igraph_mcp.vocab.testcode import is_test_path  # noqa: E402

INSTANCES = HERE / "instances.jsonl"
MIRRORS = Path(os.environ.get("IGRAPH_MIRRORS") or ROOT.parent / ".mirror")

# Repository -> (language, half, the commit whose history is mined: the mirror's HEAD when the rows were derived, so
# a newer mirror gives the same rows). The halves split by repository; each language has repositories in both.
REPOSITORIES: dict[str, tuple[str, str, str]] = {
    "honojs/hono": ("typescript", "tuning", "28a9c128912de19f3fb28b00ae289c9b93f6f392"),
    "codemirror/view": ("typescript", "tuning", "a0a5ed946cfdfde61dcf33b131d551136378ccf9"),
    "ProseMirror/prosemirror-view": ("typescript", "tuning", "ca4c78e9b56f1b164c0b3758b59d8748f11b7534"),
    "ueberdosis/tiptap": ("typescript", "tuning", "f434577e6bb2010b321653cb132a57bda18764fa"),
    "palantir/blueprint": ("typescript", "tuning", "ee26faf0ad8fe4bfd8ccbecf510d8ab385342003"),
    "jupyterlab/jupyterlab": ("typescript", "tuning", "6ef5a17ad831be80c3e63911b77fa9f8acfcbf50"),
    "pixijs/pixijs": ("typescript", "tuning", "8f42bb760872ed6652775d00a4de448ac277e783"),
    "excalidraw/excalidraw": ("typescript", "tuning", "4872083c044491b6d5c96ae134a75464f96d6831"),
    "tailwindlabs/tailwindcss": ("typescript", "heldout", "90f8ff41c8e2a4d17bc76921e23e9d672123da76"),
    "xtermjs/xterm.js": ("typescript", "heldout", "904ae935269eef5ec6a1415b64463c3d02eff1eb"),
    "ionic-team/stencil": ("typescript", "heldout", "30fc9f5985120e636eec8acbe2253145c97072d9"),
    "jquery/jquery": ("javascript", "tuning", "51eb576cca6ffce252dc152bf8e91d5230a0d887"),
    "Leaflet/Leaflet": ("javascript", "tuning", "c96f31a7a350a07cfbc852cf88e6ca69af5f5ec9"),
    "nodeca/js-yaml": ("javascript", "tuning", "74a01992953302040be3277c08ba214a06f00b87"),
    "handlebars-lang/handlebars.js": ("javascript", "heldout", "13a7a679910d2adbfe7f6fad61ce8f98426b0378"),
    "less/less.js": ("javascript", "heldout", "7499bbd6bfd286e09e851c6ecdcca46c936a5644"),
    "moment/moment": ("javascript", "heldout", "18aba135ab927ffe7f868ee09276979bed6993a6"),
    "mvdan/sh": ("go", "tuning", "40b09e18a8485f01ecbc6e25297265f06bacc39d"),
    "go-git/go-git": ("go", "tuning", "374c354884f12ea0a8f80ae9c429a44a33ba4bb1"),
    "dgraph-io/badger": ("go", "tuning", "34dba21bea3683c83684bb9f40d3495976e2828a"),
    "jackc/pgx": ("go", "heldout", "728cefa8008f2b06aeca071cd3239862aa80f9af"),
    "etcd-io/bbolt": ("go", "heldout", "4e65d8fd8c1f47f9da9baec7f8728f93a3b84a70"),
    "miekg/dns": ("go", "heldout", "fa041eedc7a8991bb4bc515b95bda793f5776b29"),
    "rust-lang/regex": ("rust", "tuning", "2b527599eb9eea0dcc288c704584f242f26a5c61"),
    "chronotope/chrono": ("rust", "heldout", "b04c42fda83ff5fbbad0503ae4325c92edc3c01b"),
    "uutils/coreutils": ("rust", "heldout", "9875296aa186dee5ffa0b575a90f1c6f4545fe35"),
    "square/javapoet": ("java", "tuning", "b9017a9503b76e11b4ad4c1a9f050e2d29112cb0"),
    "google/google-java-format": ("java", "tuning", "ecba4fb24fd064a64d2918c5fdb45546d08e3063"),
    "libuv/libuv": ("c", "heldout", "6179e7af87413396d5853a1c3722c8b5749336c8"),
    # C and C++ tuning repositories added so that a lever's effect on C/C++ is more than one or two rows.
    "CLIUtils/CLI11": ("cpp", "tuning", "c1cfe00d2f3d862aecfe6e69ec810414d5f4c906"),
    "Tencent/rapidjson": ("cpp", "tuning", "24b5e7a8b27f42fa16b96fc70aade9106cf7102f"),
    "p-ranav/argparse": ("cpp", "tuning", "d924b84eba1f0f0adf38b20b7b4829f6f65b6570"),
    "redis/hiredis": ("c", "tuning", "29ea2791c102fdffff350f1ea6e04d1f71903d0d"),
    "libevent/libevent": ("c", "tuning", "0c3e47ad5f654714e39bae3f8689a3446599b614"),
}

EXTENSIONS = {
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".inl", ".h"),
    "java": (".java",),
    "rust": (".rs",),
    "go": (".go",),
    "typescript": (".ts", ".tsx", ".mts", ".cts"),
    "javascript": (".js", ".jsx", ".mjs", ".cjs"),
}
# Folders whose files are never gold: tests, benchmarks, examples, docs, fuzzers, build output.
EXCLUDED_DIRS = frozenset(
    {"test", "tests", "testing", "testdata", "__tests__", "spec", "specs", "fixtures", "bench", "benches"}
    | {"benchmark", "benchmarks", "example", "examples", "doc", "docs", "fuzz", "dist", "build", "scripts", "deno_dist"}
)
MIN_STATEMENT_CHARS = 150
MAX_PATCH_CHARS = 30_000
MAX_GOLD_FILES = 3
CAP_PER_REPOSITORY = 6  # many repositories with a few rows each, so no one code base decides a language
SEED = 11
FUNCTION_KINDS = frozenset({"function", "method"})
SCOPE_KINDS = frozenset({"module", "namespace"})  # left out of a gold function's name, as C++ namespaces are
MASK = "<file>"

_FIX_REF = re.compile(
    r"\b(fix(e[sd])?|close[sd]?|resolve[sd]?)\b\s*:?\s+"
    r"((#|gh-)\d+|https?://github\.com/[\w.-]+/[\w.-]+/issues/\d+|[\w.-]+/[\w.-]+#\d+)",
    re.I,
)
_DIFF_LINE = re.compile(r"^(diff --git |@@ |\+\+\+ |--- a/|index [0-9a-f]+\.\.)")
# A commit that adds tests or coverage: Rust and Go keep tests beside the code, so its "fix" is test code.
_TESTS_SUBJECT = re.compile(
    r"^\W*(add(ed|s)?|improve[sd]?|more|increase[sd]?|extend(ed|s)?)\b[^.]*\btests?\b|\bcoverage\b|"
    r"^\W*tests?\b|^[\w./-]*\btests?\s*:|\b(ignore|skip|disable)[sd]?\b[^.]*\btests?\b",
    re.I,
)
# Build and tool configuration at any depth: no library code an issue is about.
_CONFIG_FILE = re.compile(
    r"(^|/)(gruntfile|gulpfile|jakefile|karma\.conf|[\w-]+\.config|\.eslintrc|\.prettierrc)\.[cm]?[jt]s$", re.I
)
# A line that is only (part of) a comment in the C-family, Go, Rust, Java and JavaScript syntaxes, or blank.
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*|\*/|$)")
_RECORD = "\x1e\x1e"


@dataclass(slots=True)
class Candidate:
    """A commit whose message names the issue it fixes."""

    sha: str
    parent: str
    author: str
    message: str


def statement_of(message: str, gold_files: Iterable[str]) -> str:
    """The commit message as an issue text: title, blank line, body; no trailers, references or diff lines."""
    subject, _ = mc.clean_message(message)
    body: list[str] = []
    text = mc._HTML_COMMENT.sub("", message.replace("\r\n", "\n")).strip()
    for line in text.split("\n")[1:]:
        if mc._RULE.match(line) or mc._TEMPLATE_HEADING.match(line):
            break  # what follows a squash body's rule or a template heading is co-authors and checklists
        if mc._TRAILER.match(line) or mc._REF_LINE.match(line) or mc._CHECKBOX.match(line) or _DIFF_LINE.match(line):
            continue
        plain = mc._INLINE_REF.sub("", line)
        if plain != line:
            plain = re.sub(r"(?<=\S) {2,}", " ", plain)  # the gap a removed reference leaves
        body.append(plain.rstrip())
    body_text = re.sub(r"\n{3,}", "\n\n", "\n".join(body)).strip()
    out = subject + ("\n\n" + body_text if body_text else "")
    # The fix's own file names would hand file-level retrieval its answer; an issue rarely knows them.
    for path in sorted(gold_files, key=len, reverse=True):
        out = out.replace(path, MASK)
        out = re.sub(rf"(?<![\w/.-]){re.escape(path.rsplit('/', 1)[-1])}(?![\w-])", MASK, out)
    return out.strip()


def gold_file_ok(path: str, language: str) -> bool:
    """A non-test, non-generated source file of the row's language outside the excluded folders."""
    parts = path.split("/")
    return (
        path.endswith(EXTENSIONS[language])
        and not path.endswith(".d.ts")  # declarations only; the implementation is elsewhere
        and not is_test_path(path)
        and not path.endswith("Test.java")
        and not any(p.lower() in EXCLUDED_DIRS or p.lower().startswith("dist-") for p in parts[:-1])
        and not mc.is_vendored(path)
        and not mc.is_generated(path)
        and not _CONFIG_FILE.search(path)
    )


def _any_source(path: str) -> bool:
    return any(path.endswith(exts) for exts in EXTENSIONS.values())


def function_names(source: bytes, path: str, ranges: list[tuple[int, int]]) -> list[str]:
    """The innermost named function or method around each changed range of the parent file, as Class.method."""
    language = language_for_path(path)
    if language is None:
        return []
    try:
        symbols = parse_source(source, language, path).symbols  # path: a `.h` that C++ reads better is C++
    except ValueError:
        return []
    callables = [
        i
        for i, s in enumerate(symbols)
        if s.kind in FUNCTION_KINDS and not (s.parent is not None and symbols[s.parent].kind == "interface")
    ]
    names: list[str] = []
    for start, end in ranges:
        # Overlap with [start, end]; an insertion (end = start - 1) asks for a function holding both neighbours.
        inside = [i for i in callables if symbols[i].start_line <= end and symbols[i].end_line >= start]
        outer: set[int] = set()
        for i in inside:
            p = symbols[i].parent
            while p is not None:
                outer.add(p)
                p = symbols[p].parent
        for i in inside:
            if i not in outer and not _is_test_function(symbols, i):
                names.append(_display_name(symbols, i))
    return list(dict.fromkeys(names))


def _is_test_function(symbols: list, i: int) -> bool:  # type: ignore[type-arg]
    """A test beside the code: Rust's ``mod tests`` or a ``test_*`` function (tests are never gold)."""
    if symbols[i].name.startswith("test_"):
        return True
    p = symbols[i].parent
    while p is not None:
        if symbols[p].kind == "namespace" and symbols[p].name in ("test", "tests"):
            return True
        p = symbols[p].parent
    return False


def _display_name(symbols: list, i: int) -> str:  # type: ignore[type-arg]
    qualified = symbols[i].qualified_name
    p = symbols[i].parent
    while p is not None:
        if symbols[p].kind in SCOPE_KINDS and symbols[p].qualified_name:
            return qualified.removeprefix(symbols[p].qualified_name + ".")
        p = symbols[p].parent
    return qualified


def candidates(git_dir: Path, head: str = "HEAD") -> list[Candidate]:
    """Non-merge commits of head's history whose message names a fixed issue, oldest first."""
    fmt = "%x1e%x1e%H%x00%P%x00%an <%ae>%x00%B"
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "log", "--no-merges", f"--format={fmt}", head],
        check=True,
        capture_output=True,
    ).stdout.decode("utf-8", "replace")
    found: list[Candidate] = []
    for record in out.split(_RECORD):
        if not record.strip():
            continue
        sha, parents, author, message = record.split("\0", 3)
        if len(parents.split()) != 1 or mc._BOT.search(author) or not _FIX_REF.search(message):
            continue
        subject = message.strip().split("\n", 1)[0]
        if mc._RELEASE.match(subject) or re.match(r"^\W*revert\b", subject, re.I) or _TESTS_SUBJECT.search(subject):
            continue
        found.append(Candidate(sha, parents.strip(), author, message))
    found.reverse()
    return found


def _patch_chars(git_dir: Path, parent: str, sha: str, paths: list[str]) -> int:
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "diff", "--no-color", "--no-ext-diff", parent, sha, "--", *paths],
        check=True,
        capture_output=True,
    ).stdout
    return len(out.decode("utf-8", "replace"))


def mine_repository(
    repo: str, language: str, half: str, git_dir: Path, why: Counter[str], head: str = "HEAD"
) -> list[dict[str, object]]:
    """Every row the filters keep for one repository, in commit order (before dedupe and cap)."""
    reason = mc.refusal(repo)
    if reason:
        raise SystemExit(reason)
    found = candidates(git_dir, head)
    by_sha = {c.sha: c for c in found}
    rows: list[dict[str, object]] = []
    blobs = mc.BlobReader(git_dir)
    try:
        for commit in mc._stream(git_dir, list(by_sha)):
            if commit is None:
                why["stream_failed"] += 1
                break
            cand = by_sha[commit.sha]
            changed = [f for f in commit.files if not f.binary]
            source = [f for f in changed if _any_source(f.old_path) or _any_source(f.new_path)]
            gold = [f for f in source if f.status in "MR" and gold_file_ok(f.old_path, language)]
            family = {"c", "cpp"} if language in ("c", "cpp") else {language}
            others = [
                f
                for f in source
                if f not in gold
                and f.status != "A"
                and any(gold_file_ok(f.new_path, lang) for lang in EXTENSIONS if lang not in family)
            ]
            if not gold:
                why["no_gold_file"] += 1
                continue
            if others:
                why["other_language"] += 1  # the fix edits sources of another language too: no clean label
                continue
            if len(gold) > MAX_GOLD_FILES:
                why["too_many_files"] += 1
                continue
            if all(_COMMENT_LINE.match(line) for f in gold for line in f.removed + f.added):
                why["comments_only"] += 1  # documentation in the source: no behaviour an issue could report
                continue
            gold_paths = [f.old_path for f in gold]
            statement = statement_of(cand.message, gold_paths)
            if len(statement) < MIN_STATEMENT_CHARS:
                why["short_text"] += 1
                continue
            if (
                _patch_chars(
                    git_dir, cand.parent, cand.sha, sorted({f.old_path for f in gold} | {f.new_path for f in gold})
                )
                > MAX_PATCH_CHARS
            ):
                why["large_patch"] += 1
                continue
            functions: list[str] = []
            for f in gold:
                data = blobs.read(f.old_blob)
                if data is None:
                    continue
                functions += [f"{f.old_path}::{n}" for n in function_names(data, f.old_path, f.ranges)]
            owner, name = repo.split("/")
            rows.append(
                {
                    "instance_id": f"{owner}__{name}-{cand.sha[:10]}",
                    "repo": repo,
                    "language": language,
                    "base_commit": cand.parent,
                    "split": half,
                    "problem_statement": statement,
                    "gold_files": gold_paths,
                    "gold_functions": list(dict.fromkeys(functions)),
                    "source": "commit",
                    "fix_commit": cand.sha,
                }
            )
    finally:
        blobs.close()
    return rows


def pick(rows: list[dict[str, object]], cap: int = CAP_PER_REPOSITORY) -> list[dict[str, object]]:
    """Identical texts kept once; at most cap rows, sampled with a fixed seed over the candidates in commit order."""
    seen: set[str] = set()
    unique = []
    for r in rows:
        key = str(r["problem_statement"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    if len(unique) <= cap:
        return unique
    chosen = set(random.Random(SEED).sample(range(len(unique)), cap))
    return [r for i, r in enumerate(unique) if i in chosen]


def find_mirror(mirrors: Path, repo: str) -> Path | None:
    """The bare mirror of repo under mirrors (``<owner>+<name>/repo`` as fetch leaves it), or None."""
    want = repo.lower().replace("/", "+")
    if mirrors.is_dir():
        for d in sorted(mirrors.iterdir()):
            if d.name.lower() in (want, want + ".git"):
                for g in (d / "repo", d):
                    if (g / "HEAD").is_file() and (g / "objects").is_dir():
                        return g
    return None


def read_instances(path: Path = INSTANCES) -> list[dict[str, object]]:
    """The rows of an instances file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def main(argv: list[str] | None = None) -> int:
    """Mine every listed repository; write, check or survey."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirrors", type=Path, default=MIRRORS)
    ap.add_argument("--out", type=Path, default=INSTANCES)
    ap.add_argument("--repo", action="append", help="only these repositories (owner/name; repeatable)")
    ap.add_argument("--survey", action="store_true", help="print candidate counts and filter reasons only")
    ap.add_argument("--check", action="store_true", help="compare the re-derived rows with --out")
    a = ap.parse_args(argv)
    for repo in REPOSITORIES:
        reason = mc.refusal(repo)
        if reason:
            raise SystemExit(reason)
    mined: list[dict[str, object]] = []
    for repo, (language, half, head) in REPOSITORIES.items():
        if a.repo and repo not in a.repo:
            continue
        git_dir = find_mirror(a.mirrors, repo)
        if git_dir is None:
            raise SystemExit(f"no mirror of {repo} under {a.mirrors}: fetch github:{repo} first, then run again")
        why: Counter[str] = Counter()
        if subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e", head], check=False).returncode:
            raise SystemExit(f"the mirror {git_dir} lacks {head}: fetch github:{repo} again for a newer snapshot")
        rows = mine_repository(repo, language, half, git_dir, why, head)
        kept = pick(rows)
        counts = f"candidates {len(rows):4}  kept {len(kept):3}  {dict(why)}"
        print(f"{repo:36} {language:10} {half:8} {counts}", file=sys.stderr)
        mined += kept
    if a.survey:
        return 0
    old = read_instances(a.out) if a.out.is_file() else []
    if a.check:
        want = {str(r["instance_id"]): r for r in old if r.get("source") == "commit"}
        got = {str(r["instance_id"]): r for r in mined}
        if a.repo:
            want = {k: v for k, v in want.items() if v["repo"] in a.repo}
        diff = sorted(set(want) ^ set(got)) + sorted(k for k in set(want) & set(got) if want[k] != got[k])
        print(f"{len(got)} rows re-derived, {len(diff)} differ" + (f": {diff[:10]}" if diff else ""))
        return 1 if diff else 0
    kept_rows = [r for r in old if r.get("source") != "commit" or (a.repo and r["repo"] not in a.repo)]
    with a.out.open("w") as f:
        for r in kept_rows + mined:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"wrote {len(kept_rows) + len(mined)} rows to {a.out} ({len(mined)} mined)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
