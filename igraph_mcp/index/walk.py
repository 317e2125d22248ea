"""Repository walker: ignore rules, default excludes, file filters and safe symlink handling.

Ignore precedence, highest first (the first layer with a matching pattern decides):
  1. ``extra_ignores`` (root-relative gitignore lines, e.g. from the config),
  2. ``.igraphignore`` files, deepest directory first,
  3. ``.gitignore`` files, deepest directory first, then ``.git/info/exclude``.
So an ``.igraphignore`` can both hide tracked files from the index and re-include (``!dist/``) what git
ignores or what the default excludes would drop. Inside one file the last matching pattern wins; patterns are read
and matched exactly as git does (ignore_patterns.py; tests/test_gitignore_parity.py checks against `git ls-files`).
An ignored directory is never entered; git cannot re-include a file below an excluded directory either, but a
directory re-included by name or by "!*/" is entered, so `*`, `!*.*`, `!*/` keeps every file with a dot.

Directories are skipped (and counted once, not per file inside). Content reached through a symlink is
indexed once: under its real path when that is walked, otherwise under the first link path in walk order.
"""

from __future__ import annotations

import collections
import errno
import itertools
import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from igraph_mcp.errors import InvalidInput
from igraph_mcp.index.ignore_patterns import IgnorePattern, PatternList, read_patterns
from igraph_mcp.index.sniff import (
    BINARY_SNIFF_BYTES,
    MINIFIABLE_SUFFIXES,
    MINIFIED_SAMPLE_BYTES,
    binary_sign,
    is_minified_name,
    minified_sign,
)
from igraph_mcp.paths import is_inside
from igraph_mcp.vocab.skips import SkippedPath, byte_size, is_file_reason

# Never entered, whatever an ignore file says: VCS internals and our own index.
ALWAYS_EXCLUDED_DIRS = frozenset({".git", ".hg", ".svn", ".igraph"})

# Dependency, tool-cache and build-output directories; an ignore file can re-include one with "!name/".
DEFAULT_EXCLUDED_DIRS = ALWAYS_EXCLUDED_DIRS | frozenset(
    {
        "node_modules",
        "bower_components",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "dist",
        "build",
        "target",
        "out",
        ".next",
        ".nuxt",
        "coverage",
        ".gradle",
        ".idea",
        ".vscode",
        "vendor",
        "Pods",
        ".eggs",
        "site-packages",
    }
)
DEFAULT_EXCLUDED_SUFFIXES = (".egg-info",)
# A directory holding this file is a virtualenv (covers "env", "myenv", ...), whatever its name.
VENV_MARKER = "pyvenv.cfg"

_MAX_IGNORE_FILE_BYTES = 1_000_000
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
_MAX_EXAMPLES = 5


@dataclass(frozen=True, slots=True)
class WalkedFile:
    """A file accepted for indexing."""

    path: str  # POSIX path relative to the root, e.g. "pkg/mod.py"
    abs_name: str  # the file's absolute path (a Path only when asked for: 18k of them cost 0.3 s a walk)
    size: int
    mtime_ns: int
    language: str

    @property
    def abs_path(self) -> Path:
        """The file's absolute path."""
        return Path(self.abs_name)


@dataclass(slots=True)
class WalkResult:
    """Accepted files (sorted by path) and every skip, counted by reason; the skips a user is told about file by
    file (vocab/skips.FILE_REASONS) are also listed whole, with a detail each."""

    files: list[WalkedFile] = field(default_factory=list)
    skipped: collections.Counter[str] = field(default_factory=collections.Counter)
    skipped_examples: dict[str, list[str]] = field(default_factory=dict)
    skipped_files: list[SkippedPath] = field(default_factory=list)
    # Paths left out by each ignore line ("pkg/.gitignore:3: *.gen.go"), so an empty walk can say which rule did it.
    ignored_by: collections.Counter[str] = field(default_factory=collections.Counter)

    def skip(self, reason: str, path: str, detail: str = "", rule: str = "") -> None:
        """Count one skipped file or directory, keep a few example paths per reason, and list a file-level skip."""
        self.skipped[reason] += 1
        if rule:
            self.ignored_by[rule] += 1
        examples = self.skipped_examples.setdefault(reason, [])
        if len(examples) < _MAX_EXAMPLES:
            examples.append(path)
        if is_file_reason(reason):
            self.skipped_files.append(SkippedPath(path, reason, detail))


@dataclass(frozen=True, slots=True)
class _Layer:
    """The patterns of one ignore file, applying to paths below ``base`` ("" = the root)."""

    base: str
    patterns: PatternList
    reason: str

    def check(self, rel: str, is_dir: bool) -> IgnorePattern | None:
        """The pattern of this file that decides for ``rel`` (negative = re-included), or None."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1 :]
        return self.patterns.last_match(rel, is_dir)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the ignore files say about one path: ``ignored`` True / False (re-included) / None (no pattern)."""

    ignored: bool | None
    reason: str = ""  # "gitignored" or "igraphignored": the kind of file that decided
    rule: str = ""  # the deciding line, e.g. "pkg/.gitignore:3: *.gen.go"


_UNDECIDED = Verdict(None)


@dataclass(frozen=True, slots=True)
class IgnoreRules:
    """The ignore layers in force in one directory; immutable so subdirectories can share a parent's."""

    git: tuple[_Layer, ...] = ()
    igraph: tuple[_Layer, ...] = ()
    extra: _Layer | None = None

    def decide(self, rel: str, is_dir: bool) -> Verdict:
        """The first layer with a matching pattern decides (extra lines, .igraphignore, .gitignore, info/exclude)."""
        extra = (self.extra,) if self.extra is not None else ()
        for layer in itertools.chain(extra, reversed(self.igraph), reversed(self.git)):
            pattern = layer.check(rel, is_dir)
            if pattern is not None:
                rule = f"{layer.patterns.source}:{pattern.line}: {pattern.text}"
                return Verdict(not pattern.negative, layer.reason, rule)
        return _UNDECIDED

    def nested(self, base: str, gitignore: PatternList | None, igraphignore: PatternList | None) -> IgnoreRules:
        """Rules for a directory that has its own ignore files (each argument None when absent)."""
        git, igraph = self.git, self.igraph
        if gitignore is not None:
            git = (*git, _Layer(base, gitignore, "gitignored"))
        if igraphignore is not None:
            igraph = (*igraph, _Layer(base, igraphignore, "igraphignored"))
        return IgnoreRules(git, igraph, self.extra)


def compile_ignore_lines(lines: Iterable[str], source: str = "index.exclude") -> PatternList | None:
    """Compile gitignore lines as git does; None when they hold no pattern (a bad one simply never matches)."""
    return read_patterns("\n".join(lines), source)


def _read_ignore_file(directory: str, name: str, names: set[str] | None = None, source: str = "") -> PatternList | None:
    """Read and compile one ignore file; unreadable or absent gives None (git ignores it too)."""
    if names is not None and name not in names:
        return None  # known absent from the listing: spare the failed open
    path = os.path.join(directory, name)
    try:
        with open(path, "rb") as handle:
            data = handle.read(_MAX_IGNORE_FILE_BYTES)
    except OSError:
        return None
    return read_patterns(data.decode("utf-8", errors="replace"), source or name)


def _git_info_exclude(root: str) -> str | None:
    """Path of the repository's info/exclude, also for worktrees and submodules where .git is a file."""
    dot_git = os.path.join(root, ".git")
    if os.path.isdir(dot_git):
        return os.path.join(dot_git, "info", "exclude")
    try:
        with open(dot_git, encoding="utf-8", errors="replace") as handle:
            first = handle.readline().strip()
    except OSError:
        return None
    if not first.startswith("gitdir:"):
        return None
    gitdir = os.path.join(root, first.removeprefix("gitdir:").strip())
    # Linked worktrees keep info/exclude in the common directory named by "commondir".
    try:
        with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
            gitdir = os.path.join(gitdir, handle.read().strip())
    except OSError:
        pass  # no commondir file: a submodule or plain gitdir link; info/ is in gitdir itself
    return os.path.join(gitdir, "info", "exclude")


def root_rules(root: str, extra_ignores: Sequence[str] = ()) -> IgnoreRules:
    """Ignore rules in force at the root before its own ignore files: info/exclude and extra lines."""
    exclude_path = _git_info_exclude(root)
    info = _read_ignore_file(*os.path.split(exclude_path), source=".git/info/exclude") if exclude_path else None
    extra = compile_ignore_lines(extra_ignores)
    return IgnoreRules(
        git=(_Layer("", info, "gitignored"),) if info is not None else (),
        extra=_Layer("", extra, "igraphignored") if extra is not None else None,
    )


def _in(directory: str, name: str) -> str:
    return f"{directory}/{name}" if directory else name


def is_default_excluded_dir(name: str) -> bool:
    """True for dependency, cache and build-output directory names skipped by default."""
    return name in DEFAULT_EXCLUDED_DIRS or name.endswith(DEFAULT_EXCLUDED_SUFFIXES)


def _is_utf8_name(name: str) -> bool:
    # Undecodable bytes in a file name come back as lone surrogates; they cannot be stored as UTF-8.
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _list_dir(path: str) -> list[os.DirEntry[str]]:
    """Directory entries sorted by name, for a deterministic walk."""
    with os.scandir(path) as entries:
        return sorted(entries, key=lambda entry: entry.name)


def _read_head(path: str, limit: int = BINARY_SNIFF_BYTES) -> tuple[os.stat_result, bytes]:
    """Open without blocking (a FIFO swapped in must not hang us), fstat, and read the first ``limit`` bytes."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return st, b""
        chunks: list[bytes] = []
        remaining = limit
        while remaining > 0:
            chunk = os.read(fd, remaining)
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return st, b"".join(chunks)
    finally:
        os.close(fd)


@dataclass(slots=True)
class _Dir:
    """A directory waiting on the stack."""

    abs_path: str  # path to list (through a link for linked directories)
    real_path: str  # resolved path, for loop and duplicate detection
    rel: str  # POSIX path relative to the root, "" for the root
    rules: IgnoreRules
    via_link: bool


@dataclass(slots=True)
class _Candidate:
    walked: WalkedFile
    identity: tuple[int, int]  # (st_dev, st_ino) to drop link-reached duplicates
    via_link: bool


class _Walker:
    """One walk over one root; state lives here so the loop stays flat (no recursion)."""

    def __init__(
        self,
        root_real: str,
        language_of: Callable[[str], str | None],
        max_file_bytes: int,
        known: Callable[[str, int, int], bool] | None = None,
    ) -> None:
        self.root_real = root_real
        self.language_of = language_of
        self.max_file_bytes = max_file_bytes
        self.known = known
        self.result = WalkResult()
        self.visited: set[str] = set()
        self.candidates: list[_Candidate] = []
        # Linked directories wait until the real tree is walked, so real paths win over link paths.
        self.pending_links: list[_Dir] = []

    def run(self, rules: IgnoreRules) -> WalkResult:
        stack = [_Dir(self.root_real, self.root_real, "", rules, via_link=False)]
        while stack or self.pending_links:
            if not stack:
                stack.append(self.pending_links.pop(0))
            directory = stack.pop()
            stack.extend(reversed(self._walk_dir(directory)))
        self._finish()
        return self.result

    def _walk_dir(self, directory: _Dir) -> list[_Dir]:
        """List one directory, classify its entries, and return its subdirectories to walk."""
        if directory.real_path in self.visited:
            self.result.skip("symlink_duplicate", directory.rel)
            return []
        self.visited.add(directory.real_path)
        try:
            entries = _list_dir(directory.abs_path)
        except OSError:  # permission denied, or removed since its parent was listed
            self.result.skip("unreadable", directory.rel or ".")
            return []
        names = {entry.name for entry in entries}
        if directory.rel and VENV_MARKER in names:
            self.result.skip("default_excluded", directory.rel)
            return []
        rules = directory.rules.nested(
            directory.rel,
            _read_ignore_file(directory.abs_path, ".gitignore", names, _in(directory.rel, ".gitignore")),
            _read_ignore_file(directory.abs_path, ".igraphignore", names, _in(directory.rel, ".igraphignore")),
        )
        subdirs: list[_Dir] = []
        for entry in entries:
            sub = self._classify(entry, directory, rules)
            if sub is not None:
                subdirs.append(sub)
        return subdirs

    def _classify(self, entry: os.DirEntry[str], parent: _Dir, rules: IgnoreRules) -> _Dir | None:
        rel = f"{parent.rel}/{entry.name}" if parent.rel else entry.name
        if not _is_utf8_name(entry.name):
            self.result.skip("bad_filename", rel.encode("utf-8", "replace").decode("utf-8"))
            return None
        try:
            if entry.is_symlink():
                return self._classify_link(entry, rel, parent, rules)
            if entry.is_dir(follow_symlinks=False):
                return self._accept_dir(entry, rel, parent.real_path + os.sep + entry.name, rules, parent)
            if entry.is_file(follow_symlinks=False):
                self._consider_file(entry.path, rel, rules, via_link=parent.via_link)
            else:
                self.result.skip("not_regular_file", rel)
        except FileNotFoundError:
            self.result.skip("vanished", rel)  # deleted while we walked; the next run settles it
        except OSError:  # permission denied, I/O error
            self.result.skip("unreadable", rel)
        return None

    def _classify_link(self, entry: os.DirEntry[str], rel: str, parent: _Dir, rules: IgnoreRules) -> _Dir | None:
        try:
            st = os.stat(entry.path)
        except FileNotFoundError:
            self.result.skip("broken_symlink", rel)
            return None
        except OSError as exc:
            self.result.skip("symlink_loop" if exc.errno == errno.ELOOP else "unreadable", rel)
            return None
        target = os.path.realpath(entry.path)
        if not is_inside(self.root_real, target):
            self.result.skip("symlink_outside_root", rel)
            return None
        if ALWAYS_EXCLUDED_DIRS.intersection(Path(os.path.relpath(target, self.root_real)).parts):
            self.result.skip("default_excluded", rel)  # a link must not open a way into .git or .igraph
            return None
        if stat.S_ISDIR(st.st_mode):
            if is_inside(target, parent.real_path):  # the link points at itself or an ancestor
                self.result.skip("symlink_loop", rel)
                return None
            linked = self._accept_dir(entry, rel, target, rules, parent)
            if linked is not None:
                linked.via_link = True
                self.pending_links.append(linked)
            return None
        if stat.S_ISREG(st.st_mode):
            self._consider_file(entry.path, rel, rules, via_link=True)
        else:
            self.result.skip("not_regular_file", rel)
        return None

    def _accept_dir(
        self, entry: os.DirEntry[str], rel: str, real: str, rules: IgnoreRules, parent: _Dir
    ) -> _Dir | None:
        """Apply name-based and ignore-file rules to a directory; return it if it is to be walked."""
        if entry.name in ALWAYS_EXCLUDED_DIRS:
            self.result.skip("default_excluded", rel)
            return None
        verdict = rules.decide(rel, is_dir=True)
        if verdict.ignored:
            self.result.skip(verdict.reason, rel, rule=verdict.rule)
            return None
        if verdict.ignored is None and is_default_excluded_dir(entry.name):
            self.result.skip("default_excluded", rel)
            return None
        return _Dir(entry.path, real, rel, rules, via_link=parent.via_link)

    def _consider_file(self, path: str, rel: str, rules: IgnoreRules, *, via_link: bool) -> None:
        """Run the cheap name checks first, then open once: fstat and the first block decide the rest."""
        verdict = rules.decide(rel, is_dir=False)
        if verdict.ignored:
            self.result.skip(verdict.reason, rel, rule=verdict.rule)
            return
        # A file re-included by name in .igraphignore (or index.exclude) is indexed even if it looks minified.
        wanted = verdict.ignored is False and verdict.reason == "igraphignored"
        name = rel.rsplit("/", 1)[-1]
        language = self.language_of(rel)
        if language is None:
            self.result.skip("unsupported_language", rel)
            return
        if is_minified_name(name) and not wanted:
            self.result.skip("minified", rel, "named as a minifier's output")
            return
        if self.known is not None:
            # A file indexed with this size and mtime passed the content checks then: a stat instead of a read
            # (1M symbols: 18k heads read on every update, seconds once the page cache has lost them).
            try:
                st = os.stat(path)
            except OSError:
                st = None
            if (
                st is not None
                and stat.S_ISREG(st.st_mode)
                and st.st_size <= self.max_file_bytes
                and self.known(rel, st.st_size, st.st_mtime_ns)
            ):
                walked = WalkedFile(rel, path, st.st_size, st.st_mtime_ns, language)
                self.candidates.append(_Candidate(walked, (st.st_dev, st.st_ino), via_link))
                return
        minifiable = not wanted and os.path.splitext(name)[1].lower() in MINIFIABLE_SUFFIXES
        st, head = _read_head(path, MINIFIED_SAMPLE_BYTES if minifiable else BINARY_SNIFF_BYTES)
        if not stat.S_ISREG(st.st_mode):  # swapped for something else since it was listed
            self.result.skip("not_regular_file", rel)
            return
        if st.st_size > self.max_file_bytes:
            limit = f"index.maxFileBytes is {self.max_file_bytes}"
            self.result.skip("too_large", rel, f"{byte_size(st.st_size)}; {limit}")
            return
        binary = binary_sign(head[:BINARY_SNIFF_BYTES])
        if binary is not None:
            self.result.skip("binary", rel, binary)
            return
        minified = minified_sign(head, complete=len(head) >= st.st_size) if minifiable else None
        if minified is not None:
            self.result.skip("minified", rel, minified)
            return
        walked = WalkedFile(
            path=rel,
            abs_name=path,  # root_real joined with rel, as every listed path starts at root_real
            size=st.st_size,
            mtime_ns=st.st_mtime_ns,
            language=language,
        )
        self.candidates.append(_Candidate(walked, (st.st_dev, st.st_ino), via_link))

    def _finish(self) -> None:
        """Drop link-reached copies of files already indexed, then sort by path."""
        self.candidates.sort(key=lambda candidate: candidate.walked.path)
        seen = {candidate.identity for candidate in self.candidates if not candidate.via_link}
        for candidate in self.candidates:
            if candidate.via_link:
                if candidate.identity in seen:
                    self.result.skip("symlink_duplicate", candidate.walked.path)
                    continue
                seen.add(candidate.identity)
            self.result.files.append(candidate.walked)
        self.result.skipped_files.sort(key=lambda skip: skip.path)


def walk_repository(
    root: Path,
    language_of: Callable[[str], str | None],
    *,
    max_file_bytes: int = 1_000_000,
    extra_ignores: Sequence[str] = (),
    known: Callable[[str, int, int], bool] | None = None,
) -> WalkResult:
    """Walk ``root`` and return the indexable files (sorted by path) plus every skip by reason.

    ``known(path, size, mtime_ns)`` says a file is indexed as it is now: its first block is not read again.
    """
    if max_file_bytes <= 0:
        raise ValueError("max_file_bytes must be positive")
    root_real = os.path.realpath(root)
    if not os.path.isdir(root_real):
        raise InvalidInput(f"Repository root {root} is not a directory; pass an existing directory.")
    return _Walker(root_real, language_of, max_file_bytes, known).run(root_rules(root_real, extra_ignores))
