"""Tests for the repository walker: ignore rules, default excludes, filters, symlinks, robustness."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from _factories import make_plain_repo

from igraph_mcp.errors import InvalidInput
from igraph_mcp.index import walk
from igraph_mcp.index.walk import (
    WalkResult,
    walk_repository,
)
from igraph_mcp.paths import is_inside

LANGUAGES = {".py": "python", ".js": "javascript", ".css": "css", ".ts": "typescript"}

needs_symlinks = pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")


def language_of(path: str) -> str | None:
    """Language by suffix, like the real table but without importing it."""
    return LANGUAGES.get(os.path.splitext(path)[1])


def walk_paths(root: Path, **kwargs: object) -> list[str]:
    return [f.path for f in walk_repository(root, language_of, **kwargs).files]  # type: ignore[arg-type]


def run(root: Path, **kwargs: object) -> WalkResult:
    return walk_repository(root, language_of, **kwargs)  # type: ignore[arg-type]


# --- basics -------------------------------------------------------------------------------------


def test_walked_file_fields_and_sorted_output(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"b.py": "x = 1\n", "a/z.js": "let z;\n", "a/b/c.py": "pass\n", "A.py": ""})
    result = run(root)
    assert [f.path for f in result.files] == ["A.py", "a/b/c.py", "a/z.js", "b.py"]
    c = result.files[1]
    assert c.language == "python"
    assert c.abs_path == root / "a" / "b" / "c.py"
    assert c.size == 5
    assert c.mtime_ns == (root / "a/b/c.py").stat().st_mtime_ns
    assert not result.skipped


def test_unsupported_language_counted_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_plain_repo(tmp_path, {"README.md": "# hi", "data.csv": "1,2", "m.py": ""})

    def no_reads(path: str) -> object:
        raise AssertionError(f"{path} was read")

    # Only m.py may be opened: unsupported files are decided by name alone.
    real_read_head = walk._read_head
    monkeypatch.setattr(walk, "_read_head", lambda p, *a: real_read_head(p, *a) if p.endswith("m.py") else no_reads(p))
    result = run(root)
    assert [f.path for f in result.files] == ["m.py"]
    assert result.skipped["unsupported_language"] == 2
    assert sorted(result.skipped_examples["unsupported_language"]) == ["README.md", "data.csv"]


def test_deterministic_order(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {f"d{i % 7}/sub{i % 3}/f{i}.py": "" for i in range(60)}
    files.update({"node_modules/x.js": "", "bin.py": b"\0\0"})
    root = make_plain_repo(tmp_path, files)
    first, second = run(root), run(root)
    assert first.files == second.files
    assert first.skipped_examples == second.skipped_examples
    assert [f.path for f in first.files] == sorted(f.path for f in first.files)


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        run(tmp_path / "missing")
    (tmp_path / "file.py").write_text("")
    with pytest.raises(InvalidInput):
        run(tmp_path / "file.py")


# --- ignore files ------------------------------------------------------------------------------------


def test_nested_gitignore_with_negation_applies_to_its_subtree(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".gitignore": "gen_*.py\n",
            "gen_a.py": "",
            "keep.py": "",
            "local.py": "",
            "sub/.gitignore": "!gen_keep.py\nlocal.py\n",
            "sub/gen_keep.py": "",
            "sub/gen_drop.py": "",
            "sub/local.py": "",
            "sub/deeper/local.py": "",
            "other/gen_keep.py": "",
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["keep.py", "local.py", "sub/gen_keep.py"]
    assert result.skipped["gitignored"] == 5


def test_anchored_patterns_only_match_at_their_level(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".gitignore": "/top.py\n",
            "top.py": "",
            "pkg/top.py": "",
            "pkg/.gitignore": "/inner.py\n",
            "pkg/inner.py": "",
            "pkg/deep/inner.py": "",
            "inner.py": "",
        },
    )
    assert walk_paths(root) == ["inner.py", "pkg/deep/inner.py", "pkg/top.py"]


def test_directory_patterns_and_double_star(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".gitignore": "scratch/\na/**/b.py\n**/gen/\n",
            "scratch/x.py": "",
            "scratch/y.py": "",
            "deep/scratch/z.py": "",
            "scratch.py": "",
            "a/b.py": "",
            "a/x/y/b.py": "",
            "a/c.py": "",
            "p/q/gen/g.py": "",
            "p/q/gen.py": "",
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["a/c.py", "p/q/gen.py", "scratch.py"]
    # An ignored directory counts once and is not entered.
    assert sorted(result.skipped_examples["gitignored"]) == [
        "a/b.py",
        "a/x/y/b.py",
        "deep/scratch",
        "p/q/gen",
        "scratch",
    ]


def test_negation_cannot_reinclude_below_an_ignored_directory(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".gitignore": "logs/\n!logs/keep.py\n",
            "logs/keep.py": "",
            "docs/.gitignore": "*\n!*.py\n",
            "docs/a.py": "",
        },
    )
    assert walk_paths(root) == ["docs/a.py"]


def test_git_info_exclude(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path, {".git/info/exclude": "secret.py\n", "secret.py": "", "pub.py": "", ".git/HEAD": ""}
    )
    result = run(root)
    assert [f.path for f in result.files] == ["pub.py"]
    assert result.skipped["gitignored"] == 1
    assert result.skipped_examples["default_excluded"] == [".git"]


def test_gitignore_overrides_info_exclude(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path, {".git/info/exclude": "*.py\n", ".gitignore": "!keep.py\n", "keep.py": "", "x.py": ""}
    )
    assert walk_paths(root) == ["keep.py"]


def test_info_exclude_through_gitdir_file(tmp_path: Path) -> None:
    # Worktrees and submodules have a ".git" file pointing at the real git directory.
    root = make_plain_repo(tmp_path, {"hidden.py": "", "shown.py": ""})
    gitdir = tmp_path / "gitdirs" / "wt"
    (gitdir / "info").mkdir(parents=True)
    (gitdir / "info" / "exclude").write_text("hidden.py\n")
    (root / ".git").write_text(f"gitdir: {gitdir}\n")
    assert walk_paths(root) == ["shown.py"]


def test_igraphignore_root_and_nested(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".igraphignore": "fixtures/\n",
            "fixtures/big.py": "",
            "src/a.py": "",
            "src/.igraphignore": "*_pb2.py\n",
            "src/x_pb2.py": "",
            "y_pb2.py": "",
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["src/a.py", "y_pb2.py"]
    assert result.skipped["igraphignored"] == 2


def test_igraphignore_reincludes_gitignored_and_default_excluded(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            ".gitignore": "generated/\n",
            ".igraphignore": "!generated/\n!build/\n",
            "generated/api.py": "",
            "build/tool.py": "",
            "dist/out.py": "",
        },
    )
    assert walk_paths(root) == ["build/tool.py", "generated/api.py"]


def test_extra_ignores_take_precedence(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {".igraphignore": "!legacy/\n", "legacy/old.py": "", "new.py": "", "tests/t.py": "", "t.py": ""},
    )
    result = run(root, extra_ignores=["legacy/", "/tests/", "# a comment", ""])
    assert [f.path for f in result.files] == ["new.py", "t.py"]
    assert result.skipped["igraphignored"] == 2


def test_malformed_pattern_does_not_disable_the_file(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {".gitignore": "[z-a]\nskip.py\n", "skip.py": "", "keep.py": ""})
    assert walk_paths(root) == ["keep.py"]


# --- default excludes --------------------------------------------------------------------------------


def test_default_excluded_directories(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            "node_modules/lib/index.js": "",
            "pkg/node_modules/x.js": "",
            "__pycache__/m.py": "",
            ".venv/lib/a.py": "",
            "dist/bundle.js": "",
            "target/debug/x.py": "",
            "vendor/x.py": "",
            "mypkg.egg-info/x.py": "",
            ".hg/x.py": "",
            "environment/ok.py": "",
            "src/main.py": "",
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["environment/ok.py", "src/main.py"]
    assert result.skipped["default_excluded"] == 9


def test_virtualenv_detected_by_pyvenv_cfg(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            "env/pyvenv.cfg": "home = /usr/bin\n",
            "env/lib/site.py": "",
            "tools/myenv/pyvenv.cfg": "",
            "tools/myenv/bin/activate.py": "",
            "env2/app.py": "",  # a plain directory: kept
            "tools/run.py": "",
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["env2/app.py", "tools/run.py"]
    assert sorted(result.skipped_examples["default_excluded"]) == ["env", "tools/myenv"]


def test_root_with_pyvenv_cfg_is_still_walked(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"pyvenv.cfg": "", "a.py": ""})
    assert walk_paths(root) == ["a.py"]


# --- content filters ---------------------------------------------------------------------------------


def test_binary_file_skipped_but_utf16_text_kept(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            "blob.py": b"x = 1\n\0\x01\x02",
            "late_nul.py": b"x" * 9000 + b"\0",  # NUL beyond the first 8 KiB: not sniffed
            "utf16.py": "x = 'é'\n".encode("utf-16"),
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["late_nul.py", "utf16.py"]
    assert result.skipped_examples["binary"] == ["blob.py"]


def test_too_large(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"big.py": "x" * 2001, "edge.py": "x" * 2000})
    result = run(root, max_file_bytes=2000)
    assert [f.path for f in result.files] == ["edge.py"]
    assert result.skipped_examples["too_large"] == ["big.py"]
    with pytest.raises(ValueError):
        run(root, max_file_bytes=0)


def test_minified_by_name_and_content(tmp_path: Path) -> None:
    bundle = "/*! lib v1 | MIT */\n!function(){" + "var a=f(1);if(a){b=c}" * 300 + "}();\n//# sourceMappingURL=x.map\n"
    wide = "\n".join("a{b:c;d:e;f:g}" * 40 for _ in range(10))  # minified CSS, ten long lines
    normal = "\n".join(f"const v{i} = {i};" for i in range(400))
    data_uri = "\n".join(
        ["// A logo", 'export const logo = "data:image/png;base64,' + "iVBORw0KGgo" * 455 + '";', "x;"]
    )
    root = make_plain_repo(
        tmp_path,
        {
            "vendor.min.js": "let a;\n",
            "app.bundle.js": "let a;\n",
            "style.min.css": "a{}\n",
            "one.js": bundle,
            "wide.css": wide,
            "normal.js": normal,
            "logo.js": data_uri,  # H2: one long literal in a hand-written file never decides
            "long_string.py": "DATA = '" + "x;" * 5000 + "'\n",  # Python is never "minified"
        },
    )
    result = run(root)
    assert [f.path for f in result.files] == ["logo.js", "long_string.py", "normal.js"]
    assert result.skipped["minified"] == 5
    by_path = {s.path: s for s in result.skipped_files}
    assert by_path["vendor.min.js"].detail == "named as a minifier's output"
    assert (
        by_path["one.js"].detail.startswith("mean line length ") and "1 of 3 lines over 500" in by_path["one.js"].detail
    )


def test_a_re_included_file_is_indexed_even_if_it_looks_minified(tmp_path: Path) -> None:
    bundle = "!function(){" + "var a=f(1);" * 300 + "}();"
    root = make_plain_repo(
        tmp_path,
        {"hand.js": bundle, "other.js": bundle, "lib.min.js": bundle, ".igraphignore": "!hand.js\n!lib.min.js\n"},
    )
    result = run(root)
    assert [f.path for f in result.files] == ["hand.js", "lib.min.js"]
    assert [s.path for s in result.skipped_files] == ["other.js"]


def test_file_level_skips_are_listed_with_detail_and_folders_only_counted(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {
            "big.py": "x" * 3000,
            "blob.py": b"\x89PNG\r\n\x1a\n" + bytes(range(1, 200)),
            "node_modules/dep/index.js": "let a;\n",
            "README.md": "# hi\n",
            "ok.py": "x = 1\n",
            ".gitignore": "ignored.py\n",
            "ignored.py": "x = 1\n",
        },
    )
    result = run(root, max_file_bytes=2000)
    assert [(s.path, s.reason) for s in result.skipped_files] == [("big.py", "too_large"), ("blob.py", "binary")]
    assert result.skipped_files[0].detail == "3.0 KB; index.maxFileBytes is 2000"
    assert result.skipped_files[1].detail == "PNG image"
    assert result.skipped["default_excluded"] == 1 and result.skipped["gitignored"] == 1  # counted, not listed


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_not_a_regular_file_and_never_blocks(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"a.py": ""})
    os.mkfifo(root / "pipe.py")
    result = run(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert result.skipped_examples["not_regular_file"] == ["pipe.py"]


# --- unreadable ---------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads everything; see simulated test")
def test_unreadable_file_and_directory_by_permissions(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"locked.py": "", "closed/x.py": "", "ok.py": ""})
    (root / "locked.py").chmod(0)
    (root / "closed").chmod(0)
    try:
        result = run(root)
    finally:
        (root / "locked.py").chmod(0o644)
        (root / "closed").chmod(0o755)
    assert [f.path for f in result.files] == ["ok.py"]
    assert sorted(result.skipped_examples["unreadable"]) == ["closed", "locked.py"]


def test_unreadable_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_plain_repo(tmp_path, {"locked.py": "", "closed/x.py": "", "ok.py": ""})
    real_read_head, real_list_dir = walk._read_head, walk._list_dir

    def read_head(path: str, *limit: int) -> object:
        if path.endswith("locked.py"):
            raise PermissionError(13, "Permission denied", path)
        return real_read_head(path, *limit)

    def list_dir(path: str) -> object:
        if path.endswith("closed"):
            raise PermissionError(13, "Permission denied", path)
        return real_list_dir(path)

    monkeypatch.setattr(walk, "_read_head", read_head)
    monkeypatch.setattr(walk, "_list_dir", list_dir)
    result = run(root)
    assert [f.path for f in result.files] == ["ok.py"]
    assert sorted(result.skipped_examples["unreadable"]) == ["closed", "locked.py"]


@pytest.mark.skipif(sys.platform != "linux", reason="only Linux file systems accept non-UTF-8 names")
def test_non_utf8_file_name_skipped(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"ok.py": ""})
    with open(os.fsencode(root) + b"/bad\xff.py", "wb"):
        pass
    result = run(root)
    assert [f.path for f in result.files] == ["ok.py"]
    assert result.skipped["bad_filename"] == 1


# --- symlinks ----------------------------------------------------------------------------------------


@needs_symlinks
def test_symlinks_inside_root_are_followed(tmp_path: Path) -> None:
    root = make_plain_repo(
        tmp_path,
        {".gitignore": "/shared/\n", "shared/util.py": "", "shared/lib/deep.py": "", "src/main.py": ""},
    )
    (root / "src" / "shared").symlink_to(root / "shared", target_is_directory=True)  # dir link
    (root / "util_link.py").symlink_to(root / "shared" / "util.py")  # file link
    result = run(root)
    # shared/ is ignored, so its content is indexed under the link paths; util.py is reached twice
    # through links and kept once (first path in sorted order).
    assert [f.path for f in result.files] == ["src/main.py", "src/shared/lib/deep.py", "src/shared/util.py"]
    assert result.skipped_examples["symlink_duplicate"] == ["util_link.py"]
    assert result.files[2].abs_path == root / "src" / "shared" / "util.py"


@needs_symlinks
def test_link_to_walked_content_is_indexed_once_under_the_real_path(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"pkg/mod.py": "", "zzz/a.py": ""})
    # "aaa" sorts before "pkg": the real path must still win.
    (root / "aaa").symlink_to(root / "pkg", target_is_directory=True)
    (root / "alias.py").symlink_to(root / "zzz" / "a.py")
    result = run(root)
    assert [f.path for f in result.files] == ["pkg/mod.py", "zzz/a.py"]
    assert sorted(result.skipped_examples["symlink_duplicate"]) == ["aaa", "alias.py"]


@needs_symlinks
def test_links_into_vcs_or_index_directories_are_skipped(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {".git/hooks/pre.py": "", ".igraph/x.py": "", "a.py": ""})
    (root / "hooks").symlink_to(root / ".git" / "hooks", target_is_directory=True)
    (root / "x.py").symlink_to(root / ".igraph" / "x.py")
    result = run(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert result.skipped_examples["default_excluded"] == [".git", ".igraph", "hooks", "x.py"]


@needs_symlinks
def test_symlinks_leaving_the_root_are_skipped(tmp_path: Path) -> None:
    outside = make_plain_repo(tmp_path, {"secret.py": "", "lib/x.py": ""}, name="outside")
    root = make_plain_repo(tmp_path, {"a.py": ""})
    (root / "secret.py").symlink_to(outside / "secret.py")
    (root / "lib").symlink_to(outside / "lib", target_is_directory=True)
    (root / "passwd.py").symlink_to("/etc/passwd")
    result = run(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert result.skipped["symlink_outside_root"] == 3


@needs_symlinks
def test_sibling_prefix_directory_is_outside(tmp_path: Path) -> None:
    evil = make_plain_repo(tmp_path, {"steal.py": ""}, name="repo_evil")
    root = make_plain_repo(tmp_path, {"a.py": ""}, name="repo")
    (root / "steal.py").symlink_to(evil / "steal.py")
    (root / "evil").symlink_to(evil, target_is_directory=True)
    result = run(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert sorted(result.skipped_examples["symlink_outside_root"]) == ["evil", "steal.py"]


@pytest.mark.parametrize(
    ("root", "candidate", "inside"),
    [
        ("/x/repo", "/x/repo", True),
        ("/x/repo", "/x/repo/a/b", True),
        ("/x/repo", "/x/repo_evil", False),
        ("/x/repo", "/x/repo_evil/a", False),
        ("/x/repo", "/x", False),
        ("/x/repo", "relative/path", False),
    ],
)
def test_is_inside(root: str, candidate: str, inside: bool) -> None:
    assert is_inside(root, candidate) is inside


@needs_symlinks
def test_symlink_loops_terminate(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"a/x.py": "", "b/y.py": ""})
    (root / "a" / "up").symlink_to(root, target_is_directory=True)  # to an ancestor
    (root / "a" / "self").symlink_to(root / "a", target_is_directory=True)  # to its own directory
    (root / "b" / "to_a").symlink_to(root / "a", target_is_directory=True)  # duplicate, then a/up inside
    (root / "ping.py").symlink_to(root / "pong.py")  # a chain that never ends (ELOOP)
    (root / "pong.py").symlink_to(root / "ping.py")
    result = run(root)
    assert [f.path for f in result.files] == ["a/x.py", "b/y.py"]
    assert sorted(result.skipped_examples["symlink_loop"]) == ["a/self", "a/up", "ping.py", "pong.py"]
    assert result.skipped_examples["symlink_duplicate"] == ["b/to_a"]


@needs_symlinks
def test_mutual_directory_links_terminate(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {".gitignore": "p/\nq/\n", "p/x.py": "", "q/y.py": ""})
    (root / "p" / "to_q").symlink_to(root / "q", target_is_directory=True)
    (root / "q" / "to_p").symlink_to(root / "p", target_is_directory=True)
    (root / "lp").symlink_to(root / "p", target_is_directory=True)
    result = run(root)
    # lp -> p is walked (p itself is ignored), lp/to_q -> q too, and q/to_p points back at p: a duplicate.
    assert [f.path for f in result.files] == ["lp/to_q/y.py", "lp/x.py"]
    assert result.skipped_examples["symlink_duplicate"] == ["lp/to_q/to_p"]


@needs_symlinks
def test_dangling_links(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"a.py": ""})
    (root / "gone.py").symlink_to(root / "never_existed.py")
    (root / "gone_dir").symlink_to(tmp_path / "nowhere", target_is_directory=True)
    result = run(root)
    assert [f.path for f in result.files] == ["a.py"]
    assert result.skipped_examples["broken_symlink"] == ["gone.py", "gone_dir"]


@needs_symlinks
def test_root_reached_through_a_symlink(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {"pkg/mod.py": "", ".gitignore": "skip.py\n", "skip.py": ""})
    link = tmp_path / "via_link"
    link.symlink_to(root, target_is_directory=True)
    result = run(link)
    assert [f.path for f in result.files] == ["pkg/mod.py"]
    assert result.files[0].abs_path == root.resolve() / "pkg" / "mod.py"
    assert not result.skipped.get("symlink_outside_root")


# --- scale and depth ---------------------------------------------------------------------------------


def _stack_depth() -> int:
    frame, depth = sys._getframe(), 0
    while frame is not None:
        frame, depth = frame.f_back, depth + 1  # type: ignore[assignment]
    return depth


def test_deep_tree_without_recursion(tmp_path: Path) -> None:
    # Deeper than the recursion limit allowed below, yet shallow enough for pytest's own (recursive)
    # tmp_path cleanup with the default limit.
    depth = 400
    root = make_plain_repo(tmp_path, {"top.py": ""})
    current = str(root)
    for _ in range(depth):
        current = os.path.join(current, "d")
        os.mkdir(current)  # os.makedirs recurses per level
    with open(os.path.join(current, "leaf.py"), "w"):
        pass
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 100)
    try:
        paths = walk_paths(root)
    finally:
        sys.setrecursionlimit(old_limit)
    assert paths[-1] == "top.py"
    assert paths[0] == "/".join(["d"] * depth) + "/leaf.py"


def test_two_thousand_files_walk_with_work_in_proportion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The walk's cost, counted instead of timed: each directory listed once, each kept file opened once, an
    # ignored file never opened, and the ignore rules asked once per entry.
    files: dict[str, str | bytes] = {f"pkg{i % 40}/sub{i % 5}/m{i}.py": "x = 1\n" for i in range(2000)}
    files[".gitignore"] = "*.log\n!keep/\n"
    files["pkg1/.gitignore"] = "m1*.py\n"
    root = make_plain_repo(tmp_path, files)
    listed: list[str] = []
    opened: list[str] = []
    decided: list[str] = []
    real_list, real_read, real_decide = walk._list_dir, walk._read_head, walk.IgnoreRules.decide

    def list_dir(path: str) -> list[os.DirEntry[str]]:
        listed.append(path)
        return real_list(path)

    def read_head(path: str, *limit: int) -> tuple[os.stat_result, bytes]:
        opened.append(path)
        return real_read(path, *limit)

    def decide(self: walk.IgnoreRules, rel: str, is_dir: bool) -> walk.Verdict:
        decided.append(rel)
        return real_decide(self, rel, is_dir)

    monkeypatch.setattr(walk, "_list_dir", list_dir)
    monkeypatch.setattr(walk, "_read_head", read_head)
    monkeypatch.setattr(walk.IgnoreRules, "decide", decide)
    result = run(root)
    directories = {str(Path(rel).parent) for rel in files} | {str(Path(rel).parent.parent) for rel in files}
    assert len(result.files) + result.skipped["gitignored"] == 2000 and result.skipped["gitignored"] > 0
    assert sorted(listed) == sorted({str(root / d) if d != "." else str(root) for d in directories})
    assert len(opened) == len(set(opened)) == len(result.files)  # the gitignored files were never opened
    assert len(decided) == len(set(decided)) == len(files) + len(directories) - 1  # every entry but the root


def test_skipped_examples_are_capped(tmp_path: Path) -> None:
    root = make_plain_repo(tmp_path, {f"doc{i}.md": "" for i in range(12)})
    result = run(root)
    assert result.skipped["unsupported_language"] == 12
    assert result.skipped_examples["unsupported_language"] == [f"doc{i}.md" for i in (0, 1, 10, 11, 2)]
