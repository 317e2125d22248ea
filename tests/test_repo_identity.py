"""Repository identity: remote normalisation, the same-repository rule, the binding check, and what real git
checkouts (a clone elsewhere, a shallow CI clone, a monorepo folder, no git at all) are read as."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _factories import as_agent
from _git import git, make_git_repo

from igraph_mcp.errors import NameTaken
from igraph_mcp.repo_identity import RepoIdentity, check_binding, normalise_remote, read_identity, same_repository

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None and os.environ.get("CI") != "true", reason="git is not installed")


@pytest.mark.parametrize(
    ("url", "key"),
    [
        ("https://github.com/Org/Repo.git", "github.com/org/repo"),
        ("https://github.com/org/repo/", "github.com/org/repo"),
        ("git@github.com:org/repo.git", "github.com/org/repo"),
        ("ssh://git@github.com:22/org/repo.git", "github.com/org/repo"),
        ("https://user:s3cret-token@gitlab.example.com/group/sub/repo.git", "gitlab.example.com/group/sub/repo"),
        ("git://example.org/repo", "example.org/repo"),
        ("/srv/git/repo.git", "/srv/git/repo"),
        ("file:///srv/git/repo.git", "/srv/git/repo"),
        ("  ", ""),
    ],
)
def test_normalise_remote(url: str, key: str) -> None:
    assert normalise_remote(url) == key
    assert "s3cret" not in normalise_remote(url)  # credentials never reach a shared store


A = RepoIdentity("/home/a/api", first_commit="f" * 40, remote="github.com/o/api")


@pytest.mark.parametrize(
    ("current", "same"),
    [
        (RepoIdentity("/ci/runner/api", first_commit="f" * 40, remote="github.com/o/api"), True),  # a clone
        (RepoIdentity("/ci/shallow", remote="github.com/o/api"), True),  # shallow CI clone: remote only
        (RepoIdentity("/x", first_commit="f" * 40, remote="github.com/me/fork"), True),  # a fork: same history
        (RepoIdentity("/home/a/api", first_commit="e" * 40, remote="github.com/o/other"), False),  # same path
        (RepoIdentity("/y", first_commit="e" * 40), False),
        (RepoIdentity("/home/a/api", first_commit="f" * 40, remote="github.com/o/api", subdir="web"), False),
        (RepoIdentity("/home/a/api"), True),  # no git now, same path: the same tree
        (RepoIdentity("/elsewhere"), False),
    ],
)
def test_same_repository(current: RepoIdentity, same: bool) -> None:
    assert same_repository(A, current) is same


def test_check_binding_names_both_and_says_how_to_take_over() -> None:
    other = RepoIdentity("/home/b/other", first_commit="e" * 40, remote="github.com/o/other")
    with pytest.raises(NameTaken) as caught:
        check_binding("api", "postgresql://h/db", A, other, replace=False)
    text = as_agent(str(caught.value))
    for part in ("'api'", "/home/a/api", "github.com/o/api", "f" * 12, "/home/b/other", "github.com/o/other", "e" * 12):
        assert part in text
    assert "replace=true" in text and "--repo-name" in text and "Nothing was written" in text
    assert check_binding("api", "h", A, other, replace=True) == other
    assert check_binding("api", "h", None, other, replace=False) == other  # an unbound name adopts
    shallow = RepoIdentity("/ci/api", remote="github.com/o/api")
    assert check_binding("api", "h", shallow, A, replace=False) == RepoIdentity(
        "/home/a/api", first_commit="f" * 40, remote="github.com/o/api"
    )  # the binding learns what it lacked


@needs_git
def test_read_identity_of_real_checkouts(tmp_path: Path) -> None:
    origin = make_git_repo(tmp_path / "api", {"a.py": "x = 1\n", "web/b.py": "y = 2\n"}, remote=None)
    first = git(origin, "rev-list", "--max-parents=0", "HEAD")
    here = read_identity(origin, "1")
    assert here == RepoIdentity(os.path.realpath(origin), first_commit=first)
    clone = tmp_path / "ci" / "api"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    cloned = read_identity(clone, "1")
    assert cloned.first_commit == first and cloned.remote == normalise_remote(str(origin))
    assert same_repository(here, cloned)
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{origin}", str(shallow))
    cut = read_identity(shallow, "1")
    assert cut.first_commit == "" and cut.remote == normalise_remote(str(origin))  # no false first commit
    assert same_repository(cloned, cut)
    assert read_identity(clone / "web", "1").subdir == "web"
    assert not same_repository(cloned, read_identity(clone / "web", "1"))  # a monorepo's folder is its own
    plain = tmp_path / "plain"
    plain.mkdir()
    assert read_identity(plain) == RepoIdentity(os.path.realpath(plain))
