"""training/mine_commits.py on a small real git history: which commits become pairs, with which definitions."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _factories import open_service

from igraph_mcp.embed.text import text_hash

_PATH = Path(__file__).resolve().parents[1] / "training" / "mine_commits.py"
_spec = importlib.util.spec_from_file_location("mine_commits", _PATH)
assert _spec is not None and _spec.loader is not None
mc = importlib.util.module_from_spec(_spec)
sys.modules["mine_commits"] = mc  # dataclasses look their module up there
_spec.loader.exec_module(mc)

CORE_V1 = '''"""Core helpers."""


def alpha(items):
    total = 0
    for item in items:
        total += item
    return total


def beta(x):
    return x * 2


class Gamma:
    def __init__(self):
        self.n = 0

    def run(self, steps):
        for _ in range(steps):
            self.n += 1
        return self.n
'''

# The fix: a changed line in alpha (5), two lines inserted inside Gamma.run (after 20), a new function between
# beta and Gamma (inserted after 13: inside no definition, so it names none).
CORE_FIX = '''"""Core helpers."""


def alpha(items):
    total = 0.0
    for item in items:
        total += item
    return total


def beta(x):
    return x * 2


def delta(y):
    return y - 1


class Gamma:
    def __init__(self):
        self.n = 0

    def run(self, steps):
        for _ in range(steps):
            if self.n > 100:
                break
            self.n += 1
        return self.n
'''


class _Repo:
    """A throw-away repository whose commits get fixed, increasing dates."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.tick = 0
        self.env = {
            **os.environ,
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "Dev One",
            "GIT_AUTHOR_EMAIL": "dev@example.org",
            "GIT_COMMITTER_NAME": "Dev One",
            "GIT_COMMITTER_EMAIL": "dev@example.org",
        }
        self.git("init", "-q", "-b", "main")

    def git(self, *args: str, author: str = "") -> str:
        env = dict(self.env)
        self.tick += 1
        stamp = f"2024-01-01T00:{self.tick // 60:02d}:{self.tick % 60:02d}Z"
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = stamp
        if author:
            env["GIT_AUTHOR_NAME"] = author
        return subprocess.run(
            ["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True, env=env
        ).stdout.strip()

    def commit(self, message: str, files: dict[str, str], author: str = "") -> str:
        for rel, text in files.items():
            path = self.root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            self.git("add", rel)
        self.git("commit", "-q", "-m", message, author=author)
        return self.git("rev-parse", "HEAD")


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A history with one commit of each kind the miner tells apart; returns the repository and the commit ids."""
    r = _Repo(tmp_path_factory.mktemp("src"))
    ids: dict[str, str] = {}
    ids["root"] = r.commit(
        "Initial import of the project",
        {
            "pkg/core.py": CORE_V1,
            "pkg/__init__.py": '__version__ = "1.0"\n',
            "tests/test_core.py": "def test_alpha():\n    assert True\n",
            "vendor/lib.py": "def timeout():\n    return 1\n",
            "README.md": "# demo\n",
        },
    )
    ids["fix"] = r.commit(
        "Fix alpha overflow and runaway Gamma.run loops (#12)\n\n"
        "The loop in run never stopped on large inputs. Fixes #11\n\n"
        "Signed-off-by: Dev One <dev@example.org>\nCo-authored-by: Dev Two <two@example.org>\n",
        {"pkg/core.py": CORE_FIX},
    )
    ids["test_only"] = r.commit(
        "Add a test for alpha with negative numbers",
        {"tests/test_core.py": "def test_alpha():\n    assert True\n\n\ndef test_neg():\n    assert True\n"},
    )
    formatted = CORE_FIX.replace("return x * 2", "return x*2").replace('"""Core helpers."""', "'''Core helpers.'''")
    ids["formatting"] = r.commit("Tidy up the spacing and quoting in the core helpers", {"pkg/core.py": formatted})
    ids["release"] = r.commit("Release 1.1", {"pkg/__init__.py": '__version__ = "1.1"\n'})
    ids["version"] = r.commit(
        "Start the next development cycle of the package", {"pkg/__init__.py": '__version__ = "1.2.dev0"\n'}
    )
    ids["bot"] = r.commit(
        "Update alpha to use the new upstream API at last",
        {"pkg/core.py": formatted.replace("total = 0.0", "total = 0.5")},
        author="dependabot[bot]",
    )
    r.git("checkout", "-q", "-b", "feature")
    on_branch = formatted.replace("total = 0.0", "total = 0.5").replace("return x*2", "return x*3")
    ids["branch"] = r.commit("Make beta triple its input as the docs promise", {"pkg/core.py": on_branch})
    r.git("checkout", "-q", "main")
    r.git("merge", "-q", "--no-ff", "feature", "-m", "Merge branch 'feature'")
    ids["merge"] = r.git("rev-parse", "HEAD")
    ids["vendored"] = r.commit(
        "Teach the bundled lib to honour longer timeouts", {"vendor/lib.py": "def timeout():\n    return 30\n"}
    )
    ids["short"] = r.commit("fix alpha", {"pkg/core.py": on_branch.replace("total = 0.5", "total = 1")})
    r.git("mv", "pkg/core.py", "pkg/engine.py")
    r.git("commit", "-q", "-m", "Move the core module to engine for clarity")
    ids["rename"] = r.git("rev-parse", "HEAD")
    ids["docs"] = r.commit("Explain in the readme how the helpers are used", {"README.md": "# demo\n\nUse it.\n"})
    return r.root, ids


EXPECTED_FILTERED = {
    "root": 1,
    "merge": 1,
    "bot": 1,
    "release": 1,
    "short_message": 1,
    "no_source": 1,
    "rename_only": 1,
    "vendored": 1,
    "test_only": 1,
    "formatting_only": 1,
    "version_bump": 1,
}


def _mine(git_dir: Path, out: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    stats = mc.mine_repo(git_dir, "example/demo", out)
    rows = [json.loads(line) for line in (out / "example+demo.jsonl").read_text().splitlines()]
    return stats, rows


def _spans(row: dict[str, object]) -> list[tuple[object, ...]]:
    return [(f["path"], f["qualified_name"], f["kind"], f["start_line"], f["end_line"]) for f in row["functions"]]  # type: ignore[attr-defined, index]


def test_exactly_the_two_requests_become_pairs(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, ids = history
    stats, rows = _mine(root, tmp_path)
    assert stats["filtered"] == EXPECTED_FILTERED
    assert stats["commits"] == len(ids) and stats["kept"] == 2 and stats["with_functions"] == 2
    by_commit = {row["commit"]: row for row in rows}
    assert set(by_commit) == {ids["fix"], ids["branch"]}

    fix = by_commit[ids["fix"]]
    assert fix["parent"] == ids["root"]
    assert fix["query"] == (
        "Fix alpha overflow and runaway Gamma.run loops. The loop in run never stopped on large inputs."
    )
    assert fix["files"] == [{"path": "pkg/core.py", "parent_path": "pkg/core.py", "status": "M"}]
    # Spans are the parent's: Gamma.run at 19-22 of CORE_V1, not where the fix moved it; delta was new, so absent.
    assert _spans(fix) == [("pkg/core.py", "alpha", "function", 4, 8), ("pkg/core.py", "Gamma.run", "method", 19, 22)]
    assert fix["functions"][1]["code"].startswith("def run(self, steps):\n        for _ in range(steps):")  # type: ignore[index]
    assert fix["test_files"] == [] and fix["split"] == mc.split_of("example/demo")

    branch = by_commit[ids["branch"]]
    assert branch["parent"] == ids["bot"]
    assert _spans(branch) == [("pkg/core.py", "beta", "function", 11, 12)]
    assert branch["functions"][0]["code"] == "def beta(x):\n    return x*2"  # type: ignore[index]


def test_each_edited_definition_carries_the_text_the_index_embeds_for_it(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, ids = history
    _, rows = _mine(root, tmp_path / "mined")
    fix = next(row for row in rows if row["commit"] == ids["fix"])
    parent = tmp_path / "parent"
    parent.mkdir()
    archive = subprocess.run(["git", "-C", str(root), "archive", str(fix["parent"])], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(parent)], input=archive.stdout, check=True)
    with open_service(parent, index=True) as svc:
        stored = dict(
            svc.db.rows(
                "SELECT n.qualified_name, n.embed_hash FROM nodes n JOIN files f ON f.id = n.file_id WHERE f.path = ?",
                ("pkg/core.py",),
            )
        )
    functions = fix["functions"]
    assert [f["qualified_name"] for f in functions] == ["alpha", "Gamma.run"]  # type: ignore[index]
    for f in functions:  # type: ignore[attr-defined]
        assert f["text"].startswith(f"{f['kind']} {f['qualified_name']}")
        assert text_hash(f["text"]) == stored[f["qualified_name"]]


def test_a_bare_mirror_gives_the_same_pairs(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = history
    bare = tmp_path / "demo.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(root), str(bare)], check=True, capture_output=True)
    work_stats, work_rows = _mine(root, tmp_path / "work")
    bare_stats, bare_rows = _mine(bare, tmp_path / "bare")
    assert bare_rows == work_rows
    assert bare_stats == work_stats


def test_current_stats_are_reused_and_force_mines_again(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, _ = history
    _mine(root, tmp_path)
    out = tmp_path / "example+demo.jsonl"
    out.write_text("")  # a resumed run does not touch a repository whose stats match its HEAD
    assert mc.mine_repo(root, "example/demo", tmp_path)["kept"] == 2 and out.read_text() == ""
    mc.mine_repo(root, "example/demo", tmp_path, force=True)
    assert len(out.read_text().splitlines()) == 2


def test_max_commits_reads_the_newest_only(history: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    root, ids = history
    stats = mc.mine_repo(root, "example/demo", tmp_path, max_commits=3)
    assert stats["commits"] == 3 and stats["newest"] == ids["docs"] and stats["oldest"] == ids["short"]
    assert stats["filtered"] == {"no_source": 1, "rename_only": 1, "short_message": 1}


@pytest.mark.parametrize(
    "repo",
    [
        "django/django",
        "someone/django",  # a fork keeps the name
        "sympy/sympy",
        "sphinx-doc/sphinx",
        "pydata/xarray",
        "astropy/astropy",
        "pytest-dev/pytest",
        "pytest-dev/pytest-cov",
        "pylint-dev/pylint",
        "pylint-dev/astroid",
        "psf/requests",
        "mwaskom/seaborn",
        "matplotlib/matplotlib",
        "scikit-learn/scikit-learn",
        "pallets/click",
        "pallets/jinja",
        "pallets-eco/flask-sqlalchemy",
        "Textualize/rich",
        "Textualize/textual",
        "expressjs/express",
        "koajs/koa",
        "gin-gonic/gin",
        "spf13/cobra",
        "colinhacks/zod",
        "encode/httpx",
        "marshmallow-code/marshmallow",
        "arrow-py/arrow",
        "psf/black",  # in packages.txt, the docstring set
        "sqlalchemy/sqlalchemy",
        "aio-libs/aiohttp",
        "pypa/pip",
        # Reserved by other-language benchmarks (issue 31), forks by name too.
        "BurntSushi/ripgrep",
        "sharkdp/bat",
        "sharkdp/fd",
        "tokio-rs/tokio",
        "tokio-rs/tracing",
        "tokio-rs/bytes",
        "axios/axios",
        "iamkun/dayjs",
        "anuraghazra/github-readme-stats",
        "google/gson",
        "FasterXML/jackson-core",
        "FasterXML/jackson-databind",
        "FasterXML/jackson-dataformat-xml",
        "mockito/mockito",
        "grpc/grpc-go",
        "zeromicro/go-zero",
        "darkreader/darkreader",
        "Kong/insomnia",
        "jqlang/jq",
        "fmtlib/fmt",
        "someone/Mockito",
        "fastify/fastify",
        "trpc/trpc",
        "not-a-repo",
    ],
)
def test_forbidden_repositories_are_refused(repo: str, tmp_path: Path) -> None:
    assert mc.refusal(repo) is not None
    with pytest.raises(SystemExit):
        mc.mine_repo(tmp_path, repo, tmp_path)  # refused before git is asked anything
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("repo", ["pydantic/pydantic", "vuejs/core", "BurntSushi/toml", "serde-rs/json", "cli/cli"])
def test_other_repositories_are_allowed(repo: str) -> None:
    assert mc.refusal(repo) is None


def test_a_list_with_one_forbidden_entry_is_refused_whole(tmp_path: Path) -> None:
    listing = tmp_path / "repos.txt"
    listing.write_text("# comment\npydantic/pydantic\ndjango/django\n")
    with pytest.raises(SystemExit, match="django"):
        mc.listed_repos(listing)


def test_the_committed_list_is_allowed_and_unique() -> None:
    repos = mc.listed_repos()
    assert len(repos) >= 150
    assert len({r.lower() for r in repos}) == len(repos)


@pytest.mark.parametrize(
    ("message", "subject", "body"),
    [
        ("Fix crash on empty config (#123)", "Fix crash on empty config", ""),
        ("fix(parser): handle tabs in indentation", "parser: handle tabs in indentation", ""),
        ("feat: add a --quiet flag\n\nCloses #4", "add a --quiet flag", ""),
        (":bug: Keep the cache across reloads", "Keep the cache across reloads", ""),
        ("Handle gh-99 and owner/repo#7 refs\n\nSee https://github.com/a/b/issues/3 too", "Handle and refs", "See too"),
        (
            "Support X\n\n* Support X\n* tweak\n\n---------\n\nCo-authored-by: A <a@b>",
            "Support X",
            "* Support X * tweak",
        ),
        ("Add Y\n\nWhy it matters.\n\n## Checklist\n- [x] tests", "Add Y", "Why it matters."),
        ("[ie/foo] Fix login\n\nAuthored by: someone", "[ie/foo] Fix login", ""),
    ],
)
def test_clean_message(message: str, subject: str, body: str) -> None:
    assert mc.clean_message(message) == (subject, body)


@pytest.mark.parametrize(
    ("subject", "author", "reason"),
    [
        ("Bump lodash from 4.17.20 to 4.17.21", "dependabot[bot]", "bot"),
        ("Bump version to 2.0", "Dev", "release"),
        ("v2.3.1", "Dev", "release"),
        ("chore(deps): update all dependencies now please", "Dev", "not_request"),
        ("Merge pull request #5 from a/b", "Dev", "not_request"),
        ('Revert "Add caching of the parsed files"', "Dev", "not_request"),
        ("Fix typo", "Dev", "not_request"),
        ("Fix crash", "Dev", "short_message"),
        ("Fix the crash when the config file is empty", "Dev", None),
    ],
)
def test_message_filter(subject: str, author: str, reason: str | None) -> None:
    clean_subject, body = mc.clean_message(subject)
    assert mc.message_filter(clean_subject, body, author, subject) == reason


def test_split_is_by_repository_and_stable() -> None:
    splits = {repo: mc.split_of(repo) for repo in mc.listed_repos()}
    assert set(splits.values()) == {"train", "heldout"}
    assert mc.split_of("example/demo") == mc.split_of("Example/Demo")


def test_a_commit_whose_blob_the_mirror_lacks_is_counted_and_the_rest_still_mined(
    history: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    root, ids = history
    copy = tmp_path / "lacking"
    shutil.copytree(root, copy)
    blob = subprocess.run(
        ["git", "-C", str(copy), "rev-parse", f"{ids['vendored']}:vendor/lib.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (copy / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # fetch leaves out blobs of 4 MiB and more
    stats, rows = _mine(copy, tmp_path / "out")
    assert stats["filtered"] == {**{k: v for k, v in EXPECTED_FILTERED.items() if k != "vendored"}, "missing_blob": 1}
    assert sorted(row["commit"] for row in rows) == sorted([ids["fix"], ids["branch"]])


def test_the_snapshot_plan_holds_only_mined_unrefused_repositories_with_their_split() -> None:
    # snapshots.tsv is what the ranker was trained on: no benchmark project, docstring package or fork of one.
    plan = [line.split("\t") for line in (_PATH.parent / "snapshots.tsv").read_text().splitlines()[1:] if line]
    listed = set(mc.listed_repos())
    assert plan and all(mc.refusal(row[0]) is None and row[0] in listed for row in plan)
    assert all(row[1] == mc.split_of(row[0]) for row in plan)  # held out by repository, as the miner splits
    assert len({row[0] for row in plan}) == len(plan)
