"""The walk leaves out exactly what git leaves out: real repositories, `git ls-files` as the reference.

Each case writes files and ignore files into a fresh repository, stages everything (`git add -A`, which honours
the ignore files) and compares the walk's files with `git ls-files --cached --others --exclude-standard`. The walk
is asked to accept every extension and no name here is a default-excluded directory, so only ignore rules decide.
User and system git configuration is kept out (no global excludes file), as it is kept out of the index.
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from igraph_mcp.index.ignore_patterns import compile_pattern, read_patterns
from igraph_mcp.index.walk import walk_repository

Tree = dict[str, str]


def _git(root: Path, home: Path, *args: str) -> bytes:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=True).stdout


def git_and_walk(base: Path, tree: Tree) -> tuple[set[str], set[str]]:
    """Build ``tree`` as a git repository under ``base``; return (git's files, the walk's files)."""
    root, home = base / "repo", base / "home"
    root.mkdir(parents=True)
    home.mkdir(exist_ok=True)
    _git(root, home, "init", "-q")
    for rel, text in tree.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    _git(root, home, "add", "-A")
    listed = _git(root, home, "ls-files", "--cached", "--others", "--exclude-standard", "-z")
    git_files = {name.decode("utf-8") for name in listed.split(b"\0") if name}
    walked = {f.path for f in walk_repository(root, lambda _path: "text").files}
    return git_files, walked


CASES: dict[str, Tree] = {
    # the Go repository of issue 31: everything ignored, then every file with a dot and every directory re-included
    "star_then_reinclude_dotted_and_dirs": {
        ".gitignore": "*\n!*.*\n!*/\n",
        "main.go": "",
        "Makefile": "",
        "pkg/a.go": "",
        "pkg/LICENSE": "",
        "pkg/sub/b.go": "",
        "pkg/sub/deeper/c_test.go": "",
    },
    "star_without_reincluding_dirs": {".gitignore": "*\n!*.go\n", "main.go": "", "pkg/a.go": "", "pkg/b.txt": ""},
    "ignore_everything": {".gitignore": "*\n", "main.go": "", "pkg/a.go": ""},
    "nested_file_negates_parent_pattern": {
        ".gitignore": "*.txt\n",
        "a.txt": "",
        "sub/.gitignore": "!keep.txt\nlocal.md\n",
        "sub/keep.txt": "",
        "sub/drop.txt": "",
        "sub/deeper/keep.txt": "",
        "sub/deeper/local.md": "",
        "other/keep.txt": "",
        "other/local.md": "",
    },
    "nested_file_ignores_what_parent_reincluded": {
        ".gitignore": "*.log\n!important.log\n",
        "important.log": "",
        "x.log": "",
        "sub/.gitignore": "important.log\n",
        "sub/important.log": "",
        "sub/a.py": "",
    },
    "file_below_excluded_dir_cannot_be_reincluded": {
        ".gitignore": "logs/\n!logs/keep.txt\n!logs/\n",
        "logs/keep.txt": "",
        "logs/x.txt": "",
        "a/logs/keep.txt": "",
        "other/.gitignore": "cache\n!cache/keep.txt\n",
        "other/cache/keep.txt": "",
    },
    "dir_contents_excluded_then_one_reincluded": {
        ".gitignore": "logs/*\n!logs/keep.txt\n",
        "logs/keep.txt": "",
        "logs/drop.txt": "",
        "logs/sub/x.txt": "",
    },
    "escaped_bang_and_hash": {
        ".gitignore": "\\!important.txt\n\\#hash.txt\n#comment.txt\n",
        "!important.txt": "",
        "important.txt": "",
        "#hash.txt": "",
        "#comment.txt": "",
        "hash.txt": "",
    },
    "trailing_spaces_trimmed_unless_escaped": {
        ".gitignore": "a.txt   \nb.txt\\ \nc.txt\\  \nd\tx\n",
        "a.txt": "",
        "b.txt": "",
        "b.txt ": "",
        "c.txt ": "",
        "c.txt": "",
        "d\tx": "",
    },
    "slash_in_the_middle_anchors": {
        ".gitignore": "doc/frotz\nsrc/*.gen\n",
        "doc/frotz": "",
        "a/doc/frotz": "",
        "src/x.gen": "",
        "src/deep/y.gen": "",
        "lib/src/z.gen": "",
    },
    "leading_double_star": {
        ".gitignore": "**/foo\n**/bar/baz\n",
        "foo": "",
        "a/foo": "",
        "a/b/foo/inner.txt": "",
        "bar/baz": "",
        "x/bar/baz": "",
        "x/bar/qux": "",
        "foo2": "",
    },
    "trailing_double_star": {
        ".gitignore": "abc/**\n",
        "abc/x": "",
        "abc/y/z": "",
        "x/abc/y": "",
        "abcd/e": "",
    },
    "middle_double_star": {
        ".gitignore": "a/**/b\n",
        "a/b": "",
        "a/x/b": "",
        "a/x/y/b": "",
        "b": "",
        "c/a/b": "",
        "a/bb": "",
    },
    "double_star_after_a_literal_head": {
        ".gitignore": "a**/b\nx/y**\nm**n\n",
        "a/b": "",
        "ab": "",
        "ax/b": "",
        "a/q/b": "",
        "x/yz": "",
        "x/y/z": "",
        "mn": "",
        "mxn": "",
        "m/n": "",
    },
    "anchored_at_each_level": {
        ".gitignore": "/top.txt\n",
        "top.txt": "",
        "pkg/top.txt": "",
        "pkg/.gitignore": "/inner.txt\n",
        "pkg/inner.txt": "",
        "pkg/deep/inner.txt": "",
        "inner.txt": "",
    },
    "directory_only_patterns": {
        ".gitignore": "out-dir/\ncache/\n",
        "out-dir": "",
        "a/out-dir/x.txt": "",
        "b/cache/y.txt": "",
        "c/cache": "",
    },
    "character_classes": {
        ".gitignore": "[abc].txt\n[!x]y.txt\n[[:digit:]]*.log\n[a-c]z.md\n[]]q\n[z-a]r\n[[:nope:]]s\n[abc\n",
        "a.txt": "",
        "d.txt": "",
        "ay.txt": "",
        "xy.txt": "",
        "1.log": "",
        "x.log": "",
        "bz.md": "",
        "dz.md": "",
        "]q": "",
        "zr": "",
        "ar": "",
        "ds": "",
        "[abc": "",
    },
    "single_star_and_question_mark_stay_in_one_directory": {
        ".gitignore": "*/x.txt\n?.md\nd?r/*\n",
        "x.txt": "",
        "a/x.txt": "",
        "a/b/x.txt": "",
        "q.md": "",
        "qq.md": "",
        "s/q.md": "",
        "dir/f": "",
        "dir/g/h": "",
        "d/r/f": "",
    },
    "info_exclude_then_gitignore_overrides": {
        ".git/info/exclude": "*.txt\nsecret/\n",
        ".gitignore": "!keep.txt\n",
        "keep.txt": "",
        "drop.txt": "",
        "secret/a.py": "",
        "pub/a.py": "",
    },
    "crlf_bom_comments_and_blank_lines": {
        ".gitignore": "\ufeff# comment\r\n\r\n   \r\n*.tmp\r\n!\r\n/\r\n  #spaced.md\r\nlast.md",
        "a.tmp": "",
        "b.md": "",
        "  #spaced.md": "",
        "last.md": "",
        "comment": "",
    },
    "escaped_glob_characters": {
        ".gitignore": "\\*.txt\n\\?q\nlit\\[x]\n",
        "*.txt": "",
        "a.txt": "",
        "?q": "",
        "aq": "",
        "lit[x]": "",
        "litx": "",
    },
    "negated_directory_after_all_directories": {
        ".gitignore": "*/\n!keep/\n",
        "top.txt": "",
        "keep/a.txt": "",
        "keep/sub/b.txt": "",
        "drop/c.txt": "",
    },
    "nested_double_star_and_anchored_dirs": {
        "pkg/.gitignore": "**/gen.txt\n/build-out/\ndocs/**/*.tmp\n",
        "gen.txt": "",
        "pkg/gen.txt": "",
        "pkg/a/gen.txt": "",
        "pkg/build-out/x": "",
        "pkg/a/build-out/x": "",
        "pkg/docs/a/b/c.tmp": "",
        "pkg/docs/c.tmp": "",
        "pkg/docs/c.txt": "",
    },
    "negation_order_last_wins": {
        ".gitignore": "!*.keep\n*.keep\n*.tmp\n!*.tmp\n",
        "a.keep": "",
        "b.tmp": "",
    },
}


@pytest.mark.parametrize("tree", CASES.values(), ids=list(CASES))
def test_walk_leaves_out_what_git_leaves_out(tmp_path: Path, tree: Tree) -> None:
    git_files, walked = git_and_walk(tmp_path, tree)
    assert walked == git_files


def test_the_go_repository_of_issue_31_is_indexed_whole(tmp_path: Path) -> None:
    git_files, walked = git_and_walk(tmp_path, CASES["star_then_reinclude_dotted_and_dirs"])
    assert walked == git_files
    assert {"pkg/a.go", "pkg/sub/b.go", "pkg/sub/deeper/c_test.go", "main.go"} <= walked  # was main.go alone
    assert "Makefile" not in walked and "pkg/LICENSE" not in walked


# --- random trees and patterns, against git ---------------------------------------------------------

_SEGMENTS = ["a", "b", "ab", "x.txt", "y.md", "z.go", "doc", "gen"]
_PATTERN_PARTS = ["a", "b", "*", "?", "**", "[ab]", "[!a]", "*.txt", "x.*", "doc", "gen", "z.go"]


@st.composite
def _random_tree(draw: st.DrawFn) -> Tree:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    tree: Tree = {}
    for _ in range(rng.randint(4, 14)):
        depth = rng.randint(1, 4)
        parts = [rng.choice(_SEGMENTS[:-3] if i < depth - 1 else _SEGMENTS) for i in range(depth)]
        parts[-1] = parts[-1] if "." in parts[-1] else parts[-1] + ".c"
        rel = "/".join(parts)
        # a path cannot be a file and a directory at once
        if any(other.startswith(rel + "/") or rel.startswith(other + "/") for other in tree):
            continue
        tree[rel] = ""
    directories = sorted({rel.rsplit("/", 1)[0] for rel in tree if "/" in rel})
    for where in ["", *directories[:2]]:
        lines = []
        for _ in range(rng.randint(1, 4)):
            pattern = "/".join(rng.choice(_PATTERN_PARTS) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.2:
                pattern = "/" + pattern
            if rng.random() < 0.2:
                pattern += "/"
            if rng.random() < 0.3:
                pattern = "!" + pattern
            lines.append(pattern)
        tree[f"{where}/.gitignore" if where else ".gitignore"] = "\n".join(lines) + "\n"
    return tree


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tree=_random_tree())
def test_random_trees_match_git(tmp_path_factory: pytest.TempPathFactory, tree: Tree) -> None:
    git_files, walked = git_and_walk(tmp_path_factory.mktemp("random"), tree)
    assert walked == git_files, tree


# --- the pattern reader on its own --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "path", "is_dir", "matches"),
    [
        ("*", "dir", True, True),
        ("*/", "dir", True, True),
        ("*/", "file", False, False),
        ("!*/", "a/b/dir", True, True),
        ("foo/**", "foo", True, False),
        ("foo/**", "foo/x/y", False, True),
        ("**", "any/thing", False, True),
        ("a/**/b", "a/b", False, True),
        ("a**/b", "ab", False, True),  # git strips the literal head "a", then "**/" leads
        ("a**b", "a/b", False, False),
        ("\\", "x", False, False),
        ("[a", "[a", False, False),
        ("x\\ ", "x ", False, True),
    ],
)
def test_compile_pattern(line: str, path: str, is_dir: bool, matches: bool) -> None:
    pattern = compile_pattern(line, 1)
    assert pattern is not None
    assert pattern.matches(path, is_dir) is matches


def test_read_patterns_keeps_line_numbers_and_source() -> None:
    patterns = read_patterns("# c\n\n*.log\n!keep.log\n", "pkg/.gitignore")
    assert patterns is not None and patterns.source == "pkg/.gitignore"
    assert [(p.line, p.text, p.negative) for p in patterns.patterns] == [(3, "*.log", False), (4, "!keep.log", True)]
    assert patterns.last_match("keep.log", False) is patterns.patterns[1]
    assert read_patterns("# only a comment\n\n", "x") is None
