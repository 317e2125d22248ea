"""Mine issue-shaped pairs from git histories: a commit's message -> the files and functions it edited.

    python training/mine_commits.py --all                   # every repos.txt entry found under --mirrors
    python training/mine_commits.py --mirror DIR --repo owner/name
    python training/mine_commits.py --table                 # rewrite training/mined_commits.tsv from the stats

A pair is one non-merge commit reachable from HEAD: its message, cleaned of trailers, PR numbers and issue
references (the query), and what it edited at its parent: the source files, and the definitions whose lines the
change touched, found by the indexer's own parser (``parse_source`` on the parent's file, the language from the
path) with their code at the parent. The parent commit is recorded so a snapshot can be indexed later.

Commits that are no request (merges, bots, releases and version bumps, formatting, vendored or generated code,
test-only or non-source changes, short or chore-like messages, huge changes) are counted by reason, never kept.
Works on a bare mirror (``git log``/``git cat-file`` only). Output goes to ~/.cache/igraph-mcp-train/commits/
(``<owner>+<name>.jsonl`` and ``.stats.json``); a repository whose stats match its HEAD and these settings is
skipped on the next run. The split is by repository: ``sha256(owner/name)`` decides, so no repository is in both.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_SRC = Path(__file__).resolve().parents[1]
if str(_SRC) not in sys.path:
    sys.path.insert(0, str(_SRC))

from igraph_mcp.embed.text import symbol_embedding_text  # noqa: E402
from igraph_mcp.index.parse import parse_source  # noqa: E402
from igraph_mcp.index.rows import first_child_starts, stored_body  # noqa: E402
from igraph_mcp.vocab.languages import language_for_path  # noqa: E402
from igraph_mcp.vocab.testcode import is_test_path  # noqa: E402

CACHE = Path.home() / ".cache" / "igraph-mcp-train" / "commits"
# Where the bare mirrors are: $IGRAPH_MIRRORS, else .mirror/ beside the checkout (where fetch puts them here).
MIRRORS = Path(os.environ.get("IGRAPH_MIRRORS") or Path(__file__).resolve().parents[2] / ".mirror")
REPOS_FILE = Path(__file__).with_name("repos.txt")
PACKAGES_FILE = Path(__file__).with_name("packages.txt")
TABLE_FILE = Path(__file__).with_name("mined_commits.tsv")

MIN_QUERY_WORDS = 5  # subject + body; "Fix typo" or "Update foo.py" say nothing an issue would
MAX_QUERY_WORDS = 300
MAX_SOURCE_FILES = 8  # more: a refactor or a sweep, not one request
MAX_FUNCTIONS = 16
MAX_CHANGED_LINES = 1500
MAX_PARENT_BYTES = 1_000_000  # larger files are generated or data; not parsed
MAX_CODE_CHARS = 12_000  # code of one function kept in a pair
HELDOUT_PERCENT = 10  # of repositories, by hash of the name
MINER_VERSION = 4  # bump when a filter or the output changes: stats of another version are mined again
SETTINGS = f"v{MINER_VERSION}:{MIN_QUERY_WORDS}:{MAX_SOURCE_FILES}:{MAX_FUNCTIONS}:{MAX_CHANGED_LINES}"

# Never mined, by repository or owner name (normalised: lower case, runs of -_. as one "-"): SWE-bench's twelve,
# their forks and plugins; Pallets and Textualize projects; the benchmark web frameworks; the docstring set; the
# projects of other-language benchmarks kept out of every devset and training run (issue 31), and fastify and trpc,
# which issue 31 uses as reference checks. benchmarks/multilang/mine.py refuses by this same list.
_FORBIDDEN_NAMES = (
    r"django(-.*)?|sympy|sphinx(-.*)?|xarray|astropy|pytest(-.*)?|pylint(-.*)?|astroid|requests|flask(-.*)?|"
    r"seaborn|matplotlib|scikit-learn|sklearn|click|jinja|jinja2|werkzeug|itsdangerous|markupsafe|quart|blinker|"
    r"rich|rich-.*|textual|textual-.*|express|koa|gin|cobra|zod|httpx|marshmallow|arrow|pip|pipenv|"
    r"ripgrep|bat|fd|tokio|tracing|bytes|axios|dayjs|github-readme-stats|gson|jackson-core|jackson-databind|"
    r"jackson-dataformat-xml|mockito|grpc-go|go-zero|darkreader|insomnia|jq|fmt|fastify|trpc"
)
FORBIDDEN = re.compile(rf"^(?:{_FORBIDDEN_NAMES})$")
FORBIDDEN_OWNERS = frozenset({"pallets", "pallets-eco", "textualize", "pytest-dev", "django", "sympy", "sphinx-doc"})

VENDOR_DIRS = frozenset(
    {"vendor", "vendored", "_vendor", "third_party", "thirdparty", "third-party", "extern", "_extern"}
    | {"node_modules", "bower_components"}
)
_GENERATED = re.compile(
    r"(^|/)(generated|_generated|__generated__|autogen)/|_pb2(_grpc)?\.pyi?$|\.pb(\.gw)?\.go$|"
    r"(^|/)zz_generated[^/]*$|_gen(erated)?\.(go|py|ts|js|rs)$|\.min\.js$|\.bundle\.js$|\.generated\.\w+$"
)
DOC_DIRS = frozenset({"doc", "docs", "documentation", "website"})  # their .py is Sphinx configuration, no target
_TEMPLATE_HEADING = re.compile(
    r"^\s*#+\s*(checklist|pr checklist|changelog|type of change|types? of changes|how has this been tested|"
    r"screenshots?|related issues?|test plan|testing|checks|notes? for reviewers?|before submitting)\b",
    re.I,
)
_BOT = re.compile(r"\[bot\]|^(dependabot|renovate|pre-commit-ci|github-actions|greenkeeper|snyk-bot|mergify)", re.I)
_RELEASE = re.compile(
    r"^\W*(v?\d+(\.\d+)+\S*$|(release|releasing|prepare|preparing|cut|tag)\b.*\d|bump\b|version\b.*\d|"
    r"update (the )?(changelog|version|history|news|authors)|changelog\b|\[release\]|publish\b)",
    re.I,
)
_NOT_REQUEST = re.compile(
    r"^\W*(merge\b|revert\b|wip\b|fixup!|squash!|amend!|initial commit|typos?\b|fix typos?|spelling|lint\b|fmt\b|"
    r"format\b|reformat|run (black|prettier|ruff|isort|gofmt|rustfmt)|apply (black|prettier|ruff|formatter)|"
    r"\[pre-commit\.ci\]|pre-commit autoupdate|update pre-commit|(chore|ci|build|style|release)(\([^)]*\))?!?:|"
    r"deps?\b|update dependenc|upgrade dependenc|\[skip ci\]|\[ci skip\])",
    re.I,
)
_VERSION_LINE = re.compile(r"""^\s*["']?(__version__|version|VERSION|Version)["']?\s*[:=]\s*\S+""")

_TRAILER = re.compile(
    r"^\s*(signed-off-by|co-authored-by|authored[- ]by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|"
    r"helped-by|"
    r"change-id|cc|reviewed-on|approved-by|merged-by|pr-url|pr|pull-request|differential revision|"
    r"fixes|fixed|closes|closed|resolves|resolved|refs?|see|related|part of|issue|bug|ghstack-source-id)\s*:.*$",
    re.I,
)
_REF_LINE = re.compile(
    r"^\s*[-*]?\s*(fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see|related to|part of)\s+"
    r"((#|gh-)\d+|https?://\S+|[\w.-]+/[\w.-]+#\d+)[\s,.;]*(and\s+)?((#|gh-)\d+[\s,.;]*)*$",
    re.I,
)
_INLINE_REF = re.compile(
    r"\b(fix(es|ed)?|close[sd]?|resolve[sd]?)\s+((#|gh-)\d+|[\w.-]+/[\w.-]+#\d+)\b[.,;]?|"
    r"\(\s*((#|gh-)\d+|[\w.-]+/[\w.-]+#\d+)(\s*,\s*((#|gh-)\d+|[\w.-]+/[\w.-]+#\d+))*\s*\)|"
    r"(?<![\w&])([\w.-]+/[\w.-]+)?#\d+\b|\bgh-\d+\b|https?://github\.com/\S+/(issues|pull)/\d+\S*",
    re.I,
)
_CONVENTIONAL = re.compile(r"^(feat|feature|fix|bugfix|bug|docs?|refactor|perf|test|tests|types?)(\(([^)]*)\))?!?:\s*")
_GITMOJI = re.compile(r"^(:[a-z0-9_+-]+:\s*|[\u2190-\u2bff\u2600-\u27bf\U0001f000-\U0001faff]\ufe0f?\s*)+")
_CHECKBOX = re.compile(r"^\s*[-*]\s*\[[ xX]\]")
_RULE = re.compile(r"^\s*(-{3,}|\*{3,}|_{3,}|={3,})\s*$")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HUNK = re.compile(rb"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_WS = re.compile(r"\s+")
_FORMAT_NOISE = re.compile(r"[\s;]|,(?=[)\]}])|,$")


def normalise_name(name: str) -> str:
    """Lower case, runs of ``-_.`` as one ``-``: the form names are compared in."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _package_names(path: Path = PACKAGES_FILE) -> frozenset[str]:
    """The docstring tuning set's packages (packages.txt), with the usual repository spellings of each."""
    names: set[str] = set()
    if path.is_file():
        for line in path.read_text().splitlines():
            line = line.strip()
            if line and not line.startswith("#"):
                name = normalise_name(line.split("==")[0])
                names |= {name, name.removeprefix("python-"), name.removesuffix("4"), name + "-py", "py" + name}
    return frozenset(names)


def refusal(repo: str) -> str | None:
    """Why a repository must not be mined (a benchmark project, its family, or the docstring set); None if allowed."""
    owner, _, name = repo.strip().partition("/")
    if not owner or not name:
        return f"{repo!r} is not owner/name"
    o, n = normalise_name(owner), normalise_name(name.removesuffix(".git"))
    if o in FORBIDDEN_OWNERS or FORBIDDEN.match(n):
        return f"{repo} is a benchmark project or of its family; it must not be mined"
    if n in _package_names():
        return f"{repo} is in training/packages.txt (the docstring set); it must not be mined"
    return None


def split_of(repo: str) -> str:
    """'heldout' for HELDOUT_PERCENT of repositories by the hash of the name, else 'train'."""
    h = int(hashlib.sha256(repo.lower().encode()).hexdigest()[:8], 16)
    return "heldout" if h % 100 < HELDOUT_PERCENT else "train"


def clean_message(message: str) -> tuple[str, str]:
    """(subject, body) of a commit message without trailers, PR numbers, issue references or template noise."""
    text = _HTML_COMMENT.sub("", message.replace("\r\n", "\n"))
    lines = text.strip().split("\n")
    subject = lines[0].strip() if lines else ""
    subject = _GITMOJI.sub("", subject)
    m = _CONVENTIONAL.match(subject)
    if m:
        subject = (m.group(3) + ": " if m.group(3) else "") + subject[m.end() :]
    subject = _WS.sub(" ", _INLINE_REF.sub("", subject)).strip(" -:")
    body: list[str] = []
    for line in lines[1:]:
        if _RULE.match(line) or _TEMPLATE_HEADING.match(line):
            break  # a squash body's "----" precedes co-author trailers and PR templates
        if _TRAILER.match(line) or _REF_LINE.match(line) or _CHECKBOX.match(line):
            continue
        body.append(_INLINE_REF.sub("", line))
    body_text = _WS.sub(" ", " ".join(body)).strip()
    if body_text and normalise_name(body_text) == normalise_name(subject):
        body_text = ""
    return subject, body_text


def message_filter(subject: str, body: str, author: str, raw_subject: str) -> str | None:
    """The message-level reason a commit is no request, or None."""
    if _BOT.search(author):
        return "bot"
    if _RELEASE.match(raw_subject) or _RELEASE.match(subject):
        return "release"
    if _NOT_REQUEST.match(raw_subject) or _NOT_REQUEST.match(subject):
        return "not_request"
    if len(f"{subject} {body}".split()) < MIN_QUERY_WORDS:
        return "short_message"
    return None


def query_text(subject: str, body: str) -> str:
    """Subject and body as one search text, at most MAX_QUERY_WORDS words."""
    words = (subject + (". " + body if body else "")).split()
    return " ".join(words[:MAX_QUERY_WORDS])


def is_vendored(path: str) -> bool:
    """A path under a directory of someone else's code."""
    return any(p.lower() in VENDOR_DIRS for p in path.split("/")[:-1])


def is_generated(path: str) -> bool:
    """A path the usual generators write (protobuf, bundles, generated/ directories, *_generated files)."""
    return bool(_GENERATED.search(path))


@dataclass(slots=True)
class FileDiff:
    """One file of a commit's -U0 diff: paths, blobs, and the parent's changed line ranges."""

    old_path: str
    new_path: str
    old_blob: str = ""
    status: str = "M"  # A, D, M, R
    ranges: list[tuple[int, int]] = field(default_factory=list)  # parent lines [start, end]; end < start: insertion
    removed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    binary: bool = False


@dataclass(slots=True)
class Commit:
    """A commit of the log stream with its per-file diffs."""

    sha: str
    parents: list[str]
    author: str
    date: str
    message: str
    patch: bytes = b""
    missing: bool = False  # its diff needs a blob the mirror lacks

    @property
    def files(self) -> list[FileDiff]:
        """The per-file diffs, parsed on first use (most commits are refused by their message alone)."""
        if self._files is None:
            self._files = _parse_patch(self.patch)
        return self._files

    _files: list[FileDiff] | None = None


def formatting_only(f: FileDiff) -> bool:
    """The change only moves whitespace, trailing commas, semicolons or quote style (what formatters do)."""

    def norm(lines: list[str]) -> str:
        return _FORMAT_NOISE.sub("", "".join(_WS.sub("", ln) for ln in lines).replace("'", '"'))

    return norm(f.removed) == norm(f.added)


def version_only(f: FileDiff) -> bool:
    """Every changed line sets a version."""
    changed = [ln for ln in f.removed + f.added if ln.strip()]
    return bool(changed) and all(_VERSION_LINE.match(ln) for ln in changed)


_RECORD = b"\0\x1e\x1e\0"  # starts each commit; %P is empty for a root commit, so "\0\0" would not do
_FORMAT = "%x00%x1e%x1e%x00%H%x00%P%x00%an <%ae>%x00%cI%x00%B%x00"


def _unquote(path: bytes) -> str:
    text = path.decode("utf-8", "replace")  # a non-UTF-8 name cannot go into the JSON lines
    if text.startswith('"') and text.endswith('"'):  # git quotes odd names: C escapes, octal UTF-8 bytes
        try:
            raw = text[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
        except UnicodeError:
            return text[1:-1]
        text = raw.decode("utf-8", "replace")
    return text


def _strip_prefix(path: str, prefix: str) -> str:
    return path[len(prefix) :] if path.startswith(prefix) else path


LOG_BATCH = 2000  # commits per `git log --stdin` stream


def iter_log(git_dir: Path, max_commits: int) -> Iterator[Commit]:
    """Every commit reachable from HEAD (newest first, at most max_commits) with its -U0 diff to its first parent.

    Streamed ``git log -p`` over batches of ``git rev-list``: a process per commit would cost more than the parsing.
    A mirror can lack large blobs (fetch leaves out files of 4 MiB and more), and git stops at the first commit
    whose diff needs one: that commit comes back with ``missing=True`` and the stream restarts after it.
    """
    cmd = ["git", "-C", str(git_dir), "rev-list", *([f"-n{max_commits}"] if max_commits > 0 else []), "HEAD"]
    shas = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split()
    i = 0
    while i < len(shas):
        batch = shas[i : i + LOG_BATCH]
        done = 0
        ok = True
        for c in _stream(git_dir, batch):
            if c is None:
                ok = False
                break
            done += 1
            yield c
        if ok or done >= len(batch):
            i += len(batch)
        else:
            yield Commit(batch[done], [], "", "", "", missing=True)
            i += done + 1


def _stream(git_dir: Path, shas: list[str]) -> Iterator[Commit | None]:
    """The commits of one ``git log --no-walk --stdin`` run, in the given order; None last if git failed."""
    cmd = ["git", "-C", str(git_dir), "-c", "core.quotepath=off", "log", "-p", "-U0", "--full-index", "-M"]
    cmd += ["--no-color", "--no-ext-diff", "--no-textconv", "--diff-merges=off", f"--format={_FORMAT}"]
    cmd += ["--no-walk=unsorted", "--stdin"]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(sha + "\n" for sha in shas).encode())
    proc.stdin.close()
    pieces: list[bytes] = []
    try:
        while data := proc.stdout.read(1 << 20):
            # Join only when a record mark may have arrived: one commit's patch can be hundreds of megabytes.
            tail = pieces[-1][-len(_RECORD) :] if pieces else b""
            pieces.append(data)
            if _RECORD not in tail + data:
                continue
            *chunks, rest = b"".join(pieces).split(_RECORD)
            pieces = [rest]
            yield from (_commit(ch) for ch in chunks if ch)
        rest = b"".join(pieces)
    finally:
        proc.stdout.close()
        rc = proc.wait()
    if rc != 0:
        yield None  # the last record is the commit git could not finish: not yielded
    elif rest:
        yield _commit(rest)


def _commit(chunk: bytes) -> Commit:
    sha, parents, author, date, message, patch = chunk.split(b"\0", 5)
    c = Commit(sha.decode(), parents.decode().split(), author.decode("utf-8", "replace"), date.decode(), "")
    c.message = message.decode("utf-8", "replace")
    c.patch = patch
    return c


def _parse_patch(patch: bytes) -> list[FileDiff]:
    files: list[FileDiff] = []
    cur: FileDiff | None = None
    for line in patch.split(b"\n"):
        if line.startswith(b"diff --git "):
            cur = FileDiff("", "")
            files.append(cur)
        elif cur is None:
            continue
        elif line.startswith(b"@@"):
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                cur.ranges.append((start, start + count - 1) if count else (start + 1, start))
        elif line.startswith(b"-") and not line.startswith(b"--- "):
            cur.removed.append(line[1:].decode("utf-8", "replace"))
        elif line.startswith(b"+") and not line.startswith(b"+++ "):
            cur.added.append(line[1:].decode("utf-8", "replace"))
        elif line.startswith(b"--- "):
            cur.old_path = "" if line[4:] == b"/dev/null" else _strip_prefix(_unquote(line[4:]), "a/")
        elif line.startswith(b"+++ "):
            cur.new_path = "" if line[4:] == b"/dev/null" else _strip_prefix(_unquote(line[4:]), "b/")
        elif line.startswith(b"rename from "):
            cur.old_path, cur.status = _unquote(line[12:]), "R"
        elif line.startswith(b"rename to "):
            cur.new_path = _unquote(line[10:])
        elif line.startswith(b"new file mode"):
            cur.status = "A"
        elif line.startswith(b"deleted file mode"):
            cur.status = "D"
        elif line.startswith(b"index "):
            cur.old_blob = line[6:].split(b"..")[0].decode()
        elif line.startswith(b"Binary files"):
            cur.binary = True
    for f in files:
        f.old_path = f.old_path or f.new_path
        f.new_path = f.new_path or f.old_path
    return files


class BlobReader:
    """One ``git cat-file --batch`` process for the parent versions of files."""

    def __init__(self, git_dir: Path) -> None:
        self._proc = subprocess.Popen(
            ["git", "-C", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )

    def read(self, blob: str) -> bytes | None:
        """The blob's bytes, or None when it is missing or not a blob."""
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(blob.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline().split()
        if len(header) != 3:
            return None
        data = self._proc.stdout.read(int(header[2]) + 1)[:-1]
        return data if header[1] == b"blob" else None

    def close(self) -> None:
        """End the process."""
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()


def issue_text(rec: dict[str, object]) -> str:
    """The query as an issue is written: the cleaned subject as its title line, the body below it (the miner
    joined them into one line; the service reads a title line and a body as issue-shaped)."""
    query, subject = str(rec["query"]), str(rec.get("subject") or "")
    if subject and query.startswith(subject + ". "):
        return subject + "\n\n" + query[len(subject) + 2 :]
    return query


def edited_definitions(source: bytes, path: str, ranges: list[tuple[int, int]]) -> list[dict[str, object]]:
    """The innermost definitions of the parent file whose lines the change touched, with their parent code.

    A changed range [a, b] touches every definition overlapping it; an insertion between lines a-1 and a touches
    the definitions that hold both lines (code added inside a body, not a new definition between two others).
    """
    language = language_for_path(path)
    if language is None:
        return []
    try:
        pf = parse_source(source, language)
    except ValueError:
        return []
    syms = pf.symbols
    first_child = first_child_starts(syms, source)
    hit: set[int] = set()
    for start, end in ranges:
        # Overlap with [start, end]; for an insertion (end = start - 1) this asks for both neighbouring lines.
        inside = [i for i, sym in enumerate(syms) if i and sym.start_line <= end and sym.end_line >= start]
        # Innermost only: drop a definition whose child is also touched by the same range.
        parents = {syms[i].parent for i in inside}
        hit.update(i for i in inside if i not in parents)
    out: list[dict[str, object]] = []
    for i in sorted(hit, key=lambda k: syms[k].start_byte):
        s = syms[i]
        code = source[s.start_byte : s.end_byte].decode("utf-8", "replace")
        out.append(
            {
                "path": path,
                "qualified_name": s.qualified_name,
                "name": s.name,
                "kind": s.kind,
                "start_line": s.start_line,
                "end_line": s.end_line,
                "code": code[:MAX_CODE_CHARS],
                # What the index embeds for this definition (the dense channel's document, for training the model).
                "text": symbol_embedding_text(
                    kind=s.kind,
                    name=s.name,
                    qualified_name=s.qualified_name,
                    path=path,
                    signature=s.signature,
                    docstring=s.docstring,
                    body=stored_body(source, s, first_child.get(i)),
                ),
            }
        )
    return out


def _is_source(path: str) -> bool:
    return bool(path) and language_for_path(path) is not None and not DOC_DIRS.intersection(path.split("/")[:-1])


def classify(c: Commit) -> tuple[str | None, list[FileDiff], list[str]]:
    """(reason the diff is no request or None, the non-test source files to map, the test files touched)."""
    changed = [f for f in c.files if not f.binary and (f.ranges or f.status in "AD")]
    source = [f for f in changed if _is_source(f.new_path) or _is_source(f.old_path)]
    if not source:
        return ("rename_only" if c.files and all(f.status == "R" for f in c.files) else "no_source"), [], []
    if any(is_vendored(f.old_path) or is_vendored(f.new_path) for f in source):
        return "vendored", [], []
    if all(is_generated(f.new_path) for f in source):
        return "generated", [], []
    source = [f for f in source if not is_generated(f.new_path)]
    tests = [f.new_path for f in source if is_test_path(f.new_path) or is_test_path(f.old_path)]
    code = [f for f in source if not (is_test_path(f.new_path) or is_test_path(f.old_path))]
    if not code:
        return "test_only", [], tests
    if all(f.status == "M" or f.status == "R" for f in code) and all(formatting_only(f) for f in code):
        return "formatting_only", [], tests
    if all(version_only(f) for f in code):
        return "version_bump", [], tests
    if len(code) > MAX_SOURCE_FILES or sum(len(f.removed) + len(f.added) for f in code) > MAX_CHANGED_LINES:
        return "too_large", [], tests
    return None, code, tests


def mine_commit(c: Commit, blobs: BlobReader) -> tuple[str | None, dict[str, object] | None]:
    """(filter reason, None) or (None, the pair) for one commit."""
    if c.missing:
        return "missing_blob", None
    if len(c.parents) != 1:
        return ("merge" if len(c.parents) > 1 else "root"), None
    raw_subject = c.message.strip().split("\n", 1)[0]
    subject, body = clean_message(c.message)
    reason = message_filter(subject, body, c.author, raw_subject)
    if reason:
        return reason, None
    reason, code, tests = classify(c)
    if reason:
        return reason, None
    files: list[dict[str, object]] = []
    functions: list[dict[str, object]] = []
    for f in code:
        files.append({"path": f.new_path, "parent_path": f.old_path if f.status != "A" else None, "status": f.status})
        if f.status in "AD" or not f.old_blob.strip("0"):
            continue  # a new file has no parent code; a deleted one would name every definition it held
        source = blobs.read(f.old_blob)
        if source is None or len(source) > MAX_PARENT_BYTES:
            continue
        functions.extend(edited_definitions(source, f.old_path, f.ranges))
    if len(functions) > MAX_FUNCTIONS:
        return "too_large", None
    return None, {
        "commit": c.sha,
        "parent": c.parents[0],
        "date": c.date,
        "subject": subject,
        "query": query_text(subject, body),
        "files": files,
        "functions": functions,
        "test_files": tests,
    }


def mine_repo(git_dir: Path, repo: str, out_dir: Path, max_commits: int = 0, force: bool = False) -> dict[str, object]:
    """Mine one repository into out_dir/<owner>+<name>.jsonl; returns (and stores) its stats."""
    why = refusal(repo)
    if why:
        raise SystemExit(why)
    stem = repo.replace("/", "+")
    stats_path = out_dir / f"{stem}.stats.json"
    head = subprocess.run(
        ["git", "-C", str(git_dir), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    settings = f"{SETTINGS}:{max_commits}"
    if stats_path.is_file() and not force:
        old = json.loads(stats_path.read_text())
        if old.get("head") == head and old.get("settings") == settings:
            return dict(old)
    counts: Counter[str] = Counter()
    seen: set[tuple[str, tuple[str, ...]]] = set()
    split = split_of(repo)
    out_dir.mkdir(parents=True, exist_ok=True)
    part = out_dir / f"{stem}.jsonl.part"
    blobs = BlobReader(git_dir)
    kept = n_functions = n_commits = 0
    oldest = newest = ""
    try:
        with part.open("w") as sink:
            for c in iter_log(git_dir, max_commits):
                n_commits += 1
                oldest = c.sha
                newest = newest or c.sha
                reason, pair = mine_commit(c, blobs)
                if pair is not None:
                    key = (str(pair["query"]).lower(), tuple(sorted(str(f["path"]) for f in pair["files"])))  # type: ignore[attr-defined]
                    if key in seen:  # cherry-picks and re-applied commits
                        reason, pair = "duplicate", None
                    else:
                        seen.add(key)
                if pair is None:
                    counts[reason or "unknown"] += 1
                    continue
                kept += 1
                n_functions += bool(pair["functions"])
                sink.write(json.dumps({"repository": repo, "split": split, **pair}, ensure_ascii=False) + "\n")
    finally:
        blobs.close()
    part.replace(out_dir / f"{stem}.jsonl")
    stats: dict[str, object] = {
        "repository": repo,
        "head": head,
        "settings": settings,
        "split": split,
        "oldest": oldest,
        "newest": newest,
        "commits": n_commits,
        "kept": kept,
        "with_functions": n_functions,
        "filtered": dict(sorted(counts.items())),
    }
    stats_path.write_text(json.dumps(stats, indent=1) + "\n")
    return stats


def listed_repos(path: Path = REPOS_FILE) -> list[str]:
    """owner/name entries of repos.txt; refuses the whole list if one entry is forbidden."""
    repos = [ln.strip() for ln in path.read_text().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for repo in repos:
        why = refusal(repo)
        if why:
            raise SystemExit(f"{path.name}: {why}")
    return repos


def mirror_dir(repo: str, mirrors: Path = MIRRORS) -> Path | None:
    """The git directory fetch left for a repository, or None."""
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo" / ".git", base / "repo", base):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


REASONS = (
    "merge", "root", "bot", "release", "not_request", "short_message", "no_source", "rename_only", "vendored",
    "generated", "test_only", "formatting_only", "version_bump", "too_large", "duplicate", "missing_blob",
)  # fmt: skip


def write_table(stats_dir: Path, table: Path = TABLE_FILE) -> int:
    """Write the per-repository table (range, pairs, filter counts) from the stats files; returns pairs kept."""
    rows = [json.loads(p.read_text()) for p in sorted(stats_dir.glob("*.stats.json"))]
    head = ["repository", "split", "oldest", "newest", "commits", "kept", "with_functions", *REASONS]
    lines = ["\t".join(head)]
    total: Counter[str] = Counter()
    for r in sorted(rows, key=lambda r: r["repository"].lower()):
        f = r["filtered"]
        lines.append(
            "\t".join(
                [r["repository"], r["split"], r["oldest"][:12], r["newest"][:12]]
                + [str(r[k]) for k in ("commits", "kept", "with_functions")]
                + [str(f.get(k, 0)) for k in REASONS]
            )
        )
        total.update({k: r[k] for k in ("commits", "kept", "with_functions")})
        total.update(f)
    lines.append("\t".join([f"TOTAL ({len(rows)} repositories)", "", "", ""] + [str(total[k]) for k in head[4:]]))
    table.write_text("\n".join(lines) + "\n")
    return total["kept"]


def main(argv: list[str] | None = None) -> int:
    """Command line: mine one mirror, every listed mirror, or rewrite the table."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mirror", type=Path, help="a git directory (bare or not)")
    ap.add_argument("--repo", help="its owner/name")
    ap.add_argument("--all", action="store_true", help="every repos.txt entry whose mirror is under --mirrors")
    ap.add_argument("--mirrors", type=Path, default=MIRRORS)
    ap.add_argument("--repos", type=Path, default=REPOS_FILE)
    ap.add_argument("--out", type=Path, default=CACHE)
    ap.add_argument("--max-commits", type=int, default=0, help="newest N commits of each repository (0: all)")
    ap.add_argument("--force", action="store_true", help="mine again even when the stats are current")
    ap.add_argument("--table", action="store_true", help="rewrite training/mined_commits.tsv from the stats")
    args = ap.parse_args(argv)
    todo: list[tuple[str, Path]] = []
    if args.mirror or args.repo:
        if not (args.mirror and args.repo):
            ap.error("--mirror and --repo go together")
        todo.append((args.repo, args.mirror))
    if args.all:
        # In hash order, so an interrupted run has sampled every language of the list, not only its first section.
        for repo in sorted(listed_repos(args.repos), key=lambda r: hashlib.sha256(r.encode()).hexdigest()):
            git_dir = mirror_dir(repo, args.mirrors)
            if git_dir is not None:
                todo.append((repo, git_dir))
    for repo, git_dir in todo:
        why = refusal(repo)
        if why:
            raise SystemExit(why)
        s = mine_repo(git_dir, repo, args.out, args.max_commits, args.force)
        print(f"{repo:45s} {s['kept']:6d} kept of {s['commits']:6d} commits", flush=True)
    if args.table:
        print(f"{write_table(args.out)} pairs -> {TABLE_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
